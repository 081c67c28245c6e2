"""paiju: AI toolkit for Chinese card and tile games."""
__version__ = "0.1.0"
