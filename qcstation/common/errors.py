"""Domain errors. Every error a user must read derives from QCStationError."""

from __future__ import annotations


class QCStationError(Exception):
    """Base class: ``str(err)`` is the message a user reads; ``title`` a short heading."""

    def __init__(self, message: str, title: str = "") -> None:
        super().__init__(message)
        self.title = title or type(self).__name__


class StoreError(QCStationError):
    pass


class ImportFormatError(QCStationError):
    pass


class ConfigError(QCStationError):
    pass


class VerificationError(QCStationError):
    pass


class GenerationError(QCStationError):
    pass


class ModelAccessError(QCStationError):
    pass


class ReviewError(QCStationError):
    pass


class ItemMovedOn(ReviewError):
    """A decision refused because its item moved on elsewhere meanwhile (decided, replaced,
    its sample closed, claimed by someone else): not a mistake to correct; the review step
    (:mod:`qcstation.core.review.step`) reports it as an outcome and shows the next item."""


class ReleaseError(QCStationError):
    pass


class SearchError(QCStationError):
    """A full-text search that cannot run (empty, or not valid FTS5 query syntax)."""
