"""Regexes applied to untrusted text (seed questions and solutions, model replies, the rules'
own reading of them) stay linear on hostile input (issue 30 leftover 5).

Each pattern below was quadratic: tried at every character of a long run (spaces, digits, a
sentence without its "?", a chain of operations with no "=" after it) it read the rest of the
run each time. Each is rewritten to be tried only where a run starts (a guard at its front) or
with bounded repetitions, and finds exactly what it found before. The tests count the work:
how many places of a 100,000-character hostile text get past a pattern's guard (each then reads
at most its own run, and runs do not overlap), or how much text a bounded search is given;
never a clock."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from qcstation.core.construct.check import reread
from qcstation.core.construct.make import inject, inject_chain, keyinfo, keyinfo_clauses, keyinfo_draft
from qcstation.core.construct.make.rules import calculator, chains
from qcstation.core.derive import recheck
from qcstation.core.reading import inline, words
from qcstation.core.verify import meaning
from tests.conftest import dataset

N = 100_000


#: name -> (the pattern now, the pattern before, its guard now, a hostile unit, how it is read)
def _cases() -> dict[str, tuple[re.Pattern[str], str, str, str, str]]:
    return {
        "meaning._DIGITS_RE": (
            meaning._DIGITS_RE,
            r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d{1,40})?(\.\d{1,40})?(?!\d)(?:\s*(hundred|thousand|million|"
            r"billion|dozen)s?\b)?(\s*%|\s*percent\b)?",
            r"(?<![\w.])(?=\d|\.\d)", "\n", "numbers"),
        "recheck._PERCENT": (recheck._PERCENT, r"(\d+(?:\.\d+)?)%", r"(?<!\d)", "1", "groups"),
        "inject_chain._FINAL_NUMBER": (
            inject_chain._FINAL_NUMBER,
            r"(?<![\w.])[-−]?\$?\s*(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)",
            r"(?:(?<![\w.])(?=[-−$\d.])|(?<![\w.\s])(?=\s))", "\n", "final"),
        "chains._FRACTION_AT_END": (chains._FRACTION_AT_END, r"(\d+)\s*/\s*(\d+)\s*$", r"(?<!\d)", "1",
                                    "search"),
        "calculator._ARITHMETIC_TAIL_RE": (
            calculator._ARITHMETIC_TAIL_RE, r"[\d\s.,+\-*/()=$x×÷%]+$", r"(?<![\d\s.,+\-*/()=$x×÷%])",
            "1+", "sub"),
        "keyinfo._ASKING": (
            keyinfo._ASKING,
            r"[^.?!]*\?|(?:^|(?<=[.!]\s))(?:find|calculate|determine|compute|what|how)\b[^.?!]*",
            r"(?:^|(?<=[.?!]))", "5% ", "findall"),
        "reread._ASKED_FOR": (reread._ASKED_FOR, r"\s*\(the value asked for\)$", r"(?<!\s)", "\n", "sub"),
        "inject._OPTION_TAIL": (
            inject._OPTION_TAIL,
            r"\s*(?:(?:hence|so|thus|therefore)\s*,?\s*)?(?:the\s+)?(?:correct\s+)?(?:answer|option)\s*"
            r"(?:is\s*)?[:\-=]?\s*(?:option\s*)?\(?[A-E]\)\s*[.!]?\s*$|"
            r"\s*(?:(?:hence|so|thus|therefore)\s*,?\s*)?(?:the\s+)?(?:correct\s+)?(?:answer|option)\s*"
            r"(?:is\s*)?[:\-=]?\s*(?:option\s*)?[A-E]\s*[.!]?\s*$", r"(?<!\s)", "\t", "sub"),
        "keyinfo_draft._ASK_CONDITION": (keyinfo_draft._ASK_CONDITION, r"\s+(?:if|when|given that|assuming)\s+",
                                         r"(?<!\s)", "\n", "search"),
        "keyinfo_draft._THEN_END": (keyinfo_draft._THEN_END, r"(?:,\s*|\s+)(?:then|so)$", r"(?<!\s)", "\t", "sub"),
    }


def _read(kind: str, p: re.Pattern[str], s: str) -> Any:
    if kind == "numbers":
        return [m.groups() for m in p.finditer(s) if m.group(1) is not None or m.group(2) is not None]
    if kind == "groups":
        return [m.groups() for m in p.finditer(s)]
    if kind == "final":
        return [(m.group(1), m.span(1), m.group(0).lstrip()[:1]) for m in p.finditer(s)]
    if kind == "search":
        m = p.search(s)
        return m and (m.groups(), m.span())
    if kind == "sub":
        return p.sub("", s)
    return " ".join(p.findall(s))


def _texts() -> list[str]:
    out: list[str] = []
    for line in dataset("gsm8k/test.jsonl").read_text(encoding="utf-8").splitlines()[:400]:
        rec = json.loads(line)
        out += [rec["question"], rec["answer"], *rec["answer"].split("\n")]
    out += ["Find x. What is 5% of 200?", "The answer is  $ 18.", "It is -  4", "7.5 / .5 = ", "3 (the value asked for)",
            "  5 hundred", ". 1.5%", "a 2x4's", "1,000,000 and 2.5 million", "How much?! Find it.",
            "So the answer is (B).", "x  so  the correct answer is option C", "Hence, answer: D ",
            "How many if  he  stays?", "and  then", "He left, so", "x\tthen"]
    return out


@pytest.mark.parametrize("name", list(_cases()))
def test_each_rewrite_finds_what_the_pattern_found_before(name: str) -> None:
    now, before, _guard, unit, kind = _cases()[name]
    old = re.compile(before, now.flags)
    hostile = [(unit * 300)[:300] + tail for tail in ("", "!", "5", "?", " (the value asked for)", " answer B",
                                                      " if x ", " then")]
    for text in _texts() + hostile:
        assert _read(kind, now, text) == _read(kind, old, text), (name, text[:80])


@pytest.mark.parametrize("name", list(_cases()))
def test_each_is_tried_at_a_few_places_of_a_hostile_text(name: str) -> None:
    now, before, guard, unit, _kind = _cases()[name]
    assert now.pattern.startswith(guard), (name, now.pattern[:80])
    text = (unit * N)[:N] + "!"
    tried = sum(1 for _ in re.finditer(guard, text, now.flags))
    # before, every character of the run was a place to try (a scan of the rest of it each)
    assert tried <= 2, (name, tried)


def test_inline_expressions_are_read_with_bounded_repetitions() -> None:
    # a chain of operations is read from each operand where no "=" follows it: bounded, the
    # reading from one place is at most 64 operations and 16 parentheses around an operand
    assert "{1,64}" in inline.EXPR_TXT and "(?:\\(\\s*){0,16}" in inline.EXPR_TXT
    chain = " + ".join(["1"] * 30) + " = 30"
    found = inline.find_inline_computations("He adds " + chain + ".")
    assert [c.value for c in found] == [30]
    assert words._SIZE_NAMED.pattern.count("{1,8}") == 1
    assert [m.group(1) for m in words._SIZE_NAMED.finditer("two 2 x 4's and a 4x4s")] == ["2 x 4", "4x4"]


def test_the_text_before_an_equals_sign_is_read_from_a_bounded_tail(monkeypatch: pytest.MonkeyPatch) -> None:
    given: list[int] = []
    real = inline.VISIBLE_TAIL_RE

    class Counting:
        def search(self, text: str) -> re.Match[str] | None:
            given.append(len(text))
            return real.search(text)

    monkeypatch.setattr(inline, "VISIBLE_TAIL_RE", Counting())
    hostile = "(" * N + "3 x 4 = "
    inline.visible_before(hostile, len(hostile), "12")
    assert given == [inline.MAX_TAIL_CHARS]
    opened = "1 " * N + "+ 3 x 4 = "        # an expression that may open before the cut is refused
    assert inline.visible_before(opened, len(opened), "12") is None
    line = "Then 3 x 4 = "
    assert inline.visible_before("a\n" + line, 2 + len(line), "12") is not None


# --- lane lin2: patterns the scanner (bench/hostile_regex_bench.py) flagged after the above ---

def _all_gsm8k_fields() -> list[str]:
    """Every GSM8K test seed's question and answer, and each line of its answer."""
    out: list[str] = []
    for line in dataset("gsm8k/test.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        out += [rec["question"], rec["answer"], *rec["answer"].split("\n")]
    return out


def _hostile(alphabet: list[str], count: int = 3000, most: int = 14, seed: int = 30) -> list[str]:
    """``count`` strings of up to ``most`` pieces of ``alphabet`` (short: the old patterns are the
    reference, and some of them are exponential)."""
    import random
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, most))) for _ in range(count)]


