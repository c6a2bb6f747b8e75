"""Who is acting: the operating-system account, with a display name for the log.

The trust model (README "Who may do what"): a person is the OS account the process runs
as (over SSH each annotator logs in as themselves). ``--annotator`` and
``$QCSTATION_USER`` only choose the *display name* written beside the account in the
review and event logs; they never grant rights. Curator rights (approve a release,
exclude a seed, override or settle a decision, redraw or extend a sample, build a derived
set when curators are configured) come from
``[qc] curators`` matched to the account. Names compare case-insensitively
("Alice" and "alice" are one person).

Core functions take the account as an argument (``actor=``), which is how tests and the
app factory inject a person; only the CLI and the app entry point read the OS account.
Whoever can write the database file can bypass all of this; the file belongs to a group
of the team and releases carry their sha256 in the manifest.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from qcstation.common.errors import ReviewError
from qcstation.common.safe import spaced

__all__ = ["Identity", "os_account", "norm", "same_person", "is_curator", "require_curator",
           "current_identity", "CURATOR_ACTIONS"]

#: what only a curator may do (shown in refusals and help)
CURATOR_ACTIONS = "approve releases, exclude seeds, override or settle decisions, " \
                  "redraw or extend samples, build derived sets"

MAX_NAME_CHARS = 64


def norm(name: str | None) -> str:
    """The comparable form of an account or curator name (trimmed, case-folded)."""
    return " ".join(str(name or "").split()).casefold()


def same_person(a: str | None, b: str | None) -> bool:
    return bool(norm(a)) and norm(a) == norm(b)


def os_account() -> str:
    """The account this process runs as, from the uid (not from $USER/$LOGNAME, which
    anyone can set)."""
    uid = os.getuid()
    try:
        import pwd

        return norm(pwd.getpwuid(uid).pw_name) or f"uid{uid}"
    except (ImportError, KeyError):  # pragma: no cover - no passwd entry
        return f"uid{uid}"


def clean_display(name: str | None) -> str:
    """A display name: printable, single-line, at most :data:`MAX_NAME_CHARS` characters."""
    text = spaced(name or "")
    return " ".join(text.split())[:MAX_NAME_CHARS]


@dataclass(frozen=True)
class Identity:
    account: str   # the person (normalised OS account): what rights and claims key on
    display: str   # what the log shows beside the account

    def label(self) -> str:
        return self.account if norm(self.display) == self.account \
            else f"{self.display} ({self.account})"


def current_identity(display: str | None = None, account: str | None = None) -> Identity:
    """``account`` defaults to :func:`os_account`; ``display`` to ``$QCSTATION_USER``, else
    the account."""
    acct = norm(account) if account else os_account()
    shown = clean_display(display if display is not None else os.environ.get("QCSTATION_USER"))
    return Identity(account=acct, display=shown or acct)


def is_curator(account: str | None, curators: Iterable[str] | None) -> bool:
    who = norm(account)
    return bool(who) and who in {norm(c) for c in (curators or ()) if norm(c)}


def require_curator(account: str | None, curators: Iterable[str] | None, what: str) -> str:
    """The normalised account, or :class:`ReviewError` when it is not a curator."""
    allowed = [c for c in (curators or ()) if norm(c)]
    who = norm(account)
    if not who:
        raise ReviewError("no account is known for this session", title="Not allowed")
    if not allowed:
        raise ReviewError(f"only a curator can {what}, and no curators are configured; add "
                          f"curators = [\"account\"] under [qc]", title="Not allowed")
    if not is_curator(who, allowed):
        raise ReviewError(f"only a curator can {what}; the account {who} is not one (curators: "
                          f"{', '.join(allowed)}; --annotator only changes the name shown)",
                          title="Not allowed")
    return who
