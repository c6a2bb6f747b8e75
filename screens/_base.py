"""What every workstation screen shares: access to the app's context, worker error routing."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import on
from textual.screen import Screen
from textual.worker import Worker, WorkerState

if TYPE_CHECKING:
    from qcstation.app import QCStationApp


class QCScreen(Screen[None]):
    """A full screen of the workstation. Subclasses start thread workers that open their
    own store (``self.qc_app.open_store()``) and post messages; errors end up here."""

    @property
    def qc_app(self) -> QCStationApp:
        return cast("QCStationApp", self.app)

    @on(Worker.StateChanged)
    def _route_worker_error(self, event: Worker.StateChanged) -> None:
        """One place for worker failures (H ``app.py::handle_worker_error``)."""
        if event.state != WorkerState.ERROR or event.worker.error is None:
            return
        from qcstation.app import ReadCancelled

        self.worker_failed(event.worker)
        if isinstance(event.worker.error, ReadCancelled):
            return  # we cancelled it on purpose (the screen was left)
        self.qc_app.show_error(event.worker.error, event.worker.description or event.worker.name)

    def worker_failed(self, worker: Worker[object]) -> None:
        """Hook: reset busy state after a failed worker (default: nothing)."""
