"""Issue 10: nothing written by a user or a model reaches a terminal as control characters.
``qcstation.common.safe`` unit tests, and the real CLI (``qc next``, ``qc show``, ``qc items``,
``qc decide``, ``status``) run in subprocesses on a database full of control sequences."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from qcstation.core.review.sampling import draw_sample
from qcstation.common.safe import (
    display_text,
    has_unsafe,
    inline_value,
    json_safe,
    markdown,
    markup,
    message_text,
    nonprintable_escaped,
    one_line,
    pane_text,
    preview,
    printable,
    quoted,
    spaced,
)
from tests import factories as f

ROOT = Path(__file__).resolve().parents[2]
EVIL = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\r\bX\u202eabc\x9b31m\x7f"


def test_printable_escapes_every_control_visibly() -> None:
    out = printable("a" + EVIL + "\nnext\tcol")
    assert not has_unsafe(out)
    assert out == ("a\\x1b]0;pwned\\a\\x1b[2J\\x1b[31mred\\r\\bX\\u202eabc\\x9b31m\\x7f"
                   "\nnext\tcol")
    assert one_line("a\nb\tc") == "a\\nb\\tc"
    assert one_line("x" * 50, 10) == "x" * 9 + "…"
    assert printable("\ud800 lone surrogate") == "\\ud800 lone surrogate"


def test_markdown_and_markup_variants_are_inert() -> None:
    md = markdown("<script>x</script> *bold* [link](http://e) # h\n| t |" + EVIL)
    assert "<" not in md and ">" not in md and "\n" not in md and not has_unsafe(md)
    assert "\\*bold\\*" in md and "\\[link\\]" in md
    from rich.text import Text

    assert Text.from_markup(markup("[bold red]x[/] " + EVIL)).plain.startswith("[bold red]x[/]")



def test_pane_text_makes_terminal_codes_visible() -> None:
    text = "ok\x1b[2J\x07 \u202egnp.exe\ttab\r\nnext"
    shown = pane_text(text)
    assert "\x1b" not in shown and "\u202e" not in shown and "\x07" not in shown
    assert shown == "ok\\x1b[2J\\a \\u202egnp.exe  tab\nnext"
    assert pane_text("a\nb", keep_newlines=False) == "a b"
    assert pane_text("x" * 30, limit=10).startswith("x" * 10 + "\n… (20 more")
    assert preview("[bold]a\nb[/]", 6) == "[bold…"
    assert json.loads(json.dumps(pane_text("\x00"))) == "\\0"


def test_the_one_lines_escape_the_one_class_in_the_one_form() -> None:
    # a value on one line: newlines, zero-width and bidi characters too, in the one form
    assert inline_value("7\n\u200b3\u202e\x07") == "7\\n\\u200b3\\u202e\\a"
    # an audit line: the same class and form (a no-break space is no hidden character), cut
    assert nonprintable_escaped("a\tb\nc\x1b\u00a0\U000e0001") == \
        "a\\tb\\nc\\x1b\u00a0\\U000e0001"
    assert nonprintable_escaped("x" * 50, 10) == "x" * 9 + "…"
    # a message line: cut first (ellipsis), then controls and separators escaped
    assert message_text("bad\x1b[2J\u2028" + "y" * 400, 12) == "bad\\x1b[2J\\u2028yyyy…"
    # text to store: non-printables become spaces, nothing escaped or collapsed
    assert spaced("a\x1b\tb\nc") == "a  b c"
    assert spaced("a\x1b\tb\nc", keep_newlines=True) == "a  b\nc"
    for sanitise in (pane_text, preview, inline_value, nonprintable_escaped):
        assert not has_unsafe(sanitise(EVIL))
    assert not has_unsafe(message_text(EVIL))


#: one of each kind of hidden character: controls, DEL, C1, the Arabic letter mark,
#: zero-width space/joiners, LRM/RLM, separators, bidi embeddings/overrides/isolates, word
#: joiner and invisible operators, BOM
HIDDEN = ("\x00\x07\x1b\x7f\x85\x9b\u061c\u200b\u200c\u200d\u200e\u200f\u2028\u2029"
          "\u202a\u202e\u2060\u2062\u2064\u2066\u2069\ufeff\xad\u180e\u206a\ufff9"
          "\U000e0001\U000e0041\U0001d173")


@pytest.mark.parametrize("show", [printable, one_line, markdown, markup, pane_text, preview,
                                  inline_value, message_text, nonprintable_escaped,
                                  display_text])
def test_one_class_of_hidden_characters_is_shown_by_every_output(show: object) -> None:
    """A zero-width character or a BOM is as visible in the review pane (printable, markup)
    as in the results pane (pane_text) and every other output: none survives raw, and
    has_unsafe (what the shell output is checked with) names each one."""
    assert callable(show)
    for ch in HIDDEN:
        assert has_unsafe(ch, keep_newlines=False), repr(ch)
        shown = show(f"a{ch}b")
        assert ch not in shown and shown.startswith("a") and "b" in shown, (show, repr(ch), shown)


def test_the_class_is_the_unicode_categories_of_hidden_characters() -> None:
    """Every character of the categories Cc, Cf, Cs, Zl, Zp is hidden (escaped everywhere),
    and nothing else that is assigned: no letter, digit, space or no-break space."""
    import re
    import unicodedata

    from qcstation.common.safe import HIDDEN as CLASS

    pattern = re.compile(f"[{CLASS}]")
    kinds = ("Cc", "Cf", "Cs", "Zl", "Zp")
    for code in range(0x110000):
        ch = chr(code)
        category = unicodedata.category(ch)
        matched = pattern.match(ch) is not None
        assert matched == (category in kinds) or (matched and category == "Cn"), (hex(code),
                                                                                   category)


#: every output, with how it writes a backslash (Markdown doubles it)
OUTPUTS = [(printable, 1), (one_line, 1), (markdown, 2), (markup, 1), (pane_text, 1),
           (preview, 1), (inline_value, 1), (message_text, 1), (nonprintable_escaped, 1),
           (display_text, 1)]


@pytest.mark.parametrize(("show", "slashes"), OUTPUTS)
def test_one_visible_form_in_every_output(show: object, slashes: int) -> None:
    """A hidden character reads the same wherever it is shown: ``\\u200b`` for a zero-width
    space, ``\\ufeff`` for a BOM, ``\\x1b`` for ESC, ``\\a`` for BEL (never ``<U+200B>``)."""
    from qcstation.common.safe import escape_code

    assert callable(show)
    for ch in HIDDEN:
        form = escape_code(ch).replace("\\", "\\" * slashes)
        shown = show(f"a{ch}b")
        assert form in shown and "<U+" not in shown, (show, repr(ch), shown)
    assert escape_code("\u200b") == "\\u200b" and escape_code("\ufeff") == "\\ufeff"
    assert escape_code("\x1b") == "\\x1b" and escape_code("\x07") == "\\a"
    assert escape_code("\U000e0001") == "\\U000e0001"


def test_json_safe_keeps_valid_json_and_data() -> None:
    data = {"q": EVIL + HIDDEN, "name": "Zoë"}
    text = json_safe(json.dumps(data, ensure_ascii=False, indent=2))
    assert not has_unsafe(text) and "Zoë" in text
    assert json.loads(text) == data


def _cli(db: Path, *args: str, user: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QCSTATION_USER": user}
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), *args],
                          cwd=db.parent, env=env, capture_output=True, text=True, timeout=300,
                          errors="surrogateescape")


@pytest.mark.slow
def test_shell_output_never_carries_raw_control_characters(tmp_path: Path) -> None:
    db = tmp_path / "hostile.db"
    with Store(db) as store:
        f.populate(store, {"gsm8k": 4})
        with store.transaction():
            store.execute("UPDATE seeds SET question = question || ?, source = ?",
                          (EVIL, "src" + EVIL))
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor="lead", min_size=4)
    user = "eve" + EVIL
    runs = [
        _cli(db, "qc", "next", user=user),
        _cli(db, "qc", "decide", "next", "reject", "--reason", "bad" + EVIL, user=user),
        _cli(db, "qc", "items", "arithmetic", user=user),
        _cli(db, "qc", "show", "1", user=user),
        _cli(db, "qc", "show", "1", "--json", user=user),
        _cli(db, "status", user=user),
        _cli(db, "status", "--json", user=user),
    ]
    for run in runs:
        assert run.returncode in (0, 1), run.stderr
        assert not has_unsafe(run.stdout), run.args
        assert not has_unsafe(run.stderr), run.args
    shown = "".join(r.stdout for r in runs)
    assert "\\x1b]0;pwned\\a\\x1b[2J" in shown          # visibly escaped, not dropped
    assert "eve" in runs[1].stdout                      # the display name, without its controls
    item = json.loads(runs[4].stdout)
    assert item["question"].endswith(EVIL)             # --json keeps the data exactly


def test_lone_surrogates_from_a_model_are_stored_not_a_crash(tmp_path: Path) -> None:
    # found by the fuzz suite: a model reply holding "\ud800" made SQLite refuse the
    # call-log insert and stopped generate
    with Store(tmp_path / "s.db") as store, store.transaction():
        store.execute("CREATE TEMP TABLE replies (text TEXT)")
        store.insert("replies", {"text": "model\ud800"})
        store.execute("INSERT INTO replies VALUES (?)", ("ok\udfff",))
        store.execute("INSERT INTO replies VALUES (:t)", {"t": "pair \ud83d\ude00"})
        rows = [r["text"] for r in store.query("SELECT text FROM replies")]
    assert rows == ["model\ufffd", "ok\ufffd", "pair \U0001f600"]


def test_the_review_pane_shows_a_zero_width_character_and_a_bom() -> None:
    """The reviewer sees what the results pane shows: the seed's hidden characters escaped."""
    from rich.console import Console

    from qcstation.core.review.items import ReviewItem
    from qcstation.widgets.review_views import render_seed

    item = ReviewItem(1, 1, 1, 1, "arithmetic", "gsm8k", 0, False,
                      "Tom has 1\u200b2 apples.\ufeff How many?", "12", {}, None, 1, None, None)
    console = Console(record=True, width=100, color_system=None)
    console.print(render_seed(item))
    text = console.export_text()
    assert "1\\u200b2 apples.\\ufeff How many?" in text
    assert "\u200b" not in text and "\ufeff" not in text
    assert pane_text(item.question) in text                    # as the results pane shows it
    assert display_text(item.question, 200) in text            # as a results table / report
    assert one_line(item.question) in text                     # as a CLI line


