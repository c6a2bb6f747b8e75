"""Reads of artifacts that every stage shares (construction, review, release).

- :func:`current_artifact`: the current version of one seed's artifact of a dimension
  (the highest version not superseded).
- :func:`reject_feedback`: why reviewers (or a curator) rejected an artifact version, the
  feedback the generation loop passes when it regenerates it.

Plain SQL over the schema of :mod:`db.migrations`; imports nothing of ours outside ``db``.
"""

from __future__ import annotations

from typing import Any

from db.store import Store

__all__ = ["current_artifact", "reject_feedback"]


def current_artifact(store: Store, seed_id: int, dimension: str) -> dict[str, Any] | None:
    """The current artifact (highest version not superseded) of ``seed_id`` in ``dimension``."""
    return store.one(
        "SELECT * FROM artifacts WHERE seed_id = ? AND dimension = ? AND status != 'superseded' "
        "ORDER BY version DESC LIMIT 1", (seed_id, dimension))



def reject_feedback(store: Store, artifact_id: int) -> str | None:
    """The reviewers' reason(s) for rejecting this artifact (newest first, distinct, joined by
    "; "), for the generation loop to pass as feedback; None if it has no active reject."""
    rows = store.query(
        "SELECT q.reason FROM qc_resolutions q JOIN sample_items si ON si.id = q.sample_item_id "
        "WHERE si.artifact_id = ? AND q.undone_at IS NULL AND q.verdict = 'reject' "
        "ORDER BY q.id DESC", (artifact_id,))
    rows += store.query("SELECT reason FROM reviews WHERE artifact_id = ? AND verdict = 'reject' "
                        "AND undone_at IS NULL ORDER BY id DESC", (artifact_id,))
    reasons: list[str] = []
    for r in rows:
        text = (r["reason"] or "").strip()
        if text and text not in reasons:
            reasons.append(text)
    return "; ".join(reasons) if reasons else None