def test_written_computations_are_dropped_as_the_regex_did_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    from qcstation.core.reading import inline as binding      # binding's computations are read there
    old = re.compile(binding.COMPUTATION_TXT)
    pieces = ["12", "3", " + ", "+", "(", ")", " = ", "=", " ", "x", " x ", "a ", "$3.5", ",", ".", " (", "\n", "÷",
              "-", "٣", "\u00a0"]
    texts = _all_gsm8k_fields() + [t for t in _hostile(pieces) if t.count("(") + t.count(")") <= 12]
    texts += ["He paid 3 x (4 + 5) = $27 and 2(3)=6.", "1 2+3=5", "1+( 2=3", "7 = 7", "3 +4 =  5 apples"]
    for text in texts:
        assert binding.drop_computations(text) == old.sub(" ", text), text[:80]
    # the regex: exponential in parentheses (both operators and operand characters); the
    # scanner: reads each character once (its kind) from the right and the left
    calls: list[str] = []
    real = binding._kind

    def counting(c: str) -> str:
        calls.append(c)
        return real(c)

    monkeypatch.setattr(binding, "_kind", counting)
    hostile = "1" + "((" * 50_000 + "=" + "1.+" * 10_000
    assert binding.drop_computations(hostile) == " +" + "1.+" * 9_999      # "1((((...((=1." is one
    assert len(calls) == len(hostile)


