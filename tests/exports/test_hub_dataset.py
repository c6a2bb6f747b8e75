"""A release folder is a dataset: the real ``datasets`` library loads it as it is
(``load_dataset(folder)``), from the metadata block its card (README.md) opens with."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from db import Store
from qcstation.common.config import load_config
from qcstation.core.derive.runner import run_derive
from qcstation.core.derive.transforms import Options
from qcstation.core.release.derived import scope_dimensions
from qcstation.core.release.releases import QCPolicy, approve_release, export_release
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.sampling import draw_sample
from tests.core.derive.helpers import make_db

datasets = pytest.importorskip("datasets")
yaml = pytest.importorskip("yaml")

POLICY = QCPolicy(curators=("tester",), threshold=0.7, min_sample=1)


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A working-set release, a derived release (variants) and a derived release of a
    ladder set split by family, exported."""
    tmp = tmp_path_factory.mktemp("hub")
    db = make_db(tmp, ["james", "janet", "jacket"])
    run_derive(db, load_config(None, env={}), kind="variants", name="dyn",
               opts=Options(variants=2, rng_seed=4))
    run_derive(db, load_config(None, env={}), kind="ladder", name="lad",
               opts=Options(rng_seed=4))
    out = tmp / "exports"
    with Store(db) as store:
        for scope in ("", "dyn", "lad"):
            for dim in scope_dimensions(store, scope, ("arithmetic", "understanding")):
                draw_sample(store, dim, rate=1.0, rng_seed=1, actor="tester", scope=scope,
                            min_size=1)
            while (item := next_item(store, "tester", scope=scope)) is not None:
                decide(store, item.item_id, "tester", "accept")
        approve_release(store, "smart", "1.0.0", actor="tester", cfg=POLICY)
        approve_release(store, "dyn-rel", "1.0.0", actor="tester", cfg=POLICY, scope="dyn")
        approve_release(store, "lad-rel", "1.0.0", actor="tester", cfg=POLICY, scope="lad",
                        splits="family")
        main = export_release(store, "smart", "1.0.0", out)
        derived = export_release(store, "dyn-rel", "1.0.0", out)
        ladder = export_release(store, "lad-rel", "1.0.0", out)
    return main, derived, ladder


def _card(folder: Path) -> dict:
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


def _load(folder: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **kwargs):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return datasets.load_dataset(str(folder), cache_dir=str(tmp_path / "cache"), **kwargs)


def test_a_release_folder_loads_with_load_dataset(released: tuple[Path, Path, Path],
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    folder, _, _ = released
    records = [json.loads(line) for line in
               (folder / "data.jsonl").read_text(encoding="utf-8").splitlines()]
    loaded = _load(folder, monkeypatch, tmp_path)
    assert list(loaded) == ["test"]
    rows = loaded["test"]
    assert rows.num_rows == len(records) == 3          # the records, not manifest.json
    assert [r["id"] for r in rows] == [r["id"] for r in records]
    for got, want in zip(rows, records):   # every field, the nested objects too
        assert got == want
    card = _card(folder)
    assert card["license"] == "mit"                  # GSM8K's, the only source
    assert card["task_categories"] and card["language"] == ["en"]
    assert card["size_categories"] == ["n<1K"]
    assert card["configs"] == [{"config_name": "default",
                                "data_files": [{"split": "test", "path": "data.jsonl"}]}]
    assert card["pretty_name"] == "smart@1.0.0"


def test_a_derived_release_is_a_config_named_after_its_set(released: tuple[Path, Path, Path],
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    _, folder, _ = released
    records = [json.loads(line) for line in
               (folder / "data.jsonl").read_text(encoding="utf-8").splitlines()]
    card = _card(folder)
    assert [c["config_name"] for c in card["configs"]] == ["dyn"]
    assert "derived-variants" in card["tags"]
    rows = _load(folder, monkeypatch, tmp_path, name="dyn")["test"]
    assert rows.num_rows == len(records) > 0
    assert {r["set"] for r in rows} == {"dyn"}
    assert [r["parent"] for r in rows] == [r["parent"] for r in records]
    assert list(rows) == records
    # a copy elsewhere loads the same (nothing in the card points outside the folder)
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    assert _load(copy, monkeypatch, tmp_path)["test"].num_rows == len(records)


def test_a_release_split_by_family_loads_one_split_per_family(
        released: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    """The curator chose one split per derived family: load_dataset(folder) gives each
    family's records as a split of its own, and together they are the release."""
    _, _, folder = released
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["split_by"] == "family"
    assert not (folder / "data.jsonl").exists()
    records = [json.loads(line) for split in manifest["splits"]
               for line in (folder / split["path"]).read_text(encoding="utf-8").splitlines()]
    families = {r["family"] for r in records}
    assert len(families) > 1                       # a ladder: noise and the two ladders
    loaded = _load(folder, monkeypatch, tmp_path)
    assert set(loaded) == {f.replace("-", "_") for f in families}
    by_id = {r["id"]: r for r in records}
    for name, rows in loaded.items():
        assert all(got == by_id[got["id"]] for got in rows)  # params of each kind read back
        assert rows.num_rows > 0 and {r["family"].replace("-", "_") for r in rows} == {name}
        assert rows.num_rows == manifest["files"][f"{name}.jsonl"]["records"]
    assert sorted(r["id"] for rows in loaded.values() for r in rows) \
        == sorted(r["id"] for r in records)
    assert sum(rows.num_rows for rows in loaded.values()) == manifest["counts"]["records"]
    card = _card(folder)
    assert [c["config_name"] for c in card["configs"]] == ["lad"]
    assert {d["split"] for d in card["configs"][0]["data_files"]} == set(loaded)


def test_a_family_split_of_the_working_set_is_refused(tmp_path: Path) -> None:
    """The working set has no derived families: the choice is refused, nothing frozen."""
    from qcstation.common.errors import ReleaseError

    db = make_db(tmp_path, ["james"])
    with Store(db) as store:
        for dim in ("arithmetic", "understanding"):
            draw_sample(store, dim, rate=1.0, rng_seed=1, actor="tester", min_size=1)
        while (item := next_item(store, "tester")) is not None:
            decide(store, item.item_id, "tester", "accept")
        with pytest.raises(ReleaseError, match="no derived families"):
            approve_release(store, "smart", "1.0.0", actor="tester", cfg=POLICY,
                            splits="family")
        assert store.scalar("SELECT COUNT(*) FROM releases") == 0
