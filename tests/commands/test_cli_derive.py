"""`qcstation derive ...` and the `--set` options of qc and release, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qcstation.cli import main
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
