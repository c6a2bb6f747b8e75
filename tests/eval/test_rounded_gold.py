"""ACC@Re on a gold the data rounds (issue 27.5, AQuA): AQuA's gold is an answer option
("$78.20") that rounds the exact value (1095/14). Generation accepts a formalization whose
unique value is nearest the correct option and within 1% of the gold, recording the rounding
(core/construct/checks.rounded_gold_match); ACC@Re reads it the same way, instead of
comparing with the rounded text to half a cent. Real SQLite, real Z3, the real scorer."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from db import Store
from db.store import now
from qcstation.eval import scorers
from qcstation.eval import tasks as T
from qcstation.eval.outputs import output_row, write_outputs
from qcstation.eval.runs import SPEC_FORMAT
from qcstation.eval.types import EvalReply
from tests.eval_factory import make_run
from tests.eval_helpers import config

QUESTION = "A shop sells 14 equal boxes for $1095 in all. What does one box cost?"
OPTIONS = ["A)$70.00", "B)$75.50", "C)$78.20", "D)$80.10", "E)$85.00"]


def _script(expr: str) -> str:
    return ("```smt2\n(declare-const total Real)\n(assert (= total 1095))\n"
            "(declare-const boxes Real)\n(assert (= boxes 14))\n(declare-const answer Real)\n"
            f"(assert (= answer {expr}))\n(check-sat)\n(get-value (answer))\n```")


def _seed(store: Store, i: int, source: str, meta: dict) -> int:
    with store.transaction():
        return store.insert("seeds", {
            "source": source, "orig_id": f"{source}-{i}", "question": QUESTION,
            "answer_text": "$78.20", "answer_value": None, "solution": None, "equation": None,
            "level": "hard", "status": "active", "meta": json.dumps(meta),
            "content_hash": hashlib.sha256(f"{source}:{i}".encode()).hexdigest(),
            "imported_at": now(), "steps": None})


def test_a_rounded_gold_is_read_as_the_nearest_option(db_file: Path) -> None:
    replies = {"exact": _script("(/ total boxes)"),             # 1095/14 = 78.214...
               "far": _script("(/ total (- boxes 1))"),         # 1095/13 = 84.23: option E
               "stated": _script("78.2")}                       # the option, no givens used
    with Store(db_file) as s:
        run = make_run(s, tasks=("reasoning",), spec={
            "format": SPEC_FORMAT, "max_tokens": 512,
            "templates": {"reasoning": T.load_template("reasoning").to_spec()}})
        seeds: dict[int, tuple[str, str]] = {}
        for i, (kind, text) in enumerate(replies.items()):
            # the same item twice: from AQuA (options) and from a set without options
            for source, meta in (("aqua", {"options": OPTIONS, "correct": "C"}), ("other", {})):
                sid = _seed(s, 10 * i + len(seeds) % 2, source, meta)
                seeds[sid] = (kind, source)
                rec = {"seed_id": sid, "source": source, "question": QUESTION,
                       "answer": None, "gt_answer": "$78.20", "smt-lib": replies["exact"]}
                with s.transaction():
                    s.insert("eval_items", {"run_id": run, "seed_id": sid, "item_key": f"{source}-{sid}",
                                            "source": source, "difficulty": "hard", "role": "eval",
                                            "position": sid, "record": json.dumps(rec)})
                    write_outputs(s.conn, [output_row(run, (sid, "reasoning", 0), "h",
                                                      EvalReply("", "ok", text=text))])
    scorers.score_run(db_file, run, config())
    with Store(db_file) as s:
        got = {seeds[int(r["seed_id"])]: (r["verdict"], json.loads(r["detail"]))
               for r in s.query("SELECT seed_id, verdict, detail FROM eval_scores WHERE run_id = ? "
                                "AND metric = 're'", (run,))}
    # AQuA: 1095/14 is nearest option C and 0.014 (0.02%) from $78.20: right, rounding recorded
    verdict, detail = got[("exact", "aqua")]
    assert verdict == "correct", detail
    assert detail["rounding"]["rule"] == "nearest answer option"
    assert detail["rounding"]["value"] == "1095/14" and detail["rounding"]["gold"] == "$78.20"
    # without options nothing says the gold is rounded: compared with $78.20 to half a cent
    assert got[("exact", "other")][0] == "wrong" and "rounding" not in got[("exact", "other")][1]
    # nearest another option: wrong in both
    assert got[("far", "aqua")][0] == "wrong" and got[("far", "other")][0] == "wrong"
    # the option written as the answer: no given moves it (the triviality check still runs)
    assert got[("stated", "aqua")][0] == "trivial"
