"""Reads of artifacts that every stage shares (construction, review, release).

- :func:`current_artifact`: the current version of one seed's artifact of a dimension
  (the highest version not superseded).
- :func:`flag_overrides` / :func:`override_in_force`: a curator's override of an artifact's
  self-check flags (``flag_overrides``), the latest not undone, and whether it still holds
  (it saw the artifact's current flag codes); read by review (the pane) and release (the
  gate, the records).
- :func:`reject_feedback`: why reviewers (or a curator) rejected an artifact version, the
  feedback the generation loop passes when it regenerates it.
- :func:`save_rule_result` / :func:`rule_results`: the rules' result kept with its seed
  (``rule_results``: the text and the key it is valid for, both made by the caller).

Plain SQL over the schema of :mod:`db.migrations`; imports nothing of ours outside ``db``.
"""

from __future__ import annotations

from typing import Any

from db.store import Store

__all__ = ["current_artifact", "flag_overrides", "override_in_force", "reject_feedback", "rule_results",
           "save_rule_result"]


def current_artifact(store: Store, seed_id: int, dimension: str) -> dict[str, Any] | None:
    """The current artifact (highest version not superseded) of ``seed_id`` in ``dimension``."""
    return store.one(
        "SELECT * FROM artifacts WHERE seed_id = ? AND dimension = ? AND status != 'superseded' "
        "ORDER BY version DESC LIMIT 1", (seed_id, dimension))


def flag_overrides(store: Store, artifact_ids: list[int]) -> dict[int, dict[str, Any]]:
    """The latest override not undone of each of ``artifact_ids`` (whatever flag codes it
    saw: :func:`override_in_force` says whether it still holds)."""
    out: dict[int, dict[str, Any]] = {}
    for i in range(0, len(artifact_ids), 500):
        chunk = artifact_ids[i:i + 500]
        for r in store.query(
                f"SELECT id, artifact_id, flag_codes, reason, curator, display_name, created_at "
                f"FROM flag_overrides WHERE undone_at IS NULL AND artifact_id IN "
                f"({','.join('?' * len(chunk))}) ORDER BY id", chunk):
            out[int(r["artifact_id"])] = dict(r)
    return out


def override_in_force(override: dict[str, Any] | None,
                      flag_codes: str | None) -> dict[str, Any] | None:
    """``override`` if it saw exactly the artifact's current ``flag_codes``, else None (the
    artifact was audited again and its flags changed: the override no longer applies)."""
    if override is None or override["flag_codes"] != (flag_codes or ""):
        return None
    return override


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




def save_rule_result(store: Store, seed_id: int, key: str, text: str) -> None:
    """Keep the rules' result ``text`` of ``seed_id``, valid for ``key`` (replacing any)."""
    store.execute("INSERT OR REPLACE INTO rule_results (seed_id, key, result) VALUES (?, ?, ?)",
                  (int(seed_id), key, text))


def rule_results(store: Store, seed_ids: list[int]) -> dict[int, tuple[str, str]]:
    """seed id -> (key, text) of the rules' results kept for ``seed_ids``."""
    out: dict[int, tuple[str, str]] = {}
    for i in range(0, len(seed_ids), 500):
        part = seed_ids[i:i + 500]
        for seed_id, key, text in store.conn.execute(
                f"SELECT seed_id, key, result FROM rule_results WHERE seed_id IN ({','.join('?' * len(part))})",
                part):
            out[int(seed_id)] = (str(key), str(text))
    return out
