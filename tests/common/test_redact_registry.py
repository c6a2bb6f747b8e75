"""The registry of secrets is global to the process (redact.register has no undo in the
product); tests/conftest.py's autouse fixture puts it back after each test, so the second test
here sees a text the first registered as a key left alone whatever ran before it."""

from __future__ import annotations

from qcstation.common import redact

KEY = "sk-registry-LEAK-0123456789abcdef"
TEXT = f"a model says {KEY} here"


def test_a_registered_key_is_scrubbed() -> None:
    redact.register(KEY)
    assert KEY in redact.secrets()
    assert redact.scrub(TEXT) == f"a model says {redact.MARK} here"


def test_the_next_test_starts_without_it() -> None:
    assert KEY not in redact.secrets()
    assert redact.scrub(TEXT) == TEXT
    assert not redact.may_hold(TEXT.encode())


def test_restore_puts_back_what_was_there() -> None:
    state = redact.saved()
    redact.register("sk-registry-OTHER-fedcba9876543210")
    before = redact.saved()
    redact.register(KEY)
    redact.restore(before)
    assert KEY not in redact.secrets() and redact.scrub(TEXT) == TEXT
    assert "sk-registry-OTHER-fedcba9876543210" in redact.secrets()
    assert redact.scrub("x sk-registry-OTHER-fedcba9876543210") == f"x {redact.MARK}"
    redact.restore(state)
    assert "sk-registry-OTHER-fedcba9876543210" not in redact.secrets()
