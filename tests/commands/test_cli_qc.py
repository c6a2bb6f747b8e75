"""``qcstation qc`` in the shell: samples, decisions by parallel processes, exclusions, the
curator queue, fixing in place and the team figures (qcstation/commands/qc.py)."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from db import Store
from qcstation.common.identity import os_account
from qcstation.core.review.decisions import decide
from qcstation.core.review.gate import gate
from qcstation.core.review.items import list_items
from qcstation.core.review.sampling import draw_sample
from tests import factories as f
from tests.conftest import ROOT
from tests.core.review.helpers import active_finals, claim, decide_all


def _cli(db: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("QCSTATION_USER", None)
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _cli_no_env(db: Path, cwd: Path, *args: str, stdin: str | None = None
                ) -> subprocess.CompletedProcess[str]:
    """The shell with no ``QCSTATION_*`` variable set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("QCSTATION_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          input=stdin)


def test_cli_exclude_is_for_curators_and_status_prints_the_hint(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    conf = tmp_path / "qcstation.toml"
    conf.write_text('[qc]\ncurators = ["carol"]\ndefect_threshold = 0.3\n', encoding="utf-8")
    with Store(db) as s:
        f.populate(s, {"gsm8k": 10})
        info = draw_sample(s, "arithmetic", rate=1.0, rng_seed=1, actor="lead")
        bad = list_items(s, info.id)[0]
        decide_all(s, "ann1", "arithmetic", reject={bad.seed_id})
    r = _cli(db, tmp_path, "--config", str(conf), "qc", "status", "arithmetic")
    assert r.returncode == 1
    assert "next: regenerate 1 rejected item" in r.stdout
    assert "run: qcstation generate --rejected" in r.stdout
    # the person is the OS account: typing a curator's name grants nothing
    r = _cli(db, tmp_path, "--config", str(conf), "--annotator", "carol", "qc", "exclude",
             str(bad.seed_id), "--reason", "cannot be fixed")
    assert r.returncode == 2 and "only a curator" in r.stderr
    assert f"the account {os_account()} is not one" in r.stderr
    # the account itself is a curator (matched case-insensitively); --annotator is the name shown
    conf.write_text(f'[qc]\ncurators = ["carol", "{os_account().upper()}"]\n'
                    'defect_threshold = 0.3\n', encoding="utf-8")
    r = _cli(db, tmp_path, "--config", str(conf), "--annotator", "Carol D.", "qc", "exclude",
             str(bad.seed_id), "--reason", "cannot be fixed", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["seed_id"] == bad.seed_id and out["excluded_by"] == os_account()
    with Store(db) as s:
        ev = s.one("SELECT actor, display_name FROM events WHERE action = 'qc.seed.excluded'")
        assert ev == {"actor": os_account(), "display_name": "Carol D."}
        assert s.scalar("SELECT status FROM seeds WHERE id = ?", (bad.seed_id,)) == "excluded"
        assert gate(s, "arithmetic", threshold=0.3).open_rejects == 0


@pytest.mark.slow
def test_cli_annotators_in_parallel_processes(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    with Store(db) as s:
        f.populate(s, {"gsm8k": 5, "mawps": 3})
    r = _cli(db, tmp_path, "--annotator", "lead", "qc", "sample", "arithmetic", "--rate", "1",
             "--seed", "5", "--json")
    assert r.returncode == 0, r.stderr
    sample = json.loads(r.stdout)[0]
    assert sample["size"] == 8 and sample["rng_seed"] == 5
    assert sample["created_by"] == os_account()              # the account, not the typed name
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = False
    rounds = 0
    while not done:
        rounds += 1
        assert rounds < 10
        procs = [subprocess.Popen(
            [sys.executable, "-m", "qcstation", "--db", str(db), "--annotator", f"ann{n}",
             "qc", "decide", "next", "accept", "--json"],
            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for n in range(4)]
        outs = [(p.wait(timeout=300), p.stdout.read(), p.stderr.read()) for p in procs]  # type: ignore[union-attr]
        # four sessions of one OS account (one person, four terminals): the names typed
        # are display names only; a session may be refused an item its twin just decided
        for code, _out, err in outs:
            assert code in (0, 1, 2), err
            assert "locked" not in err
            if code == 1:
                assert "nothing left to review" in err
            if code == 2:
                assert "already decided" in err
        done = all(code == 1 for code, _, _ in outs)
    with Store(db) as s:
        per_item = Counter(r["sample_item_id"] for r in active_finals(s))
        assert len(per_item) == 8 and set(per_item.values()) == {1}
        assert {r["annotator"] for r in active_finals(s)} == {os_account()}
        assert {r["display_name"] for r in active_finals(s)} <= {"ann0", "ann1", "ann2", "ann3"}
    r = _cli(db, tmp_path, "--annotator", "ann0", "qc", "undo", "--json")
    assert r.returncode == 0, r.stderr
    r = _cli(db, tmp_path, "qc", "status", "arithmetic", "--json")
    assert r.returncode == 1                                 # one item pending again
    status = json.loads(r.stdout)["arithmetic"]
    assert status["gate"]["reviewed"] == 7 and status["gate"]["pending"] == 1
    r = _cli(db, tmp_path, "--annotator", "ann0", "qc", "decide", "next", "reject")
    assert r.returncode == 2 and "needs a reason" in r.stderr


def test_every_shell_argument_has_help() -> None:
    from qcstation.cli import build_parser

    missing: list[str] = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])
            elif not action.help and not isinstance(action, argparse._HelpAction):
                missing.append(" ".join(path + [action.dest]))

    walk(build_parser(), ["qcstation"])
    assert missing == []


@pytest.mark.slow
def test_cli_queue_settle_fix_and_team(shipped: Store, tmp_path: Path) -> None:
    db = shipped.path
    item = claim(shipped, "ann", "arithmetic")
    decide(shipped, item.item_id, "ann", "reject", "story words left in")
    shipped.close()
    conf = tmp_path / "qcstation.toml"
    conf.write_text(f'[qc]\ncurators = ["{os_account()}"]\n', encoding="utf-8")
    r = _cli_no_env(db, tmp_path, "qc", "queue", "--state", "rejected")
    assert r.returncode == 0, r.stderr
    assert f"{item.source}-{item.orig_id}" in r.stdout and "awaiting replacement" in r.stdout
    r = _cli_no_env(db, tmp_path, "qc", "edit-text", str(item.item_id))
    assert r.returncode == 0 and r.stdout.strip() == item.content["notation"]
    name = re.match(r"Let (\w+) =", r.stdout).group(1)  # type: ignore[union-attr]
    r = _cli_no_env(db, tmp_path, "--annotator", "Fixer", "qc", "fix", str(item.item_id),
                    "--file", "-", stdin=re.sub(rf"\b{name}\b", "q1", r.stdout), )
    assert r.returncode == 0, r.stderr
    assert "fixed in place as version 2" in r.stdout
    r = _cli_no_env(db, tmp_path, "--config", str(conf), "qc", "override", str(item.item_id),
                    "accept", "--reason", "x")
    assert r.returncode == 2 and "regenerated or fixed since" in r.stderr
    r = _cli_no_env(db, tmp_path, "--config", str(conf), "qc", "team", "--json")
    assert r.returncode == 0, r.stderr
    people = {p["annotator"]: p for p in json.loads(r.stdout)["annotators"]}
    assert people[os_account()]["names"] == ["Fixer"] and people["ann"]["rejects"] == 1


def test_cli_queue_search_finds_words_and_explains_a_bad_query(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    with Store(db) as s:
        f.populate(s, {"gsm8k": 6})
        info = draw_sample(s, "arithmetic", rate=1.0, rng_seed=1, actor="lead")
        bad = list_items(s, info.id)[0]
        decide_all(s, "ann1", "arithmetic", reject={bad.seed_id})
    r = _cli(db, tmp_path, "qc", "queue", "--search", "story words", "--json")
    assert r.returncode == 0, r.stderr
    assert [row["item_id"] for row in json.loads(r.stdout)] == [bad.item_id]
    r = _cli(db, tmp_path, "qc", "queue", "--search", 'story "words')
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("qcstation: error: cannot search for")
    assert "unterminated string" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_cli_takes_an_item_by_its_name_wherever_it_takes_an_id(tmp_path: Path) -> None:
    db = tmp_path / "names.db"
    conf = tmp_path / "qcstation.toml"
    conf.write_text(f'[qc]\ncurators = ["{os_account()}"]\n', encoding="utf-8")
    with Store(db) as s:
        f.populate(s, {"gsm8k": 8})
        with s.transaction():   # original ids as GSM8K's own: gsm8k-83 names seed 83's item
            s.execute("UPDATE seeds SET orig_id = CAST(80 + id AS TEXT)")
        for dim in ("arithmetic", "understanding"):
            draw_sample(s, dim, rate=1.0, rng_seed=1, actor="lead")
    r = _cli_no_env(db, tmp_path, "qc", "show", "gsm8k-83")
    assert r.returncode == 2 and "gsm8k-83 is sampled in" in r.stderr and "--dimension" in r.stderr
    r = _cli_no_env(db, tmp_path, "qc", "show", "gsm8k-83", "--dimension", "arithmetic")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("gsm8k-83  arithmetic")
    r = _cli_no_env(db, tmp_path, "qc", "decide", "gsm8k-83", "accept", "--dimension",
                    "arithmetic")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("gsm8k-83 arithmetic")
    r = _cli_no_env(db, tmp_path, "qc", "edit-text", "gsm8k-84", "--dimension", "arithmetic")
    assert r.returncode == 0 and r.stdout.startswith("Let x = ")
    r = _cli_no_env(db, tmp_path, "--config", str(conf), "qc", "exclude", "gsm8k-85",
                    "--reason", "cannot be fixed")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("gsm8k-85 (seed 5) excluded by")
    r = _cli_no_env(db, tmp_path, "qc", "show", "gsm8k-999")
    assert r.returncode == 2 and "no item named 'gsm8k-999'" in r.stderr
    with Store(db) as s:
        assert s.scalar("SELECT status FROM seeds WHERE orig_id = '85'") == "excluded"
        assert s.scalar("SELECT COUNT(*) FROM reviews") == 1


def test_cli_sample_extend_fresh_take_the_dashboards_steps(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """qc sample all / extend / fresh are the curator's rounds (core/review/rounds.py): each
    draw with the gate's plan beside it, a refusal as the shell's error (exit 2), an extension
    by hand or by what the gate asks for, a fresh round refused with its reason."""
    from qcstation.cli import main

    db = str(tmp_path / "rounds.db")
    conf = tmp_path / "q.toml"
    conf.write_text(f'[qc]\ncurators = ["{os_account()}"]\ndimensions = ["arithmetic", '
                    '"understanding"]\nsample_rate = 0.2\nmin_sample = 2\nrng_seed = 5\n',
                    encoding="utf-8")
    with Store(db) as s:
        f.populate(s, {"gsm8k": 20})

    def qc(*args: str) -> tuple[int, str, str]:
        code = main(["--db", db, "--config", str(conf), "qc", *args])
        out, err = capsys.readouterr()
        return code, out, err

    code, out, _ = qc("sample", "all")
    assert code == 0
    lines = out.splitlines()
    assert [ln.split(":")[0] for ln in lines] == ["arithmetic", "understanding",
                                                  "sample 1", "sample 2"]
    assert "arithmetic round 1, 4 items (rate 0.2, rng seed 5); by source: gsm8k 4" in lines[2]
    code, _, err = qc("sample", "all")                 # refused: the first refusal, exit 2
    assert code == 2 and "sample #1 (round 1) for arithmetic items is still open" in err
    code, _, err = qc("extend", "arithmetic")
    assert code == 2 and "say how many items to add: --extra N, or --to-gate" in err
    code, out, _ = qc("extend", "arithmetic", "--extra", "3")
    assert code == 0 and out == "sample 1: added 3 items, now 7 (why: asked for by hand)\n"
    code, out, _ = qc("extend", "understanding", "--to-gate")
    assert code == 0 and out.startswith("understanding: no extension needed (")
    code, _, err = qc("fresh", "arithmetic")
    assert code == 2 and "no defect has been found in this arithmetic round" in err
    with Store(db) as s:
        assert [len(list_items(s, n)) for n in (1, 2)] == [7, 4]
