"""Project-drawn cards and synthetic table recordings: test and training material with no third-party art."""
