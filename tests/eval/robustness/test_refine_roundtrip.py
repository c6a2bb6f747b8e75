"""Self-refine (SMART 4.6) and the round trip, run by `qcstation eval run` against a scripted
model on a loopback OpenAI-compatible server; the figures are worked out by hand."""

from __future__ import annotations

import json
import re
import sqlite3
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from db import Store
from qcstation.cli import main
from qcstation.core.release.releases import release_records
from qcstation.eval.robustness.diagnose import diagnose
from qcstation.eval.robustness.refine import REFINE_PROMPTS
from tests.eval.robustness.helpers import copy_released
from tests.eval_helpers import last_user
from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: F401


def _who(text: str) -> str:
    return "janet" if "Janet" in text else "james" if "James" in text else "jacket"


@pytest.fixture
def db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_released(tmp_path_factory.getbasetemp(), tmp_path / "f.db")


def _cfg(tmp_path: Path, url: str) -> Path:
    cfg = tmp_path / "q.toml"
    cfg.write_text(f'[models.m]\nmodel = "fake-model"\nbase_url = "{url}"\nretries = 1\n')
    return cfg


def _run(db: Path, cfg: Path, capsys: pytest.CaptureFixture[str], *args: str) -> int:
    assert main(["--db", str(db), "--config", str(cfg), "eval", "run", "--model", "m",
                 "--shots", "0", "--json", "-q", *args]) == 0
    return int(json.loads(capsys.readouterr().out)["run"])


def test_self_refine_targets_the_weakest_dimension(db: Path, tmp_path: Path,
                                                   fake_openai: FakeOpenAI,  # noqa: F811
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with Store(db) as s:
        recs = release_records(s, "base", "1")
    by_text = {**{r["question"]: r for r in recs}, **{r["notation"]: r for r in recs}}
    refine = REFINE_PROMPTS["arithmetic"]

    def respond(request: dict[str, Any]) -> str:
        prompt = last_user(request)
        rec = by_text[max((t for t in by_text if t in prompt), key=len)]
        if "SMT-LIB" in prompt:
            return f"```smt2\n{rec['smt-lib']}\n```"
        if "Compute the value exactly" in prompt:
            # wrong unless told to refine, then right
            return f"The answer is {rec['answer'] if refine in prompt else '0'}."
        return f"The answer is {rec['answer']}."

    fake_openai.responder = respond
    cfg = _cfg(tmp_path, fake_openai.base_url)
    tasks = ["--tasks", "reasoning,arithmetic,final", "--release", "base@1"]
    first = _run(db, cfg, capsys, *tasks)
    second = _run(db, cfg, capsys, *tasks, "--refine-weakest", str(first))
    with Store(db) as s:
        spec = json.loads(s.scalar("SELECT spec FROM eval_runs WHERE id = ?", (second,)))
        dg = diagnose(s, second)
    # run 1: Reasoning 3/3, Arithmetic 0/3 -> the weakest is Arithmetic
    assert spec["refine"]["dimension"] == "arithmetic" and spec["refine"]["from"] == first
    assert spec["refine"]["accuracies"] == {"reasoning": 1.0, "arithmetic": 0.0}
    assert refine in spec["templates"]["arithmetic"]["text"]
    assert refine not in spec["templates"]["final"]["text"]
    # gain on Arithmetic: 0/3 -> 3/3, 3 gained, 0 lost; exact McNemar p = 2 * (1/2)^3 = 1/4
    ar = dg.refine_gain["ar"]
    assert (ar.before, ar.after, ar.gained, ar.lost, ar.n) == (0.0, 1.0, 3, 0, 3)
    assert ar.p == pytest.approx(0.25)
    assert dg.refine_gain["fi"].gain == 0.0 and dg.refine_gain["fi"].p == 1.0
    assert main(["--db", str(db), "eval", "robustness", str(second)]) == 0
    out = capsys.readouterr().out
    assert f"Self-refine on arithmetic: gain against run #{first}" in out and "0.2500" in out


def test_round_trip_states_the_models_forward_answer(db: Path, tmp_path: Path,
                                                      fake_openai: FakeOpenAI,  # noqa: F811
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    with Store(db) as s:
        recs = release_records(s, "base", "1")
    gold = {_who(r["question"]): r["answer"] for r in recs}
    forward = {"james": gold["james"], "janet": "20", "jacket": gold["jacket"]}  # janet wrong
    state: dict[str, Any] = {}

    def respond(request: dict[str, Any]) -> str:
        prompt = last_user(request)
        who = _who(prompt)
        if "what is the value of unknown variable X" not in prompt:
            return f"The answer is {forward[who]}."
        if who == "jacket":
            return "The answer is 1."                  # never recovers X
        if "items" not in state:                       # the round-trip run's frozen records
            conn = sqlite3.connect(db)
            state["items"] = [json.loads(r) for (r,) in conn.execute(
                "SELECT record FROM eval_items WHERE run_id = (SELECT MAX(id) FROM eval_runs)")]
            conn.close()
        rec = next(r for r in state["items"] if r["question"] in prompt)
        x = Fraction(rec["answer"])
        return f"The answer is {x.numerator}/{x.denominator}." if x.denominator != 1 else \
            f"The answer is {x}."

    fake_openai.responder = respond
    cfg = _cfg(tmp_path, fake_openai.base_url)
    fwd = _run(db, cfg, capsys, "--release", "base@1", "--tasks", "final")
    rt = _run(db, cfg, capsys, "--release", "back-rel@1", "--tasks", "final", "--round-trip", str(fwd))
    with Store(db) as s:
        items = [json.loads(r["record"]) for r in s.query(
            "SELECT record FROM eval_items WHERE run_id = ?", (rt,))]
        dg = diagnose(s, rt)
    janet = {r["params"]["hidden"]: r for r in items if _who(r["question"]) == "janet"}
    # Janet: (16 - 3 - four) * 2 = 18; the model said 20.
    #   four hidden: (16 - 3 - X) * 2 = 20 -> X = 3;   $2 hidden: (16 - 3 - 4) * X = 20 -> X = 20/9
    assert {h: r["answer"] for h, r in janet.items()} == {"g3": "3", "g4_fresh": "20/9"}
    assert all(re.search(r"the answer to the above question is 20, what", r["question"])
               for r in janet.values())
    assert all(r["round_trip"]["forward_right"] is False for r in janet.values())
    # james and janet recover X (4 items), jacket never (2): all 4/6; forward right (james,
    # jacket: 4 items) 2/4; forward wrong (janet: 2 items) 2/2
    fi = dg.round_trip["fi"]
    assert fi["all"][0] == pytest.approx(4 / 6) and fi["all"][1] == 6
    assert fi["forward right"][0] == pytest.approx(2 / 4) and fi["forward right"][1] == 4
    assert fi["forward wrong"] == (1.0, 2)
