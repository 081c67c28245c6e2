"""The error taxonomy shared by every game and tool in paiju.

All bad-input errors are ``ValueError`` subclasses so callers that only know "bad input" can catch one type,
while tools that care (the CLI, the web app) can tell syntax from legality from corruption.
Messages always carry the offending input and, where there is one, the state it met.
"""

from __future__ import annotations


class PaijuError(ValueError):
    """Base class of every error paiju raises on bad input."""

    field: str | None = None
    """The request field at fault, when an HTTP request's input caused it (set by the web app)."""


class InvalidNotationError(PaijuError):
    """A string is not valid notation (unknown character, too many of a rank, bad tile...)."""


class IllegalMoveError(PaijuError):
    """A well-formed move that is not legal in the state it was applied to."""


class AmbiguousMoveError(PaijuError):
    """A card set with more than one reading (e.g. ``33334444``) and no declared type."""


class CorruptRecordError(PaijuError):
    """A record, checkpoint or data file that cannot be read; the message names the file."""


class ConfigError(PaijuError):
    """A wrong configuration value or agent specification."""


class NotFoundError(PaijuError):
    """An id or name (a game, a recorded run, a report file) that names nothing there is."""


class WorkCancelled(Exception):
    """A computation stopped before it finished: it was cancelled (its client went away, the
    server is stopping) or ran past its deadline (:mod:`paiju.core.deadline`).

    Not bad input, so deliberately not a :class:`PaijuError`: code that catches ``ValueError``
    around a move or a parse never swallows a cancellation.
    """


class DeadlineExceeded(WorkCancelled):
    """A computation ran past its time limit (:mod:`paiju.core.deadline`)."""
