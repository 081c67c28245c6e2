"""The ``paiju`` command line (Typer + Rich): one sub-app per game and per tool."""
