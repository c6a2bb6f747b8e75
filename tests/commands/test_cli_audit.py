"""`qcstation audit` and the status flag counts, as real subprocesses on a real database."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import dataset


def qcs(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), *args],
                          capture_output=True, text=True, timeout=300)


def test_audit_of_rule_made_gsm8k_references_and_of_a_planted_defect(tmp_path: Path) -> None:
    lines = dataset("gsm8k/test.jsonl").read_text().splitlines()
    # the seeds and their neighbours
    picked = [lines[i - 1] for i in (1, 2, 3, 8, 50, 389, 590, 709, 817, 841, 1022, 1066, 1101)]
    src = tmp_path / "gsm8k_part.jsonl"
    src.write_text("\n".join(picked) + "\n")
    db = tmp_path / "a.db"
    assert qcs(db, "import", str(src), "--format", "gsm8k").returncode == 0
    gen = qcs(db, "generate", "--quiet")
    assert gen.returncode == 0, gen.stderr
    res = qcs(db, "audit", "--json")
    data = json.loads(res.stdout)
    assert res.returncode == 0, data
    assert data["flags"] == {} and data["audited"]["reasoning"] >= 9
    # an old-style wrong chain of thought that keeps the gold answer is flagged, with its seed
    con = __import__("sqlite3").connect(db)
    art_id, content = con.execute(
        "SELECT id, content FROM artifacts WHERE dimension = 'refinement' ORDER BY id LIMIT 1").fetchone()
    c = json.loads(content)
    gold = con.execute("SELECT answer_text FROM seeds s JOIN artifacts a ON a.seed_id = s.id "
                       "WHERE a.id = ?", (art_id,)).fetchone()[0]
    c["w_cot"] = c["gt_cot"].rsplit("\n", 1)[0] + f"\nThe answer is {gold}."
    c["errors"] = [{"type": "arithmetic_inaccuracy", "step": 0}]
    con.execute("UPDATE artifacts SET content = ? WHERE id = ?", (json.dumps(c), art_id))
    con.commit()
    con.close()
    # --stored counts what was stored when the artifact was made: the edit is not seen yet
    stored = qcs(db, "audit", "--stored", "--json")
    assert stored.returncode == 0 and json.loads(stored.stdout)["flags"] == {}
    res = qcs(db, "audit")
    assert res.returncode == 1
    assert "wrong-cot-keeps-gold" in res.stdout and "gsm8k 1 (seed 1, refinement" in res.stdout
    status = qcs(db, "status", "--json")
    assert status.returncode == 0
    assert json.loads(status.stdout)["audit"]["flags"] == {"refinement": {"wrong-cot-keeps-gold": 1}}
    assert "self-check flags" in qcs(db, "status").stdout
    stored = qcs(db, "audit", "--stored")
    assert stored.returncode == 1 and "gsm8k 1 (seed 1, refinement" in stored.stdout
    assert qcs(db, "audit", "--source", "nope").returncode != 0