def test_a_calculating_line_is_found_as_before_from_the_start_of_each_run() -> None:
    from qcstation.core.ingest import steps
    old = re.compile(r"=|(?:\d|\b[a-zA-Z]\b|\))[\d,.%)]*\s*[-+*/×x÷]\s*\$?\(?(?:\d|\b[a-zA-Z]\b)"
                     r"|\b(?:plus|minus|times|divided\s+by|multiplied\s+by|equals)\b", re.I)
    pieces = list("12.,%)) (+-x×ab$=\t٣K") + ["plus", " by "]
    for text in _all_gsm8k_fields() + _hostile(pieces, most=16):
        assert bool(steps._CALC_LINE.search(text)) == bool(old.search(text)), text[:80]
    guard = r"(?<![\d,.%)])[,.%]*(?:\d|\))"
    assert guard in steps._CALC_LINE.pattern
    for unit in (")", "1.", "1,", "1.1.", "%1"):
        # before: every digit and ")" of the run was a place to read the rest of it from
        assert sum(1 for _ in re.finditer(guard, (unit * N)[:N] + "!", re.I)) <= 2, unit


def _guarded() -> dict[str, tuple[re.Pattern[str], str, str, str, list[str], str]]:
    """name -> (the pattern now, before, how it is read, its guard now, pieces of hostile
    strings, a hostile unit). Each guard lets the pattern start only where the leftmost match
    can start: where a run of spaces (or of its class) starts, or at a comma."""
    from qcstation.core.construct.make import unknown_describe, unknown_words
    from qcstation.core.construct.make.rules import worded
    from qcstation.core.derive import story
    join = r"(?:(?=,)|(?<![\s,]))(?<!\sand)(?<!\sor)(?<!\sbut)"
    return {
        "unknown_words.TRAILING_EQUALS": (unknown_words.TRAILING_EQUALS, r"[\s$€£=]+$", "sub", r"(?<![\s$€£=])",
                                          [" ", "=", "$", "€", "a", "\n", "1", "\t"], " ="),
        "worded._OP_WORD": (worded._OP_WORD, r"\s+(plus|minus|times|multiplied by|divided by)\s+", "sub", r"(?<!\s)",
                            [" ", "plus", "times", "multiplied", " by", "1", "\n", "x"], "\t"),
        "unknown_describe._EMPTY_BECAUSE": (unknown_describe._EMPTY_BECAUSE,
                                            r",?\s+(?:because|since)\s+[\ue000-\ue7ff]?\?\s*[.,;]?$",
                                            "sub", r"(?:,|(?<![\s,]))", [" ", ",", "because", "since", "?", "\ue001",
                                                                         ".", "\t", "a"], "\t"),
        "keyinfo_clauses._JOIN_END": (keyinfo_clauses._JOIN_END, r"(?:,?\s+(?:and|or|but))+$", "sub", join,
                                    [" ", ",", "and", "or", "but", "AND", "b", "x", "\n", "s"], " and"),
        "story._CONDITION_OR_TOTAL": (story._CONDITION_OR_TOTAL, r"\s+(?:if|when|unless|in total|in all|altogether)\b",
                                      "split", r"(?<!\s)", [" ", "if", "in", " total", "all", "x", "\t", "s"], "\n"),
    }


