"""What a run measured, in words a researcher reads: release and version, model, protocol
(two-step or single-prompt refinement, gated R-m, strict and flexible answers), judges,
templates, and the share of replies stopped by the length limit.

Every table, chart and report names these (:func:`describe`), and two runs made differently
are never compared silently (:func:`differences`, :func:`release_of`). Reads a run's spec
only; old runs (made before a field existed) read as what they were: single-prompt
refinement, no strict answers scored until they are rescored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from db.store import Store
from qcstation.eval.protocols import PROTOCOL_SHORT, refinement_protocol
from qcstation.eval.runs import load_spec, release_label, run_row

#: share of replies stopped by the length limit above which a run is flagged
LENGTH_WARN = 0.01
#: share of Understanding items with judge_error above which a run is flagged
JUDGE_ERROR_WARN = 0.05


@dataclass
class Provenance:
    run_id: int
    release: str                  # "smart 1.0.0" or "working set"
    model: str
    protocol: str                 # two-step | single-prompt (refinement)
    judges: list[str]
    templates: dict[str, str]     # task -> version
    max_tokens: int | None
    stopped_by_length: int = 0
    replies: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def length_share(self) -> float | None:
        return self.stopped_by_length / self.replies if self.replies else None

    @property
    def short(self) -> str:
        """``2-step`` / ``1-prompt`` for a narrow column."""
        return PROTOCOL_SHORT.get(self.protocol, self.protocol)

    def line(self) -> str:
        """One line (about 100 characters): everything that decides how the numbers were made."""
        judges = ", ".join(self.judges) or "none"
        length = ""
        if self.length_share is not None:
            length = f" · cut by length {self.stopped_by_length}/{self.replies}"
        return (f"run {self.run_id}: {self.release} · {self.model} · {self.protocol} refinement · "
                f"R-m gated · judges {judges} · max_tokens {self.max_tokens or '?'}{length}")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["length_share"] = self.length_share
        return d


def protocol_of(spec: Mapping[str, Any]) -> str:
    """``two-step`` / ``single-prompt``; ``n/a`` when the run did not ask refinement (runs
    made before the protocol was recorded were single-prompt)."""
    return refinement_protocol(spec)


def release_of(spec: Mapping[str, Any]) -> str:
    return release_label(dict(spec))


def replies(store: Store, run_id: int, *, from_scratch: bool = False) -> tuple[int, int]:
    """(the run's replies, those stopped at the length limit): kept by migration 15
    (db/kept_eval.py); ``from_scratch`` counts every output again."""
    if from_scratch:
        sql = ("SELECT COUNT(*), COALESCE(SUM(finish_reason = 'length'), 0) FROM eval_outputs "
               "WHERE run_id = ? AND status = 'ok'")
    else:
        sql = ("SELECT COALESCE(SUM(n), 0), COALESCE(SUM(CASE WHEN length THEN n END), 0) "
               "FROM eval_reply_counts WHERE run_id = ? AND status = 'ok'")
    row = store.conn.execute(sql, (int(run_id),)).fetchone()
    return int(row[0]), int(row[1])


def describe(store: Store, run_id: int, *, judge_error: tuple[int, int] | None = None) -> Provenance:
    """The provenance of one run (``judge_error``: (judge_error items, Understanding
    item-samples) to flag a run above :data:`JUDGE_ERROR_WARN`)."""
    row = run_row(store, run_id)
    spec = load_spec(row.get("spec"))
    judges = [f"{j.get('name')}={j.get('model')}" if j.get("model") and j.get("model") != j.get("name")
              else str(j.get("name")) for j in spec.get("judges") or [] if isinstance(j, Mapping)]
    templates = {str(t): str(v.get("version")) for t, v in (spec.get("templates") or {}).items()
                 if isinstance(v, Mapping)}
    if isinstance(spec.get("judge_template"), Mapping):
        templates["judge"] = str(spec["judge_template"].get("version"))
    n, stopped = replies(store, run_id)
    p = Provenance(run_id=int(run_id), release=release_of(spec), model=str(row["model"]),
                   protocol=protocol_of(spec), judges=judges, templates=templates,
                   max_tokens=spec.get("max_tokens"), stopped_by_length=int(stopped or 0),
                   replies=int(n or 0))
    if p.length_share is not None and p.length_share > LENGTH_WARN:
        p.warnings.append(f"run {run_id}: {p.stopped_by_length} of {p.replies} replies "
                          f"({100 * p.length_share:.1f}%) stopped at the length limit "
                          f"(max_tokens {p.max_tokens}); their answers may be cut off")
    if judge_error is not None and judge_error[1] and judge_error[0] / judge_error[1] > JUDGE_ERROR_WARN:
        p.warnings.append(f"run {run_id}: {judge_error[0]} of {judge_error[1]} Understanding "
                          f"item-samples ({100 * judge_error[0] / judge_error[1]:.1f}%) are judge_error (the "
                          "judges failed, not the model); LLM@Un and All-Pass leave them out. "
                          f"`qcstation eval score {run_id} --retry-judges` asks again")
    return p


def differences(store: Store, a: int, b: int) -> list[str]:
    """What differs between two runs in how they were measured (release, protocol,
    templates, judges, scorer versions); empty when they are comparable."""
    sa, sb = (load_spec(run_row(store, r).get("spec")) for r in (a, b))
    out: list[str] = []
    if release_of(sa) != release_of(sb):
        out.append(f"release: {release_of(sa)} vs {release_of(sb)}")
    if protocol_of(sa) != protocol_of(sb):
        out.append(f"refinement protocol: {protocol_of(sa)} vs {protocol_of(sb)}")
    ta, tb = sa.get("templates") or {}, sb.get("templates") or {}
    for t in sorted(set(ta) & set(tb)):
        va, vb = ta[t], tb[t]
        if isinstance(va, Mapping) and isinstance(vb, Mapping) and (
                va.get("version"), va.get("sha")) != (vb.get("version"), vb.get("sha")):
            out.append(f"template {t}: {va.get('version')}@{va.get('sha')} vs "
                       f"{vb.get('version')}@{vb.get('sha')}")
    ja = sorted(str(j.get("name")) for j in sa.get("judges") or [] if isinstance(j, Mapping))
    jb = sorted(str(j.get("name")) for j in sb.get("judges") or [] if isinstance(j, Mapping))
    if ja != jb:
        out.append(f"judges: {', '.join(ja) or 'none'} vs {', '.join(jb) or 'none'}")
    va, vb = sa.get("scorer_versions") or {}, sb.get("scorer_versions") or {}
    for m in sorted(set(va) & set(vb)):
        if va[m] != vb[m] and not m == "un":
            out.append(f"scorer {m}: {va[m]} vs {vb[m]} (rescore the older run)")
    return out


def releases(store: Store, run_ids: Sequence[int]) -> dict[str, list[int]]:
    """Release label -> the runs made on it."""
    out: dict[str, list[int]] = {}
    for r in run_ids:
        out.setdefault(release_of(load_spec(run_row(store, r).get("spec"))), []).append(int(r))
    return out
