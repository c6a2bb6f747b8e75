from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from qcstation.common.vocab import KEYINFO_TITLES
from qcstation.common.errors import ReviewError
from qcstation.core.review.curation import exclude_seed
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.gate import gate
from qcstation.core.review.items import list_items
from qcstation.core.review.sampling import draw_sample, extend_sample, open_sample
from qcstation.core.release import releases as rel
from qcstation.common.config import Config, load_config
from qcstation.common.identity import os_account
from qcstation.common.errors import ReleaseError
from tests import factories as f
from tests.must import must

ROOT = Path(__file__).resolve().parents[3]

TOML = """
[generator]
model = "gpt-4o-mini"
api_key_env = "MY_SECRET_KEY_VAR"
base_url = "http://127.0.0.1:9/v1"

[qc]
sample_rate = 0.5
rng_seed = 7
defect_threshold = 0.3
confidence = 0.95
min_sample = 1
curators = ["carol"]
dimensions = ["arithmetic", "understanding"]
"""


@pytest.fixture
def cfg(tmp_path: Path) -> Config:
    path = tmp_path / "qcstation.toml"
    path.write_text(TOML, encoding="utf-8")
    return load_config(path, env={})


def _review_all(store: Store, cfg: Config, *, reject: set[int] | None = None) -> None:
    for dim in cfg.qc.dimensions:
        if open_sample(store, dim) is None:
            draw_sample(store, dim, rate=cfg.qc.sample_rate, rng_seed=cfg.qc.rng_seed,
                        actor="lead", min_size=cfg.qc.min_sample)
        while (item := next_item(store, "ann1", dim)) is not None:
            if reject and item.seed_id in reject:
                decide(store, item.item_id, "ann1", "reject", "changes the answer")
            else:
                decide(store, item.item_id, "ann1", "accept")


def _tree_hashes(d: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.iterdir())}


def _ready_store(store: Store, cfg: Config) -> dict[str, int]:
    """20 complete seeds, 3 incomplete ones, 1 filtered; both QC gates passing."""
    f.populate(store, {"gsm8k": 12, "mawps": 8})
    extra = {
        "failed_ref": f.add_full_seed(store, 200, statuses={"refinement": "failed"}),
        "no_arith": f.add_full_seed(store, 201, source="mawps", statuses={"arithmetic": None}),
        "unverified": f.add_full_seed(store, 202, statuses={"understanding": "generated"}),
    }
    filtered = f.add_full_seed(store, 203)
    store.execute("UPDATE seeds SET status = 'filtered' WHERE id = ?", (filtered,))
    _review_all(store, cfg)
    return extra


def test_config_drives_the_policy(cfg: Config) -> None:
    p = rel.qc_policy(cfg)
    assert p.curators == ("carol",) and p.threshold == 0.3 and p.sample_rate == 0.5
    assert p.generator is not None and p.generator["model"] == "gpt-4o-mini"
    assert "MY_SECRET_KEY_VAR" not in json.dumps(p.generator)


def test_approval_refused_for_non_curator_and_while_a_gate_fails(store: Store, cfg: Config) -> None:
    f.populate(store, {"gsm8k": 30})
    blockers = rel.release_blockers(store, cfg)
    assert any("arithmetic QC gate: no arithmetic sample" in b for b in blockers)
    assert any("understanding QC gate" in b for b in blockers)
    with pytest.raises(ReleaseError, match="only a curator"):
        rel.approve_release(store, "smart", "1.0", actor="mallory", cfg=cfg)
    with pytest.raises(ReleaseError, match="cannot approve the release yet") as exc:
        rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg)
    assert "QC gate" in str(exc.value)
    # one open reject keeps the gate shut
    sample = draw_sample(store, "arithmetic", rate=0.5, rng_seed=7, actor="lead", min_size=1)
    bad_seed = list_items(store, sample.id)[0].seed_id
    _review_all(store, cfg, reject={bad_seed})
    blockers = rel.release_blockers(store, cfg)
    assert blockers and all("QC gate" in b for b in blockers)
    assert any("without an accepted replacement" in b for b in blockers)
    with pytest.raises(ReleaseError):
        rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg)
    assert store.scalar("SELECT COUNT(*) FROM releases") == 0
    assert store.scalar("SELECT COUNT(*) FROM release_items") == 0
    # regenerate + requeue + accept: now it can be approved, but still only by carol
    for art in store.query("SELECT id FROM artifacts WHERE status = 'rejected'"):
        f.regenerate(store, art["id"])
    _review_all(store, cfg)
    assert rel.release_blockers(store, cfg) == []
    assert rel.release_blockers(store, cfg, actor="mallory") == [
        "the account mallory is not a curator (curators: carol)"]
    with pytest.raises(ReleaseError, match="only a curator"):
        rel.approve_release(store, "smart", "1.0", actor="mallory", cfg=cfg)
    g = gate(store, "arithmetic", threshold=0.3)
    assert (g.defects, g.reviewed) == (1, 15) and g.upper_bound is not None and g.upper_bound < 0.3
    info = rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg, notes="first cut")
    assert info.approved_by == "carol" and info.counts["records"] == 30
    assert f.events(store, "release.approved")[0]["actor"] == "carol"
    with pytest.raises(ReleaseError, match="already exists"):
        rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg)