@pytest.mark.parametrize("name", list(_guarded()))
def test_each_guarded_pattern_finds_what_it_found_before(name: str) -> None:
    now, before, kind, guard, pieces, _unit = _guarded()[name]
    old = re.compile(before, now.flags)
    assert now.pattern.startswith(guard), name
    for text in _all_gsm8k_fields() + _hostile(pieces, most=16):
        if kind == "sub":
            assert now.sub("", text) == old.sub("", text), (name, text[:80])
        else:
            assert now.split(text) == old.split(text), (name, text[:80])


@pytest.mark.parametrize("name", list(_guarded()))
def test_each_guarded_pattern_starts_at_a_few_places_of_a_hostile_text(name: str) -> None:
    now, _before, _kind, guard, _pieces, unit = _guarded()[name]
    text = (unit * N)[:N] + "!"
    # before: every character of the run was a place to read the rest of it from
    # (the guard of _JOIN_END lets letters through, where the pattern cannot start anyway)
    assert sum(1 for _ in re.finditer(guard + r"(?=[,\s$€£=])", text, now.flags)) <= 2, name


def test_a_unit_note_is_read_once_and_as_before() -> None:
    from qcstation.core.ingest import formats
    old = re.compile(r"\s*\(([^()\d]*(?:\^?[23²³])?[^()\d]*)\)")
    pieces = [" ", "(", ")", "2", "3", "^", "²", "a", "cm", "\t", "1", "٣", "5 ", "(apples)", "x"]
    for text in _all_gsm8k_fields() + _hostile(pieces, most=16):
        assert formats._UNIT_NOTE.findall(text) == old.findall(text), text[:80]
        assert formats._UNIT_NOTE.sub("", text) == old.sub("", text), text[:80]
    assert formats._UNIT_NOTE.pattern.startswith(r"(?<!\s)\s*")
    assert sum(1 for _ in re.finditer(r"(?<!\s)\s", "\t" * N + "!")) == 1
    # the note is read with possessive runs (before: each split of "(aaa...a" with no ")")
    assert "[^()\\d]*+(?:[23][^()\\d]*+)?" in formats._UNIT_NOTE.pattern
    assert formats.answer_without_unit("3 (cm^2)") == ("3", "cm^2")
    assert formats.answer_without_unit("(" + "a" * N) is None


def test_clauses_are_split_as_before_from_where_a_run_of_spaces_starts() -> None:
    from qcstation.core.reading.clauses import SENTENCE
    # ("by then", "until then", "since then" are times, no clause: GSM8K 961)
    old = re.compile(SENTENCE.pattern + r"|[,;:]\s+|\s+(?=(?:and|but|if|when|while|so(?!\s+that\b))\s)"
                     r"|(?<!\bby)(?<!until)(?<!since)(?<!\s)\s+(?=then\s)", re.I)
    pieces = [" ", "  ", "\n", ",", ";", ".", "!", "?", "and", "so", " that", "then", "Mr.", "A", "b", "x", "5", "\t",
              "when ", "by", "until"]
    for text in _all_gsm8k_fields() + _hostile(pieces, most=16):
        assert keyinfo_clauses._CLAUSE_SPLIT.split(text) == old.split(text), text[:80]
    assert r"|(?<!\s)\s+(?=(?:and|" in keyinfo_clauses._CLAUSE_SPLIT.pattern
    assert sum(1 for _ in re.finditer(r"(?<!\s)\s", "\n" * N + "!")) == 1


