from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.reading.answers import count_numbers, decimal_fraction, fraction_to_str, matches, parse_number


@pytest.mark.parametrize("text, value, kind", [
    ("18", Fraction(18), "integer"),
    ("$1,200", Fraction(1200), "integer"),
    ("-2", Fraction(-2), "integer"),
    ("3.5", Fraction(7, 2), "decimal"),
    ("1/2", Fraction(1, 2), "fraction"),
    ("\\frac{1}{2}", Fraction(1, 2), "fraction"),
    ("\\frac43", Fraction(4, 3), "fraction"),
    ("\\boxed{\\dfrac{3}{4}}", Fraction(3, 4), "fraction"),
    ("2 1/2", Fraction(5, 2), "fraction"),
    ("36 km/hr", Fraction(36), "integer"),
    ("Rs. 1200", Fraction(1200), "integer"),
    ("025", Fraction(25), "integer"),
    (43.0, Fraction(43), "integer"),
])
def test_parse_number(text: object, value: Fraction, kind: str) -> None:
    parsed = parse_number(text)  # type: ignore[arg-type]
    assert parsed is not None and parsed.value == value and parsed.kind == kind


@pytest.mark.parametrize("text", ["5(√3 + 1)", "\\left( 3, \\frac{\\pi}{2} \\right)", "", "abc",
                                  "10\\sqrt{2}", None, "1/0"])
def test_not_a_single_number(text: str | None) -> None:
    assert parse_number(text) is None


def test_decimal_gold_has_half_ulp_tolerance() -> None:
    gold = parse_number("0.33")
    assert gold is not None
    assert matches(Fraction(1, 3), gold)
    assert not matches(Fraction(34, 100), gold)


def test_integer_gold_is_exact() -> None:
    gold = parse_number("18")
    assert gold is not None
    assert matches(Fraction(18), gold)
    assert not matches(Fraction(18) + Fraction(1, 10**9), gold)


def test_percent_gold_accepts_ratio() -> None:
    gold = parse_number("25%")
    assert gold is not None and matches(Fraction(1, 4), gold) and matches(Fraction(25), gold)


def test_helpers() -> None:
    assert fraction_to_str(Fraction(6, 4)) == "3/2"
    assert fraction_to_str(Fraction(4, 2)) == "2"
    assert count_numbers("(3, 4)") == 2
    assert count_numbers("\\frac{1}{2}") == 1


@pytest.mark.parametrize("text", ["2 hours 20 minutes", "12 and 15", "6 ft 3 in", "1e3"])
def test_a_second_number_is_never_cut_off_as_a_unit(text: str) -> None:
    assert parse_number(text) is None


@pytest.mark.parametrize("text, value", [("5 m^2", 5), ("3 \\text{ cm}^2", 3), ("10 sq. cm", 10)])
def test_units_with_powers_are_still_units(text: str, value: int) -> None:
    parsed = parse_number(text)
    assert parsed is not None and parsed.value == value


@pytest.mark.parametrize("text", ["0", "12", "007", "2.50", ".5", "0.0", "1.", "1e3", "-3", "+4", " 5", "5 ",
                                  "\u0661\u0662", "\u00b2", "3/4", "1_000", "", ".", "12.3.4", "1.5e2", "nan",
                                  "99999999999999999999.000001", "1" * 5000])
def test_decimal_fraction_is_fraction(text: str) -> None:
    """The rules' fast numeral parse gives what ``Fraction`` gives: the same value, or the same error."""
    try:
        want: object = Fraction(text)
    except (ValueError, ZeroDivisionError) as exc:
        want = type(exc)
    try:
        got: object = decimal_fraction(text)
    except (ValueError, ZeroDivisionError) as exc:
        got = type(exc)
    assert got == want and type(got) is type(want)


def test_written_numbers_reads_each_number_a_text_writes_exactly() -> None:
    from qcstation.core.reading.answers import written_numbers
    text = "He paid $1,500 for 2.5 boxes, 3 / 4 of them red, and lost -7 points (v2.0 ignored)."
    assert written_numbers(text) == {Fraction(1500), Fraction(5, 2), Fraction(3, 4), Fraction(7)}
    assert written_numbers(text, signed=True) == {Fraction(1500), Fraction(5, 2), Fraction(3, 4), Fraction(-7)}
    assert written_numbers("1/0 and 12", limit=8) == set() and written_numbers(None) == set()