def test_no_curators_configured_blocks(store: Store) -> None:
    policy = rel.QCPolicy(curators=(), threshold=0.5)
    assert any("no curators" in b for b in rel.release_blockers(store, policy))
    with pytest.raises(ReleaseError, match="no curators"):
        rel.approve_release(store, "smart", "1", actor="carol", cfg=policy)


def test_records_have_the_smart_fields_and_exclusions_are_counted(store: Store, cfg: Config) -> None:
    extra = _ready_store(store, cfg)
    info = rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg)
    records = rel.release_records(store, "smart", "1.0")
    assert len(records) == info.counts["records"] == 20
    r = records[0]
    seed = store.one("SELECT * FROM seeds WHERE id = ?", (r["seed_id"],))
    assert seed is not None
    p = f.problem(0)
    for key in ("question", "notation", "background", "key_information", "smt-lib", "answer",
                "gt_answer", "gt_cot", "w_cot", "wrong", "id", "seed_id", "source", "orig_id",
                "difficulty"):
        assert key in r, key
    assert r["question"] == seed["question"] == p["question"]
    assert r["id"] == "gsm8k-gsm8k-0" and r["source"] == "gsm8k" and r["orig_id"] == "gsm8k-0"
    assert r["difficulty"] == seed["level"]
    assert r["answer"] == str(p["answer"]) and r["gt_answer"] == str(p["answer"])
    assert "(assert (= answer (* total" in r["smt-lib"]
    assert r["notation"].startswith("Let x = ")
    assert r["gt_cot"] == p["solution"] and r["w_cot"] != r["gt_cot"]
    assert r["wrong"] == ["calculation error"]
    assert set(r["key_information"]) == set(KEYINFO_TITLES)
    for title in KEYINFO_TITLES.values():
        assert f"{title}:\n" in r["background"]
    assert "- the shop also sells hats" in r["background"]
    assert r["provenance"]["arithmetic"]["status"] in ("accepted", "verified")
    # the four left-out active seeds are counted with reasons; the filtered one only counted
    man = info.manifest
    assert man["excluded"]["count"] == 3 and info.counts["excluded"] == 3
    assert man["excluded"]["by_reason"] == {
        "arithmetic: no artifact yet": 1,
        "refinement: failed verification": 1,
        "understanding: not yet verified": 1,
    }
    left_out = {e["seed_id"] for e in man["excluded"]["seeds"]}
    assert left_out == set(extra.values())
    assert info.counts["inactive_seeds"] == {"filtered": 1}
    assert {x["seed_id"] for x in records}.isdisjoint(left_out)
    qcd = man["qc"]["arithmetic"]
    assert qcd["gate"]["passed"] and qcd["annotators"] == ["ann1"]
    assert qcd["samples"][0]["rng_seed"] == 7 and qcd["samples"][0]["rate"] == 0.5


