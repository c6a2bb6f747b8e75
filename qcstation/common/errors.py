"""Domain errors. Every error a user must read derives from QCStationError."""

from __future__ import annotations

import errno


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


def file_size_limit() -> int | None:
    """This process's file-size limit in bytes (RLIMIT_FSIZE, ``ulimit -f``), None when unlimited.
    Python ignores SIGXFSZ, so a write past it fails with EFBIG ('File too large') or, in
    SQLite, a short write reported as a full disk or an I/O error."""
    try:
        import resource
    except ImportError:     # not on POSIX
        return None
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return None if soft == resource.RLIM_INFINITY else int(soft)


def os_reason(exc: OSError) -> str:
    """Why a file operation failed, as a user reads it: the system's words, and for a file
    grown past this process's file-size limit the limit itself (the system says only
    'File too large')."""
    text = exc.strerror or str(exc)
    limit = file_size_limit() if exc.errno == errno.EFBIG else None
    if limit is not None:
        return (f"{text}: this process may write files of at most {limit:,} bytes (its file-size "
                "limit, `ulimit -f`; raise it with ulimit -f unlimited)")
    return text
