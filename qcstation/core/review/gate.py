"""The QC gate, gate planning, sample progress and the dashboard's counts (all read-only).

:func:`gate` states the rule and whether it holds: the sample is fully reviewed, no
rejected item is still waiting for an accepted replacement, the sample covers at least its
rate of the verified items, and the one-sided Clopper-Pearson upper bound on the defect
rate is below the threshold. If the bound is too high, the sample is extended or re-drawn
(:mod:`qcstation.core.review.sampling`). :func:`gate_plan` says how many reviews that takes
before a sample is drawn.

Statistics: the defect rate is estimated from the *random draws* only (draws and extensions
of every round); a regenerated replacement that returns to review is not a random draw, so
it must be accepted (it closes the open reject) but does not enter the estimate. An item
counts as reviewed once it has one accept/reject decision; when two decisions of an overlap
item disagree, the item counts as a defect (conservative) until a curator settles it.

The gate and the dashboard counts are SQL aggregates over the covering indexes of
migration 3 (well under a second at 100k seeds; see ``bench/qc_bench.py``).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

from db.store import Store
from qcstation.common.errors import ReviewError
from qcstation.common.stats import clopper_pearson_upper, reviews_needed
from qcstation.common.vocab import DIMENSIONS, QC_DIMENSIONS
from qcstation.core.review.queries import (
    INACTIVE_SEED_IDS,
    ITEMS_CTE,
    TAKEN_COUNTS_SELECT,
    check_dimension,
    counting_since,
    cur_sql,
    current_counts,
    flag_count_rows,
    live_status,
    rejected_sql,
    seed_count_rows,
)
from qcstation.core.review.sampling import POPULATION, coverage_from, list_samples

__all__ = [
    "DEFAULT_THRESHOLD", "DEFAULT_CONFIDENCE", "Progress", "GateStatus", "bound_text",
    "gate_plan", "progress", "open_reject_kind", "gate", "dashboard_counts", "ways_out",
    "size_statement", "gate_rows", "gate_rows_from_scratch", "progress_from_scratch",
]

DEFAULT_THRESHOLD = 0.05
DEFAULT_CONFIDENCE = 0.95


@dataclass
class Progress:
    """Decisions on one sample's items (see :func:`progress`)."""

    total: int
    reviewed: int
    accepted: int
    rejected: int
    skipped: int
    remaining: int
    excluded: int = 0   # undecided items of seeds no longer active (excluded in QC, filtered)

    def sentence(self) -> str:
        s = f"{self.reviewed:,} of {self.total:,} reviewed, {self.rejected:,} rejected"
        if self.skipped:
            s += f", {self.skipped:,} skipped"
        if self.excluded:
            s += f", {self.excluded:,} excluded"
        return s

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["sentence"] = self.sentence()
        return d


@dataclass
class GateStatus:
    """The gate of one dimension: whether it passes, the rule, what blocks it and what to
    do next (see :func:`gate`)."""

    dimension: str
    passed: bool
    rule: str
    reviewed: int
    defects: int
    upper_bound: float | None
    threshold: float
    open_rejects: int
    blockers: list[str]
    next_step: str
    # additions ------------------------------------------------------------------------
    confidence: float = DEFAULT_CONFIDENCE
    pending: int = 0              # sampled items still waiting for a decision
    population: int = 0           # current verified/accepted items of the dimension
    covered: int = 0              # of which sampled (reviewed or waiting in the open sample)
    required: int = 0             # sample size the recorded rate asks for
    needed_reviews: int | None = None   # reviews (all accepted) for the bound to pass
    extend_by: int = 0            # items to add to the sample (coverage first, then the bound)
    open_reject_detail: dict[str, int] = field(default_factory=dict)
    cli_hint: str = ""            # the commands for next_step ("; "-separated), for the CLI
    extend_reason: str = ""       # why the sample should grow by extend_by (coverage / bound)
    plan: dict[str, Any] = field(default_factory=dict)  # see gate_plan()
    scope: str = ""               # '' the working set, else the derived set it is the gate of

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def bound_text(bound: float, threshold: float) -> str:
    """The defect bound as a percentage, rounded, with as many decimals (up to 4) as it
    takes to stay on the same side of the threshold as the number: a pass never reads as a
    fail (4.95% is "4.95%", not "5%")."""
    for places in range(1, 5):
        scale = 10 ** (places + 2)
        shown = math.floor(bound * scale + 0.5) / scale
        if (shown < threshold) == (bound < threshold):
            break
    s = f"{shown * 100:.{places}f}"
    if s.endswith(".0"):
        s = s[:-2]
    return f"{s}%"