def test_the_asking_sentence_annotations_and_lets_are_read_as_before_from_few_places() -> None:
    from qcstation.core.construct.make.rules import finalunit
    from qcstation.core.derive import recheck
    cases = [
        (finalunit._ASKING, r"[^.?!]*\?", "findall", ["a", "?", ".", "!", " ", "1", "\n"], r"(?:^|(?<=[.?!]))", "1"),
        (recheck._ANNOTATED, r"=?\s*\$?<<[^<>]{1,460}>>\s*\$?[\d,]*(?:\.\d+)?", "sub",
         ["=", "$", "<<", ">>", " ", "\n", "1", "2*3", ",", ".5", "<", "a", "\t"], r"(?:(?!\s)|(?<![\s=]))(?=\s)", "\n"),
        (recheck._LET, r"([A-Za-z]\w*)\s*=\s*([^,;=]+?)(?=,\s| and |\.\s|\.$|;|\?|$)", "findall",
         ["a", "x1", "_", "1", "=", " ", ",", " and ", ".", ";", "?", "b2 = 3", "é", "٣", "s1 = 4"],
         r"(?<!\w)[^\WA-Za-z]*+[A-Za-z]", "and"),
    ]
    for now, before, kind, pieces, starts, unit in cases:
        old = re.compile(before, now.flags)
        for text in _all_gsm8k_fields() + _hostile(pieces, most=16):
            if kind == "sub":
                assert now.sub(" ", text) == old.sub(" ", text), (before, text[:80])
            else:
                assert now.findall(text) == old.findall(text), (before, text[:80])
        # before: every character of a hostile run was a place to read the rest of it from
        assert sum(1 for _ in re.finditer(starts, (unit * N)[:N] + "!", now.flags)) <= 2, before


# --- lane lin3: the rest the scanner flagged (issue 30.4) ---

class _Given:
    """A compiled pattern that notes how much text each call may read: from ``pos`` to
    ``endpos`` (the places it is tried at, each reading no further than ``endpos``)."""

    def __init__(self, real: re.Pattern[str]) -> None:
        self.real = real
        self.given: list[int] = []
        self.flags, self.pattern = real.flags, real.pattern

    def _note(self, text: str, pos: int = 0, endpos: int | None = None) -> None:
        self.given.append((len(text) if endpos is None else min(endpos, len(text))) - pos)

    def search(self, text: str, pos: int = 0, endpos: int = 1 << 62) -> re.Match[str] | None:
        self._note(text, pos, endpos)
        return self.real.search(text, pos, endpos)

    def match(self, text: str, pos: int = 0, endpos: int = 1 << 62) -> re.Match[str] | None:
        self._note(text, pos, endpos)
        return self.real.match(text, pos, endpos)

    def finditer(self, text: str, pos: int = 0, endpos: int = 1 << 62) -> Any:
        self._note(text, pos, endpos)
        return self.real.finditer(text, pos, endpos)

    def sub(self, repl: Any, text: str, count: int = 0) -> str:
        self._note(text)
        return self.real.sub(repl, text, count)


_OLD_RESULT = rf"[$€£]?\s*{inline.NUM_TXT}(?:\s*/\s*\d+(?!\d|\.\d))?(?:\s*%)?"
_OLD_CHAIN = (rf"(?<![\w.,$/^*+\-×÷−–=])(?P<expr>{inline.EXPR_TXT})(?P<rest>(?:\s*=\s*(?:{inline.EXPR_TXT}|{_OLD_RESULT}))*?)"
              rf"\s*=\s*(?P<res>{_OLD_RESULT})(?![\d.,]*\d|\s*/\s*\d|\s*[-+*/×÷−–]\s*[\d(.$])")
_OLD_LONG_OPERAND = rf"[$€£]?{inline.NUM_TXT}(?:\s+[A-Za-z][A-Za-z’'\-]*){{0,8}}"
_OLD_LONG = (rf"(?<![\w.,$/^*+\-×÷−–=])(?P<expr>{_OLD_LONG_OPERAND}(?:\s*(?:[-+*/×÷−–]|(?<=\s)x(?=\s))\s*"
             rf"{_OLD_LONG_OPERAND})+)\s*=\s*(?P<res>[$€£]?\s*{inline.NUM_TXT})(?![\d.,]*\d|\s*/\s*\d)")


