"""The Markdown report: tables from hand-worked runs, escaping, figures, byte-identical output."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image

from db import Store
from qcstation.eval import metrics as M
from qcstation.eval.report import md, write_report
from tests.eval_factory import add_item, make_run, row
from tests.eval.test_metrics import hand_run

FILES = ("report.md", "dimensions.png", "dimensions.svg", "confusion.png", "confusion.svg",
         "difficulty.png", "difficulty.svg")
EVIL = "evil|model *x* <script>\x1b[31m $\\alpha$ [link](http://x)"


def _two_runs(store: Store) -> tuple[int, int]:
    a = hand_run(store, model=EVIL, name="base")
    b = make_run(store, model="model-b", name="other")
    for seed in (1, 2, 3, 4):
        add_item(store, b, seed, source="gsm8k", difficulty="easy",
                 scores=row(un="n", fi="w" if seed < 4 else "c", re="c"))
    return a, b


def test_report_tables_escaping_and_figures(store: Store, tmp_path: Path) -> None:
    a, b = _two_runs(store)
    path = write_report(store, a, tmp_path / "rep", compare=b, n_boot=200)
    assert path == tmp_path / "rep" / "report.md"
    for f in FILES:
        assert (path.parent / f).stat().st_size > 1000, f
    text = path.read_text(encoding="utf-8")

    # untrusted model name: escaped for Markdown, no raw control character or HTML
    assert "\x1b" not in text and "<script>" not in text
    assert r"evil\|model \*x\* &lt;script&gt;\\x1b\[31m \$\\alpha\$ \[link\]\(http://x\)" in text

    # leaderboard of the hand-worked run, with intervals; run B has no judge
    assert "| ACC@Fi | 50.0% [" in text
    assert "| LLM@Un | 91.8 [" in text
    lb_all = next(line for line in text.splitlines() if line.startswith("| ACC@All |"))
    assert lb_all.startswith("| ACC@All | 25.0% [") and lb_all.endswith("| not scored | 4 / 0 |")
    assert "Understanding not scored on 4 of 4 item-samples" in text

    # verdict counts incl. unparseable and error
    assert "| ACC@Fi | 2 | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 4 |" in text
    assert "| ACC@Ar | 3 | 0 | 0 | 1 | 0 | 0 | 0 | 0 | 0 | 4 |" in text
    assert "| release | smart@1.0 |" in text           # the run's release, not "working set"

    # breakdowns and confusion (fi against re: TP 2, FN 0, FP 1, TN 1 of 4)
    assert "| gsm8k | 2 |" in text and "| math500 | 2 |" in text
    assert r"| \(none\) | 1 |" in text
    assert "| final answer P (correct) | TP 2 (50.0%) | FN 0 (0.0%) |" in text
    assert "| final answer N (not correct) | FP 1 (25.0%) | TN 1 (25.0%) |" in text

    # comparison on fi: A right on 1 and 3, B right on 4 only -> p = 2 * P(X <= 1 | 3) = 1.0
    fi_row = next(line for line in text.splitlines() if line.startswith("| ACC@Fi | 4 |"))
    assert fi_row == "| ACC@Fi | 4 | 50.0% | 25.0% | 2 | 1 | 0 | 1 | 1 |"
    assert "- higher in A (2): 1 (gsm8k-1), 3 (gsm8k-3)" in text
    assert "- higher in B (1): 4 (math500-4)" in text

    # figures are real images of a readable size; SVG parses and carries no date
    for stem in ("dimensions", "confusion", "difficulty"):
        with Image.open(path.parent / f"{stem}.png") as im:
            assert im.format == "PNG" and im.size[0] >= 600 and im.size[1] >= 300
        svg = (path.parent / f"{stem}.svg").read_text()
        ET.fromstring(svg.split("\n", 3)[3])      # after the XML declaration and DOCTYPE
        assert "<dc:date>" not in svg


def test_report_is_byte_identical_across_processes(store: Store, db_file: Path,
                                                   tmp_path: Path) -> None:
    a, b = _two_runs(store)
    first = write_report(store, a, tmp_path / "one", compare=b).parent
    store.close()
    proc = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db_file), "eval",
                           "report", "base", "--compare", "other", "--out", str(tmp_path / "cli")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(tmp_path / "cli" / "report.md")
    for f in FILES:
        data = (first / f).read_bytes()
        assert data == (tmp_path / "cli" / f).read_bytes(), f


def test_the_report_shows_one_temperature_the_runs(store: Store, tmp_path: Path) -> None:
    """The model's configured temperature is not what the run sent: the run's alone is
    shown, and says so."""
    run = hand_run(store, spec={"model": {"name": "m", "temperature": 0.9, "max_tokens": 512},
                                "temperature": 0.3})
    text = write_report(store, run, tmp_path / "rep", n_boot=50).read_text(encoding="utf-8")
    assert "| temperature (the run's, sent with every request) | 0.3 |" in text
    assert "0.9" not in text and text.count("temperature") == 1
    assert "max_tokens" in text.replace("\\_", "_")       # the rest of the model config


def test_report_without_compare_and_without_scores(store: Store, tmp_path: Path) -> None:
    run = make_run(store, model="empty", status="running")
    path = write_report(store, run, tmp_path / "empty", n_boot=100)
    text = path.read_text()
    assert "## Comparison" not in text and "No scores yet." in text
    assert "| ACC@Fi | not scored | 0 |" in text      # asked for, not scored yet
    assert "ACC@Fi: not scored yet: no scores for ACC@Fi" in text
    with pytest.raises(M.MetricsError):
        write_report(store, run, tmp_path / "self", compare=run)
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(M.MetricsError, match="cannot write the report into"):
        write_report(store, run, tmp_path / "a_file" / "sub", n_boot=0)


def test_md_escape() -> None:
    assert md("a|b") == r"a\|b"
    assert md("<img src=x>") == "&lt;img src=x&gt;"
    assert md("line\nbreak") == "line break"
    assert md("x" * 300, 10).endswith("…") and len(md("x" * 300, 10)) == 10
