"""The qcstation workstation: QC review over SSH, sampling gate, curator-approved releases.

``qcstation`` with no subcommand calls :func:`run_app`. Tests and benchmarks build
the app with :func:`make_app` and drive it headless with ``app.run_test()``.

Threading model (STYLE.md §3): every database or generation call runs in a thread
worker that opens its own :class:`db.Store` on ``app.db_path`` (a sqlite connection
belongs to the thread that made it), calls a pure core function and posts a message
from :mod:`qcstation.messages`; the screens' handlers own all UI state.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import sys
import threading
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen, Screen
from textual.worker import Worker, WorkerState, get_current_worker

from db import Store
from db.store import storage_message
from qcstation.common.safe import one_line, printable
from qcstation.common.errors import QCStationError, StoreError
from screens._base import SCREENS, ReadCancelled
from screens.dashboard import DashboardScreen
from screens.dialogs.error import ErrorModal
from screens.dialogs.help import HelpScreen

if TYPE_CHECKING:
    from textual.driver import Driver

    from qcstation.driver import IgnoredPaste, KeyHandled
    from qcstation.common.config import Config, QCConfig
    from qcstation.core.review.gate import GateStatus


#: From this many artifact rows up, heavy read-only work (QC gates, counts) runs in a
#: child process so it cannot starve the UI thread. The gate and the counts are SQL
#: aggregates (SQLite releases the GIL while it works; about 0.2 s at 100k seeds, see
#: bench/qc_bench.py), so only very large databases need it; a child process costs an
#: interpreter start (about half a second).
#: from this many artifacts up, the QC gate and the dashboard's counts are read in a child
#: process. They read the counts the database keeps as rows are written (migration 10), fast
#: at any size, so by default never (None): a child process costs more (Python, the imports)
#: than the read. The path stays for a heavier read, and is tested.
SUBPROCESS_READS_FROM_ARTIFACTS: int | None = None

_READ_SCRIPT = """
import importlib, json, sys
from db import Store
module, name = sys.argv[1].split(":")
func = getattr(importlib.import_module(module), name)
with Store(sys.argv[2]) as store:
    result = func(store, *json.loads(sys.argv[3]), **json.loads(sys.argv[4]))
to_dict = getattr(result, "to_dict", None)
json.dump(to_dict() if callable(to_dict) else result, sys.stdout, default=str)
"""


def read_in_subprocess(target: str, db_path: Path, *args: Any,
                       cancelled: Callable[[], bool] | None = None, **kwargs: Any) -> Any:
    """Run ``target(store, *args, **kwargs)`` (``"package.module:function"``, one of ours)
    on ``db_path`` in a fresh interpreter with its own GIL; return its result as JSON data
    (``to_dict()`` for dataclasses). ``cancelled`` is polled while waiting; when it says so
    the child is killed and :class:`ReadCancelled` raised."""
    import json
    import os
    import subprocess
    import tempfile

    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    command = [sys.executable, "-c", _READ_SCRIPT, target, str(db_path), json.dumps(args),
               json.dumps(kwargs)]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(command, stdout=out, stderr=err, text=True, env=env)
        while True:
            try:
                proc.wait(timeout=0.05)
                break
            except subprocess.TimeoutExpired:
                if cancelled is not None and cancelled():
                    proc.kill()
                    proc.wait()
                    raise ReadCancelled(target) from None
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode != 0:
        lines = stderr.strip().splitlines()
        last = lines[-1] if lines else f"exit code {proc.returncode}"
        raise QCStationError(f"{target.split(':')[-1]} failed in a child process: {last}",
                             title="Reading the database failed")
    return json.loads(stdout)


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker now, while ``sys.stderr`` is the real one.

    Worker processes (the Z3 verifier pool, the answer checker's pool) need it, and it
    starts on first use by passing ``sys.stderr.fileno()`` to the new process. Inside a
    running Textual app ``sys.stderr`` is Textual's capture, whose ``fileno()`` is -1, so
    starting it there fails with "bad value(s) in fds_to_keep" (an evaluation run started
    from the app could not be scored). Idempotent and best effort."""
    with contextlib.suppress(Exception):
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()


