"""`qcstation import / generate / verify / status` as a user runs them (real files, real Z3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from db import Store
from qcstation.cli import main
from tests.conftest import dataset
from tests.must import must


@pytest.fixture
def gsm8k_small(tmp_path: Path) -> Path:
    # twelve seeds the rules formalize (a seed whose givens' words cannot be vouched for
    # goes to a model, e.g. 2: "2 bolts" or "half")
    all_lines = dataset("gsm8k/test.jsonl").read_text().splitlines(keepends=True)
    lines = [all_lines[i - 1] for i in (1, 3, 4, 5, 7, 8, 10, 12, 13, 18, 19, 22)]
    p = tmp_path / "gsm8k_small.jsonl"
    p.write_text("".join(lines))
    return p


def test_import_generate_verify_status_json(tmp_path: Path, gsm8k_small: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "qc.db")
    assert main(["--db", db, "import", str(gsm8k_small), "--format", "gsm8k"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "generate", "--limit", "5", "-d", "reasoning", "-d", "arithmetic",
                 "--json", "-q"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dimensions"]["reasoning"]["verified"] == 5
    assert out["dimensions"]["arithmetic"]["verified"] == 5
    assert "understanding" not in out["dimensions"]
    # status reflects exactly that
    assert main(["--db", db, "status", "--json"]) == 0
    st = json.loads(capsys.readouterr().out)
    assert st["artifacts"]["reasoning"] == {"verified": 5}
    assert st["artifacts"]["arithmetic"] == {"verified": 5}
    assert st["seeds"]["gsm8k"]["active"] >= 10
    # nothing left unverified, so verify has nothing to do; --all re-checks all ten with Z3
    assert main(["--db", db, "verify", "-q"]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert main(["--db", db, "verify", "--all", "-q", "--json", "-d", "reasoning"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["dimensions"]["reasoning"]["verified"] == 5


def test_verify_all_catches_a_tampered_artifact(tmp_path: Path, gsm8k_small: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "qc.db"
    main(["--db", str(db), "import", str(gsm8k_small)])
    main(["--db", str(db), "generate", "--limit", "2", "-d", "reasoning", "-q"])
    with Store(db) as s, s.transaction():
        art = must(s.one("SELECT id, content FROM artifacts WHERE dimension = 'reasoning' ORDER BY id LIMIT 1"))
        content = json.loads(art["content"])
        content["smtlib"] = content["smtlib"].replace("(check-sat)", "(assert (= answer 0))\n(check-sat)")
        s.execute("UPDATE artifacts SET content = ? WHERE id = ?", (json.dumps(content), art["id"]))
    capsys.readouterr()
    assert main(["--db", str(db), "verify", "--all", "-q", "-d", "reasoning"]) == 1
    text = capsys.readouterr().out
    assert "failed:unsat 1" in text and "verified 1" in text
    with Store(db) as s:
        assert s.scalar("SELECT status FROM artifacts WHERE id = ?", (art["id"],)) == "failed"


def test_status_is_plain_text_for_pipes(tmp_path: Path, gsm8k_small: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "qc.db")
    main(["--db", db, "import", str(gsm8k_small)])
    capsys.readouterr()
    assert main(["--db", db, "status"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" not in out
    assert "gsm8k" in out and "not generated" in out


def test_unknown_config_key_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[generation]\nmax_attempt = 3\n")
    assert main(["--db", str(tmp_path / "qc.db"), "--config", str(cfg), "generate", "-q"]) == 2
    err = capsys.readouterr().err
    assert "max_attempt" in err and "bad.toml" in err


def test_errors_per_cot_sets_rr_difficulty(tmp_path: Path, gsm8k_small: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "qc.db"
    main(["--db", str(db), "import", str(gsm8k_small)])
    assert main(["--db", str(db), "generate", "-d", "refinement", "--limit", "4",
                 "--errors-per-cot", "2", "-q"]) == 0
    with Store(db) as s:
        rows = s.query("SELECT content FROM artifacts WHERE dimension = 'refinement'")
    # the types are drawn uniformly: a drawn pair that cannot apply goes to a model
    assert 2 <= len(rows) <= 4
    for r in rows:
        errors = json.loads(r["content"])["errors"]
        assert len(errors) == 2 and len({e["type"] for e in errors}) == 2
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["--db", str(db), "generate", "--errors-per-cot", "7"])
    assert "between 1 and 6" in capsys.readouterr().err


def test_items_without_rule_or_model_say_so_in_status(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "plain.jsonl"
    src.write_text("".join(json.dumps({"question": f"Ann has {n} pens and buys {n} more, then "
                                                   f"gives away 1. How many pens?",
                                       "answer": str(2 * n - 1), "id": str(n)}) + "\n"
                           for n in range(2, 5)))
    db = str(tmp_path / "qc.db")
    main(["--db", db, "import", str(src), "--level", "easy"])
    for _ in range(2):  # a second run records nothing new
        main(["--db", db, "generate", "-d", "reasoning", "-q"])
    capsys.readouterr()
    main(["--db", db, "status", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["needs_model"]["reasoning"] == 3
    with Store(Path(db)) as s:
        assert s.scalar("SELECT COUNT(*) FROM attempts WHERE verify_status = 'needs_model'") == 3
    main(["--db", db, "status"])
    assert "needs a model" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["status"], ["generate", "-q"], ["verify", "-q"], ["qc", "status"],
                                  ["release", "list"]])
def test_commands_that_only_read_never_create_a_database(tmp_path: Path, argv: list[str],
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "typo" / "qc.db"
    assert main(["--db", str(missing), *argv]) == 2
    assert "no database at" in capsys.readouterr().err
    assert not missing.exists() and not missing.parent.exists()


def test_generation_shows_tokens_and_cost_per_run_and_in_status(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 31.7: tokens and cost were stored per call but shown nowhere."""
    from tests.fake_openai import FakeOpenAI

    seeds = tmp_path / "mine.jsonl"
    seeds.write_text(json.dumps({"question": "Tom has 3 apples. He buys 4 more and eats 2. "
                                 "How many apples does he have?", "answer": "5"}) + "\n")
    smt = ("(declare-const a Real)(declare-const b Real)(declare-const c Real)"
           "(declare-const answer Real)(assert (= a 3))(assert (= b 4))(assert (= c 2))"
           "(assert (= answer (- (+ a b) c)))(check-sat)(get-value (answer))")
    db = str(tmp_path / "qc.db")
    with FakeOpenAI(lambda req: f"```smt2\n{smt}\n```", model="gen") as server:
        cfg = tmp_path / "c.toml"
        cfg.write_text(f'[generator]\nmodel = "gen"\nbase_url = "{server.base_url}"\n'
                       f'price_in_per_mtok = 2.0\nprice_out_per_mtok = 8.0\n', encoding="utf-8")
        assert main(["--db", db, "import", str(seeds), "--level", "easy"]) == 0
        capsys.readouterr()
        assert main(["--db", db, "--config", str(cfg), "generate", "-d", "reasoning", "-q"]) == 0
        out = capsys.readouterr().out
        assert "model calls 1 (0 from the cache, 0 failed), tokens " in out and "cost $0.0" in out
        assert main(["--db", db, "--config", str(cfg), "generate", "-d", "reasoning", "-q",
                     "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["usage"]["calls"] == 0   # nothing left to do
    assert main(["--db", db, "status"]) == 0
    out = capsys.readouterr().out
    assert "model calls for generation" in out
    line = next(x for x in out.splitlines() if x.startswith("gen "))
    assert line.split()[1:4] == ["1", "0", "0"]
    assert main(["--db", db, "status", "--json"]) == 0
    usage = json.loads(capsys.readouterr().out)["generation_usage"]
    assert usage[0]["model"] == "gen" and usage[0]["prompt_tokens"] > 0 and usage[0]["cost"] > 0


def test_dropped_token_counts_are_said_once_at_the_end(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 30.1: a server claiming impossible token counts made ``generate`` write lines to
    stderr for every reply (thousands over a hostile run); now one line at the end with the
    count, and the counts are in the summary's usage."""
    from tests.fake_openai import FakeOpenAI

    seeds = tmp_path / "mine.jsonl"
    seeds.write_text("".join(json.dumps({"question": f"Tom has {n} apples. He buys 4 more and eats 2. "
                                         f"How many apples does he have?", "answer": str(n + 2)}) + "\n"
                             for n in (3, 5, 7)))

    def reply(req: dict) -> str:
        import re

        n = int(re.findall(r"Tom has (\d+) apples", json.dumps(req))[-1])
        return (f"```smt2\n(declare-const a Real)(declare-const b Real)(declare-const c Real)"
                f"(declare-const answer Real)(assert (= a {n}))(assert (= b 4))(assert (= c 2))"
                f"(assert (= answer (- (+ a b) c)))(check-sat)(get-value (answer))\n```")

    db = str(tmp_path / "qc.db")
    with FakeOpenAI(reply, model="gen") as server:
        server.hostile(text=reply, usage={"prompt_tokens": 2**53, "completion_tokens": "many"})
        cfg = tmp_path / "c.toml"
        cfg.write_text(f'[generator]\nmodel = "gen"\nbase_url = "{server.base_url}"\n', encoding="utf-8")
        assert main(["--db", db, "import", str(seeds), "--level", "easy"]) == 0
        capsys.readouterr()
        assert main(["--db", db, "--config", str(cfg), "generate", "-d", "reasoning", "-q"]) == 0
        out, err = capsys.readouterr()
        assert main(["--db", db, "--config", str(cfg), "generate", "-d", "reasoning", "-q",
                     "--json"]) == 0
        again = json.loads(capsys.readouterr().out)
    assert "verified 3" in out
    # two counts dropped a reply, three replies: one line, at the end
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and "6 token counts the server reported dropped" in lines[0], err
    assert again["usage"]["dropped_token_counts"] == 0          # nothing asked the second time
