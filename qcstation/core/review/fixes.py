"""Fixing an item in place: a reviewer edits a notation question or key information.

The edited text becomes a new artifact version (``generator`` 'human', ``author`` the
reviewer's account, ``replaces_id`` the version it fixes), checked on its own terms before
it is stored: a notation question, in any wording :mod:`qcstation.core.construct.check.notation_reader`
reads, becomes its own SMT-LIB and Z3 checks that against the seed's gold answer; key
information is read into its six fields and checked by the schema and grounding checks. Both
are then checked for meaning (:mod:`.fix_checks`): a notation question keeps every given of
the seed's formalization and states no number the question does not; key information's
relationships, evaluated in order, give the gold answer from numbers the question states and
the known quantities list. An edit that cannot be read, does not verify or fails a meaning
check is refused with the reason and nothing is stored. It then joins the open sample as a replacement and is accepted by the person who
fixed it, which closes the reject: an offline path from every reject to a passing gate.

If the fixed item was still undecided, the fixer's reject (with their reason) is recorded
first: the version they fixed was defective and still counts as a defect in the gate. A
curator may also correct an item that was already *accepted* (a late correction): the
correction is recorded as the curator's override to reject of that decision (the defect it
reveals counts in the gate, in the round the item was drawn in), and the corrected version
joins that same sample, accepted.
"""

from __future__ import annotations

import json
from typing import Any

from db.artifacts import current_artifact
from db.store import Store, now
from qcstation.common.errors import ReviewError
from qcstation.common.identity import norm, require_curator
from qcstation.core.review.audit import stored_flags
from qcstation.core.review.decisions import MAX_REASON_CHARS, clean_text, decide
from qcstation.core.review.items import ReviewItem, get_item
from qcstation.core.review.queries import LIVE_SEED_STATUSES
from qcstation.core.review.sampling import join_open_sample

FIXABLE = ("arithmetic", "understanding")
_UNCHANGED = ("the edit changes nothing: change the text to fix the item (an item right as it "
              "is is accepted instead, or its reject overridden)")
MAX_NOTATION_CHARS = 4000


def editable_text(item: ReviewItem) -> str:
    """The text a reviewer starts editing from."""
    if item.dimension == "arithmetic":
        return str(item.content.get("notation") or "")
    if item.dimension == "understanding":
        from qcstation.core.construct.make.keyinfo import keyinfo_to_text

        return keyinfo_to_text(item.content)
    raise ReviewError(f"{item.dimension} items cannot be fixed in place", title="Not editable")


def _notation_content(base: dict[str, Any], text: str) -> dict[str, Any]:
    """The content of an edited notation question: its own structure and SMT-LIB, read from
    the text whatever its wording (the rule-made rendering it replaces plays no part)."""
    from qcstation.core.construct.make.notation import NotationError
    from qcstation.core.construct.check.notation_reader import notation_smtlib_of, read_notation

    if len(text) > MAX_NOTATION_CHARS:
        raise ReviewError(f"the question is too long ({len(text)} characters; at most "
                          f"{MAX_NOTATION_CHARS})", title="Too long")
    try:
        parsed = read_notation(text)
    except NotationError as exc:
        raise ReviewError(f"cannot read the edited question into SMT-LIB: {exc}",
                          title="Edit not verified") from exc
    return {"notation": text, "form": "human", "target": parsed.target,
            "variables": {k: str(v) for k, v in parsed.variables.items()},
            "notation_smtlib": notation_smtlib_of(parsed),
            "smtlib": base.get("smtlib"), "source_artifact_id": base.get("source_artifact_id")}


