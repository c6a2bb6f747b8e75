"""Regexes of qcstation on hostile lines: which ones are super-linear in a line's length.

    PYTHONPATH=. python bench/hostile_regex_bench.py [--quick] [--only SUBSTRING] [--big]

Patterns are collected three ways, and each is reported with where it was found:
  * module level: every compiled ``re.Pattern`` a module of qcstation holds (also inside its
    dicts, lists and tuples);
  * literals: every string constant (or module-level string constant) given to ``re.*`` in
    the source (found by reading each file's AST), including those inside functions;
  * at call time: ``re._compile`` (through which every ``re.compile``/``re.search``/... of the
    ``re`` module goes) is wrapped while a workload runs the code that reads untrusted text:
    GSM8K's test file imported, the offline rules and their key information on its seeds, every
    derive kind on the hand-worked seeds, and answer extraction of solutions and replies. This
    catches patterns built at call time (f-strings, joined alternations), which the AST cannot.

Each pattern is applied with ``finditer`` (the most work a ``search``/``findall``/``sub`` does)
to runs of hostile units ("1", " ", "(", "1.1.", "a a ", Unicode digits, its own literals, ...)
of 400 and 1,600 characters, CPU time best of three; one whose time grows more than 9 times for
4 times the text (a linear one grows about 4 times), above 3 ms, is flagged and then measured at
1.6k, 16k (and with --big 160k) characters. Figures only: no assertion (tests count work)."""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import os
import pkgutil
import re
import sys
import tempfile
import time
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "qcstation"
Key = tuple[str, int]
FOUND: dict[Key, set[str]] = {}

UNITS = ["1", " ", "1 ", "a", "a ", "a a ", "1,", "1.", "1.1.", "$1", "\n", "-1", "(", "((1", ")", "{", "\\",
         "a1", "1/", "1 a ", "ab ", ".", "1, ", "aa.", "x=", "1+", "1 + ", "1 x ", "A", "A ", "1\n", "*", "=", "a.",
         "a-", "1-", "a,", "<<", "#", "'", "\t", "1 1 ", "1 and ", "a and ", "or ", "1*", "$", "%", "1%", "a:",
         "1:", "١", "١ ", "½", "a=1, ", "x = 1 and ", "(a", "1e", "- ", "? "]


#: patterns flagged by the scan (finditer over a whole hostile text) that are linear where they
#: are used, with why: the place they are noted at -> the reason (issue 30.4's triage)
HARMLESS = {
    "calculator._COMPUTED_BEFORE": "searched in the 40 characters before a number",
    "calculator.py:335": "searched in the 12 characters before a number",
    "joint._SHARE_OF": "matched at a place of the question (a number's start), each read once",
    "keyinfo_clauses._TIME_PHRASE": "fullmatch of a clause: one start",
    "known_forms._NUMBER_HEAD": "match at a clause's start",
    "known_forms._TWO_ITEMS": "fullmatch of a sentence: one start, parts of at most 40 characters",
    "unknown_words.WORDED_EXPR": "searched by worded_expr from the last stop only (test_hostile_regexes)",
    "answers._UNIT_SUFFIX": "searched by _strip_unit_suffix from _unit_suffix_from only (test_hostile_regexes)",
    "unknown_forms._ASKED_THEN_BLANK": "no longer used: _asked_then_blank reads it in one pass (kept as its definition)",
    "categories._WORD_BEFORE": "searched in the 30 characters before a place",
    "noun_counts._WORD_BEFORE": "searched in the 24 characters before a number",
    "words._WORD_BEFORE": "searched in the 40 characters before a place",
    "unknown_describe._FRACTION": "fullmatch of one fraction's text",
    "unknowns._MAIN_AFTER_PREMISE": "match at one place of a blank's description",
    "reading.words._FRACTION_AFTER": "match after each number word (each run after one is read once)",
    "constants._FRACTION_AFTER": "match after each phrase found (each run after one is read once)",
    "judging._BARE_LINE": "fullmatch of one line of a judge's reply: one start",
    "link_structure.py:335": "matched on the 40 characters after a result",
    "link_structure.py:352": "matched on the 40 characters after a result",
    "link_structure._RATE_AFTER": "match right after the one place of a rate",
    "units._WORD": "match at a place, given 200 characters",
    "extract._ASKED_LINE": "fullmatch of a reply's tail: one start",
    "noun_counts._NEXT_WORD": "match right after each number (each run after one is read once)",
    "context._ONE_TOKEN": "fullmatch between two places: one start",
    "equations.py:291": "match at a place of a value stated twice; the rules read at most 300 places of 6,000 "
                        "characters (dispatch.too_large_for_rules)",
    "joint._EACH_AFTER": "match from a place to its sentence's end; the rules read at most 300 places of 6,000 "
                         "characters",
    "claims._AFTER_PERCENT": "matched on the 40 characters at a place",
    "rolecheck._RATE_AFTER": "matched on the 40 characters after a place",
    "joint.py:592": "matched on the 60 characters at a place",
}


