"""Self-check flags block a release until a curator overrides them with a reason; the
override is recorded (who, when, why), lapses when the flags change, and travels in the
release records, the manifest and the exported datasheet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from db import Store
from qcstation.common.config import Config, load_config
from qcstation.common.errors import ReleaseError, ReviewError
from qcstation.core.construct.check.selfcheck import stored_flags
from qcstation.core.release import releases as rel
from qcstation.core.release.flag_gate import flag_blockers, flagged_items, override_flags, undo_override
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.sampling import draw_sample, open_sample
from tests import factories as f
from tests.must import must

TOML = """
[qc]
sample_rate = 0.5
rng_seed = 7
defect_threshold = 0.3
min_sample = 1
curators = ["carol"]
dimensions = ["arithmetic", "understanding"]
sample_model_reasoning = false
"""

# a formula that only states the answer: Z3 verifies it, the self-check flags it
STATES_ANSWER = ("(declare-const answer Int)\n(assert (= answer {ans}))\n(check-sat)\n"
                 "(get-value (answer))")


@pytest.fixture
def cfg(tmp_path: Path) -> Config:
    path = tmp_path / "qcstation.toml"
    path.write_text(TOML, encoding="utf-8")
    return load_config(path, env={})


def _ready(store: Store, cfg: Config) -> list[int]:
    seeds = f.populate(store, {"gsm8k": 20})
    for dim in cfg.qc.dimensions:
        if open_sample(store, dim) is None:
            draw_sample(store, dim, rate=cfg.qc.sample_rate, rng_seed=cfg.qc.rng_seed,
                        actor="lead", min_size=cfg.qc.min_sample)
        while (item := next_item(store, "ann1", dim)) is not None:
            decide(store, item.item_id, "ann1", "accept")
    return seeds


def _flag_reasoning(store: Store, seed_id: int, *, model: str = "gpt-4o-mini") -> int:
    """Replace the seed's verified Reasoning by a model-made one that states the answer."""
    seed = must(store.one("SELECT question, solution, answer_text, answer_value FROM seeds WHERE id = ?",
                     (seed_id,)))
    content = {"smtlib": STATES_ANSWER.format(ans=seed["answer_value"])}
    flags = stored_flags("reasoning", content, dict(seed))
    assert flags["flag_codes"], "the self-check must flag a formula that states the answer"
    art = f.add_artifact(store, seed_id, "reasoning", content=content, generator="llm", model=model)
    store.execute("UPDATE artifacts SET flags = ?, flag_codes = ?, audit_version = ? WHERE id = ?",
                  (flags["flags"], flags["flag_codes"], flags["audit_version"], art))
    return art


def test_clean_release_has_no_flag_blocker(store: Store, cfg: Config) -> None:
    _ready(store, cfg)
    assert flagged_items(store) == []
    assert rel.release_blockers(store, cfg, actor="carol") == []


def test_a_flag_blocks_until_a_curator_overrides_it_with_a_reason(store: Store, cfg: Config,
                                                                   tmp_path: Path) -> None:
    seeds = _ready(store, cfg)
    art = _flag_reasoning(store, seeds[3])
    items = flagged_items(store)
    assert [(i.key, i.dimension, i.artifact_id) for i in items] == [("gsm8k-gsm8k-3", "reasoning", art)]
    assert items[0].made_by.startswith("model gpt-4o-mini")
    blockers = rel.release_blockers(store, cfg, actor="carol")
    assert len(blockers) == 1 and "gsm8k-gsm8k-3 reasoning" in blockers[0]
    with pytest.raises(ReleaseError, match="flagged item"):
        rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg)
    # only a curator, only with a reason
    with pytest.raises(ReviewError, match="only a curator"):
        override_flags(store, "gsm8k-gsm8k-3", "reasoning", "fine", actor="ann1",
                       curators=cfg.qc.curators)
    with pytest.raises(ReviewError, match="say why"):
        override_flags(store, "gsm8k-gsm8k-3", "reasoning", "  ", actor="carol",
                       curators=cfg.qc.curators)
    with pytest.raises(ReviewError, match="no flags"):
        override_flags(store, "gsm8k-gsm8k-3", "arithmetic", "x", actor="carol",
                       curators=cfg.qc.curators)
    override_flags(store, "gsm8k-gsm8k-3", "reasoning", "checked by hand: the answer is right",
                   actor="carol", curators=cfg.qc.curators)
    assert flag_blockers(store) == []
    assert rel.release_blockers(store, cfg, actor="carol") == []
    info = rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg)
    records = {r["seed_id"]: r for r in rel.release_records(store, "smart", "1.0")}
    flagged = records[seeds[3]]["flags"]
    assert list(flagged) == ["reasoning"]
    assert flagged["reasoning"]["override"]["by"] == "carol"
    assert flagged["reasoning"]["override"]["reason"] == "checked by hand: the answer is right"
    assert flagged["reasoning"]["override"]["at"]
    assert {x["code"] for x in flagged["reasoning"]["flags"]}
    assert all(r["flags"] == {} for sid, r in records.items() if sid != seeds[3])
    man = info.manifest["flags"]
    assert man["records_flagged"] == 1 and man["overridden"][0]["id"] == "gsm8k-gsm8k-3"
    out = rel.export_release(store, "smart", "1.0", tmp_path / "exp")
    data = [json.loads(line) for line in (out / "data.jsonl").read_text().splitlines()]
    assert sum(1 for r in data if r["flags"]) == 1
    readme = (out / "README.md").read_text()
    assert "## Self-check flags" in readme and "checked by hand: the answer is right" in readme
    assert "| gsm8k-gsm8k-3 | reasoning |" in readme