def _pct(x: float) -> str:
    s = f"{x * 100:.2f}".rstrip("0").rstrip(".")
    return f"{s}%"


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"


# The gate in one statement (the items CTE is computed once): a 'summary' row (random draws
# reviewed, their defects, items pending), 'taken' rows (see above) and 'reject' rows: seeds
# of active status with an active reject, by the status of their current artifact and
# whether that artifact is in a sample of the dimension.
_GATE_SQL = f"""
    WITH {ITEMS_CTE},
    reject_cur AS (
        SELECT seed_id, id, status, MAX(version) AS version FROM artifacts
        WHERE dimension = :dim AND status != 'superseded'
          AND seed_id IN (SELECT seed_id FROM first_reject)
        GROUP BY seed_id),
    open_reject AS (
        SELECT c.status AS status,
               CASE WHEN c.id IS NULL THEN 0 ELSE EXISTS (
                   SELECT 1 FROM sample_items x JOIN samples xs ON xs.id = x.sample_id
                   WHERE x.artifact_id = c.id AND xs.dimension = :dim AND xs.scope = :scope) END
               AS in_sample
        FROM first_reject fr CROSS JOIN seeds sd ON sd.id = fr.seed_id
        LEFT JOIN reject_cur c ON c.seed_id = fr.seed_id
        WHERE sd.status = :live)
    SELECT 'summary' AS kind, NULL AS k1, NULL AS k2, COUNT(*) AS n,
           COALESCE(SUM(i.decided AND (fr.item_id IS NULL OR i.id <= fr.item_id)), 0) AS a,
           COALESCE(SUM(i.decided AND i.rejected
                        AND (fr.item_id IS NULL OR i.id <= fr.item_id)), 0) AS b,
           COALESCE(SUM(NOT i.decided AND i.sample_status = 'open'
                        AND i.artifact_status != 'superseded' AND i.active), 0) AS c
    FROM items i LEFT JOIN first_reject fr ON fr.seed_id = i.seed_id
    UNION ALL
    {TAKEN_COUNTS_SELECT}
    UNION ALL
    SELECT 'reject', status, in_sample, COUNT(*), NULL, NULL, NULL
    FROM open_reject GROUP BY status, in_sample
"""


def gate_rows(store: Store, dimension: str, scope: str = "") -> list[dict[str, Any]]:
    """The gate's counts as :func:`gate_rows_from_scratch` gives them, read from the sums the
    database keeps as decisions, samples and artifacts are written (``qc_gate_counts``,
    migration 10): no sample item is read."""
    summary = {"kind": "summary", "k1": None, "k2": None, "n": None, "a": 0, "b": 0, "c": 0}
    rows: list[dict[str, Any]] = [summary]
    for r in store.query("SELECT kind, k1, k2, n FROM qc_gate_counts "
                         "WHERE dimension = ? AND scope = ? AND n != 0 ORDER BY kind, k1, k2",
                         (dimension, scope)):
        kind, n = r["kind"], int(r["n"])
        if kind in _SUMMARY_KEYS:
            summary[_SUMMARY_KEYS[kind]] = n
        elif kind == "taken":
            rows.append({"kind": "taken", "k1": r["k1"], "k2": r["k2"], "n": n})
        else:
            rows.append({"kind": "reject", "k1": r["k1"] or None, "k2": int(r["k2"]), "n": n})
    return rows


_SUMMARY_KEYS = {"reviewed": "a", "defects": "b", "pending": "c"}


def gate_rows_from_scratch(store: Store, dimension: str, scope: str = "") -> list[dict[str, Any]]:
    """The gate's counts computed from every sample item of ``dimension`` (what the kept
    sums must equal; the tests compare them): a 'summary' row (``a`` random draws reviewed,
    ``b`` their defects, ``c`` items pending), 'taken' rows (source, current status) and
    'reject' rows (current status, in a sample)."""
    return store.query(_GATE_SQL, {"dim": dimension, "scope": scope, "live": live_status(scope),
                                   "since": counting_since(store, dimension, scope)})


