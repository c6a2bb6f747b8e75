"""Who acts: the person is the operating-system account; curators compare case-insensitively
(qcstation/common/identity.py)."""

from __future__ import annotations

import os

import pytest

from qcstation.common.errors import ReviewError
from qcstation.common.identity import (
    current_identity,
    is_curator,
    os_account,
    require_curator,
)


def test_the_person_is_the_os_account_not_an_environment_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import pwd

    real = pwd.getpwuid(os.getuid()).pw_name.lower()
    monkeypatch.setenv("USER", "carol")
    monkeypatch.setenv("LOGNAME", "carol")
    monkeypatch.setenv("QCSTATION_USER", "Carol\x1b[31m")
    who = current_identity()
    assert who.account == os_account() == real
    assert who.display == "Carol [31m"          # printable only; a name, not a right
    assert not is_curator(who.account, ["carol"]) or real == "carol"


def test_curator_names_compare_case_insensitively() -> None:
    assert is_curator("alice", ["Alice"]) and is_curator(" ALICE ", ["alice"])
    assert not is_curator("mallory", ["alice"]) and not is_curator("", ["alice"])
    with pytest.raises(ReviewError, match="only a curator can settle a disagreement; the "
                                          "account mallory is not one"):
        require_curator("mallory", ["alice"], "settle a disagreement")
    with pytest.raises(ReviewError, match="no curators are configured"):
        require_curator("alice", [], "exclude a seed")
