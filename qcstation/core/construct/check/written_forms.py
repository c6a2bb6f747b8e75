"""A fraction a step's line writes in the form of one place of the question: "3/5*400" for "3/5 of
the mangoes" beside "60% of the ripe mangoes" (a percent, which the solution writes "60/100"). The form
is the words here: the place written "a/b" and the percent are one value two ways, and the line writes
the one way with no word of a percent (called by ``bindings``; the binder's reading is
:func:`~qcstation.core.construct.make.rules.binding_words.place_by_written_form`)."""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.reading.words import NUMERAL, Occurrence, numeral_value


def vouched_by_written_form(given: str, line: str, v: Fraction, cands: list[Occurrence]) -> bool:
    """Is ``given`` the place of the fraction ``v`` the question writes "a/b" as the line writes
    it, the line writing ``v`` that one way only and naming no percent, the question's other place
    of ``v`` a percent (whose given's name ends ``_pct``)? A decimal (".6") is either's form, and
    "60/100" a percent the solution spells out: neither vouches."""
    if v.denominator == 1 or len(cands) != 2 or given.endswith("_pct") or re.search(r"%|\bpercent", line, re.I):
        return False
    forms = {m.group(0) for m in NUMERAL.finditer(line[:2000]) if numeral_value(m) == v}
    if len(forms) != 1:
        return False
    form = forms.pop()
    percents = [o for o in cands if "%" in o.words]
    fractions = [o for o in cands if "%" not in o.words and o.text.split()[0] == form]
    return "/" in form and not form.endswith("/100") and len(percents) == 1 and len(fractions) == 1