# -- gate planning ------------------------------------------------------------------------

def gate_plan(population: int, *, threshold: float, confidence: float = DEFAULT_CONFIDENCE,
              reviewed: int = 0, defects: int = 0, available: int | None = None,
              dimension: str = "DIMENSION") -> dict[str, Any]:
    """How many reviews the gate needs, said plainly before and while sampling.

    ``population`` verified items; ``reviewed``/``defects`` random draws so far; ``available``
    how many more items could still be drawn (default: the population less those reviewed).
    Returns ``clean`` (reviews needed with no defect at all), ``after_one`` (with one reject),
    ``needed`` (with the defects so far), ``reachable`` and, when out of reach, the
    ``ways_out`` and a ``sentence`` for people."""
    clean = reviews_needed(0, threshold, confidence)
    after_one = reviews_needed(1, threshold, confidence)
    needed = reviews_needed(defects, threshold, confidence)
    can_review = reviewed + (max(population - reviewed, 0) if available is None else available)
    reachable = needed is not None and needed <= can_review
    pct = _pct(threshold)
    parts = [f"the gate ({pct} threshold) needs {clean:,} reviews with no defect"
             if clean is not None else f"no number of reviews reaches the {pct} threshold"]
    if after_one is not None:
        parts.append(f"{after_one:,} after one reject")
    text = ", ".join(parts) + f"; {population:,} verified items"
    if defects and needed is not None:
        text += f"; with the {defects:,} defect{'s' if defects != 1 else ''} so far it needs {needed:,}"
    ways: list[str] = []
    if not reachable:
        ways = ways_out(population, threshold=threshold, confidence=confidence,
                        defects=defects, can_review=can_review, needed=needed,
                        dimension=dimension)
        plain = size_statement(population, threshold=threshold, confidence=confidence)
        text += (f": out of reach, since at most {can_review:,} items can be reviewed; "
                 + (plain if plain else "ways out: " + "; ".join(ways)))
    return {"population": population, "clean": clean, "after_one": after_one, "needed": needed,
            "reachable": reachable, "can_review": can_review, "ways_out": ways,
            "sentence": text[:1].upper() + text[1:] + "."}


def size_statement(population: int, *, threshold: float,
                   confidence: float = DEFAULT_CONFIDENCE) -> str | None:
    """When no review of ``population`` items can pass the gate even without a defect:
    that, said plainly, with what would change it; else None."""
    clean = reviews_needed(0, threshold, confidence)
    if clean is not None and clean <= population:
        return None
    best = clopper_pearson_upper(0, population, confidence) if population else 1.0
    pct = _pct(threshold)
    needs = (f"at least {clean:,} verified items" if clean is not None
             else "a threshold above 0")
    return (f"at this size the gate cannot pass: even all {population:,} verified items "
            f"reviewed without a defect give an upper bound of {bound_text(best, threshold)}, "
            f"not below {pct}; it needs {needs} (import more seeds) or a "
            f"[qc] defect_threshold above {bound_text(best, threshold)}")


def ways_out(population: int, *, threshold: float, confidence: float = DEFAULT_CONFIDENCE,
             defects: int, can_review: int, needed: int | None,
             dimension: str = "DIMENSION") -> list[str]:
    """What changes the outcome of a gate that is out of reach, and nothing else: fixing or
    excluding rejected items closes rejects but never lowers the defects found, so neither
    is listed. A fresh random round (after every defect is corrected) measures the data as
    corrected; more seeds make more reviews possible; a higher threshold lowers the bar."""
    clean = reviews_needed(0, threshold, confidence)
    pct = _pct(threshold)
    plain = size_statement(population, threshold=threshold, confidence=confidence)
    if plain is not None:
        return [plain]
    ways: list[str] = []
    if defects and clean is not None:
        ways.append(f"once every defect found is corrected, a curator starts a fresh random "
                    f"round (qcstation qc fresh {dimension}): {clean:,} of the {population:,} "
                    f"items drawn anew, all accepted, pass")
    ways.append(f"import more seeds (the bound needs {needed:,} reviews; at most {can_review:,} "
                f"are possible now)" if needed is not None else "import more seeds")
    best = clopper_pearson_upper(defects, max(can_review, defects), confidence) \
        if can_review else 1.0
    ways.append(f"raise [qc] defect_threshold (now {pct}; with {defects} defect"
                f"{'s' if defects != 1 else ''} and every item reviewed the bound reaches "
                f"{bound_text(best, threshold)})")
    return ways