@dataclass
class _ErrorRoute:
    title: str
    header: str
    detail: str
    modal: bool
    extra: list[str] = field(default_factory=list)


def describe_error(error: BaseException, context: str, db_path: Path | None = None) -> _ErrorRoute:
    """How to show an error: domain errors and unexpected ones in a modal (a user must
    read them); a busy database as a transient notification; a storage fault (read-only,
    full disk, damaged file) as one line saying what is wrong and what to do, without a
    traceback."""
    if isinstance(error, StoreError) and error.title == "Database busy":
        return _ErrorRoute("Database busy", context, str(error), modal=False)
    if isinstance(error, QCStationError):
        return _ErrorRoute(error.title, context, str(error), modal=True)
    if isinstance(error, sqlite3.OperationalError) and (
            "locked" in str(error) or "busy" in str(error)):
        return _ErrorRoute("Database busy", context,
                           f"{error}: another session held the write lock for longer than the "
                           "busy timeout; nothing was lost, try again.", modal=False)
    if isinstance(error, sqlite3.Error):
        return _ErrorRoute("Database problem", context,
                           storage_message(error, db_path or Path("the database")), modal=True)
    detail = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    return _ErrorRoute(f"Unexpected error: {type(error).__name__}", context,
                       f"{error}\n\n{detail}", modal=True)


