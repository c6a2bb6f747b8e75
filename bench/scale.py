"""What a user waits for at scale: every read-only command and every screen's first frame at 1M seeds.

The other benchmarks time one part in isolation; this one times the commands a user runs, on a
database the size users have. It builds (once, then reuses with ``--db``) a database of N seeds
(default 1,000,000) with their four artifacts, QC samples with decisions, an approved release and an
evaluation run of about 1M scores, then times, each in a fresh process (median of ``--runs``):

    status, qc status, audit --stored, release blockers, eval list, eval leaderboard, eval breakdown

and, headless at 80x24, the first frame of every screen (pushed over the loaded dashboard; the time
until its data workers have finished; the dashboard also the time until its first data is shown),
then the keys pressed on it (moves and filters: from each key sent until the app has nothing
left to do for it -- handled, its workers done, the result painted -- median and max against
100 ms). ``qcstation --help`` and ``qcstation qc decide --help`` are
timed against ``python -c pass`` as the CLI's start-up cost. Each figure prints against its target:
commands under 2 s (``status`` under 1 s), first frames under 1 s. Each figure is the wall clock
and, beside it, the CPU time (this process's and its children's; for a key, less the bench's own
polling): on a shared machine the wall clock stretches with the other processes' load, the CPU
time much less.

How the database is made: a real template is built the way a user builds one — ``quickstart`` on the
shipped sample (real rule-made artifacts, real QC samples), every sampled item decided, a curator
release approved, and a ``reference`` evaluation run scored — and its rows are then replicated with
SQL (ids offset, ``orig_id`` suffixed ``~k``) until there are N seeds. So row contents and shapes are
the real ones; only their number is multiplied. Building 1M takes several minutes and ~10 GB of disk.

Usage: ``python bench/scale.py [--seeds 1000000] [--db PATH] [--runs 3] [--only commands|screens]
[--screens queue,results] [--load 1]``
(``--db PATH`` keeps the database: built there when missing, reused when present. The load
average is printed with each table: on a shared machine it says how far the wall clock
is stretched. ``--screens`` times only the screens named, ``--load N`` keeps N other processes
busy meanwhile, one core each: the "loaded machine" of the targets. Each key's wall clock and
CPU are printed after the table, in the order pressed.)
"""

from __future__ import annotations

import argparse
import functools
import asyncio
import json
import multiprocessing
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from db.kept_eval import recount_dirty  # noqa: E402

COMMANDS: list[tuple[str, list[str], float]] = [
    ("status", ["status"], 1.0),
    ("qc status", ["qc", "status"], 2.0),
    ("audit (stored flags)", ["audit", "--stored"], 2.0),
    ("release blockers", ["release", "blockers"], 2.0),
    ("eval list", ["eval", "list"], 2.0),
    ("eval leaderboard", ["eval", "leaderboard"], 2.0),
    ("eval breakdown", ["eval", "breakdown", "{run}"], 2.0),
]

TEMPLATE_TOML = """
[qc]
curators = ["{account}"]
sample_rate = 0.5
defect_threshold = 0.5
min_sample = 5
"""


def _env(config: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QCSTATION_")}
    env["PYTHONPATH"] = str(ROOT)
    if config is not None:
        env["QCSTATION_CONFIG"] = str(config)
    return env


def _cli(db: Path, *args: str, config: Path | None = None, check: bool = True,
         timeout: float = 3600) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), *args],
                          env=_env(config), capture_output=True, text=True, timeout=timeout,
                          cwd=db.parent)
    if check and proc.returncode not in (0, 1):
        raise SystemExit(f"`qcstation {' '.join(args)}` failed ({proc.returncode}):\n"
                         f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return proc


# --- the template: built the way a user builds a database ----------------------------------

def build_template(folder: Path) -> tuple[Path, Path]:
    """quickstart → decide every sampled item → approve a release → a scored reference run."""
    import getpass

    config = folder / "qcstation.toml"
    config.write_text(TEMPLATE_TOML.format(account=getpass.getuser()), encoding="utf-8")
    db = folder / "template.db"
    _cli(db, "quickstart", "--no-app", config=config)
    _decide_all(db, config)
    _cli(db, "release", "approve", "smart", "1.0.0", config=config,
         check=False)
    _cli(db, "eval", "run", "--model", "reference", "--working-set", "--name", "scale",
         "-q", config=config)
    return db, config


def _decide_all(db: Path, config: Path) -> None:
    """Every open sample item decided by two annotators (one reject in ten), in-process."""
    from db import Store
    from qcstation.core.review.decisions import decide, next_item

    store = Store(db)
    try:
        for n, annotator in enumerate(("ann", "bob")):
            while True:
                item = next_item(store, annotator)
                if item is None:
                    break
                verdict = "reject" if (item.item_id + n) % 10 == 0 else "accept"
                reason = "unclear wording" if verdict == "reject" else None
                decide(store, item.item_id, annotator, verdict, reason=reason)
    finally:
        store.close()


# --- replication -----------------------------------------------------------------------------

def _max(conn: sqlite3.Connection, table: str, col: str = "id") -> int:
    return int(conn.execute(f"SELECT COALESCE(MAX({col}), 0) FROM {table}").fetchone()[0])


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]