def _new_items_since_draw(store: Store, dimension: str, scope: str = "") -> int:
    """Current first versions of unsampled seeds in play made after the latest draw."""
    latest = store.scalar("SELECT MAX(created_at) FROM samples WHERE dimension = ? AND scope = ?",
                          (dimension, scope))
    if not latest:
        return 0
    return int(store.scalar(
        f"SELECT COUNT(*) FROM ({cur_sql(scope)}) c JOIN artifacts a ON a.id = c.id "
        f"JOIN seeds sd ON sd.id = c.seed_id WHERE sd.status = :live "
        f"AND c.status IN ('verified', 'accepted') AND a.replaces_id IS NULL "
        f"AND a.created_at > :at AND c.seed_id NOT IN (SELECT seed_id FROM sample_items si "
        f"JOIN samples s ON s.id = si.sample_id WHERE s.dimension = :dim AND s.scope = :scope)",
        {"dim": dimension, "at": latest, "scope": scope, "live": live_status(scope)}) or 0)


# -- progress and the gate ----------------------------------------------------------------

_PROGRESS_SQL = f"""
    SELECT COUNT(*) AS total,
           COALESCE(SUM(fin), 0) AS reviewed,
           COALESCE(SUM(fin AND rej), 0) AS rejected,
           COALESCE(SUM(fin AND NOT rej), 0) AS accepted,
           COALESCE(SUM(NOT fin AND skip AND active), 0) AS skipped,
           COALESCE(SUM(NOT fin AND NOT active), 0) AS excluded
    FROM (
        SELECT EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id
                       AND r.undone_at IS NULL AND r.verdict IN ('accept', 'reject')) AS fin,
               {rejected_sql("si.id")} AS rej,
               EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id
                       AND r.undone_at IS NULL AND r.verdict = 'skip') AS skip,
               si.seed_id NOT IN ({INACTIVE_SEED_IDS}) AS active
        FROM sample_items si
        WHERE si.sample_id = ?)
"""


def progress(store: Store, sample_id: int) -> Progress:
    """Decisions on a sample's items. Undecided items of seeds no longer active (excluded in
    QC, filtered) count as ``excluded``, not as remaining. Read from the counts the database
    keeps per sample (``sample_progress``, migration 10)."""
    r = store.one("SELECT total, reviewed, rejected, reviewed - rejected AS accepted, skipped, "
                  "excluded FROM sample_progress WHERE sample_id = ?", (sample_id,)) or {}
    return _progress(r)


def progress_from_scratch(store: Store, sample_id: int) -> Progress:
    """:func:`progress` counted from the sample's items and their decisions."""
    return _progress(store.one(_PROGRESS_SQL, (sample_id,)) or {})


def _progress(r: dict[str, Any]) -> Progress:
    total, reviewed = int(r.get("total") or 0), int(r.get("reviewed") or 0)
    excluded = int(r.get("excluded") or 0)
    return Progress(total=total, reviewed=reviewed, accepted=int(r.get("accepted") or 0),
                    rejected=int(r.get("rejected") or 0), skipped=int(r.get("skipped") or 0),
                    remaining=total - reviewed - excluded, excluded=excluded)


def _gate_rule(threshold: float, confidence: float, rate: float | None) -> str:
    cov = f"at least {_pct(rate)} of the verified items are sampled, " if rate else ""
    return (f"Passes when every sampled item has been reviewed, no rejected item is still "
            f"waiting for an accepted replacement, {cov}and the {_pct(confidence)} upper "
            f"confidence bound on the defect rate (Clopper-Pearson, rejects / reviewed random "
            f"draws over all rounds, from the latest fresh round on if a curator drew one) is "
            f"below {_pct(threshold)}.")


def open_reject_kind(status: str | None, in_sample: bool) -> str | None:
    """Why a rejected seed's current artifact (``status``) does not close the reject yet."""
    if status == "accepted":
        return None
    if status is None or status == "rejected":
        return "awaiting regeneration"
    if status == "generated":
        return "awaiting verification"
    if status == "failed":
        return "regeneration failed"
    if status == "verified":
        return "awaiting review" if in_sample else "awaiting requeue"
    return f"status {status}"  # pragma: no cover - unknown status