class QCStationApp(App[int]):
    """Review QC samples, watch the gates, approve releases."""

    CSS_PATH = ["app.tcss"]
    TITLE = "qcstation"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("q", "quit", "Quit", show=False, id="quit"),
        Binding("ctrl+q", "quit_asking", "Quit", show=False, priority=True, id="force-quit"),
        Binding("f1", "help", "Help", id="help"),
        Binding("question_mark", "help", "Help", show=False, id="help-alt"),
        Binding("ctrl+p", "command_palette", "Menu",
                tooltip="Command palette: every action by name", id="command-palette"),
    ]

    def __init__(self, db_path: Path, *, config: Config, account: str, display_name: str,
                 review: str | None = None) -> None:
        super().__init__()
        self.db_path = Path(db_path)
        self.start_review = review
        self.subprocess_reads_from: int | None = SUBPROCESS_READS_FROM_ARTIFACTS
        self._thread_stores = threading.local()     # each worker thread's Store (open_store)
        self._large_db: bool | None = None
        self.config = config
        #: the person: the OS account (claims, decisions and rights key on it)
        self.annotator = account
        #: the name shown beside the account (``--annotator``); grants nothing
        self.display_name = display_name
        #: quitting waits for work to stop (a derive's batch): action_force_quit
        self.stopping = False
        from qcstation.common.identity import Identity

        who = Identity(account, display_name).label()
        self.sub_title = (f"{one_line(self.db_path.name, 40)} · {one_line(who, 60)}"
                          + (" · curator" if self.is_curator else ""))
        start_resource_tracker()

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver, except on a Linux or macOS terminal: there the one that takes
        keys arriving together as a paste (:mod:`qcstation.driver`)."""
        driver = super().get_driver_class()
        from textual.drivers.linux_driver import LinuxDriver

        if driver is LinuxDriver:
            from qcstation.driver import chunking_driver_class

            return chunking_driver_class()
        return driver

    def on_key_handled(self, message: KeyHandled) -> None:
        """A key typed ahead was posted before this (:class:`qcstation.driver.KeyHandled`):
        sent on where the key went, it comes back here once the key is handled, which lets
        the driver post the next key."""
        if message.sent_on:
            message.done.set()
            return
        message.sent_on = True
        target = self.focused or self.screen
        if not target.post_message(message):
            message.done.set()

    def on_ignored_paste(self, message: IgnoredPaste) -> None:
        """One notice for one paste: a long paste comes in many reads (and is split where a
        sequence in it is not a key), each dropped on its own; walked in tmux, 50 KB made a
        stack of notices of 654, 1,249 and 158 characters. A part that comes while the
        paste's notice still shows adds to it."""
        from textual.notifications import Notification

        shown = getattr(self, "_ignored_paste_notice", None)
        total = message.characters
        if shown is not None and shown[0] in self._notifications:
            total += shown[1]
            self._unnotify(shown[0])
        # where this screen takes a paste (a dialog: its text fields, reached with Tab)
        hint = getattr(self.screen, "PASTE_HINT", None)
        if not isinstance(hint, str):
            hint = "Paste where you type: Tab moves to this dialog's text field."
        notice = Notification(
            f"A paste of {total:,} characters was ignored: no text field has the focus, and "
            f"pasted characters never act as keys. {hint}", "Paste ignored", "warning",
            self.NOTIFICATION_TIMEOUT, markup=False)
        self._ignored_paste_notice = (notice, total)
        self._notifications.add(notice)       # at once: the next part finds it shown
        self._refresh_notifications()

    @property
    def settings(self) -> QCConfig:
        """The ``[qc]`` section of the configuration."""
        return self.config.qc

    @property
    def is_curator(self) -> bool:
        from qcstation.common.identity import is_curator

        return is_curator(self.annotator, self.settings.curators)

    # -- lifecycle -----------------------------------------------------------------
    def on_mount(self) -> None:
        self._add_model_made_reasoning()
        self.open_screen("dashboard")
        if self.start_review is not None:
            self.open_screen("review", self.start_review or None)

    def _add_model_made_reasoning(self) -> None:
        """Reasoning joins the QC dimensions once a model made a Reasoning artifact (Z3 checks
        its value, not its meaning): one indexed read (queries.qc_dimensions)."""
        from qcstation.core.review.queries import qc_dimensions

        qc = self.config.qc
        try:
            with Store(self.db_path) as store:
                qc.dimensions = list(qc_dimensions(store, qc.dimensions, qc.sample_model_reasoning))
        except (QCStationError, sqlite3.Error, OSError):
            pass   # a database the dashboard reports on when it opens it

    def open_screen(self, name: str, *args: Any, **kwargs: Any) -> None:
        """Push a new instance of the screen registered as ``name``, built with ``args``."""
        import importlib

        if name not in SCREENS:
            raise KeyError(f"no screen named {name!r}")
        module, cls = SCREENS[name].split(":")
        self.push_screen(getattr(importlib.import_module(module), cls)(*args, **kwargs))

    def open_store(self) -> Store:
        """The calling thread's connection (call it inside a worker): made on the thread's
        first call and kept for its next ones. Thread workers run on the event loop's pool
        of threads, so a screen's loads and keys reuse a few connections instead of opening
        one each (~7 ms of CPU apiece: the set-up and SQLite's parse of the schema). A
        connection is only ever used by the thread that made it (``threading.local``), one
        task at a time; ``with`` releases it (:meth:`Store.release`) rather than closing
        it, and it closes when its thread ends or the app is gone."""
        store: Store | None = getattr(self._thread_stores, "store", None)
        if store is None or store.closed:
            store = Store(self.db_path)
            store.kept = True
            self._thread_stores.store = store
        store.display_name = self.display_name
        return store

    def _offload(self, store: Store) -> bool:
        """Is the database large enough for heavy reads to go to a child process?"""
        if self.subprocess_reads_from is None:
            return False
        if self._large_db is None:
            count = int(store.scalar("SELECT COUNT(*) FROM artifacts") or 0)
            self._large_db = count >= self.subprocess_reads_from
        return self._large_db

    def evaluate_gate(self, store: Store, dimension: str, scope: str = "") -> GateStatus:
        """The QC gate (``qcstation.core.review.gate.gate``) with the configured threshold, of
        the working set or of the derived set ``scope``. Call it from a worker thread.

        The gate is SQL aggregates (the GIL is released while SQLite works); on a very
        large database (from :data:`SUBPROCESS_READS_FROM_ARTIFACTS` artifacts up) it still
        runs in a child process so the UI never waits for it."""
        import dataclasses

        from qcstation.core.review import gate

        settings = self.settings
        if not self._offload(store):
            return gate.gate(store, dimension, threshold=settings.defect_threshold,
                             confidence=settings.confidence, scope=scope)
        worker = get_current_worker()
        data = read_in_subprocess("qcstation.core.review.gate:gate", self.db_path, dimension,
                                  threshold=settings.defect_threshold,
                                  confidence=settings.confidence, scope=scope,
                                  cancelled=lambda: worker.is_cancelled)
        names = {f.name for f in dataclasses.fields(gate.GateStatus)}
        return gate.GateStatus(**{k: v for k, v in data.items() if k in names})

    def read_counts(self, store: Store) -> dict[str, Any]:
        """Seeds per source/status and current artifacts per dimension/status
        (``status_counts``), in a child process on a large database. Worker threads only."""
        from qcstation.core.review.status import status_counts

        if not self._offload(store):
            return status_counts(store)
        worker = get_current_worker()
        counts: dict[str, Any] = read_in_subprocess(
            "qcstation.core.review.status:status_counts", self.db_path,
            cancelled=lambda: worker.is_cancelled)
        return counts

    def release_claim_later(self, item_id: int) -> None:
        """Give back an item the annotator held without deciding (leaving the review
        screen), so a colleague need not wait for the claim to expire."""
        self._release_claim(item_id)

    @work(thread=True, exit_on_error=False, group="claims",
          description="Giving back the item you held")
    def _release_claim(self, item_id: int) -> None:
        from qcstation.core.review.decisions import release_claim

        with self.open_store() as store:
            release_claim(store, item_id, self.annotator)

    def action_help_quit(self) -> None:
        """Ctrl+C no longer quits: say how to, in plain words (notifications show no markup);
        in review, on the notice line rather than over the item."""
        notice = getattr(self.screen, "_notice", None)
        if callable(notice):
            notice("Press q (or ctrl+q) to quit the app.")
            return
        self.notify("Press q (or ctrl+q) to quit the app.", title="Do you want to quit?")

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Notifications carry reviewers' reasons, model text and error messages: never
        parse them as console markup (a stray ``[`` must not garble or raise), and show their
        control characters escaped (:mod:`qcstation.common.safe`)."""
        super().notify(printable(message), title=one_line(title), severity=severity,
                       timeout=timeout, markup=False)

    # -- errors (STYLE.md §6) --------------------------------------------------------
    @on(Worker.StateChanged)
    def _route_worker_error(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None \
                and not isinstance(event.worker.error, ReadCancelled):
            self.show_error(event.worker.error, event.worker.description or event.worker.name)

    def show_error(self, error: BaseException, context: str = "") -> None:
        route = describe_error(error, context, self.db_path)
        if route.modal:
            self.push_screen(ErrorModal(one_line(route.title), one_line(route.header),
                                        printable(route.detail)))
        else:
            self.notify(route.detail, title=route.title, severity="error", timeout=8)

    # -- actions -------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "quit" and isinstance(self.screen, ModalScreen):
            return False  # a stray `q` in a dialog must not end the session (ctrl+q still does)
        return True

    def work_going(self) -> str | None:
        """What long work this session is doing that quitting would stop (an evaluation run,
        a derive, a regeneration), in words; None when nothing is."""
        for screen in self.screen_stack:
            run = getattr(screen, "active_run", None)
            if run is not None:
                return f"Evaluation run #{run} is going on"
            busy = getattr(screen, "busy_note", None)
            if isinstance(busy, str) and busy.startswith(("Deriving", "Regenerating")):
                return busy.split("…")[0] + " is going on"
        return None

    async def action_quit(self) -> None:
        """``q``: with a run, a derive or a regeneration going on, asks first (as Ctrl+C
        says how to quit rather than quitting); with nothing going on, quits."""
        going = self.work_going()
        if going is None:
            await self.action_force_quit()
            return
        from screens.dialogs.confirm import ConfirmModal

        def answered(yes: bool | None) -> None:
            if yes:
                self.call_later(self.action_force_quit)

        question = ConfirmModal(
            "Quit?", f"{going}. Quitting stops it after the requests in flight; what is "
                     "stored stays, and it resumes later.\n\ny (or ctrl+q): quit · n: stay")
        question.quit_question = True      # type: ignore[attr-defined]
        self.push_screen(question, callback=answered)

    async def action_quit_asking(self) -> None:
        """``ctrl+q``, in any screen or dialog: as ``q`` (asks first while a run, a derive or
        a regeneration is going on: walked mid-run, ctrl+q quit without a word); ctrl+q
        again in that question, or while a derive is being stopped, quits at once."""
        if self.stopping:
            await self._give_back_claims()
            self.exit()
            return
        if self.work_going() is None or getattr(self.screen, "quit_question", False):
            await self.action_force_quit()
            return
        await self.action_quit()

    async def action_force_quit(self) -> None:
        """Quit; work that stops between batches (a derive, a regeneration) is told to stop
        first, and the screen says so until it has: the app waited for its thread with the
        terminal already closed, 10-17 s of a blank screen (issue 28)."""
        if self.stopping:
            return
        waits = [found for screen in self.screen_stack
                 if callable(stop := getattr(screen, "stop_for_quit", None))
                 for found in stop()]
        if waits:
            from screens.dialogs.confirm import WaitModal

            self.stopping = True
            self.push_screen(WaitModal("Quitting", "\n".join(
                [words for words, _ in waits]
                + ["", "The app quits when it has stopped. What is made is stored; starting "
                   "the same again resumes it.", "", "ctrl+q: quit now (the app then waits for "
                   "the batch with the terminal closed)"])))
            self.run_worker(self._quit_when_stopped([ended for _, ended in waits]),
                            group="quitting", exit_on_error=False)
            return
        await self._give_back_claims()
        self.exit()

    async def _quit_when_stopped(self, ended: list[threading.Event]) -> None:
        for event in ended:
            await asyncio.to_thread(event.wait)
        await self._give_back_claims()
        self.exit()

    async def _give_back_claims(self) -> None:
        """Quitting mid-review: hand the held item back so a colleague need not wait for
        the claim to expire. Best effort (at most two seconds); quitting never fails."""
        from screens.review import ReviewScreen

        held = [s.head_id for s in self.screen_stack
                if isinstance(s, ReviewScreen) and s.head_id is not None]
        if not held:
            return

        def give_back() -> None:
            from qcstation.core.review.decisions import release_claim

            with self.open_store() as store:
                for item_id in held:
                    release_claim(store, item_id, self.annotator)

        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.to_thread(give_back), timeout=2.0)

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss()
            return
        self.push_screen(HelpScreen.for_screen(self.screen))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        dashboard = next((s for s in self.screen_stack if isinstance(s, DashboardScreen)), None)
        if dashboard is not None:
            for dimension in self.settings.dimensions:
                from qcstation.widgets.labels import noun

                yield SystemCommand(f"Review {noun(dimension)}",
                                    f"Open the review screen for the {dimension} sample",
                                    lambda d=dimension: dashboard.open_review(d))
            yield SystemCommand("Draw QC samples",
                                "Sample every QC dimension without an open sample",
                                dashboard.action_draw_samples)
            yield SystemCommand("Derive a set",
                                "Build variants, ladders, perturbations, counterfactual or "
                                "inverse items from the verified seeds (in the background)",
                                dashboard.action_derive)
            yield SystemCommand("Curator queue",
                                "Rejected, disagreed, excluded and skipped items: fix, exclude, "
                                "override, settle", dashboard.action_queue)
            yield SystemCommand("Regenerate rejected items",
                                "Run the pipeline on rejected artifacts, then requeue them",
                                dashboard.action_regenerate)
            yield SystemCommand("Releases", "List, approve, export and compare releases",
                                dashboard.action_releases)
            yield SystemCommand("Evaluation runs", "Start, watch, stop and resume evaluation runs",
                                dashboard.action_eval_runs)
            yield SystemCommand("Evaluation results",
                                "Browse scores by failed dimension, verdict, source, level, run",
                                dashboard.action_results)
            yield SystemCommand("Refresh dashboard", "Re-read counts and gates",
                                dashboard.action_refresh)
        yield SystemCommand("Help", "Keys of the current screen and the review guidelines",
                            self.action_help)
        yield from self._screen_keys(screen, named=dashboard is not None)
        yield from super().get_system_commands(screen)

    #: the dashboard's actions the menu names in words of its own (above)
    _NAMED_ACTIONS = frozenset({"review", "draw_samples", "derive", "queue", "regenerate",
                                "releases", "eval_runs", "results", "refresh"})
    #: keys of every screen, not one screen's actions
    _APP_ACTIONS = frozenset({"app.command_palette", "command_palette", "app.quit", "quit",
                              "help", "app.help"})

    def _screen_keys(self, screen: Screen[Any], *, named: bool) -> Iterable[SystemCommand]:
        """The keys of ``screen`` itself (the menu's help says 'every action by name'; the
        dashboard's Extend and Fresh round, said to be 'in help and the menu', and every other
        screen's keys were not in it, issue 28), each by its label, with its key and what it
        does; an action the screen disables now is left out."""
        seen: set[str] = set()
        for active in screen.active_bindings.values():
            binding = active.binding
            if active.node is not screen or not binding.description or not active.enabled \
                    or binding.action in seen:      # one action of two keys is one line
                continue
            seen.add(binding.action)
            if binding.action in self._APP_ACTIONS or (
                    named and isinstance(screen, DashboardScreen)
                    and binding.action in self._NAMED_ACTIONS):
                continue
            key = self.get_key_display(binding)
            words = f"Key {key}" + (f": {binding.tooltip}" if binding.tooltip else "")
            yield SystemCommand(binding.description, words,
                                lambda action=binding.action: screen.run_action(action))


def load_app_config(config_path: str | Path | None = None) -> Config:
    from qcstation.common.config import load_config

    return load_config(config_path)


_imports_frozen = False


def _freeze_imports() -> None:
    """Once per process: what is loaded so far (modules, classes, the stylesheet's
    parsers: hundreds of thousands of objects) lives as long as the process, so the cyclic
    garbage collector stops scanning it (``gc.freeze``). Else the first full collection
    falls in the app's first frame and walks all of it (0.1-0.3 s at load 8-12)."""
    global _imports_frozen
    if not _imports_frozen:
        import gc

        gc.freeze()
        _imports_frozen = True


def make_app(db_path: str | Path, *, config: Config | None = None,
             account: str | None = None, display_name: str | None = None,
             review: str | None = None) -> QCStationApp:
    """Build the workstation on ``db_path``. ``config`` defaults to :func:`load_config`'s
    lookup; ``account`` (the person acting, whose rights count) defaults to the OS account
    and ``display_name`` to ``$QCSTATION_USER`` (``--annotator``), else the account. Tests
    inject the account here; nothing a user types at run time can. ``review`` (a dimension,
    or ``""`` for any) opens the review screen straight away over the dashboard."""
    from qcstation.common.identity import current_identity

    if config is None:
        config = load_app_config(None)
    _freeze_imports()
    who = current_identity(display_name, account)
    return QCStationApp(Path(db_path), config=config, account=who.account,
                        display_name=who.display, review=review)


def run_app(db_path: Path, config_path: str | None = None) -> int:
    """Open the workstation (the CLI's no-subcommand path). Returns the exit code."""
    try:
        config = load_app_config(config_path)
        # open + migrate once up front: a bad file fails here, readably; like the shell
        # commands that read, a mistyped --db is an error, not a new empty database
        Store(db_path, create=False).close()
    except QCStationError as exc:
        print(f"qcstation: error: {exc}", file=sys.stderr)
        return 2
    app = make_app(db_path, config=config)
    from db.store import lock_notices

    def lock_notice(message: str) -> None:  # called from worker threads: never print here
        with contextlib.suppress(Exception):
            app.call_from_thread(app.notify, message, title="Database busy", timeout=6)

    with lock_notices(lock_notice):
        app.run()
    return int(app.return_code or 0)
