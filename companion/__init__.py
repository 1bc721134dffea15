"""Card Companion: a referee and score keeper for card games played with a real poker deck."""

__version__ = "0.1.0"