def check_edit(store: Store, item: ReviewItem, text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(new content, verify result) for an edit, or :class:`ReviewError` saying why it fails."""
    from qcstation.core.construct.check.checks import expected_answer, notation_smtlib

    text = text.replace("\r\n", "\n").strip()
    if not text:
        raise ReviewError("the edit is empty", title="Nothing to save")
    seed = store.one("SELECT * FROM seeds WHERE id = ?", (item.seed_id,)) or {}
    if item.dimension == "arithmetic":
        from qcstation.core.verify.verifier import verify_smtlib

        content = _notation_content(dict(item.content), " ".join(text.split()))
        smt, problem = notation_smtlib(content)
        if problem:
            raise ReviewError(f"the edited question fails its check: {problem}",
                              title="Edit not verified")
        outcome = verify_smtlib(smt, expected_answer(seed))
        if not outcome.ok:
            raise ReviewError(f"Z3 does not verify the edited question: {outcome.message}",
                              title="Edit not verified")
        from qcstation.core.review.fix_checks import NOTATION_CHECKED, notation_fix_problems

        meaning = notation_fix_problems(smt, content.get("variables") or {},
                                        str(seed.get("question") or ""), content.get("smtlib"))
        if meaning:
            raise ReviewError("the edited question does not mean the seed's question: "
                              + "; ".join(meaning), title="Edit not verified")
        result = outcome.to_dict()
        result["checked"] = NOTATION_CHECKED
        return content, result
    if item.dimension == "understanding":
        from qcstation.core.construct.make.keyinfo import KeyInfoError, keyinfo_from_text, validate_keyinfo

        try:
            fields = keyinfo_from_text(text)
        except KeyInfoError as exc:
            raise ReviewError(f"cannot read the edit: {exc}", title="Cannot check the edit") from exc
        from qcstation.core.construct.make.rules.dispatch import gold_from_seed
        from qcstation.core.review.fix_checks import KEYINFO_CHECKED, keyinfo_fix_problems

        question = str(seed.get("question") or "")
        problems = validate_keyinfo(fields, question)
        problems += keyinfo_fix_problems(fields, question, gold_from_seed(seed))
        if problems:
            raise ReviewError("the edited key information fails its check: " + "; ".join(problems),
                              title="Edit not verified")
        return fields, {"status": "verified", "message": KEYINFO_CHECKED + " (fixed in place)",
                        "checked": KEYINFO_CHECKED}
    raise ReviewError(f"{item.dimension} items cannot be fixed in place", title="Not editable")


def fix_in_place(store: Store, item_id: int, text: str, *, actor: str, reason: str | None = None,
                 display: str | None = None,
                 curators: list[str] | tuple[str, ...] | None = None) -> dict[str, Any]:
    """Store ``text`` as the fixed version of the item's artifact and accept it (see the
    module docstring). ``reason`` (what was wrong) is required when the item is undecided
    (it becomes the fixer's reject of the old version) or accepted (a curator's late
    correction, one of ``curators``: it becomes the override to reject). Returns what was
    done."""
    who = norm(actor)
    if not who:
        raise ReviewError("no account is known for this session")
    item, cur, late = _fixable(store, int(item_id), who, curators)
    base_item = item if int(cur["id"]) == item.artifact_id else None
    edited = item if base_item else _with_content(item, cur)
    # the words as they were (issue 28: read again, a rule-made notation question's content
    # differs from the stored one in its fields, so Ctrl+S on the untouched text stored it as
    # a fixed version and closed the reject with no fix)
    if " ".join(text.split()) == " ".join(editable_text(edited).split()):
        raise ReviewError(_UNCHANGED, title="Nothing changed")
    content, result = check_edit(store, edited, text)
    if json.dumps(content, sort_keys=True) == json.dumps(
            json.loads(cur["content"]) if isinstance(cur["content"], str) else cur["content"],
            sort_keys=True):
        raise ReviewError(_UNCHANGED, title="Nothing changed")
    why = clean_text(reason, MAX_REASON_CHARS)
    shown = display if display is not None else store.display_name
    with store.transaction():
        again = current_artifact(store, item.seed_id, item.dimension)
        if again is None or int(again["id"]) != int(cur["id"]) or again["status"] != cur["status"]:
            raise ReviewError(f"{item.key} changed while you edited it (someone decided, "
                              f"regenerated or fixed it); reopen it", title="Changed meanwhile")
        fixed_reject = _reject_old_version(store, item, late=late, fixing_base=base_item is not None,
                                           why=why, who=who, curators=curators, shown=shown)
        new_id, version = _store_fixed_version(store, item, cur, content, result, who)
        _, new_item = join_open_sample(
            store, dimension=item.dimension, seed_id=item.seed_id, artifact_id=new_id,
            stratum=item.source, fallback_sample_id=item.sample_id, actor=who,
            why="a fixed item joins it", display=shown,
            scope=str(store.scalar("SELECT scope FROM samples WHERE id = ?", (item.sample_id,))
                      or ""), same_sample=late)
        review_id = decide(store, new_item, who, "accept", None,
                           comment="corrected after acceptance by this curator" if late
                           else "fixed in place by this reviewer", display=shown,
                           closed_ok=late)
        detail = {"item": item.key, "item_id": item.item_id, "seed_id": item.seed_id,
                  "dimension": item.dimension, "artifact_id": new_id, "version": version,
                  "replaces_id": int(cur["id"]), "new_item_id": new_item,
                  "review_id": review_id, "rejected_first": fixed_reject, "reason": why,
                  "late_correction": late,
                  "verify": result.get("status")}
        store.event(who, "qc.fixed", "artifact", new_id, detail, display=shown)
    return detail


def _fixable(store: Store, item_id: int, who: str,
             curators: list[str] | tuple[str, ...] | None) -> tuple[ReviewItem, dict[str, Any], bool]:
    """The item, its current artifact and whether fixing it is a late correction (the
    current version was accepted), or :class:`ReviewError` saying why it cannot be fixed."""
    item = get_item(store, item_id)
    if item.dimension not in FIXABLE:
        raise ReviewError(f"{item.dimension} items cannot be fixed in place (notation questions "
                          f"and key information can)", title="Not editable")
    if item.seed_status not in LIVE_SEED_STATUSES:
        raise ReviewError(f"the seed of {item.key} is {item.seed_status}; nothing to fix",
                          title="Not active")
    cur = current_artifact(store, item.seed_id, item.dimension)
    if cur is None:
        raise ReviewError(f"{item.key} has no current {item.dimension} artifact")
    late = cur["status"] == "accepted"
    if late:
        require_curator(who, curators, f"correct {item.key}, which was already accepted")
        if int(cur["id"]) != item.artifact_id:
            raise ReviewError(f"{item.key} was accepted as a newer version (#{cur['id']}); "
                              f"open that one", title="Newer version")
    if int(cur["id"]) != item.artifact_id and cur["status"] != "failed":
        raise ReviewError(f"{item.key} has a newer version (#{cur['id']}, {cur['status']}); "
                          f"open that one", title="Newer version")
    return item, cur, late


def _reject_old_version(store: Store, item: ReviewItem, *, late: bool, fixing_base: bool,
                        why: str | None, who: str,
                        curators: list[str] | tuple[str, ...] | None,
                        shown: str | None) -> bool:
    """Record what was wrong with the version being fixed: a late correction is the
    curator's override of its accept, an undecided item the fixer's reject. Returns whether
    a reject was recorded (an item already rejected needs none)."""
    if late:
        if not why:
            raise ReviewError("say what was wrong with the accepted version (it is recorded "
                              "as your override of its accept: the defect it reveals)",
                              title="Reason required")
        from qcstation.core.review.curation import resolve_item

        resolve_item(store, item.item_id, kind="override", verdict="reject",
                     reason=f"corrected after acceptance: {why}", actor=who,
                     curators=curators or (), display=shown)
        return True
    if fixing_base and item.outcome != "reject":
        if not why:
            raise ReviewError("say what was wrong with the version you fix (it is recorded "
                              "as your reject of it)", title="Reason required")
        decide(store, item.item_id, who, "reject", f"fixed in place: {why}", display=shown)
        return True
    return False


def _store_fixed_version(store: Store, item: ReviewItem, cur: dict[str, Any],
                         content: dict[str, Any], result: dict[str, Any],
                         who: str) -> tuple[int, int]:
    """The fixed text as the next version (verified, by ``who``, with its self-check flags);
    the version it replaces is superseded if it was rejected or failed. Returns (id, version)."""
    stamp = now()
    version = int(store.scalar("SELECT COALESCE(MAX(version), 0) FROM artifacts "
                               "WHERE seed_id = ? AND dimension = ?",
                               (item.seed_id, item.dimension))) + 1
    new_id = store.insert("artifacts", {
        "seed_id": item.seed_id, "dimension": item.dimension, "version": version,
        "status": "verified", "content": content, "generator": "human", "model": None,
        "prompt_version": None, "attempt_id": None, "replaces_id": int(cur["id"]),
        "verify_result": result, "created_at": stamp, "updated_at": stamp, "author": who,
        **stored_flags(item.dimension, content, {"question": item.question,
                                                 "solution": item.solution,
                                                 "answer_text": item.gold_answer}),
    })
    store.execute("UPDATE artifacts SET status = 'superseded', updated_at = ? WHERE id = ? "
                  "AND status IN ('rejected', 'failed')", (stamp, int(cur["id"])))
    return new_id, version


def _with_content(item: ReviewItem, cur: dict[str, Any]) -> ReviewItem:
    """The item as seen through its current (failed, regenerated) artifact."""
    import dataclasses

    content = json.loads(cur["content"]) if isinstance(cur["content"], str) else cur["content"]
    return dataclasses.replace(item, content=content or {}, artifact_id=int(cur["id"]))