def test_spaced_and_quoted_take_the_one_class_and_form() -> None:
    """Text to store turns exactly the hidden class into spaces (a zero-width space, a BOM
    and a line separator do; a no-break space or a private-use character, both visible, do
    not); a text named in a message is escaped once, in the one form (repr would double the
    backslash, and write its own form)."""
    assert spaced("a\u200bb\ufeffc\u2028d\u00a0e\ue000") == "a b c d\u00a0e\ue000"
    assert spaced("a\u2029b\tc\nd", keep_newlines=True) == "a b c\nd"
    assert quoted("a\\b\x1b\u200b") == "'a\\b\\x1b\\u200b'"
    assert quoted("x" * 50, 10) == "'" + "x" * 9 + "…'"
    assert not has_unsafe(quoted(EVIL))


def test_the_printable_ascii_shortcut_escapes_as_the_patterns_do() -> None:
    """escape() returns printable ASCII as it is, without the regular expression: for every
    ASCII character, alone and in a word, the result is the pattern's own."""
    from qcstation.common import safe

    for pattern in safe._HIDDEN_ONLY:
        for code in range(128):
            for text in (chr(code), f"ab{chr(code)}cd"):
                expected = pattern.sub(lambda m: safe.escape_code(m.group(0)), text)
                assert safe.escape(text, pattern) == expected, (pattern.pattern, text)
