"""Issue 10: exports are all-or-nothing. A release folder holds its complete, checked set
of files or is absent; a killed export's leftovers are removed by the next one; symbolic
links are not followed; release names are plain printable names; the datasheet shows
names and notes as inert Markdown."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from qcstation.core.release import releases as rel
from qcstation.common.config import Config
from qcstation.common.safe import has_unsafe
from qcstation.common.errors import ReleaseError
from tests.core.release.test_release import ROOT, _ready_store, cfg  # noqa: F401  (fixture)

EVIL_NOTES = "<img src=x onerror=alert(1)> **bold** [x](javascript:1)\n# heading\x1b]0;t\x07\x1b[2J"


@pytest.fixture
def approved(store: Store, cfg: Config) -> Store:  # noqa: F811
    _ready_store(store, cfg)
    rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg, notes=EVIL_NOTES)
    return store


def test_datasheet_shows_names_and_notes_as_inert_markdown(approved: Store, tmp_path: Path) -> None:
    out = rel.export_release(approved, "smart", "1.0", tmp_path / "exports")
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert not has_unsafe(readme)
    notes = next(line for line in readme.splitlines() if line.startswith("- notes:"))
    assert "<img" not in notes and "&lt;img" in notes
    assert "\\*\\*bold\\*\\*" in notes and "\\[x\\]" in notes
    assert "\\\\x1b\\]0;t" in notes                  # visible (escaped for Markdown too)
    assert "# heading" not in readme.split("- notes:")[0]
    assert not any(line.startswith("# heading") for line in readme.splitlines())


@pytest.mark.parametrize("name", ["smart\n", "smart\r", "sm\x1bart", "smart ", "../x", "s/x"])
def test_release_names_must_be_plain(store: Store, cfg: Config, name: str) -> None:  # noqa: F811
    _ready_store(store, cfg)
    with pytest.raises(ReleaseError, match="not allowed"):
        rel.approve_release(store, name, "1.0", actor="carol", cfg=cfg)
    with pytest.raises(ReleaseError, match="not allowed"):
        rel.approve_release(store, "smart", name, actor="carol", cfg=cfg)


def test_notes_longer_than_the_dialog_allows_are_refused(store: Store, cfg: Config) -> None:  # noqa: F811
    """``release approve --notes`` is held to the approve dialog's limit (one constant)."""
    _ready_store(store, cfg)
    with pytest.raises(ReleaseError, match=f"501 characters long; at most {rel.NOTES_CHARS}"):
        rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg,
                            notes="n" * (rel.NOTES_CHARS + 1))
    assert store.query("SELECT id FROM releases") == []
    info = rel.approve_release(store, "smart", "1.0", actor="carol", cfg=cfg,
                               notes="n" * rel.NOTES_CHARS)
    assert info.version == "1.0"


def test_symlinked_export_folder_is_refused_not_followed(approved: Store, tmp_path: Path) -> None:
    elsewhere = tmp_path / "precious"
    (elsewhere / "smart" / "1.0").mkdir(parents=True)
    victim = elsewhere / "smart" / "1.0" / "data.jsonl"
    victim.write_text("keep me\n")
    link = tmp_path / "exports"
    link.symlink_to(elsewhere)
    with pytest.raises(ReleaseError, match="symbolic link"):
        rel.export_release(approved, "smart", "1.0", link)
    assert victim.read_text() == "keep me\n"
    # a link deeper down (exports/smart -> elsewhere) is refused too
    real = tmp_path / "real"
    real.mkdir()
    (real / "smart").symlink_to(elsewhere / "smart")
    with pytest.raises(ReleaseError, match="symbolic link"):
        rel.export_release(approved, "smart", "1.0", real)
    assert victim.read_text() == "keep me\n"


_KILLED_EXPORT = """
import os, signal, sys
import exports.writers as w
from db import Store
from qcstation.core.release import releases as rel
# die the moment the files are written, before the folder is renamed into place
w.sha256_file = lambda path: os.kill(os.getpid(), signal.SIGKILL)
with Store(sys.argv[1]) as store:
    rel.export_release(store, "smart", "1.0", sys.argv[2])
"""


def test_killed_export_leaves_no_release_folder_and_is_cleaned_next_time(
        approved: Store, tmp_path: Path) -> None:
    out_root = tmp_path / "exports"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", _KILLED_EXPORT, str(approved.path), str(out_root)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == -9, proc.stderr
    assert not (out_root / "smart" / "1.0").exists()           # nothing half-written visible
    leftovers = [p.name for p in (out_root / "smart").iterdir()]
    assert leftovers and all(n.startswith(".1.0.partial-") for n in leftovers)
    # an older writer's leftovers inside the folder: a data.jsonl without its manifest
    # and a hidden temporary file
    out = rel.export_release(approved, "smart", "1.0", out_root)
    assert sorted(p.name for p in (out_root / "smart").iterdir()) == ["1.0"]
    (out / "manifest.json").unlink()
    (out / ".data.jsonl.abc123.tmp").write_bytes(b"half")
    out = rel.export_release(approved, "smart", "1.0", out_root)
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "data.jsonl", "manifest.json"]


def test_failed_export_keeps_the_previous_complete_folder(approved: Store, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    out_root = tmp_path / "exports"
    out = rel.export_release(approved, "smart", "1.0", out_root)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    import exports.writers as w

    real_fsync = os.fsync
    calls = {"n": 0}

    def full_disk(fd: int) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(w.os, "fsync", full_disk)
    with pytest.raises(ReleaseError, match="No space left on device"):
        rel.export_release(approved, "smart", "1.0", out_root)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in (out_root / "smart").iterdir()) == ["1.0"]


def test_export_past_the_file_size_limit_names_the_limit(approved: Store, tmp_path: Path) -> None:
    """Under `ulimit -f` the system says only 'File too large': the error names the limit."""
    import resource
    import signal

    assert signal.getsignal(signal.SIGXFSZ) == signal.SIG_IGN     # Python's default: EFBIG, no kill
    out_root = tmp_path / "exports"
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, hard))
    try:
        with pytest.raises(ReleaseError) as err:
            rel.export_release(approved, "smart", "1.0", out_root)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert "File too large" in str(err.value) and "1,024 bytes" in str(err.value)
    assert "file-size limit" in str(err.value) and "ulimit -f" in str(err.value)
    assert not (out_root / "smart" / "1.0").exists()