def test_chains_are_found_as_the_regexes_found_them() -> None:
    old_chain, old_long = re.compile(_OLD_CHAIN), re.compile(_OLD_LONG)
    pieces = ["1", "12", " ", "=", " = ", "+", " + ", " x ", "x", "(", ")", "$", "/", " / ", "%", ".", ",", "5.5",
              " apples", " a", "-", "−", "*", "1,000", "½", "٣"]
    texts = _all_gsm8k_fields() + _hostile(pieces, count=6000, most=20)
    found = 0
    for text in texts:
        for old, new, head, ends in ((old_chain, chains._CHAIN_RE, chains._CHAIN_HEAD, chains._chain_ends),
                                     (old_long, chains._LONG_RE, chains._LONG_HEAD, chains._long_ends)):
            before = [(m.span(), m.groupdict()) for m in old.finditer(text)]
            assert [(m.span(), m.groupdict()) for m in inline.matches_before_an_end(text, new, head, ends(text))] \
                == before, text[:80]
            found += bool(before)
    assert found > 1000        # (both patterns find chains in these texts)


def test_a_chain_is_read_once_from_each_equals_sign(monkeypatch: pytest.MonkeyPatch) -> None:
    # a line of operations with "="s and no end ("1 + 1 = 1 + 1 = ... !"): before, the chain
    # regex was tried from each operand and read the rest of the line each time
    counted: dict[str, _Given] = {}
    for name in ("_CHAIN_RE", "_CHAIN_HEAD", "_CHAIN_STEP", "_CHAIN_ENDS_AT", "_LONG_RE", "_LONG_HEAD", "_LONG_ENDS_AT"):
        if hasattr(chains, name):
            counted[name] = _Given(getattr(chains, name))
            monkeypatch.setattr(chains, name, counted[name])
    no_end = ("1 + 1 = " * N)[:N] + "1 + 1!"
    assert chains.chained_computations(no_end) == []
    eqs = no_end.count("=")
    assert counted["_CHAIN_RE"].given == [] and counted["_CHAIN_HEAD"].given == []
    assert len(counted["_CHAIN_STEP"].given) <= eqs and len(counted["_CHAIN_ENDS_AT"].given) == eqs
    # a chain that ends ("... + 1 = 5") is searched for once, in the text before its "=", with
    # at most 64 operations read from each place (as the inline reader)
    ends = ("((1 + " * N)[:N] + "1 = 5"
    for c in counted.values():
        c.given.clear()
    chains.chained_computations(ends)
    assert sum(counted["_CHAIN_HEAD"].given) <= len(ends) and len(counted["_CHAIN_RE"].given) <= 1
    assert sum(counted["_LONG_HEAD"].given) <= len(ends) and len(counted["_LONG_RE"].given) <= 1
    assert "{1,64}" in chains._LONG_EXPR and "{1,64}" in inline.EXPR_TXT


def test_a_unit_is_stripped_from_an_answer_as_before_from_its_last_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    from qcstation.core.reading import answers
    old = re.compile(r"\s*(?:\^\{?[23]\}?|\\?%|percent|\\text\{[^{}]*\}|\\mbox\{[^{}]*\}|\^\\circ|°|\\circ|"
                     r"[a-zA-Z](?:[a-zA-Z./ ²³]|\^[23])*)$")
    pieces = ["a", "B", "cm", " ", ".", "/", "²", "³", "^", "2", "3", "^2", "\t", "\n", "{", "}", "\\text{", "\\mbox{",
              "%", "\\%", "percent", "°", "\\circ", "^\\circ", "5", "1.5", "$", "\u00a0", "^{3}", "\\"]
    texts = _all_gsm8k_fields() + _hostile(pieces, count=20000)
    texts += [json.loads(line)["answer"] for line in dataset("math500/test.jsonl").read_text(encoding="utf-8").splitlines()]
    stripped = 0
    for text in texts:
        assert answers._strip_unit_suffix(text) == old.sub("", text), text[:80]
        stripped += old.sub("", text) != text
    assert stripped > 5000
    # the pattern, anchored at the end, read the rest of an answer again from each letter of a
    # long tail of letters and each space of a run: it is now given the last few characters
    counting = _Given(answers._UNIT_SUFFIX)
    monkeypatch.setattr(answers, "_UNIT_SUFFIX", counting)
    for unit in ("a", "a.", "a a ", "cm ", "^2a"):
        counting.given.clear()
        assert answers.parse_answer("5 " + (unit * N)[:N] + "!") is None
        assert max(counting.given) <= 10, unit
    for unit in ("\t", " "):     # a run of spaces: given whole, tried at its start only
        text = "5" + (unit * N)[:N] + "!"
        counting.given.clear()
        answers.parse_answer(text)
        start = len(text) - max(counting.given)
        assert sum(1 for _ in re.finditer(r"(?<!\s)", text[start:])) <= 3, unit