def test_a_seed_excluded_in_qc_is_left_out_and_listed(store: Store, cfg: Config) -> None:
    f.populate(store, {"gsm8k": 12, "mawps": 8})
    sample = draw_sample(store, "arithmetic", rate=0.5, rng_seed=7, actor="lead", min_size=1)
    bad_seed = list_items(store, sample.id)[0].seed_id
    _review_all(store, cfg, reject={bad_seed})
    # offline the rule would make the same text: the reject would block forever
    assert any("without an accepted replacement" in b for b in rel.release_blockers(store, cfg))
    with pytest.raises(ReviewError, match="only a curator"):
        exclude_seed(store, bad_seed, actor="mallory", reason="unfixable",
                     curators=list(cfg.qc.curators))
    exclude_seed(store, bad_seed, actor="carol", reason="the rule makes the same text",
                 curators=list(cfg.qc.curators))
    blockers = rel.release_blockers(store, cfg)
    assert not any("rejected item" in b for b in blockers)
    # what is left: the defect still counts, so the sample must grow for the bound to pass
    g = gate(store, "arithmetic", threshold=0.3)
    assert (g.defects, g.open_rejects) == (1, 0) and g.extend_by > 0
    extend_sample(store, sample.id, extra=g.extend_by, actor="lead", curators=["lead"])
    _review_all(store, cfg)
    assert rel.release_blockers(store, cfg) == []
    info = rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg)
    records = rel.release_records(store, "smart", "1.0")
    assert bad_seed not in {r["seed_id"] for r in records}
    assert len(records) == info.counts["records"] == 19
    man = info.manifest
    assert man["counts"]["inactive_seeds"] == {"excluded": 1}
    assert man["counts"]["excluded_in_qc"] == 1
    in_qc = man["excluded"]["excluded_in_qc"]
    assert in_qc["count"] == 1
    listed = in_qc["seeds"][0]
    assert listed["seed_id"] == bad_seed and listed["excluded_by"] == "carol"
    assert listed["reason"] == "the rule makes the same text"
    assert listed["open_rejects_closed"] == {"arithmetic": "awaiting regeneration"}
    # the defect still counts in the recorded gate
    assert man["qc"]["arithmetic"]["gate"]["defects"] == 1


def test_export_is_byte_identical_and_manifest_lists_every_file(
        store: Store, cfg: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SECRET_KEY_VAR", "sk-very-secret-value")
    _ready_store(store, cfg)
    rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg, notes="ünïcode notes")
    out1 = rel.export_release(store, "smart", "1.0", tmp_path / "a")
    assert out1 == tmp_path / "a" / "smart" / "1.0"
    assert sorted(p.name for p in out1.iterdir()) == ["README.md", "data.jsonl", "manifest.json"]
    first = _tree_hashes(out1)
    out2 = rel.export_release(store, "smart", "1.0", tmp_path / "b")
    again = rel.export_release(store, "smart", "1.0", tmp_path / "a")
    assert _tree_hashes(out2) == first and _tree_hashes(again) == first
    # new activity after approval does not change the frozen release
    f.populate(store, {"aqua": 3}, start=900)
    out3 = rel.export_release(store, "smart", "1.0", tmp_path / "c")
    assert _tree_hashes(out3) == first

    manifest = json.loads((out1 / "manifest.json").read_text(encoding="utf-8"))
    for name in ("data.jsonl", "README.md"):
        assert manifest["files"][name]["sha256"] == first[name]
        assert manifest["files"][name]["bytes"] == (out1 / name).stat().st_size
    lines = (out1 / "data.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == manifest["files"]["data.jsonl"]["records"] == manifest["counts"]["records"]
    assert [json.loads(x)["seed_id"] for x in lines] == sorted(json.loads(x)["seed_id"] for x in lines)
    assert lines[0] == json.dumps(json.loads(lines[0]), sort_keys=True, ensure_ascii=False)
    assert manifest["schema_version"] == store.schema_version
    assert manifest["generator_config"]["model"] == "gpt-4o-mini"
    assert {"dimension": "understanding", "generator": "llm", "model": "gpt-4o-mini",
            "prompt_version": "understanding-v1", "records": 20} in manifest["generators"]
    assert set(manifest["qc"]) == {"arithmetic", "understanding"}
    for blob in (out1 / "manifest.json", out1 / "README.md", out1 / "data.jsonl"):
        text = blob.read_text(encoding="utf-8")
        assert "sk-very-secret-value" not in text and "MY_SECRET_KEY_VAR" not in text
    readme = (out1 / "README.md").read_text(encoding="utf-8")
    assert "# smart@1.0" in readme and "approved by: carol" in readme
    assert "ünïcode notes" in readme and "active seeds left out: 3" in readme
    ev = f.events(store, "release.exported")
    assert len(ev) == 4 and ev[0]["detail"]["files"]["data.jsonl"]["sha256"] == first["data.jsonl"]
    assert rel.list_releases(store)[0].export_dir == (tmp_path / "c" / "smart" / "1.0").resolve()


def test_release_items_are_immutable(store: Store, cfg: Config) -> None:
    _ready_store(store, cfg)
    info = rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg)
    with pytest.raises(sqlite3.DatabaseError, match="immutable"):
        store.execute("UPDATE release_items SET record = '{}' WHERE release_id = ?", (info.id,))
    with pytest.raises(sqlite3.DatabaseError, match="immutable"):
        store.execute("DELETE FROM release_items WHERE release_id = ?", (info.id,))
    with pytest.raises(sqlite3.DatabaseError, match="immutable"):
        store.execute("UPDATE releases SET approved_by = 'mallory' WHERE id = ?", (info.id,))
    assert store.scalar("SELECT COUNT(*) FROM release_items") == 20


