"""The untrusted SMT-LIB reader and command allow-list."""

from __future__ import annotations

import pytest

from qcstation.core.verify.smtlib import (
    MAX_BYTES,
    SList,
    SmtDisallowedError,
    SmtSyntaxError,
    Token,
    parse_script,
    read_sexprs,
    render_nodes,
    symbol_name,
    tokenize,
)
from qcstation.common.errors import VerificationError

GOOD = """(set-logic QF_LRA) ; a comment (with parens
(declare-const eggs Real) (assert (= eggs (- 16 3 4)))
(declare-const answer Real) (assert (= answer (* eggs 2)))
(check-sat) (get-value (answer))
"""


def test_tokenize_kinds_and_positions() -> None:
    toks = tokenize('(assert (= |my var| 2.5 #x1F #b01 "a ""q"" b")) ; tail\n:kw')
    kinds = [(t.kind, t.text) for t in toks]
    assert kinds == [
        ("(", "("), ("symbol", "assert"), ("(", "("), ("symbol", "="), ("qsymbol", "|my var|"),
        ("decimal", "2.5"), ("hex", "#x1F"), ("binary", "#b01"), ("string", '"a ""q"" b"'),
        (")", ")"), (")", ")"), ("keyword", ":kw"),
    ]
    assert toks[-1].line == 2 and toks[-1].col == 1
    assert toks[4].col == 12


def test_comments_may_contain_parens_and_quotes() -> None:
    nodes = read_sexprs('; ) " |\n(check-sat) ; (\n')
    assert len(nodes) == 1 and isinstance(nodes[0], SList)


def test_quoted_symbol_names_equal_plain_names() -> None:
    assert symbol_name(tokenize("|answer|")[0]) == "answer"
    assert symbol_name(tokenize("answer")[0]) == "answer"
    assert symbol_name(tokenize("12")[0]) is None


@pytest.mark.parametrize(
    ("text", "fragment", "line"),
    [
        ("(assert (= x 1)", "never closed", 1),
        ("(check-sat))", "no matching '('", 1),
        ("(check-sat)\n\n(assert (> x 1)", "(assert ...) starting at column 1 is never closed", 3),
        ('(echo "abc)', "string literal is never closed", 1),
        ("(assert |abc)", "quoted symbol is never closed", 1),
        ("(assert (= x 2x))", "neither a number nor a symbol", 1),
        ("(assert {x})", "unexpected character '{'", 1),
        ("(assert (= x 1))\n(assert #q)", "unexpected character '#'", 2),
        # a hidden or quoting character in the one visible form, escaped once
        ("(assert \u200b)", "unexpected character '\\u200b'", 1),
        ("(assert \\)", "unexpected character '\\'", 1),
        ("(assert |a\\b|)", "may not contain", 1),
    ],
)
def test_syntax_errors_carry_line(text: str, fragment: str, line: int) -> None:
    with pytest.raises(SmtSyntaxError) as err:
        parse_script(text)
    assert fragment in str(err.value)
    assert err.value.line == line
    assert str(err.value).startswith(f"line {line}: ")
    assert isinstance(err.value, VerificationError)


def test_empty_and_garbage_inputs() -> None:
    for text in ("", "   \n", "; only a comment\n"):
        with pytest.raises(SmtSyntaxError, match="no SMT-LIB commands"):
            parse_script(text)
    with pytest.raises(SmtSyntaxError, match="expected a command in parentheses, found 'The'"):
        parse_script("The answer is 18.")
    with pytest.raises(SmtSyntaxError, match="empty command"):
        parse_script("()")
    with pytest.raises(SmtSyntaxError, match="expected a command name"):
        parse_script("((assert true))")


def test_size_and_depth_limits() -> None:
    big = "(assert true)\n" * (MAX_BYTES // 14 + 10)
    with pytest.raises(SmtSyntaxError, match="the limit is"):
        parse_script(big)
    deep = "(assert " + "(not " * 500 + "true" + ")" * 501
    with pytest.raises(SmtSyntaxError, match="nested more than"):
        parse_script(deep)
    # within the limits both are fine
    parse_script("(assert " + "(not " * 50 + "true" + ")" * 51)


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ('(include "/etc/passwd")', "include"),
        ("(declare-const x Int)\n(eval x)", "eval"),
        ("(simplify (+ 1 2))", "simplify"),
        ("(get-info :all-statistics)", "get-info"),
        ("(reset)", "reset"),
        ('(set-option :regular-output-channel "/tmp/x")', "set-option :regular-output-channel"),
        ('(set-option :diagnostic-output-channel "/tmp/x")', "set-option :diagnostic-output-channel"),
        ('(set-option :trace_file_name "/tmp/x")', "set-option :trace_file_name"),
        ("(check-sat-using smt)", "check-sat-using"),
    ],
)
def test_disallowed_commands_are_named(text: str, command: str) -> None:
    with pytest.raises(SmtDisallowedError) as err:
        parse_script(text)
    assert err.value.command == command
    line = text.count("\n") + 1
    assert err.value.line == line
    assert f"({command.split()[0]}" in str(err.value) and "not allowed" in str(err.value)


def test_allowed_script_and_active_commands() -> None:
    script = parse_script(GOOD)
    assert [c.name for c in script.commands] == [
        "set-logic", "declare-const", "assert", "declare-const", "assert", "check-sat", "get-value"]
    assert script.logic == "QF_LRA"
    assert script.check_sat_count == 1
    assert [c.name for c in script.active_commands()] == [
        "declare-const", "assert", "declare-const", "assert"]
    parse_script("(set-option :produce-models true)(set-info :source |x|)(echo \"hi\")(exit)")


def test_push_pop_scopes_and_last_check_sat() -> None:
    text = """(declare-const answer Int)
(push 1)
(assert (= answer 1))
(check-sat)
(pop 1)
(assert (= answer 2))
(check-sat)
(assert (= answer 3))
"""
    script = parse_script(text)
    active = script.active_commands()
    assert [c.line for c in active] == [1, 6]  # the scoped assert and the late one are out
    with pytest.raises(SmtSyntaxError, match="only 0"):
        parse_script("(pop 1)")


def test_exit_stops_reading_and_missing_check_sat_is_noted() -> None:
    script = parse_script("(declare-const answer Int)(assert (= answer 1))(exit)(assert false)")
    assert len(script.active_commands()) == 2
    assert script.notes and "no (check-sat)" in script.notes[0]


def test_render_keeps_lines_and_drops_comments() -> None:
    nodes = read_sexprs("; c1\n\n(assert   (= x 1)) ; c2\n(assert (> x 0))")
    text = render_nodes(nodes)
    lines = text.split("\n")
    assert lines[2].strip() == "(assert   (= x 1))"
    assert lines[3].strip() == "(assert (> x 0))"
    assert ";" not in text
    # rendered text reads back to the same tokens
    assert [t.text for t in tokenize(text)] == [t.text for t in tokenize("(assert (= x 1))(assert (> x 0))")]


def test_render_with_inserted_snippets() -> None:
    node = read_sexprs("(+ a b)")[0]
    text = render_nodes(["(assert (= answer", node, "))"])
    assert [t.text for t in tokenize(text)] == ["(", "assert", "(", "=", "answer", "(", "+", "a", "b",
                                               ")", ")", ")"]
    assert isinstance(tokenize("a")[0], Token)

