"""Data: card artwork, rendered scenes and real photos made into the training and check sets."""