def _check_gate_args(threshold: float, confidence: float) -> None:
    if not 0.0 < threshold <= 1.0:
        raise ReviewError(f"defect threshold must be in (0, 1], got {threshold}")
    if not 0.0 < confidence < 1.0:
        raise ReviewError(f"confidence must be in (0, 1), got {confidence}")


def gate(store: Store, dimension: str, *, threshold: float,
         confidence: float = DEFAULT_CONFIDENCE, scope: str = "") -> GateStatus:
    """Evaluate the QC gate of one dimension (read-only). See the module docstring.

    Seeds no longer active (excluded in QC with
    :func:`qcstation.core.review.curation.exclude_seed`, filtered) do not block:
    their rejects are not open and their undecided items are not pending; their decided
    random draws still count in the defect estimate. ``scope`` names a derived set (its own
    samples and items; default: the working set)."""
    check_dimension(dimension)
    _check_gate_args(threshold, confidence)
    status = _gate(store, dimension, threshold, confidence, None, scope)
    status.scope = scope
    return status


def _gate(store: Store, dimension: str, threshold: float, confidence: float,
          current: list[dict[str, Any]] | None, scope: str = "") -> GateStatus:
    """:func:`gate` without argument checks; ``current`` may pass :func:`current_counts`
    rows already read (the dashboard reads them once for counts and gate)."""
    samples = store.query("SELECT id, rate FROM samples WHERE dimension = ? AND scope = ? "
                          "ORDER BY id", (dimension, scope))
    if current is None:
        current = current_counts(store, dimension, scope)
    live = live_status(scope)
    if not samples:
        return _gate_before_sampling(dimension, threshold, confidence, current, scope)
    rate = float(samples[-1]["rate"])
    rule = _gate_rule(threshold, confidence, rate)

    reviewed = defects = pending = 0
    taken: list[dict[str, Any]] = []
    detail: Counter[str] = Counter()
    for r in gate_rows(store, dimension, scope):
        if r["kind"] == "summary":
            reviewed, defects, pending = int(r["a"]), int(r["b"]), int(r["c"])
        elif r["kind"] == "taken":
            taken.append(r)
        else:
            kind = open_reject_kind(r["k1"], bool(r["k2"]))
            if kind is not None:
                detail[kind] += int(r["n"])
    open_rejects = sum(detail.values())

    cov = coverage_from(current, taken, rate, live)
    unsampled = sum(c["unsampled"] for c in cov.values())
    population = sum(c["population"] for c in cov.values())
    covered = sum(c["covered"] for c in cov.values())
    required = sum(c["required"] for c in cov.values())
    short_by = {src: c["required"] - c["covered"] for src, c in cov.items()
                if c["required"] > c["covered"]}
    short = sum(short_by.values())

    upper = clopper_pearson_upper(defects, reviewed, confidence) if reviewed else None
    needed = reviews_needed(defects, threshold, confidence)

    advice = _Advice(extend_by=short, scope=scope)
    advice.pending(dimension, pending)
    advice.open_rejects(detail)
    if short:
        advice.coverage(store, dimension, rate, short_by, covered, population)
    if upper is None or upper >= threshold:
        advice.bound(dimension, threshold, confidence, upper, needed, reviewed=reviewed,
                     defects=defects, pending=pending, spare=unsampled - short,
                     unsampled=unsampled, population=population)
    passed = not advice.blockers
    return GateStatus(
        dimension=dimension, passed=passed, rule=rule, reviewed=reviewed, defects=defects,
        upper_bound=upper, threshold=threshold, open_rejects=open_rejects,
        blockers=advice.blockers,
        next_step="nothing: the gate passes" if passed
        else "; then ".join(advice.steps) or advice.blockers[0],
        confidence=confidence, pending=pending, population=population, covered=covered,
        required=required, needed_reviews=needed, open_reject_detail=dict(sorted(detail.items())),
        extend_by=0 if passed else advice.extend_by,
        cli_hint="" if passed else "; ".join(advice.hints),
        extend_reason="" if passed or not advice.extend_by else advice.extend_reason,
        plan=gate_plan(population, threshold=threshold, confidence=confidence,
                       reviewed=reviewed, defects=defects,
                       available=pending + max(unsampled - short, 0) + short,
                       dimension=dimension),
    )