_LIN3_GUARDED = ["unknowns._CLAUSE_START", "reread._LEFT_OF_EQUALS"]


def _lin3_guarded(name: str) -> tuple[re.Pattern[str], str, str, str]:
    """(the pattern now, before, its guard now, a hostile unit) of one of :data:`_LIN3_GUARDED`."""
    from qcstation.core.construct.make import unknowns
    if name == "unknowns._CLAUSE_START":
        return (unknowns._CLAUSE_START, r",?\s+(?:so|because|since|and|which|then|thus|meaning)\b|[,;:]\s",
                r"(?:(?=,)|(?<![\s,])|(?<=[,;:]\s))", "\t")
    return reread._LEFT_OF_EQUALS, r"([^=\n]+)=", r"(?<![^=\n])", "a"


@pytest.mark.parametrize("name", _LIN3_GUARDED)
def test_each_lin3_guarded_pattern_finds_what_it_found_before(name: str) -> None:
    now, before, guard, _unit = _lin3_guarded(name)
    old = re.compile(before, now.flags)
    assert now.pattern.startswith(guard), name
    pieces = [" ", "  ", "\t", "\n", ",", ";", ":", "so", "and", "because", "then", "meaning", "x", "1", "=", "==",
              "\ue001?", "٣"]
    for text in _all_gsm8k_fields() + _hostile(pieces, most=16):
        assert [m.span() for m in now.finditer(text)] == [m.span() for m in old.finditer(text)], (name, text[:80])
        assert now.findall(text) == old.findall(text), (name, text[:80])


@pytest.mark.parametrize("name", _LIN3_GUARDED)
def test_each_lin3_guarded_pattern_starts_at_a_few_places_of_a_hostile_text(name: str) -> None:
    now, _before, guard, unit = _lin3_guarded(name)
    assert now.pattern.startswith(guard), name
    # before: every character of the run was a place to read the rest of it from
    assert sum(1 for _ in re.finditer(guard, (unit * N)[:N] + "!")) <= 2, name


def test_a_worded_computation_is_found_as_before_from_after_the_last_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    from qcstation.core.construct.make import unknown_words
    pieces = [" ", "  ", "\t", "\n", ",", ", ", ".", "5", "12", "1,000", "2.5", "$", "%", "-x", "apples", "per", "/h",
              "+", " + ", " x ", " * ", " / ", "−", "=", "?", ";", ":", "!", "٣", "²", ".5"]
    texts = _all_gsm8k_fields() + _hostile(pieces, count=20000, most=16)
    texts += [t[:t.find("<<")] + " " for t in _all_gsm8k_fields() if "<<" in t]
    found = 0
    for text in texts:
        m, before = unknown_words.worded_expr(text), unknown_words.WORDED_EXPR.search(text)
        assert (m and m.span()) == (before and before.span()), text[:80]
        found += before is not None
    assert found > 500
    # its tail runs to the end: from each number of a line with a stop near its end, it read the
    # rest of the line again; through the line's reader it is given the text after the last stop
    counting = _Given(unknown_words.WORDED_EXPR)
    monkeypatch.setattr(unknown_words, "WORDED_EXPR", counting)

    class Step:
        line = ("1 + " * 500)[:1900] + "! = <<2+2=4>>4"
    unknown_words._operand_phrases(Step())
    assert counting.given and max(counting.given) <= 20