def _harmless(where: set[str]) -> str | None:
    for w in where:
        for k, why in HARMLESS.items():
            if w.endswith("." + k) or f"/{k}" in w:
                return why
    return None


def _note(key: Key, where: str) -> None:
    FOUND.setdefault(key, set()).add(where)


def _spy(real: Any) -> Any:
    def _compile(pattern: Any, flags: Any) -> Any:
        if isinstance(pattern, str):
            key = (pattern, int(flags))
            if key not in FOUND:
                f: FrameType | None = sys._getframe(1)     # the caller of re.compile / re.search / ... (not re's own)
                while f is not None and f.f_code.co_filename == re.__file__:
                    f = f.f_back
                if f is not None and f.f_code.co_filename.startswith(str(PKG)):
                    _note(key, f"call {os.path.relpath(f.f_code.co_filename, ROOT)}:{f.f_lineno}")
        return real(pattern, flags)
    return _compile


def module_level() -> None:
    import qcstation

    def walk(v: object, where: str, depth: int = 0) -> None:
        if isinstance(v, re.Pattern):
            if isinstance(v.pattern, str):
                _note((v.pattern, v.flags & ~re.UNICODE), where)
        elif depth < 3 and isinstance(v, (dict, list, tuple, set, frozenset)):
            for x in (v.values() if isinstance(v, dict) else v):
                walk(x, where + "[]", depth + 1)

    for m in pkgutil.walk_packages(qcstation.__path__, "qcstation."):
        if m.name.endswith("__main__"):
            continue
        try:
            mod = importlib.import_module(m.name)
        except Exception as e:  # noqa: BLE001 - an optional dependency missing
            print("skip", m.name, type(e).__name__, file=sys.stderr)
            continue
        for k, v in vars(mod).items():
            walk(v, f"module {m.name}.{k}")


def literals() -> None:
    funcs = {"search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split", "compile"}
    for path in sorted(PKG.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        consts = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                  for t in n.targets if isinstance(t, ast.Name)
                  and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                    and node.func.attr in funcs and node.args):
                continue
            a = node.args[0]
            text = a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else \
                consts.get(a.id) if isinstance(a, ast.Name) else None
            where = f"literal {path.relative_to(ROOT)}:{node.lineno}"
            if text is None:
                if isinstance(a, ast.JoinedStr):
                    _note(("<f-string>", 0), where)
                continue
            flags = 0
            fl = [kw.value for kw in node.keywords if kw.arg == "flags"]
            if not fl and node.func.attr in ("search", "match", "fullmatch", "findall", "finditer", "compile",
                                             "split") and len(node.args) >= (3 if node.func.attr != "compile"
                                                                             else 2):
                fl = [node.args[-1]]
            if fl:
                try:
                    flags = int(eval(compile(ast.Expression(fl[0]), "", "eval"), {"re": re}))  # noqa: S307
                except Exception:  # noqa: BLE001 - a variable: the pattern is still noted
                    flags = 0
            try:
                p = re.compile(text, flags)
            except (re.error, TypeError):
                continue
            _note((p.pattern, p.flags & ~re.UNICODE), where)


def workload(quick: bool) -> None:
    """Run the readers of untrusted text once, so that patterns built at call time are compiled."""
    sys.path.insert(0, str(ROOT))
    from db import Store
    from qcstation.common.config import load_config
    from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
    from qcstation.core.construct.make.rules import RuleError, rule_for_seed
    from qcstation.core.derive.runner import run_derive
    from qcstation.core.ingest.importer import import_file
    from qcstation.core.reading.answers import parse_answer
    from qcstation.eval.checker.extract import extract_answer, extract_strict
    from qcstation.eval.scorers import extract_smtlib
    from tests.conftest import dataset
    from tests.eval.robustness.helpers import SEEDS, SETS
    from tests.core.derive.helpers import make_db

    src = dataset("gsm8k/test.jsonl")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "g.db"
        with Store(db) as store:
            import_file(store, src, "gsm8k")
        import sqlite3
        con = sqlite3.connect(db)
        con.row_factory = sqlite3.Row
        rows = [dict(r) for r in con.execute("SELECT * FROM seeds WHERE status = 'active' ORDER BY rowid")]
        con.close()
        for seed in rows[: 200 if quick else None]:
            for k in ("metadata", "extra"):
                if isinstance(seed.get(k), str):
                    try:
                        seed[k] = json.loads(seed[k])
                    except ValueError:
                        pass
            try:
                r = rule_for_seed(seed)
                keyinfo_from_annotations(seed["question"], seed.get("solution") or "", r.steps, givens=r.givens)
            except (RuleError, Exception):  # noqa: BLE001 - a refusal: the patterns were still used
                pass
            for text in (seed.get("solution") or "", seed.get("answer") or "", seed["question"]):
                extract_answer(text)
                extract_strict(text)
                parse_answer(str(seed.get("answer") or ""))
                extract_smtlib(text)
        root = Path(tmp) / "derive"
        root.mkdir()
        ddb = make_db(root, SEEDS)
        cfg = load_config(None, env={})
        for kind, (name, opts) in SETS.items():
            run_derive(ddb, cfg, kind=kind, name=name, opts=opts)