def test_an_override_lapses_when_the_flags_change_and_can_be_withdrawn(store: Store,
                                                                       cfg: Config) -> None:
    seeds = _ready(store, cfg)
    art = _flag_reasoning(store, seeds[1])
    override_flags(store, "gsm8k-gsm8k-1", "reasoning", "looked at it", actor="carol",
                   curators=cfg.qc.curators)
    assert flag_blockers(store) == []
    # re-audited with another flag: the override saw other codes and no longer applies
    store.execute("UPDATE artifacts SET flag_codes = flag_codes || ' uncertain:1' WHERE id = ?", (art,))
    assert len(flag_blockers(store)) == 1
    store.execute("UPDATE artifacts SET flag_codes = replace(flag_codes, ' uncertain:1', '') "
                  "WHERE id = ?", (art,))
    assert flag_blockers(store) == []
    undo_override(store, "gsm8k-gsm8k-1", "reasoning", actor="carol", curators=cfg.qc.curators)
    assert len(flag_blockers(store)) == 1
    acts = [e["action"] for e in store.query("SELECT action FROM events WHERE action LIKE "
                                             "'release.flag%' ORDER BY id")]
    assert acts == ["release.flags_overridden", "release.flag_override_undone"]


def test_a_flagged_seed_left_out_of_the_release_blocks_nothing(store: Store, cfg: Config) -> None:
    seeds = _ready(store, cfg)
    _flag_reasoning(store, seeds[2])
    store.execute("UPDATE artifacts SET status = 'failed' WHERE seed_id = ? AND dimension = "
                  "'refinement'", (seeds[2],))
    assert flagged_items(store) == []
    assert flag_blockers(store) == []


def test_model_made_reasoning_joins_the_qc_gates_by_default(store: Store, cfg: Config,
                                                             tmp_path: Path) -> None:
    """Issue 31.4: Z3 checks a formalization's value, not its meaning, so once a model made a
    Reasoning artifact, Reasoning is a QC dimension (sampled, gated) unless configured off."""
    from qcstation.core.review.queries import has_model_made, qc_dimensions

    path = tmp_path / "on.toml"
    path.write_text(TOML.replace("sample_model_reasoning = false\n", ""), encoding="utf-8")
    cfg = load_config(path, env={})
    assert cfg.qc.sample_model_reasoning
    seeds = _ready(store, cfg)
    assert not has_model_made(store, "reasoning")
    assert qc_dimensions(store, cfg.qc.dimensions) == ("arithmetic", "understanding")
    assert rel.release_blockers(store, cfg, actor="carol") == []
    seed = store.one("SELECT question, solution, answer_text, answer_value FROM seeds WHERE id = ?",
                     (seeds[5],))
    smt = f.content_for("reasoning", 5)["smtlib"]
    f.add_artifact(store, seeds[5], "reasoning", content={"smtlib": smt}, generator="llm",
                   model="gen")
    assert seed is not None and has_model_made(store, "reasoning")
    assert qc_dimensions(store, cfg.qc.dimensions) == ("arithmetic", "understanding", "reasoning")
    blockers = rel.release_blockers(store, cfg, actor="carol")
    assert blockers and all(b.startswith("reasoning QC gate") for b in blockers)
    # sampled and reviewed like the other dimensions: the gate passes
    draw_sample(store, "reasoning", rate=cfg.qc.sample_rate, rng_seed=1, actor="lead", min_size=1)
    while (item := next_item(store, "ann1", "reasoning")) is not None:
        decide(store, item.item_id, "ann1", "accept")
    assert rel.release_blockers(store, cfg, actor="carol") == []
    # a project that does not want it says so
    off = load_config(tmp_path / "qcstation.toml", env={})
    assert qc_dimensions(store, off.qc.dimensions, off.qc.sample_model_reasoning) == (
        "arithmetic", "understanding")


def test_review_and_release_read_one_override_in_force(store: Store, cfg: Config) -> None:
    """The review pane's override (items) and the release gate's (flag_gate) come from one
    read (db.artifacts.flag_overrides): the same curator's word, lapsing together."""
    from qcstation.core.review.items import _overrides

    seeds = _ready(store, cfg)
    art = _flag_reasoning(store, seeds[2])

    def both() -> tuple[object, object]:
        codes = must(store.one("SELECT flag_codes FROM artifacts WHERE id = ?", (art,)))["flag_codes"]
        pane = _overrides(store, [{"artifact_id": art, "flag_codes": codes}]).get(art)
        gate = {i.artifact_id: i.override for i in flagged_items(store)}.get(art)
        return pane, gate

    assert both() == (None, None)
    override_flags(store, "gsm8k-gsm8k-2", "reasoning", "read it twice", actor="carol",
                   curators=cfg.qc.curators)
    pane, gate = both()
    assert isinstance(pane, dict) and isinstance(gate, dict)
    assert pane["reason"] == gate["reason"] == "read it twice" and pane["curator"] == "carol"
    assert set(pane) == {"artifact_id", "flag_codes", "reason", "curator", "created_at"}
    store.execute("UPDATE artifacts SET flag_codes = flag_codes || ' uncertain:1' WHERE id = ?", (art,))
    assert both() == (None, None)