def test_inline_computations_are_found_as_before_where_a_result_follows_an_equals_sign(
        monkeypatch: pytest.MonkeyPatch) -> None:
    old = re.compile(rf"(?<![\w.,$/^*+\-×÷−–])(?P<expr>{inline.EXPR_TXT})\s*=\s*(?P<res>[$€£]?\s*-?{inline.NUM_TXT}"
                     r"(?:\s*%)?)(?!\d|/\s*\d|\.\d|,\d)")
    pieces = ["1", "12", " ", "=", " = ", "+", " + ", " x ", "x", "(", ")", "$", "/", "%", ".", ",", "5.5", " apples",
              "-", "−", "*", "\n", "1,000", "٣", "2(3)", ") 4"]
    ends = 0
    for text in _all_gsm8k_fields() + _hostile(pieces, count=6000, most=20):
        ends_at = {e for e in inline.equals_signs(text) if inline._INLINE_ENDS_AT.match(text, e)}
        before = [(m.span(), m.groupdict()) for m in old.finditer(text)]
        assert [(m.span(), m.groupdict()) for m in inline.matches_before_an_end(
            text, inline.INLINE_RE, inline._INLINE_HEAD, ends_at)] == before, text[:80]
        ends += bool(before)
    assert ends > 1000
    # a chain of operations after the last "=" a result follows is not read: before, up to 64
    # operations were read again from each of its operands
    counted = {name: _Given(getattr(inline, name)) for name in ("INLINE_RE", "_INLINE_HEAD")}
    for name, c in counted.items():
        monkeypatch.setattr(inline, name, c)
    text = "3 + 4 = 7 and " + ("1 + " * N)[:N] + "!"
    assert [c.value for c in inline.find_inline_computations(text)] == [7]
    assert sum(counted["_INLINE_HEAD"].given) <= 8 and len(counted["INLINE_RE"].given) == 1


# --- lane lin4: a chain of thousands of operations that ends ("... + 1 = 5") ---

def test_a_long_chain_that_ends_is_searched_from_its_last_64_operations(monkeypatch: pytest.MonkeyPatch) -> None:
    import random
    old = re.compile(rf"(?<![\w.,$/^*+\-×÷−–])(?P<expr>{inline.EXPR_TXT})\s*=\s*(?P<res>[$€£]?\s*-?{inline.NUM_TXT}"
                     r"(?:\s*%)?)(?!\d|/\s*\d|\.\d|,\d)")
    pieces = ["1", "12", " ", "+", " + ", " x ", "x", "(", ")", "$", "/", "/h", "%", ".", ",", "5.5", " apples", " a-b",
              "-", "a-", "−", "*", "**", "^", "\n", "٣", "2(3)", ") 4", "3x4", "÷", "–", "’-"]
    rng = random.Random(304)
    texts = _all_gsm8k_fields()
    for _ in range(400):   # chains of 40 to 140 operations, some pieces between, then "= n"
        unit = rng.choice(["1 + ", "1+", "(1) ", "2 x ", "$1 apples + ", "1 - ", "1 a-b - ", "1/2/", "1 ** 2 * "])
        body = "".join(unit if rng.random() < 0.9 else rng.choice(pieces) for _ in range(rng.randint(40, 140)))
        texts.append(body + "1" + rng.choice([" = 5", "= 80", " = $7 ", " =5%"]) + rng.choice(["", " and 2 + 3 = 5"]))
    cut = 0
    for text in texts:
        ends_at = {e for e in inline.equals_signs(text) if inline._INLINE_ENDS_AT.match(text, e)}
        earliest = inline._earliest_starts(text, ends_at)
        assert [(m.span(), m.groupdict()) for m in inline.matches_before_an_end(
            text, inline.INLINE_RE, inline._INLINE_HEAD, ends_at, earliest)] == \
            [(m.span(), m.groupdict()) for m in old.finditer(text)], text[:80]
        cut += bool(earliest)
    assert cut > 200  # (285: the others have fewer operations or pieces that break the chain)
    # 25,000 operations and "= 5": the head is given the last 64 of them (before: tried from
    # each operand, reading up to 64 operations each time: 1-2.3 s at 100,000 characters)
    counted = _Given(inline._INLINE_HEAD)
    monkeypatch.setattr(inline, "_INLINE_HEAD", counted)
    for unit in ("1 + ", "((1 + ", "1 x "):
        counted.given.clear()
        text = (unit * (N // len(unit) + 1))[:N] + "1 = 5"
        assert inline.find_inline_computations(text) == []
        assert sum(counted.given) <= 65 * len(unit) + 8, unit