def test_export_detects_tampered_records(store: Store, cfg: Config, tmp_path: Path) -> None:
    _ready_store(store, cfg)
    info = rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg)
    # bypass the trigger the only way possible: drop it (simulates a hand-edited database)
    store.execute("DROP TRIGGER release_items_no_update")
    store.execute("UPDATE release_items SET record = json_set(record, '$.answer', '0') "
                  "WHERE release_id = ? AND seed_id = (SELECT MIN(seed_id) FROM release_items)",
                  (info.id,))
    with pytest.raises(ReleaseError, match="do not match the checksum"):
        rel.export_release(store, "smart", "1.0", tmp_path)


def test_diff_against_the_previous_release(store: Store, cfg: Config) -> None:
    _ready_store(store, cfg)
    rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg)
    v1 = {r["seed_id"]: r for r in rel.release_records(store, "smart", "1.0")}
    # between releases: new seeds, one seed filtered, one refinement regenerated
    new_seeds = f.populate(store, {"aqua": 4}, start=700)
    gone = min(v1)
    store.execute("UPDATE seeds SET status = 'duplicate' WHERE id = ?", (gone,))
    changed_seed = sorted(v1)[1]
    old_ref = store.one("SELECT id FROM artifacts WHERE seed_id = ? AND dimension = 'refinement'",
                        (changed_seed,))
    assert old_ref is not None
    f.regenerate(store, old_ref["id"])
    assert rel.release_blockers(store, cfg)                   # new items not yet sampled
    for dim in cfg.qc.dimensions:
        s = open_sample(store, dim)
        assert s is not None
        g = gate(store, dim, threshold=0.3)
        assert g.extend_by > 0 and "extend the sample" in g.next_step
        extend_sample(store, s.id, extra=g.extend_by, actor="lead", curators=["lead"])
    _review_all(store, cfg)
    rel.approve_release(store, "smart", "1.1", actor="carol", cfg=cfg)
    assert rel.previous_version(store, "smart", "1.1") == "1.0"
    assert rel.previous_version(store, "smart", "1.0") is None
    d = rel.diff_releases(store, "smart", "1.0", "1.1")
    assert d["added"] == sorted(new_seeds)
    assert d["removed"] == [gone]
    changed = {c["seed_id"]: c["fields"] for c in d["changed"]}
    assert changed_seed in changed
    assert {"w_cot", "provenance"} <= set(changed[changed_seed])
    assert "question" not in changed[changed_seed]
    assert d["counts"]["new"] == len(v1) - 1 + 4
    assert d["unchanged"] + len(d["changed"]) == len(v1) - 1
    # diffing a version with itself finds nothing
    same = rel.diff_releases(store, "smart", "1.1", "1.1")
    assert same["added"] == same["removed"] == same["changed"] == []
    with pytest.raises(ReleaseError, match="no release smart@9"):
        rel.diff_releases(store, "smart", "1.0", "9")


def test_bad_release_names_are_refused(store: Store, cfg: Config) -> None:
    for name, version in (("../etc", "1"), ("smart", "1/2"), ("", "1"), ("smart", "..")):
        with pytest.raises(ReleaseError, match="not allowed"):
            rel.approve_release(store, name, version, actor="carol", cfg=cfg)


