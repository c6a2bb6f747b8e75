"""Derived releases: what a release of a derived set (``scope``) takes and adds.

A release has a *scope*: ``''`` the working set (active imported seeds), or the name of a
derived set (:mod:`qcstation.core.derive`). For a derived set:

* the candidates are the set's items still in play (seed status ``derived``);
* an item needs the dimensions it carries (``derived_items.dimensions``), not all four;
* the QC gates are those of the configured QC dimensions the set's items carry, and for
  items that carry none of them (inverse problems, refinement-ladder items) the dimensions
  they do carry, so every item's text is sampled for review;
* each record adds ``parent`` (the parent's item key), ``parent_seed_id``, ``set``,
  ``transform``, ``family``, ``level``, ``params`` and ``dimensions`` to the SMART fields.

A release name keeps one scope for all its versions.
"""

from __future__ import annotations

from typing import Any

from db.store import Store, from_json
from qcstation.common.errors import ReleaseError
from qcstation.common.vocab import DIMENSIONS
from qcstation.core.review.queries import scope_dimensions

__all__ = [
    "check_scope",
    "derived_fields",
    "required_dimensions",
    "scope_dimensions",
    "scope_seeds",
    "set_summary",
]


def scope_seeds(store: Store, scope: str) -> list[dict[str, Any]]:
    """The seed rows a release of ``scope`` may take, in id order (derived rows carry their
    ``derived_items`` columns and the parent's key)."""
    if not scope:
        return store.query("SELECT * FROM seeds WHERE status = 'active' ORDER BY id")
    return store.query(
        "SELECT s.*, di.parent_id, di.transform, di.family, di.level AS derive_level, di.idx, di.tag, "
        "di.params AS derive_params, di.dimensions AS derive_dimensions, ds.name AS derive_set, "
        "p.source AS parent_source, p.orig_id AS parent_orig_id "
        "FROM derived_items di JOIN derive_sets ds ON ds.id = di.set_id "
        "JOIN seeds s ON s.id = di.seed_id JOIN seeds p ON p.id = di.parent_id "
        "WHERE ds.name = ? AND s.status = 'derived' ORDER BY s.id", (scope,))


def required_dimensions(seed: dict[str, Any]) -> tuple[str, ...]:
    """The dimensions a seed needs to be released: all four, or what a derived item carries."""
    dims = from_json(seed.get("derive_dimensions")) if seed.get("derive_dimensions") else None
    if not dims:
        return DIMENSIONS
    return tuple(d for d in DIMENSIONS if d in dims)


def derived_fields(seed: dict[str, Any]) -> dict[str, Any]:
    """The fields a derived item's record adds (empty for a working-set seed)."""
    if not seed.get("derive_set"):
        return {}
    return {"parent": f"{seed['parent_source']}-{seed['parent_orig_id']}",
            "parent_seed_id": int(seed["parent_id"]), "set": seed["derive_set"],
            "transform": seed["transform"], "family": seed["family"], "level": seed["derive_level"],
            "params": from_json(seed["derive_params"]) or {},
            "dimensions": list(required_dimensions(seed))}


def check_scope(store: Store, name: str, scope: str) -> None:
    """The set exists, and the release name was not used for another scope."""
    if scope and not store.scalar("SELECT 1 FROM derive_sets WHERE name = ?", (scope,)):
        raise ReleaseError(f"no derived set named {scope!r}", title="No such set")
    other = store.one("SELECT scope FROM releases WHERE name = ? AND scope != ? LIMIT 1",
                      (name, scope))
    if other is not None:
        was = f"the derived set {other['scope']}" if other["scope"] else "the working set"
        raise ReleaseError(f"release {name} holds {was}; name a release of "
                           f"{'the derived set ' + scope if scope else 'the working set'} "
                           f"differently", title="Another scope")


def set_summary(store: Store, scope: str) -> dict[str, Any]:
    """What a derived release's manifest says about its set."""
    row = store.one("SELECT * FROM derive_sets WHERE name = ?", (scope,))
    if row is None:
        return {}
    by = {r["transform"]: int(r["n"]) for r in store.query(
        "SELECT transform, COUNT(*) AS n FROM derived_items WHERE set_id = ? GROUP BY transform",
        (int(row["id"]),))}
    return {"set": row["name"], "kind": row["kind"], "spec": from_json(row["spec"]) or {},
            "items_by_transform": dict(sorted(by.items()))}