def _copy(conn: sqlite3.Connection, table: str, copies: int, exprs: dict[str, str],
          where: str = "") -> int:
    """INSERT every row of ``table`` ``copies`` more times; ``exprs`` rewrites columns per copy
    (``k`` is the copy number 1..copies)."""
    cols = _columns(conn, table)
    select = ", ".join(exprs.get(c, c) for c in cols)
    sql = (f"WITH RECURSIVE k(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM k WHERE k < {copies}) "
           f"INSERT INTO {table} ({', '.join(cols)}) SELECT {select} FROM {table}_t, k {where}")
    conn.execute(f"CREATE TEMP TABLE {table}_t AS SELECT * FROM {table}")
    cur = conn.execute(sql)
    conn.execute(f"DROP TABLE {table}_t")
    return cur.rowcount


def replicate(db: Path, n_seeds: int, eval_scores: int) -> dict[str, int]:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute("PRAGMA cache_size = -1000000")
    n_template = int(conn.execute("SELECT COUNT(*) FROM seeds").fetchone()[0])
    copies = max(0, -(-n_seeds // n_template) - 1)
    S, A, T = _max(conn, "seeds"), _max(conn, "artifacts"), _max(conn, "attempts")
    SI, R = _max(conn, "sample_items"), _max(conn, "reviews")
    Q = _max(conn, "qc_resolutions")
    P = _max(conn, "sample_items", "position") + 1
    with conn:
        _copy(conn, "seeds", copies, {
            "id": f"id + k * {S}", "orig_id": "orig_id || '~' || k",
            "content_hash": "content_hash || k",
            "duplicate_of": f"duplicate_of + k * {S}"})
        _copy(conn, "attempts", copies, {
            "id": f"id + k * {T}", "seed_id": f"seed_id + k * {S}",
            "artifact_id": f"artifact_id + k * {A}"})
        _copy(conn, "artifacts", copies, {
            "id": f"id + k * {A}", "seed_id": f"seed_id + k * {S}",
            "attempt_id": f"attempt_id + k * {T}", "replaces_id": f"replaces_id + k * {A}"})
        _copy(conn, "sample_items", copies, {
            "id": f"id + k * {SI}", "seed_id": f"seed_id + k * {S}",
            "artifact_id": f"artifact_id + k * {A}", "position": f"position + k * {P}"})
        _copy(conn, "reviews", copies, {
            "id": f"id + k * {R}", "sample_item_id": f"sample_item_id + k * {SI}",
            "artifact_id": f"artifact_id + k * {A}", "changes_id": f"changes_id + k * {R}"})
        _copy(conn, "qc_resolutions", copies, {
            "id": f"id + k * {Q}", "sample_item_id": f"sample_item_id + k * {SI}"})
        per_copy = int(conn.execute("SELECT COUNT(*) FROM eval_scores").fetchone()[0]) or 1
        ecopies = max(0, -(-eval_scores // per_copy) - 1)
        EO, E = _max(conn, "eval_outputs"), _max(conn, "eval_scores")
        EP = _max(conn, "eval_items", "position") + 1
        _copy(conn, "eval_items", ecopies, {
            "seed_id": f"seed_id + k * {S}", "item_key": "item_key || '~' || k",
            "position": f"position + k * {EP}"}, where="WHERE role = 'eval'")
        _copy(conn, "eval_outputs", ecopies, {
            "id": f"id + k * {EO}", "seed_id": f"seed_id + k * {S}"})
        _copy(conn, "eval_scores", ecopies, {
            "id": f"id + k * {E}", "seed_id": f"seed_id + k * {S}"})
        # the run's items and requests as multiplied (the template's run answered every
        # request): left at the template's, the runs list read "Done 500,155/335"
        conn.execute("UPDATE eval_runs SET n_items = (SELECT COUNT(*) FROM eval_items "
                     "WHERE eval_items.run_id = eval_runs.id AND role = 'eval'), "
                     "n_requests = (SELECT COUNT(*) FROM eval_outputs "
                     "WHERE eval_outputs.run_id = eval_runs.id)")
        # the copied score rows marked their items for a recount (migration 22); every writer
        # of scores recounts what its batch marked before it commits, and so does this one
        recount_dirty(conn)
    conn.execute("ANALYZE")
    counts = {t: int(conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0])
              for t in ("seeds", "artifacts", "sample_items", "reviews", "eval_items",
                        "eval_outputs", "eval_scores")}
    conn.close()
    return counts


def build(db: Path, n_seeds: int, eval_scores: int) -> Path:
    work = db.parent
    t0 = time.perf_counter()
    template, config = build_template(Path(tempfile.mkdtemp(prefix="scale-template-",
                                                            dir=work)))
    print(f"template built in {time.perf_counter() - t0:.1f} s", flush=True)
    t0 = time.perf_counter()
    src = sqlite3.connect(template)
    dst = sqlite3.connect(db)
    src.backup(dst)
    src.close()
    dst.close()
    counts = replicate(db, n_seeds, eval_scores)
    (db.parent / "qcstation.toml").write_text(config.read_text(encoding="utf-8"),
                                             encoding="utf-8")
    print(f"replicated in {time.perf_counter() - t0:.1f} s: "
          + ", ".join(f"{k} {v:,}" for k, v in counts.items()), flush=True)
    return db


# --- timing ------------------------------------------------------------------------------------

def _cpu() -> float:
    """CPU seconds (user + system) of this process and of its finished children."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _time(fn: Callable[[], Any], runs: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds of ``runs`` calls. On a shared machine the CPU time
    is the steadier figure: another process's load stretches the wall clock, not it."""
    walls, cpus = [], []
    for _ in range(runs):
        c0, t0 = _cpu(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(_cpu() - c0)
    return statistics.median(walls), statistics.median(cpus)


def time_commands(db: Path, runs: int) -> list[tuple[str, float, float, float, str]]:
    config = db.parent / "qcstation.toml"
    conn = sqlite3.connect(db)
    run_id = str(conn.execute("SELECT COALESCE(MAX(id), 0) FROM eval_runs").fetchone()[0])
    conn.close()
    rows = []
    for label, args, target in COMMANDS:
        args = [run_id if a == "{run}" else a for a in args]
        proc = _cli(db, *args, config=config, check=False)
        note = "" if proc.returncode in (0, 1) else f"exit {proc.returncode}: " + \
            (proc.stderr.strip().splitlines() or ["?"])[-1][:60]
        secs, cpu = _time(functools.partial(_cli, db, *args, config=config, check=False), runs)
        rows.append((label, secs, cpu, target, note))
    return rows


def time_startup(runs: int) -> list[tuple[str, float, float, float, str]]:
    def run(*args: str) -> None:
        subprocess.run([sys.executable, *args], env=_env(None), capture_output=True,
                       check=False, timeout=120)

    bare, bare_cpu = _time(lambda: run("-c", "pass"), runs)
    rows = [("python -c pass", bare, bare_cpu, 0.0, "")]
    for label, args in (("qcstation --help", ["-m", "qcstation", "--help"]),
                        ("qcstation qc decide --help", ["-m", "qcstation", "qc", "decide", "--help"])):
        secs, cpu = _time(functools.partial(run, *args), runs)
        rows.append((label, secs, cpu, 0.0, f"+{secs - bare:.2f} s over bare python"))
    return rows


def _screens(db: Path) -> list[tuple[str, Callable[[], Any], tuple[str, ...]]]:
    """Each screen, how to make it, and the keys pressed on it once it is loaded (moves and
    filters: keys that read, never ones that decide or write)."""
    from db import Store

    store = Store(db, create=False)
    try:
        run_id = int(store.conn.execute("SELECT MAX(id) FROM eval_runs").fetchone()[0] or 0)
        seed = store.conn.execute("SELECT seed_id FROM eval_items WHERE run_id = ? LIMIT 1",
                                  (run_id,)).fetchone()
    finally:
        store.close()
    from screens.charts import ChartsScreen
    from screens.queue import QueueScreen
    from screens.releases import ReleasesScreen
    from screens.results import ResultsScreen
    from screens.review import ReviewScreen
    from screens.runs import RunsScreen
    from screens.side_by_side import SideBySideScreen

    out: list[tuple[str, Callable[[], Any], tuple[str, ...]]] = [
        ("review", lambda: ReviewScreen(None), ("g", "g", "down", "up")),
        # f cycles the state filter through every state and back to none; pagedown and end
        # move past the first page (its next page is read as the cursor nears its end)
        ("queue", lambda: QueueScreen(), ("down", "down", "down", "up", "f", "f", "f", "f",
                                          "f", "f", "pagedown", "ctrl+end", "ctrl+home")),
        ("releases", lambda: ReleasesScreen(), ("down", "up", "down", "up")),
        ("runs", lambda: RunsScreen(), ("down", "up", "down", "up")),
    ]
    if run_id:
        out += [("results", lambda: ResultsScreen((run_id,)),
                 ("down", "down", "down", "up", "f", "f", "right_square_bracket",
                  "right_square_bracket", "left_square_bracket", "m", "v", "o", "d", "r",
                  "x", "p", "p")),
                ("charts", lambda: ChartsScreen([run_id]), ("t", "m", "t"))]
        if seed:
            out.append(("side by side", lambda: SideBySideScreen(run_id, run_id, int(seed[0])),
                        ("down", "up")))
    return out


async def _wait_idle(app: Any, pilot: Any, limit: float = 120.0) -> None:
    t0 = time.perf_counter()
    await pilot.pause()
    while time.perf_counter() - t0 < limit:
        if not any(w.is_running for w in app.workers):
            await pilot.pause()
            if not any(w.is_running for w in app.workers):
                return
        await asyncio.sleep(0.01)


def _pending(app: Any) -> bool:
    """Whether the app still has work from a key: a worker running, a message queued in the
    app, the screen or any of its widgets, or a layout or repaint not yet done."""
    if any(w.is_running for w in app.workers):
        return True
    screen = app.screen
    if (screen._layout_required or screen._scroll_required or screen._repaint_required
            or screen._recompose_required or screen._dirty_widgets):
        return True
    if not app._message_queue.empty():
        return True
    for node in (screen, *screen.walk_children()):
        if not node._message_queue.empty() or node._repaint_required or node._layout_required:
            return True
    return False


async def _poll_cost(app: Any, polls: int = 40) -> float:
    """CPU seconds one poll of :func:`_key` costs with the app idle (a 1 ms sleep, the event
    loop's wake-up and the pending check), measured just before the key."""
    c0 = _cpu()
    for _ in range(polls):
        await asyncio.sleep(0.001)
        _pending(app)
    return (_cpu() - c0) / polls


async def _key(app: Any, key: str) -> tuple[float, float]:
    """(wall, CPU seconds) of one key: from sending it until the app has nothing left to do
    for it (handled, any worker it started finished, its result laid out and painted),
    polled every millisecond. Pilot.press is not used: it sleeps at least 20 ms twice after
    each key and the idle check sleeps again, so it timed Textual's waits (~90 ms), not the
    key. The CPU is the process's less the polling's own (the polls counted times one idle
    poll's CPU, :func:`_poll_cost`): each wake-up costs ~0.15 ms, and at load 15 a key's
    300-odd polls added 40-50 ms of the bench's CPU to the key's."""
    per_poll = await _poll_cost(app)
    import unicodedata

    from textual import events
    from textual.keys import _get_unicode_name_from_key

    try:                          # as Pilot.press makes the event
        char: str | None = unicodedata.lookup(_get_unicode_name_from_key(key))
    except KeyError:
        char = key if len(key) == 1 else None
    event = events.Key(key, char)
    event.set_sender(app)
    c0, t0 = _cpu(), time.perf_counter()
    app._driver.send_message(event)
    done_at, quiet, polls = None, 0, 0
    while time.perf_counter() - t0 < 120:
        await asyncio.sleep(0.001)
        polls += 1
        if _pending(app):
            done_at, quiet = None, 0
            continue
        if done_at is None:
            done_at = (time.perf_counter(), _cpu(), polls)
        quiet += 1
        if quiet >= 5:          # quiet for five polls in a row: nothing more is coming
            break
    end, cpu, counted = done_at or (time.perf_counter(), _cpu(), polls)
    return end - t0, max(0.0, cpu - c0 - counted * per_poll)


async def _keys(app: Any, pilot: Any, keys: tuple[str, ...]) -> list[tuple[str, float, float]]:
    """(key, wall, CPU seconds) of each key, pressed once the app is idle (:func:`_key`)."""
    out = []
    for key in keys:
        await _wait_idle(app, pilot)
        wall, cpu = await _key(app, key)
        out.append((key, wall, cpu))
    return out


def _key_note(times: list[tuple[str, float, float]]) -> str:
    """Median and slowest key, wall (CPU) in ms, against 100 ms."""
    if not times:
        return ""
    walls = [t[1] * 1000 for t in times]
    cpus = [t[2] * 1000 for t in times]
    key, wall, cpu = max(times, key=lambda t: t[1])
    slow = "" if wall < 0.1 else " SLOW"
    return (f"keys: median {statistics.median(walls):.0f} ms ({statistics.median(cpus):.0f} cpu), "
            f"max {wall * 1000:.0f} ms ({cpu * 1000:.0f} cpu, {key}){slow}")


#: each screen's keys as timed: (screen, [(key, wall, CPU seconds)]), printed key by key
KEY_TIMES: list[tuple[str, list[tuple[str, float, float]]]] = []


def time_screens(db: Path, only: set[str] | None = None
                 ) -> list[tuple[str, float, float, float, str]]:
    """The dashboard's first frame and keys, then each screen's (``only``: these names)."""
    from qcstation.app import make_app
    from qcstation.common.config import load_config

    config = load_config(str(db.parent / "qcstation.toml"))
    rows: list[tuple[str, float, float, float, str]] = []

    async def dashboard() -> tuple[float, float, float, float, list[tuple[str, float, float]]]:
        """(app start → idle wall and CPU, first data and idle after mount, keys): the
        clock stops when the app is idle, before the keys are pressed and the app is shut
        down: the keys are timed apart, as on every other screen."""
        c0, t0 = _cpu(), time.perf_counter()
        app = make_app(db, config=config, account="ann")
        async with app.run_test(size=(80, 24)) as pilot:
            mounted = time.perf_counter()
            first = None
            while time.perf_counter() - mounted < 120:      # the first data painted
                await pilot.pause()
                if getattr(app.screen, "loaded", False):
                    first = time.perf_counter() - mounted
                    break
                await asyncio.sleep(0.005)
            await _wait_idle(app, pilot)
            took, cpu = time.perf_counter() - t0, _cpu() - c0
            idle = time.perf_counter() - mounted
            keys = await _keys(app, pilot, ("down", "up", "down", "up"))
            return (took, cpu, first if first is not None else float("nan"), idle, keys)

    if only is None or "dashboard" in only:
        took, cpu, first, inside, keys = asyncio.run(dashboard())
        rows.append(("dashboard (app start → idle)", took, cpu, 1.0,
                     f"{inside:.2f} s after mount, first data {first:.2f} s; " + _key_note(keys)))
        KEY_TIMES.append(("dashboard", keys))
    for label, factory, keys_to_press in _screens(db):
        if only is not None and label not in only:
            continue
        async def one(factory: Callable[[], Any] = factory,
                      keys_to_press: tuple[str, ...] = keys_to_press, label: str = label
                      ) -> tuple[float, float, str]:
            app = make_app(db, config=config, account="ann")
            async with app.run_test(size=(80, 24)) as pilot:
                await _wait_idle(app, pilot)
                c0, t0 = _cpu(), time.perf_counter()
                app.push_screen(factory())
                await _wait_idle(app, pilot)
                took, cpu = time.perf_counter() - t0, _cpu() - c0
                times = await _keys(app, pilot, keys_to_press)
                KEY_TIMES.append((label, times))
                return took, cpu, _key_note(times)

        try:
            took, cpu, note = asyncio.run(one())
            rows.append((label, took, cpu, 1.0, note))
        except Exception as exc:  # a screen that cannot open is a figure too
            rows.append((label, float("nan"), float("nan"), 1.0, f"{type(exc).__name__}: {exc}"[:60]))
    return rows


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f})"


def _migrate(db: Path) -> None:
    """Bring the database to this version's schema before anything is timed (a database
    built by an older bench is migrated once, here, not inside the first timed command), and
    recount the eval items an older bench's copies left marked: every writer of scores
    recounts what it marked before it commits (migration 22), the copies did not, and a
    reader counts each marked item from its rows (every item of the 1M run: 1.5 s of CPU in
    the runs list, the charts and ``eval leaderboard``, a state no user's database is in)."""
    from db import Store

    t0 = time.perf_counter()
    store = Store(db)
    try:
        version = store.schema_version
        took = time.perf_counter() - t0
        if took > 1:
            print(f"schema brought to v{version} in {took:.1f} s", flush=True)
        marked = int(store.conn.execute("SELECT COUNT(*) FROM eval_item_dirty").fetchone()[0])
        if marked:
            t0 = time.perf_counter()
            with store.transaction():
                recount_dirty(store.conn)
            print(f"{marked:,} eval items the copies left marked recounted in "
                  f"{time.perf_counter() - t0:.1f} s", flush=True)
    finally:
        store.close()


def _table(title: str, rows: list[tuple[str, float, float, float, str]]) -> None:
    print(f"\n{title} — {_load()} at the end")
    print(f"  {'what':34} {'time':>8} {'cpu':>8}  {'target':>7}  ")
    for label, secs, cpu, target, note in rows:
        verdict = "" if not target else ("ok" if secs < target else "SLOW")
        tgt = f"< {target:g} s" if target else ""
        print(f"  {label:34} {secs:7.2f}s {cpu:7.2f}s  {tgt:>7}  {verdict:4} {note}")


def _print_keys() -> None:
    """Every key timed, in the order pressed: wall (CPU) in ms, against 100 ms."""
    if not KEY_TIMES:
        return
    print(f"\nkeys, in the order pressed: wall ms (cpu ms), * over 100 ms wall — {_load()}")
    for screen, times in KEY_TIMES:
        cells = [f"{key} {wall * 1000:.0f}{'*' if wall >= 0.1 else ''} ({cpu * 1000:.0f})"
                 for key, wall, cpu in times]
        print(f"  {screen:13} " + ", ".join(cells))


def _burn() -> None:
    """Keep one core busy until terminated (another user of the machine)."""
    while True:
        pass


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=1_000_000)
    ap.add_argument("--eval-scores", type=int, default=1_000_000)
    ap.add_argument("--db", type=Path, help="reuse (or build at) this database")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", choices=("commands", "screens", "startup"))
    ap.add_argument("--screens", help="comma-separated: time only these screens "
                    "(dashboard, review, queue, releases, runs, results, charts, side by side)")
    ap.add_argument("--load", type=int, default=0, metavar="N",
                    help="processes kept busy meanwhile, one core each (default 0)")
    args = ap.parse_args()
    burners = [multiprocessing.get_context("spawn").Process(target=_burn, daemon=True)
               for _ in range(max(0, args.load))]
    for b in burners:
        b.start()
    try:
        _main(args)
    finally:
        for b in burners:
            b.terminate()


def _main(args: argparse.Namespace) -> None:
    db = args.db
    if db is None:
        db = Path(tempfile.mkdtemp(prefix="qcstation-scale-")) / "scale.db"
    if not db.exists():
        db.parent.mkdir(parents=True, exist_ok=True)
        build(db, args.seeds, args.eval_scores)
    conn = sqlite3.connect(db)
    n = conn.execute("SELECT COUNT(*) FROM seeds").fetchone()[0]
    k = conn.execute("SELECT COUNT(*) FROM eval_scores").fetchone()[0]
    conn.close()
    print(f"database {db}: {n:,} seeds, {k:,} eval scores, "
          f"{db.stat().st_size / 2**30:.1f} GiB; {os.cpu_count()} cores; {_load()}; "
          f"{args.load} busy process{'es' if args.load != 1 else ''} beside")
    _migrate(db)
    if args.only in (None, "startup"):
        _table("CLI start-up", time_startup(args.runs))
    if args.only in (None, "commands"):
        _table(f"read-only commands (median of {args.runs}, fresh process each)",
               time_commands(db, args.runs))
    if args.only in (None, "screens"):
        only = {n.strip() for n in args.screens.split(",")} if args.screens else None
        _table("first frame of every screen (80x24, headless)", time_screens(db, only))
        _print_keys()
    print(json.dumps({"seeds": n, "eval_scores": k}))


if __name__ == "__main__":
    main()
