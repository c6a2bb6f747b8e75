"""Live scoring: a run's answer tasks scored as their outputs are committed, beside the run.

:class:`LiveScoring` (a thread of the run's process, :mod:`~qcstation.eval.runner` makes
one per run) starts :func:`live_worker` in a process of its own once the first answer is
stored, and at the end of the run tells it to finish within the drain time. The worker
reads the run's newly committed outputs from the database itself, scores them with
:class:`~qcstation.eval.scorers.LiveScorer` (exactly the rows the scoring pass writes) and
stores the score rows: no reply passes through the run's process twice, and nothing of the
checking takes the event loop's interpreter lock. What it has not scored is the scoring
pass's (:func:`~qcstation.eval.scorers.score_run`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from db.kept_eval import store_scores
from db.store import Store
from qcstation.eval.scorers import ANSWER_TASKS, INSERT_SCORE, LiveScorer


class LiveScoring(threading.Thread):
    """Scores answer-task outputs after they are committed, in a worker process of its own
    (:func:`live_worker`: it reads the run's new outputs from the database on its own
    connection, checks them and writes their score rows, so neither the checking nor the
    handing over of replies takes the event loop's interpreter lock). This thread only
    starts the worker, once the first answer is committed, and at the end of the run tells
    it to finish. The checker bounds each item's time (one that cannot finish is
    ``unparseable``). What the worker has not scored when the run ends is scored by the
    scoring pass after the run, as is an output stored over a failed one (``retry_errors``:
    that pass scores every output again); if the worker cannot start or dies, the scoring
    pass scores everything left."""

    def __init__(self, db_path: Path, run_id: int, versions: Mapping[str, str],
                 after_id: int = 0) -> None:
        super().__init__(name=f"eval-scoring-{run_id}", daemon=True)
        self.db_path, self.run_id, self.versions = db_path, run_id, dict(versions)
        self.after_id = int(after_id)   # outputs stored before the run started are the pass's
        self.stopping = threading.Event()
        self.failed: str | None = None
        self.scored = 0               # outputs the worker scored and stored
        self._proc: Any = None
        self._conn: Any = None
        self._wake = threading.Event()   # the first answer committed, or the run's end
        self._answered = False
        self._ending = False
        self._spawned = threading.Event()
        self._stop_lock = threading.Lock()

    def put(self, outputs: list[tuple[int, str, int, str]]) -> None:
        """Committed answer-task outputs: the first of them starts the worker, which reads
        them (and every later one) from the database itself; nothing is queued here."""
        if outputs and not self._answered:
            self._answered = True
            self._wake.set()

    def worker_pid(self) -> int | None:
        """The scoring worker's process id (None before it starts)."""
        self._spawned.wait(10.0)
        return None if self._proc is None else self._proc.pid

    def _start_worker(self) -> None:
        from qcstation.core.verify.isolation import mp_context, stderr_with_a_descriptor

        ctx = mp_context()
        parent, child = ctx.Pipe(duplex=True)
        # a daemon: this process's exit ends it, whatever state the run is in (the worker
        # lifts the flag for itself: its checker may start math-verify workers)
        proc = ctx.Process(target=live_worker, name=f"qcstation-scoring-{self.run_id}",
                           args=(child, str(self.db_path), self.run_id, self.versions,
                                 self.after_id), daemon=True)
        with stderr_with_a_descriptor():
            proc.start()
        child.close()
        self._proc, self._conn = proc, parent

    def run(self) -> None:
        # the worker starts with the first committed answer: a run that stores no answer
        # (stopped at once, every request failing) starts no process
        self._wake.wait()
        if not self._answered or self.stopping.is_set():
            return
        try:
            self._start_worker()
        except Exception as exc:  # pragma: no cover - the scoring pass scores these
            self.failed = f"{exc.__class__.__name__}: {exc}"
            return
        finally:
            self._spawned.set()
        if self.stopping.is_set():   # the run ended while the worker was starting
            self._stop_worker()
            return
        conn = self._conn
        try:
            while not self._ending:   # woken by close() (nothing else wakes it once started)
                self._wake.wait()
                self._wake.clear()
            if self.stopping.is_set():
                return
            conn.send(None)           # the run's end: score what is stored, then say goodbye
            reply = conn.recv()
            if isinstance(reply, str):   # the worker's fault: the pass scores the rest
                self.failed = reply
            else:
                self.scored = int(reply)
        except (EOFError, OSError) as exc:   # the worker died, or was stopped by close()
            if not self.stopping.is_set():
                self.failed = f"the scoring worker stopped: {exc.__class__.__name__}: {exc}"

    def close(self, drain_s: float = 0.0) -> None:
        """Score what is stored for at most ``drain_s`` seconds, then stop (what is left is
        the scoring pass's): the outputs are stored already, nothing waits on this. A
        worker still starting is not waited for: the thread stops it once it has started."""
        self._ending = True
        self._wake.set()
        deadline = time.monotonic() + drain_s
        while (not self._spawned.is_set() and self.is_alive()
               and time.monotonic() < deadline):   # a worker starting shares the drain time
            self._spawned.wait(0.05)
        if self._spawned.is_set():
            self.join(timeout=max(0.0, deadline - time.monotonic()))
        self.stopping.set()
        self._wake.set()
        if not self._spawned.is_set():
            return
        self._stop_worker(grace_s=0.0 if self.is_alive() else 2.0)
        self.join(timeout=2.0)

    def _stop_worker(self, grace_s: float = 0.0) -> None:
        """End the worker: after ``grace_s`` for its own goodbye, killed where it is (an
        uncommitted batch is rolled back); its pipe closed. Safe to call twice."""
        with self._stop_lock:
            proc, conn = self._proc, self._conn
            if proc is None:
                return
            try:
                proc.join(timeout=grace_s)
                if proc.is_alive():
                    proc.kill()
                proc.join(timeout=5.0)
            except (OSError, ValueError):  # pragma: no cover - already gone
                pass
            try:
                conn.close()
            except OSError:  # pragma: no cover
                pass


