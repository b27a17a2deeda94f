"""lanmatch: Color Match and Dominoes for friends on the same network."""

__version__ = "0.1.0"