def _cpu(p: re.Pattern[str], s: str) -> float:
    best = 99.0
    for _ in range(3):
        t = time.process_time()
        for _m in p.finditer(s):
            pass
        best = min(best, time.process_time() - t)
        if best < 3e-4:
            break
    return best


def _units(pattern: str) -> list[str]:
    cs = sorted({ch for ch in pattern if ch.isprintable() and ch not in "()[]{}?*+|^$\\"})
    out = ["".join(cs)[:4], "".join(cs)[:8]] if cs else []
    words = re.findall(r"[a-z]{2,}", pattern)
    return out + [w + " " for w in words[:8]] + words[:3]


def _line(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n] + "!"


def _probe(p: re.Pattern[str]) -> tuple[str, float, str, float, float] | None:
    """The worst unit for ``p``: ("exponential"|"quadratic", growth, unit, time small, time 1.6k)."""
    worst: tuple[str, float, str, float, float] | None = None
    for u in UNITS + _units(p.pattern):
        for head in ("", "1"):
            # short lines first: a pattern that backtracks exponentially would not end on 400 (nor 80)
            t40, t80 = _cpu(p, head + _line(u, 16)), _cpu(p, head + _line(u, 32))
            if t80 > 2e-3 and t80 / max(t40, 1e-6) > 8:
                return ("exponential", t80 / max(t40, 1e-6), head + u, t40, t80)
            if head:
                continue
            t1 = _cpu(p, _line(u, 400))
            if t1 < 3e-4:
                continue
            t2 = _cpu(p, _line(u, 1600))
            if t2 / max(t1, 1e-6) > 9 and t2 > 3e-3 and (worst is None or t2 > worst[4]):
                worst = ("quadratic", t2 / max(t1, 1e-6), u, t1, t2)
    return worst


def scan(only: str | None, big: bool, start: str | None = None) -> list[tuple[str, Key]]:
    flagged: list[tuple[str, Key]] = []
    for key, where in sorted(FOUND.items()):
        if key[0] == "<f-string>" or (only and only not in key[0] and not any(only in w for w in where)) \
                or (start is not None and key[0] < start):
            continue
        p = re.compile(*key)
        found = _probe(p)
        if found is None:
            continue
        kind, growth, unit, _t1, t2 = found
        flagged.append((kind if _harmless(where) is None else "harmless", key))
        if kind == "exponential":
            row = [f"32 chars {t2 * 1000:8.1f} (x{growth:.0f} from 16)"]
        else:
            row = [f"1.6k {t2 * 1000:8.1f}"]
            t16 = _cpu(p, _line(unit, 16_000))
            row.append(f"16k {t16 * 1000:9.0f}")
            if big:
                row.append("160k " + (f"{_cpu(p, _line(unit, 160_000)) * 1000:9.0f}" if t16 < 2 else "(skipped)"))
        why = _harmless(where)
        print(f"{kind[:5]} {' | '.join(row)} ms  unit {unit!r:8} {key[0][:100]!r} flags={key[1]}", flush=True)
        if why:
            print(f"         harmless where used: {why}", flush=True)
        for w in sorted(where)[:4]:
            print("        ", w, flush=True)
    return flagged


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the rules on 200 GSM8K seeds, not all")
    ap.add_argument("--only", help="only patterns (or places) containing this text")
    ap.add_argument("--big", action="store_true", help="also 160k characters (those under 2 s at 16k)")
    ap.add_argument("--save", help="write the patterns found (JSON) to this file")
    ap.add_argument("--no-workload", action="store_true", help="module level and literals only")
    ap.add_argument("--patterns", help="read the patterns from this file (written by --save) instead of collecting them")
    ap.add_argument("--start", help="scan only patterns from this one on (in their sorted order): resumes a scan")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.patterns:
        for pattern, flags, where in json.loads(Path(args.patterns).read_text()):
            for w in where:
                _note((pattern, flags), w)
    else:
        re._compile = _spy(re._compile)  # type: ignore[attr-defined]
        module_level()
        if not args.no_workload:
            workload(args.quick)
        literals()
    kinds = {k: sum(1 for w in FOUND.values() if any(x.startswith(k) for x in w)) for k in ("module", "literal", "call")}
    fstr = len(FOUND.get(("<f-string>", 0), ()))
    print(f"{len(FOUND) - (1 if fstr else 0)} patterns: {kinds['module']} at module level, {kinds['literal']} literal "
          f"in calls, {kinds['call']} compiled at call time in qcstation; {fstr} f-string sites", flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps(sorted([k[0], k[1], sorted(w)] for k, w in FOUND.items())))
    flagged = scan(args.only, args.big, args.start)
    print(f"{len(flagged)} flagged ({sum(1 for k, _ in flagged if k == 'exponential')} exponential, "
          f"{sum(1 for k, _ in flagged if k == 'harmless')} harmless where used)")


if __name__ == "__main__":
    main()
