"""`qcstation derive ...` and the `--set` options of qc and release, as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from qcstation.cli import main
from qcstation.common.identity import os_account
from tests.conftest import ROOT
from tests.core.derive.helpers import make_db


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(make_db(tmp_path, ["james", "janet", "tom"]))


def test_derive_status_show_and_qc(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--db", db, "derive", "counterfactual", "--name", "cf", "--shifts", "20,-20",
                 "--json", "-q"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["set"] == "cf" and summary["made"]["counterfactual"] == 4   # 2 parents x 2
    assert summary["parents_refused"] == {"restated-value": 1}                  # Tom
    assert main(["--db", db, "derive", "status", "cf", "--json"]) == 0
    (rep,) = json.loads(capsys.readouterr().out)
    (line,) = rep["shares"]
    assert (line["parents"], line["made_for"], line["items"]) == (3, 2, 4)
    assert line["reasons"] == [{"code": "restated-value", "parents": 1}]
    assert main(["--db", db, "derive", "status", "cf"]) == 0
    out = capsys.readouterr().out
    assert "2/3" in out and "66.7%" in out and "restated-value 1" in out
    assert main(["--db", db, "derive", "show", "cf", "--limit", "1"]) == 0
    assert "~cf.cf" in capsys.readouterr().out
    cfg = tmp_path / "q.toml"
    cfg.write_text('[qc]\ncurators = ["tester"]\n')
    assert main(["--db", db, "--config", str(cfg), "qc", "sample", "all", "--set", "cf"]) == 0
    out = capsys.readouterr().out
    assert "of cf round 1" in out
    assert main(["--db", db, "--config", str(cfg), "release", "blockers", "--set", "cf"]) == 1
    assert "QC gate of the derived set cf" in capsys.readouterr().out


def test_derive_is_the_curators_where_curators_are_configured(db: str, tmp_path: Path) -> None:
    """As in the app: with ``[qc] curators`` set, only a curator builds a set. The person is
    the OS account this process runs as; ``--annotator`` naming a curator grants nothing."""
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("QCSTATION_")}
        env["PYTHONPATH"] = str(ROOT)
        return subprocess.run([sys.executable, "-m", "qcstation", "--db", db,
                               "--config", str(conf), *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)

    def sets() -> list[str]:
        with Store(db) as store:
            return [r["name"] for r in store.query("SELECT name FROM derive_sets ORDER BY id")]

    conf = tmp_path / "qcstation.toml"
    conf.write_text('[qc]\ncurators = ["carol"]\n', encoding="utf-8")
    build = ("derive", "counterfactual", "--name", "cf", "--shifts", "20", "--workers", "0",
             "--z3-workers", "1", "-q")
    r = cli("--annotator", "carol", *build)
    assert r.returncode == 2, r.stderr
    assert "only a curator can build a derived set" in r.stderr
    assert f"the account {os_account()} is not one" in r.stderr
    assert sets() == []                                   # refused before anything is stored
    # reading sets stays open to everyone
    assert cli("derive", "list").returncode == 0
    # the account itself listed (any case): it builds, and the set records it
    conf.write_text(f'[qc]\ncurators = ["carol", "{os_account().upper()}"]\n', encoding="utf-8")
    r = cli("--annotator", "Carol D.", *build, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["made"]["counterfactual"] == 2
    assert sets() == ["cf"]
    with Store(db) as store:
        assert store.scalar("SELECT created_by FROM derive_sets WHERE name = 'cf'") == os_account()


def test_bad_levels_are_a_usage_error(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--db", db, "derive", "ladder", "--digit-levels", "a,b"])
    assert exc.value.code == 2
    assert "comma-separated" in capsys.readouterr().err


def test_workers_zero_runs_here_and_negative_is_a_usage_error(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--db", db, "derive", "counterfactual", "--name", "cf0", "--shifts", "20",
                 "--workers", "0", "--z3-workers", "1", "--json", "-q"]) == 0
    assert json.loads(capsys.readouterr().out)["made"]["counterfactual"] == 2
    with pytest.raises(SystemExit) as exc:
        main(["--db", db, "derive", "variants", "--workers", "-1"])
    assert exc.value.code == 2 and "at least 0" in capsys.readouterr().err


def test_unknown_set(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--db", db, "derive", "status", "nope"]) == 2
    assert "no derived set named 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("action", ["", "variants", "ladder", "perturb", "counterfactual",
                                    "inverse", "status", "list", "show"])
def test_help(action: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["derive", *([action] if action else []), "--help"])
    assert exc.value.code == 0 and "usage: qcstation derive" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["x\x1b[2Jy", "n" * 5000, "../up", "two words"])
def test_a_set_name_is_what_the_apps_form_takes(db: str, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """attack10: the shell took any --name, the app's form 1-40 letters, digits, '.', '_',
    '-': an escape sequence or 5,000 characters went into every item's id (``1~NAME.v3``),
    exported in releases."""
    assert main(["--db", db, "derive", "counterfactual", "--name", name, "--shifts", "20", "-q"]) == 2
    err = capsys.readouterr().err
    assert "a set name is 1-40 letters" in err and "\x1b" not in err and len(err) < 400
    with Store(db) as store:
        assert store.scalar("SELECT COUNT(*) FROM derive_sets") == 0
        assert store.scalar("SELECT COUNT(*) FROM seeds WHERE orig_id LIKE '%~%'") == 0
