"""Game-agnostic search and learning algorithms; they import ``paiju.core`` and never a game."""
