"""Issue 10: no seed can stop generation, and a killed run leaves nothing in the system
temp folder (the verifier pool's forkserver socket lives in qcstation's runtime folder,
cleaned by the next run)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from db import Store
from qcstation.core.ingest.importer import import_file

ROOT = Path(__file__).resolve().parents[3]


def _two_step(i: int) -> dict[str, str]:
    return {"question": f"Tom has {i} apples and buys 3 more. Then he doubles them. How many?",
            "answer": f"He has {i}+3=<<{i}+3={i + 3}>>{i + 3}.\n"
                      f"Then {i + 3}*2=<<{i + 3}*2={2 * (i + 3)}>>{2 * (i + 3)}.\n#### {2 * (i + 3)}"}


HOSTILE_SOLUTIONS = [
    "<<" + "(" * 3000 + "2+3" + ")" * 3000 + "=5>>5\n<<5*1=5>>5",        # RecursionError before
    "<<(((((2^12)^12)^12)^12)^12)^12=5>>5\n<<5*1=5>>5",                 # minutes of CPU before
    "<<" + "1" * 5000 + "+1=5>>5\n<<5*1=5>>5",                          # 4300-digit limit before
]


def _children_cpu_s() -> float:
    """CPU seconds used so far by this process's ended (waited-for) child processes."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _generate(db: Path, *extra: str, env: dict[str, str] | None = None,
              timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "generate",
                           "--dimension", "reasoning", *extra],
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
                          capture_output=True, text=True, timeout=timeout, cwd=db.parent)


@pytest.mark.slow
def test_hostile_seeds_get_a_reason_and_the_others_their_artifacts(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    rows = [_two_step(i) for i in range(4, 10)]  # (0 + 3 = 3 would equal the question's 3)
    for n, sol in enumerate(HOSTILE_SOLUTIONS):
        rows.insert(1 + 2 * n, {"question": f"Hostile {n}: how many apples are there at the end?",
                                "answer": f"{sol}\n#### 5"})
    path = tmp_path / "seeds.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with Store(db) as store:
        import_file(store, path, "gsm8k", source="mixed")
        with store.transaction():  # keep the hostile ones active whatever the filters say
            store.execute("UPDATE seeds SET status = 'active', filter_reason = NULL")
    for _ in range(2):  # a re-run does not stop at them either
        cpu0 = _children_cpu_s()
        run = _generate(db)
        assert run.returncode == 0, run.stderr
        # CPU seconds, not wall clock (a busy machine stretches the one, never the other): the
        # rules read these seeds in the command's own process, and took minutes of CPU before
        assert _children_cpu_s() - cpu0 < 60
    with Store(db) as store:
        arts = store.query("SELECT s.id, s.question, a.status FROM seeds s LEFT JOIN artifacts a "
                           "ON a.seed_id = s.id AND a.dimension = 'reasoning' ORDER BY s.id")
        reasons = {r["seed_id"]: r["parse_error"] for r in store.query(
            "SELECT seed_id, parse_error FROM attempts WHERE dimension = 'reasoning' "
            "AND verify_status = 'needs_model'")}
    good = [a for a in arts if not a["question"].startswith("Hostile")]
    assert len(good) == 6 and all(a["status"] == "verified" for a in good)
    hostile = [a for a in arts if a["question"].startswith("Hostile")]
    assert len(hostile) == 3 and all(a["status"] is None for a in hostile)
    words = ["characters", "expand to more than", "characters"]
    for a, word in zip(hostile, words):
        assert word in reasons[a["id"]], reasons[a["id"]]
        assert len(reasons[a["id"]]) < 600


@pytest.mark.slow
def test_killed_generate_leaves_nothing_in_the_system_temp_folder(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    db = tmp_path / "k.db"
    path = tmp_path / "seeds.jsonl"
    path.write_text("".join(json.dumps(_two_step(i)) + "\n" for i in range(1500)))
    with Store(db) as store:
        import_file(store, path, "gsm8k", source="k")
    system_tmp = tmp_path / "systmp"
    system_tmp.mkdir()
    # a short runtime folder: under pytest-xdist tmp_path is too deep for the pool's socket
    # (the run then falls back to /tmp, tests/common/test_runtime.py)
    runtime = Path(tempfile.mkdtemp(prefix="qcs-run-", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(runtime, ignore_errors=True))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(system_tmp),
           "XDG_RUNTIME_DIR": str(runtime)}
    err = (tmp_path / "generate.err").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "qcstation", "--db", str(db), "generate"],
                            env=env, stdout=subprocess.DEVNULL, stderr=err)
    mine = runtime / "qcstation" / str(proc.pid)
    # (no deadline: under load the rules' first page can take minutes before the pool starts;
    # the run of 1,500 seeds is far from done when it has, and a run that ended without it fails)
    while not (mine.is_dir() and any(mine.iterdir())) and proc.poll() is None:
        time.sleep(0.1)
    err.close()
    assert mine.is_dir() and proc.poll() is None, \
        (f"the verifier pool never started (exit {proc.poll()}, {sorted(p.name for p in runtime.rglob('*'))}): "
         + (tmp_path / "generate.err").read_text()[-1500:])
    proc.send_signal(signal.SIGKILL)                 # (the poll above saw its files: no extra sleep)
    proc.wait(timeout=300)
    assert list(system_tmp.iterdir()) == []          # nothing in the system temp folder
    assert mine.exists()                             # the killed run's folder is ours ...
    run = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "verify"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    assert not mine.exists()                         # ... and the next run removed it
    assert list(system_tmp.iterdir()) == []