def _cli(db: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QCSTATION_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_release_cli(store: Store, cfg: Config, tmp_path: Path) -> None:
    conf = str(tmp_path / "qcstation.toml")
    db = store.path
    f.populate(store, {"gsm8k": 20})
    r = _cli(db, tmp_path, "--config", conf, "release", "blockers")
    assert r.returncode == 1 and "no arithmetic sample" in r.stdout
    _review_all(store, cfg)
    # typing a curator's name grants nothing: the OS account is who approves
    r = _cli(db, tmp_path, "--config", conf, "--annotator", "carol", "release", "approve",
             "smart", "2.0")
    assert r.returncode == 2 and "only a curator" in r.stderr
    me = os_account()
    Path(conf).write_text(Path(conf).read_text(encoding="utf-8").replace(
        'curators = ["carol"]', f'curators = ["carol", "{me}"]'), encoding="utf-8")
    r = _cli(db, tmp_path, "--config", conf, "--annotator", "Carol", "release", "approve",
             "smart", "2.0", "--export", "--out", str(tmp_path / "out"), "--json")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["counts"]["records"] == 20 and info["approved_by"] == me
    # the same data again is refused until confirmed
    r = _cli(db, tmp_path, "--config", conf, "release", "approve", "smart", "2.1")
    assert r.returncode == 2 and "identical to smart@2.0" in r.stderr
    r = _cli(db, tmp_path, "--config", conf, "release", "approve", "smart", "2.1",
             "--allow-identical", "--json")
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out" / "smart" / "2.0"
    first = _tree_hashes(out)
    r = _cli(db, tmp_path, "release", "export", "smart", "2.0", "--out", str(tmp_path / "out2"))
    assert r.returncode == 0, r.stderr
    assert _tree_hashes(tmp_path / "out2" / "smart" / "2.0") == first
    r = _cli(db, tmp_path, "release", "list")
    assert r.returncode == 0 and "smart" in r.stdout and me in r.stdout
    r = _cli(db, tmp_path, "release", "diff", "smart", "2.0", "2.0", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["counts"]["changed"] == 0
    # NAME@VERSION, as eval takes it, works for every release command
    r = _cli(db, tmp_path, "release", "diff", "smart@2.0")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("smart@2.0 -> smart@2.1: 20 records before, 20 after")
    r = _cli(db, tmp_path, "release", "diff", "smart@previous", "smart@2.1", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["counts"]["changed"] == 0
    r = _cli(db, tmp_path, "release", "export", "smart@2.0", "--out", str(tmp_path / "out3"))
    assert r.returncode == 0 and _tree_hashes(tmp_path / "out3" / "smart" / "2.0") == first
    r = _cli(db, tmp_path, "release", "diff", "smart")
    assert r.returncode == 2 and "smart@VERSION" in r.stderr


def test_exported_files_are_readable_by_others(tmp_path: Path) -> None:
    import os
    import stat

    from exports.writers import write_atomic

    old = os.umask(0o022)
    try:
        target = tmp_path / "x" / "data.jsonl"
        write_atomic(target, b"{}\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_release_diff_summary_and_what_changed_and_the_datasheet(store: Store,
                                                                tmp_path: Path) -> None:
    from exports.writers import datasheet_markdown as render_datasheet
    from qcstation.core.review.curation import override, queue
    from qcstation.core.review.fixes import editable_text, fix_in_place
    from qcstation.core.review.items import get_item

    path = tmp_path / "qcstation.toml"
    path.write_text(TOML.replace("defect_threshold = 0.3", "defect_threshold = 0.5"),
                    encoding="utf-8")
    cfg = load_config(path, env={})
    f.populate(store, {"gsm8k": 20})
    _review_all(store, cfg)
    first = rel.approve_release(store, "smart", "1.0", actor="Carol", cfg=cfg)
    assert first.approved_by == "carol"
    sheet = render_datasheet(first.manifest)
    assert "no item was rejected" in sheet and "regenerated" not in sheet
    with pytest.raises(rel.IdenticalReleaseError, match="identical to smart@1.0"):
        rel.approve_release(store, "smart", "1.1", actor="carol", cfg=cfg)
    # a reviewed key-information item is rejected and fixed in place
    item = queue(store, state="accepted", dimension="understanding")[0]
    override(store, item.item_id, verdict="reject", reason="wrong goal", actor="carol",
             curators=["carol"])
    text = editable_text(get_item(store, item.item_id))
    fix_in_place(store, item.item_id, re.sub(r"Goal: .*", "Goal: Count the second trip.", text),
                 actor="bob")
    second = rel.approve_release(store, "smart", "1.1", actor="carol", cfg=cfg)
    d = rel.diff_releases(store, "smart", "1.0", "1.1")
    assert d["counts"]["changed"] == 1 and d["changed_by_field"]
    changes = d["changed"][0]["changes"]
    assert any("Count the second trip." in line and "→" in line for line in changes)
    assert "provenance.understanding.author: added bob" in changes
    assert "provenance.understanding.generator: llm → human" in changes
    sheet = render_datasheet(second.manifest)
    assert "1 seed had a rejected item: 1 fixed in place by a reviewer and accepted" in sheet
    assert "1 outcome(s) overridden by a curator" in sheet
    # how each item was made, from its provenance: rule-made notation is not "model-generated"
    assert "model-generated" not in sheet
    made = must(re.search(r"- arithmetic: (.*)", sheet))
    assert made is not None and "rendered by rules from the verified SMT-LIB" in made.group(1)
    assert "fixed in place by a reviewer" in must(re.search(r"- understanding: (.*)", sheet)).group(1)