#: outputs the scoring worker reads and scores at a time
LIVE_PAGE = 64
#: outputs whose score rows are written in one transaction at most: the pages read one after
#: another (while a full page says more is committed) are stored together; a transaction and
#: its headline recount cost about as much as the rows of 20 outputs
LIVE_WRITE = 256
#: how often the scoring worker looks for newly committed outputs when it has caught up
LIVE_POLL_S = 0.2


def live_worker(conn: Any, db_path: str, run_id: int, versions: Mapping[str, str],
                after_id: int = 0) -> None:
    """The scoring worker: reads the run's outputs committed after ``after_id`` (in id
    order, :data:`LIVE_PAGE` at a time, the answer tasks' ok ones), makes their score rows
    (:class:`~qcstation.eval.scorers.LiveScorer`, exactly those the scoring pass writes) and
    stores them in one transaction once it has caught up with what is committed (or
    :data:`LIVE_WRITE` outputs' rows are waiting). When it has caught up it waits
    :data:`LIVE_POLL_S` for the run's end (``None`` on ``conn``); after that it scores what
    is left, and answers with the number scored (or why it cannot go on)."""
    import multiprocessing

    from qcstation.core.verify.isolation import silence_output

    # started as a daemon (ended with the run's process); its own children are allowed
    multiprocessing.current_process().daemon = False
    silence_output()
    store: Store | None = None
    scorer: LiveScorer | None = None
    marks = ",".join("?" * len(ANSWER_TASKS))
    # the id range on the table's own key (``+``: not through a run index, which would read
    # the whole run again at every look); the text only of the outputs scored here
    page_sql = (f"SELECT id, seed_id, task, sample_idx, CASE WHEN status = 'ok' AND task IN "
                f"({marks}) THEN response END, status = 'ok' AND task IN ({marks}) "
                f"FROM eval_outputs WHERE id > ? AND +run_id = ? ORDER BY id LIMIT {LIVE_PAGE}")
    scored = 0
    ending = False
    due: list[tuple[Any, ...]] = []     # score rows not yet stored
    n_due = 0                           # the outputs they score
    try:
        store = Store(Path(db_path), migrate=False, create=False)
        scorer = LiveScorer(run_id, versions)
        last = int(after_id)
        while True:
            page = store.conn.execute(page_sql, (*ANSWER_TASKS, *ANSWER_TASKS, last, run_id)).fetchall()
            full = len(page) == LIVE_PAGE
            if page:
                last = int(page[-1][0])
                outputs = [(int(sid), str(task), int(k), resp) for _, sid, task, k, resp, ok in page if ok]
                del page
                if outputs:
                    try:
                        due += scorer.rows(store, outputs)
                    except Exception as exc:   # the scoring pass after the run scores these instead
                        conn.send(f"{exc.__class__.__name__}: {exc}")
                        return
                    n_due += len(outputs)
                    del outputs
                if full and n_due < LIVE_WRITE:
                    continue                   # more is committed: read it before writing
            if n_due:
                try:
                    if due:
                        with store.transaction():   # pairs, counts and items kept once a batch
                            store_scores(store.conn, INSERT_SCORE, due)
                except Exception as exc:   # the scoring pass after the run scores these instead
                    conn.send(f"{exc.__class__.__name__}: {exc}")
                    return
                scored += n_due
                due, n_due = [], 0
            if full:
                continue
            if ending:
                conn.send(scored)
                return
            if conn.poll(LIVE_POLL_S) and conn.recv() is None:
                ending = True
    except (EOFError, OSError, KeyboardInterrupt):
        return     # the run's process is gone (or stopped us): nothing more to score
    finally:
        if scorer is not None:
            try:
                scorer.close()
            except Exception:  # pragma: no cover
                pass
        if store is not None:
            store.close()