def _gate_before_sampling(dimension: str, threshold: float, confidence: float,
                          current: list[dict[str, Any]], scope: str = "") -> GateStatus:
    """The gate of a dimension no sample was drawn for: what to do first, and the plan."""
    population = sum(int(r["n"]) for r in current
                     if r["seed_status"] == live_status(scope) and r["status"] in POPULATION)
    rule = _gate_rule(threshold, confidence, None)
    opt = f" --set {scope}" if scope else ""
    if population:
        what, command = "draw a sample", f"qcstation qc sample {dimension}{opt}"
    elif scope:
        what = f"derive the set {scope}, then draw a sample"
        command = f"qcstation derive status {scope}; qcstation qc sample {dimension}{opt}"
    else:
        what = f"generate and verify {dimension} artifacts, then draw a sample"
        command = (f"qcstation generate --dimension {dimension}; "
                   f"qcstation qc sample {dimension}")
    return GateStatus(dimension=dimension, passed=False, rule=rule, reviewed=0, defects=0,
                      upper_bound=None, threshold=threshold, open_rejects=0,
                      blockers=[f"no {dimension} sample has been drawn yet"], next_step=what,
                      confidence=confidence, population=population, cli_hint=command,
                      plan=gate_plan(population, threshold=threshold,
                                     confidence=confidence, dimension=dimension))


@dataclass
class _Advice:
    """What blocks a gate and what to do about it, gathered blocker by blocker: the
    blockers, the next steps (joined by "; then "), the CLI commands for them, and by how
    many items (and why) the sample should grow."""

    extend_by: int = 0
    extend_reason: str = ""
    scope: str = ""                # a derived set: its commands name it (--set)
    blockers: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)

    def hint(self, command: str) -> None:
        if self.scope and command.startswith(("qcstation qc sample", "qcstation qc extend",
                                              "qcstation qc next")):
            command += f" --set {self.scope}"
        if command not in self.hints:
            self.hints.append(command)

    def pending(self, dimension: str, pending: int) -> None:
        if pending:
            self.blockers.append(f"{_plural(pending, 'sampled item')} still to review")
            self.steps.append(f"review {pending:,} more {'item' if pending == 1 else 'items'}")
            self.hint(f"qcstation qc next --dimension {dimension}")

    def open_rejects(self, detail: Counter[str]) -> None:
        open_rejects = sum(detail.values())
        if not open_rejects:
            return
        parts = ", ".join(f"{n:,} {k}" for k, n in sorted(detail.items()))
        self.blockers.append(f"{_plural(open_rejects, 'rejected item')} without an accepted "
                             f"replacement ({parts})")
        if detail["awaiting regeneration"]:
            n = detail["awaiting regeneration"]
            self.steps.append(f"regenerate {n:,} rejected {'item' if n == 1 else 'items'}")
            self.hint("qcstation generate --rejected")
        if detail["awaiting verification"]:
            self.steps.append(f"verify {detail['awaiting verification']:,} regenerated items")
            self.hint("qcstation verify")
        if detail["awaiting requeue"]:
            self.steps.append(f"requeue {detail['awaiting requeue']:,} regenerated items for review")
            self.hint("qcstation qc requeue")
        if detail["regeneration failed"]:
            self.steps.append(f"{detail['regeneration failed']:,} rejected items failed "
                              f"regeneration: fix them by hand or have a curator exclude those "
                              f"seeds")
            self.hint("qcstation qc exclude ITEM --reason TEXT")

    def coverage(self, store: Store, dimension: str, rate: float, short_by: dict[str, int],
                 covered: int, population: int) -> None:
        short = sum(short_by.values())
        self.blockers.append(f"the sample covers {covered:,} of {population:,} verified items; the "
                             f"{_pct(rate)} rate per source asks for {short:,} more ("
                             + ", ".join(f"{src} {n:,}" for src, n in short_by.items()) + ")")
        arrived = _new_items_since_draw(store, dimension, self.scope)
        why = (f"{_plural(arrived, 'new verified item')} arrived since the draw" if arrived
               else f"the sample is below the {_pct(rate)} rate per source")
        self.extend_reason = f"coverage: {why}"
        self.steps.append(f"extend the sample by {short} {'item' if short == 1 else 'items'} "
                          f"({why})")
        self.hint(f"qcstation qc extend {dimension} --to-gate")

    def bound(self, dimension: str, threshold: float, confidence: float, upper: float | None,
              needed: int | None, *, reviewed: int, defects: int, pending: int, spare: int,
              unsampled: int, population: int = 0) -> None:
        """The defect bound is not below the threshold (``spare``: unsampled items left once
        the coverage is made up)."""
        if upper is None:
            self.blockers.append("no sampled item has been reviewed yet")
        else:
            self.blockers.append(f"the {_pct(confidence)} upper bound on the defect rate is "
                                 f"{bound_text(upper, threshold)} ({defects} of {reviewed} "
                                 f"random draws rejected), not below {_pct(threshold)}")
        if needed is None:
            self.steps.append("the threshold cannot be reached by sampling; raise "
                              "defect_threshold")
            return
        if pending:
            return
        more = max(needed - reviewed, 0)
        if more > spare:
            ways = ways_out(max(population, reviewed), threshold=threshold,
                            confidence=confidence, defects=defects,
                            can_review=reviewed + max(spare, 0), needed=needed,
                            dimension=dimension)
            plain = size_statement(max(population, reviewed), threshold=threshold,
                                   confidence=confidence)
            self.steps.append(f"the bound needs {needed} reviewed items with no new defects but "
                              f"only {max(unsampled, 0)} unsampled items are left: out of reach; "
                              + (plain if plain else "ways out: " + "; ".join(ways)))
            if defects and len(ways) > 1:
                self.hint(f"qcstation qc fresh {dimension}")
        elif more:
            if more > self.extend_by:
                bound_why = (f"the defect bound: {needed} reviewed items with no new "
                             f"defect bring it below {_pct(threshold)} ({reviewed} so far)")
                self.extend_reason = (f"{self.extend_reason}; {bound_why}" if self.extend_reason
                                      else bound_why)
            self.extend_by = max(self.extend_by, more)
            self.steps.append(f"extend the sample by {more} accepted items to bring the bound "
                              f"below {_pct(threshold)}")
            self.hint(f"qcstation qc extend {dimension} --to-gate")


