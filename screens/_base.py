"""What the screens may use of the workstation app, and what every screen shares.

The contract between ``screens/`` and ``qcstation/app.py``: screens import this module
(and ``screens.dialogs``), never the app and never one another. What they need of the app
is :class:`Workstation`, a narrow interface the app implements: the database path and a
store opener for worker threads (each thread's connection, kept between its tasks), the
configuration and its ``[qc]`` settings, the acting account and its rights, the QC gate and
status counts (which the app may run in a child process on a very large database), error
reporting, and navigation by screen name
(:meth:`Workstation.open_screen`; each screen's name and class are one entry of
:data:`SCREENS`). Dialogs (every ``ModalScreen``) live in ``screens/dialogs`` and are imported where
they are shown: they are leaves that import nothing of the screens.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from textual import events, on
from textual.message import Message
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.worker import Worker, WorkerState

if TYPE_CHECKING:
    from db import Store
    from qcstation.common.config import Config, QCConfig
    from qcstation.core.review.gate import GateStatus

#: the full screens: the name a screen opens one with (``qc_app.open_screen(name, ...)``)
#: and where it is built from (``module:Class``, imported when first opened, so starting the
#: app loads only the dashboard). A new screen is its module and one line here.
SCREENS: dict[str, str] = {
    "dashboard": "screens.dashboard:DashboardScreen",
    "review": "screens.review:ReviewScreen",
    "queue": "screens.queue:QueueScreen",
    "releases": "screens.releases:ReleasesScreen",
    "runs": "screens.runs:RunsScreen",
    "results": "screens.results:ResultsScreen",
    "charts": "screens.charts:ChartsScreen",
    "side_by_side": "screens.side_by_side:SideBySideScreen",
    "robustness": "screens.robustness:RobustnessScreen",
}


class ReadCancelled(Exception):
    """The worker waiting for a child-process read was cancelled (the child was killed)."""


class Workstation(Protocol):
    """What a screen may use of the app (``QCScreen.qc_app``); the app implements it."""

    db_path: Path
    config: Config
    #: the person acting: the OS account (claims, decisions and rights key on it)
    annotator: str
    #: the name shown beside the account; grants nothing
    display_name: str

    @property
    def settings(self) -> QCConfig:
        """The ``[qc]`` section of the configuration."""

    @property
    def is_curator(self) -> bool:
        """May the acting account approve releases and settle items?"""

    def open_store(self) -> Store:
        """The calling thread's connection (call it inside a worker, in a ``with`` block):
        kept by the thread for its next tasks, used by no other thread."""

    def evaluate_gate(self, store: Store, dimension: str, scope: str = "") -> GateStatus:
        """The QC gate of ``dimension`` with the configured threshold, of the working set or
        of the derived set ``scope`` (worker threads only)."""

    def read_counts(self, store: Store) -> dict[str, Any]:
        """Seeds per source/status and current artifacts per dimension/status."""

    def release_claim_later(self, item_id: int) -> None:
        """Give back an item held without deciding (in the background)."""

    def show_error(self, error: BaseException, context: str = "") -> None:
        """Show an error as a dialog or a notification, as its kind calls for."""

    def open_screen(self, name: str, *args: Any, **kwargs: Any) -> None:
        """Push a new instance of the screen registered as ``name`` (one of
        :data:`SCREENS`), built with ``args`` and ``kwargs``."""


class QCScreen(Screen[None]):
    """A full screen of the workstation. Subclasses start thread workers that open their
    own store (``self.qc_app.open_store()``) and post messages; errors end up here."""

    _shown_before = False
    #: where a paste is taken on this screen, said when one is ignored (no text field has the
    #: focus): walk9, the notice named the review screen's fields on every screen
    PASTE_HINT = "Nothing on this screen takes text."

    @property
    def qc_app(self) -> Workstation:
        return cast("Workstation", self.app)

    def on_paste(self, event: events.Paste) -> None:
        """A paste no text field took (none has the focus: a bracketed paste comes as one
        ``Paste``, which the screen's other widgets pass on) is told as the driver tells a
        paste that came as keys (:class:`qcstation.driver.IgnoredPaste`): walked on the
        review screen, a bracketed paste was dropped without a word."""
        event.stop()
        if event.text:
            from qcstation.driver import IgnoredPaste

            self.app.post_message(IgnoredPaste(len(event.text)))

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        """The first show does not restyle the whole screen: each widget was styled as it
        was mounted, a moment before (Textual restyles every node of a screen on each resume,
        ~10 ms of CPU of the dashboard's first frame). Later resumes restyle as Textual does
        (a theme or a class may have changed meanwhile). Runs before ``Screen``'s handler."""
        if not self._shown_before:
            self._shown_before = True
            event.refresh_styles = False

    async def _on_resize(self, event: events.Resize) -> None:
        """A resize to the size every screen was last laid out at lays nothing out again.
        A screen's first layout sends the screen a resize of the size it just laid out, and
        Textual's handler laid it and the screens under it out once more (a second layout and
        repaint of each first frame: 9-13 ms of CPU at 80x24). Runs after a subclass's
        ``on_resize`` and before ``Screen``'s, which it then skips (the app sets no
        breakpoints, the only other thing that handler does)."""
        app = self.app
        if (event.size == self._compositor.size
                and all(s._compositor.size == event.size for s in app._background_screens)
                and not (app.HORIZONTAL_BREAKPOINTS or app.VERTICAL_BREAKPOINTS
                         or self.HORIZONTAL_BREAKPOINTS or self.VERTICAL_BREAKPOINTS)):
            event.stop()
            event.prevent_default()

    @on(Worker.StateChanged)
    def _route_worker_error(self, event: Worker.StateChanged) -> None:
        """One place for worker failures (H ``app.py::handle_worker_error``)."""
        if event.state != WorkerState.ERROR or event.worker.error is None:
            return
        self.worker_failed(event.worker)
        if isinstance(event.worker.error, ReadCancelled):
            return  # we cancelled it on purpose (the screen was left)
        self.qc_app.show_error(event.worker.error, event.worker.description or event.worker.name)

    def worker_failed(self, worker: Worker[object]) -> None:
        """Hook: reset busy state after a failed worker (default: nothing)."""


class HeldMessages(Message):
    """Messages :class:`HeldPosts` held, posted as one: the target handles them in one
    handler call, so they are shown in one layout and paint (posted one by one, the screen's
    refresh could come between two of them: two layouts of the screen, on a loaded machine
    often three)."""

    def __init__(self, messages: list[Message]) -> None:
        super().__init__()
        self.messages = messages


class HeldPosts:
    """Messages a worker thread posts to ``target`` a few at a time: each is held until
    ``within`` seconds have passed since the first one held (or :meth:`flush`), then all
    held are posted together, as one :class:`HeldMessages` (a single one as itself). The
    parts of a load read within that time are shown in one layout of the screen, not one
    layout each; a slow read never hides the parts read before it for longer than
    ``within`` (a timer thread posts them meanwhile)."""

    def __init__(self, target: MessagePump, within: float) -> None:
        self.target = target
        self.within = within
        self._held: list[Message] = []
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def __call__(self, message: Message) -> None:
        with self._lock:
            self._held.append(message)
            if self._timer is None:
                self._timer = threading.Timer(self.within, self.flush)
                self._timer.daemon = True
                self._timer.start()

    def flush(self, *, post: bool = True) -> None:
        """Post every message held, in order (``post=False``: drop them: a cancelled load's
        parts must not arrive after a newer load's)."""
        with self._lock:
            held, self._held = self._held, []
            timer, self._timer = self._timer, None
            if post and held:
                self.target.post_message(held[0] if len(held) == 1 else HeldMessages(held))
        if timer is not None:
            timer.cancel()
