"""How a release folder splits its records for ``datasets.load_dataset(folder)``: the
curator's choice at approval, frozen in the manifest like everything else.

* ``set`` (the default): one split, ``test``, read from ``data.jsonl`` -- the whole set (the
  working set, or one derived set, whose name is then the config's).
* ``family`` (a derived release only): one split per derived family its records carry
  (``noise``, ``arithmetic_ladder``, ``perturbation``, ...: ``derived_items.family`` with
  ``-`` written ``_``, as split names allow), each read from its own file ``<split>.jsonl``
  in the records' order; there is then no ``data.jsonl``.

:func:`plan_splits` makes the manifest's ``splits`` list at approval (name, file, family,
records); :func:`split_files` partitions the frozen records by it at export; the card's
metadata block (:func:`exports.writers.card_metadata`) reads the same list, so the files
written and the configs the card declares cannot disagree. A manifest frozen before the
choice existed has no ``splits``: it reads as ``set``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from exports.writers import manifest_splits
from qcstation.common.errors import ReleaseError
from qcstation.core.derive.model import FAMILIES

__all__ = ["SPLIT_CHOICES", "SPLIT_HELP", "manifest_splits", "plan_splits", "split_files",
           "split_name"]

#: the curator's choices, the default first
SPLIT_CHOICES: tuple[str, ...] = ("set", "family")
#: what each choice gives, in a user's words (the CLI's help and the app's dialog)
SPLIT_HELP: dict[str, str] = {
    "set": "one split, test, of the whole set",
    "family": "one split per derived family (noise, ...)",
}
_WHOLE = "data.jsonl"


def split_name(family: str) -> str:
    """A family as a split name (``datasets`` allows letters, digits and ``_``)."""
    return re.sub(r"\W", "_", family) or "other"


def plan_splits(records: Sequence[Mapping[str, Any]], by: str, scope: str) -> list[dict[str, Any]]:
    """The splits of a release about to be frozen, or :class:`ReleaseError` for a choice
    that does not fit (an unknown one; ``family`` for the working set)."""
    if by not in SPLIT_CHOICES:
        raise ReleaseError(f"split a release by {' or '.join(SPLIT_CHOICES)}, not {by!r}",
                           title="Bad split")
    if by == "set":
        return [{"name": "test", "path": _WHOLE, "records": len(records)}]
    if not scope:
        raise ReleaseError("the working set has no derived families: split by family a "
                           "release of a derived set (--set SET), or choose --splits set",
                           title="Bad split")
    counts = Counter(str(r.get("family") or "") for r in records)
    order = [f for f in FAMILIES if f in counts] + sorted(f for f in counts if f not in FAMILIES)
    return [{"name": split_name(f), "family": f, "path": f"{split_name(f)}.jsonl",
             "records": counts[f]} for f in order]


def split_files(manifest: Mapping[str, Any],
                records: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """file name -> its records (in the records' order), as the manifest's splits say; a
    record no split takes, or a count that differs from the frozen one, is an error (the
    export would not be the release that was approved)."""
    splits = manifest_splits(manifest)
    out: dict[str, list[Mapping[str, Any]]] = {}
    if len(splits) == 1 and "family" not in splits[0]:
        out[splits[0]["path"]] = list(records)
    else:
        by_family = {s["family"]: s["path"] for s in splits}
        out = {s["path"]: [] for s in splits}
        for r in records:
            path = by_family.get(str(r.get("family") or ""))
            if path is None:
                raise ReleaseError(f"record {r.get('id')} has the family {r.get('family')!r}, "
                                   f"which no split of the release takes",
                                   title="Release corrupted")
            out[path].append(r)
    for s in splits:
        if len(out[s["path"]]) != int(s.get("records", len(out[s["path"]]))):
            raise ReleaseError(f"split {s['name']} holds {len(out[s['path']])} records, not the "
                               f"{s['records']} frozen at approval", title="Release corrupted")
    return out