# -- the dashboard ------------------------------------------------------------------------

def dashboard_counts(store: Store, *, threshold: float = DEFAULT_THRESHOLD,
                     confidence: float = DEFAULT_CONFIDENCE,
                     dimensions: tuple[str, ...] | list[str] = QC_DIMENSIONS) -> dict[str, Any]:
    """Counts for the dashboard: seeds by source and status, current artifacts by dimension
    and status, every sample with its progress, and the gate of each QC dimension."""
    for dim in dimensions:
        check_dimension(dim)
    _check_gate_args(threshold, confidence)
    seeds: dict[str, dict[str, int]] = defaultdict(dict)
    for r in seed_count_rows(store)["seeds"]:
        seeds[r["source"]][r["status"]] = int(r["n"])
    current: dict[str, list[dict[str, Any]]] = {}
    artifacts: dict[str, dict[str, int]] = {}
    for dim in DIMENSIONS:
        if dim in dimensions:  # by source too: its gate needs them
            current[dim] = rows = current_counts(store, dim)
        else:                  # status counts only (every artifact's seed exists: foreign key)
            rows = [{"status": r["status"], "n": r["n"]}
                    for r in flag_count_rows(store, dim, working_set=True)]
        c: Counter[str] = Counter()
        for r in rows:   # the working set's (derived items are counted by their set)
            if r.get("seed_status") != "derived":
                c[r["status"]] += int(r["n"])
        if c:
            artifacts[dim] = dict(sorted(c.items()))
    samples = []
    for s in list_samples(store, scope=""):
        d = s.to_dict()
        d.pop("params", None)
        d["progress"] = progress(store, s.id).to_dict()
        samples.append(d)
    gates = {dim: _gate(store, dim, threshold, confidence, current[dim]).to_dict()
             for dim in dimensions}
    return {"seeds": dict(seeds), "artifacts": artifacts, "samples": samples, "gates": gates}
