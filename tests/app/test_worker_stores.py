"""The app's worker threads keep their connection between tasks (``open_store``)."""

from __future__ import annotations

import threading
from pathlib import Path

from db import Store
from qcstation.app import make_app
from tests.app.conftest import ANNOTATOR, build_db, make_config, settle


async def test_a_worker_thread_reuses_its_connection_and_no_other_thread_uses_it(
        tmp_path: Path) -> None:
    """Each thread gets its own store, the same one for each of its tasks; leaving the
    ``with`` block keeps it open, and a row another connection commits between two tasks is
    read by the second."""
    db = build_db(tmp_path / "qc.db")
    app = make_app(db, config=make_config(), account=ANNOTATOR)
    seen: list[tuple[int, int, int, bool]] = []

    def task() -> None:
        with app.open_store() as store:
            n = int(store.scalar("SELECT COUNT(*) FROM events WHERE action = 'probe'"))
            seen.append((threading.get_ident(), id(store), n, store.kept))
        assert not store.closed

    async with app.run_test() as pilot:
        await settle(pilot)
        for k in range(6):
            with Store(db) as other, other.transaction():
                other.event("x", "probe")
            await app.run_worker(task, thread=True, group="probe").wait()
            assert seen[-1][2] == k + 1          # what was committed before the task
        stores: dict[int, set[int]] = {}           # thread -> its stores
        threads: dict[int, set[int]] = {}          # store -> the threads that used it
        for thread, store_id, _, kept in seen:
            assert kept
            stores.setdefault(thread, set()).add(store_id)
            threads.setdefault(store_id, set()).add(thread)
        assert all(len(ids) == 1 for ids in stores.values())      # one store a thread
        assert all(len(ts) == 1 for ts in threads.values())       # used by one thread only
        main = app.open_store()
        assert id(main) not in threads
        main.close()
        assert app.open_store() is not main                         # a closed one is replaced
