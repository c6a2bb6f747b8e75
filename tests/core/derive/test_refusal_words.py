"""Every refusal code derive raises has words for people (qcstation/core/derive/refusals.py):
the dashboard's notice names refusals by these words, not by code."""

from __future__ import annotations

import re
from pathlib import Path

import qcstation.core.derive as derive_pkg
from qcstation.core.derive.refusals import REFUSAL_WORDS, refusal_words

_RAISED = re.compile(r"Refusal\(\s*\"([a-z0-9-]+)\"")
#: an item's refusal: Refused(transform, "code", ...)
_RETURNED = re.compile(r"Refused\(\s*[^,()]+,\s*\"([a-z0-9-]+)\"")


def test_every_code_raised_in_derive_has_words() -> None:
    folder = Path(derive_pkg.__file__).parent
    texts = [path.read_text(encoding="utf-8") for path in folder.glob("*.py")]
    raised = {code for text in texts for pattern in (_RAISED, _RETURNED)
              for code in pattern.findall(text)}
    assert len(raised) > 30, raised            # the scan found derive's refusals
    assert sorted(raised - set(REFUSAL_WORDS)) == []
    for code in raised:
        words = refusal_words(code)
        assert words != code and "-" not in words.split()[0], (code, words)


def test_a_code_without_words_reads_as_words() -> None:
    assert refusal_words("some-new_code") == "some new code"
    assert refusal_words("restated-value") == "the question states a value twice"
    # walked: a derive's notice read 'recheck unconfirmed (75); recheck wrong (28)'
    assert refusal_words("recheck-wrong") == "a second derivation finds the answer wrong"
    assert refusal_words("z3-unsat") == "Z3 does not confirm the answer (unsat)"
