"""Test helpers: insert realistic seeds and dimension artifacts straight into a Store.

The contents follow the artifact contract (see db/migrations.py and the generation loop):
a small word problem per seed with a consistent gold answer, key information, an
SMT-LIB formalisation, a notation question and a CoT with an injected error. Nothing here
calls the generation loop, so QC and release tests do not depend on it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from qcstation.core.construct.check.selfcheck import stored_flags

from db.store import Store, now

DIMENSIONS = ("understanding", "reasoning", "arithmetic", "refinement")

_NAMES = ("Janet", "Omar", "Li", "Priya", "Carlos", "Ada", "Kofi", "Mei")
_ITEMS = ("apples", "stickers", "marbles", "pencils", "cookies", "stamps")


def problem(i: int) -> dict[str, Any]:
    """A deterministic two-step word problem number ``i`` with its parts."""
    name = _NAMES[i % len(_NAMES)]
    item = _ITEMS[i % len(_ITEMS)]
    a, b, c = 3 + i % 17, 2 + (i * 7) % 11, 2 + i % 4
    answer = (a + b) * c
    question = (f"{name} has {a} {item} and buys {b} more. Then {name} buys {c} times as many "
                f"{item} as she has in total. The shop also sells hats. How many {item} does "
                f"{name} buy in the second trip?")
    solution = (f"{name} has {a} {item} + {b} more = <<{a}+{b}={a + b}>>{a + b} {item}.\n"
                f"She buys {a + b} * {c} times = <<{a + b}*{c}={answer}>>{answer} {item}.\n#### {answer}")
    return {"name": name, "item": item, "a": a, "b": b, "c": c, "answer": answer,
            "question": question, "solution": solution}


def add_seed(store: Store, i: int, *, source: str = "gsm8k", orig_id: str | None = None,
             level: str | None = None, status: str = "active") -> int:
    p = problem(i)
    with store.transaction():
        return store.insert("seeds", {
            "source": source, "orig_id": orig_id if orig_id is not None else f"{source}-{i}",
            "question": p["question"], "answer_text": str(p["answer"]),
            "answer_value": str(p["answer"]), "solution": p["solution"], "equation": None,
            "level": level or ("easy", "medium", "hard")[i % 3], "status": status,
            "content_hash": hashlib.sha256(f"{source}:{i}".encode()).hexdigest(),
            "meta": {}, "imported_at": now(), "steps": 2,
        })


def content_for(dimension: str, i: int, *, revision: int = 1) -> dict[str, Any]:
    p = problem(i)
    a, b, c, ans = p["a"], p["b"], p["c"], p["answer"]
    if dimension == "understanding":
        return {
            "problem_scenario": f"{p['name']} buys {p['item']} in two trips.",
            "goal": f"Find how many {p['item']} {p['name']} buys in the second trip.",
            "known_quantities": [f"{p['name']} has {a} {p['item']} and buys {b} more.",
                                 f"Then {p['name']} buys {c} times as many {p['item']} as she "
                                 f"has in total."],
            "unknown_quantities": ["total after the first trip", "second-trip amount"],
            "relationships_and_constraints": [f"total = {a} + {b}", f"second = total * {c}"],
            "irrelevant_information": ["the shop also sells hats"] if revision == 1 else
                                      ["the shop also sells hats" + " again" * (revision - 1)],
        }
    # every number of the question a declared given, as the rules write them (no flag)
    smt = (f"(declare-const g1_has Int)\n(declare-const g2_more Int)\n(declare-const g3_times Int)\n"
           f"(declare-const total Int)\n(declare-const answer Int)\n"
           f"(assert (= g1_has {a}))\n(assert (= g2_more {b}))\n(assert (= g3_times {c}))\n"
           f"(assert (= total (+ g1_has g2_more)))\n(assert (= answer (* total g3_times)))\n"
           f"(check-sat)\n(get-value (answer))")
    if dimension == "reasoning":
        return {"smtlib": smt, "rule": "gsm8k-calculator", "notes": []}
    if dimension == "arithmetic":
        # written as a model writes one (form 'model'): read back into its own SMT-LIB
        note = f"Let x = {a} + {b}. Compute answer = x * {c}."
        if revision > 1:
            note = f"Let x{revision} = {a} + {b} and answer = x{revision} * {c}. What is answer?"
        return {"notation": note, "variables": {"x": f"{a + b}"}, "target": "answer",
                "smtlib": smt, "source_artifact_id": None, "form": "model"}
    if dimension == "refinement":
        wrong = ans + c + (revision - 1)   # a regenerated CoT injects a different wrong value
        return {
            "gt_cot": p["solution"],
            "w_cot": p["solution"].replace(f"={ans}>>{ans}", f"={wrong}>>{wrong}")
                                  .replace(f"#### {ans}", f"#### {wrong}"),
            "wrong_answer": str(wrong),
            "errors": [{"type": "calculation error", "step": 2, "original": str(ans),
                        "modified": str(wrong), "description": "wrong product"}],
            "n_errors": 1,
        }
    raise ValueError(dimension)


def verify_result_for(dimension: str, i: int) -> dict[str, Any]:
    ans = str(problem(i)["answer"])
    if dimension in ("reasoning", "arithmetic"):
        return {"status": "verified", "value": ans, "value_text": ans, "expected": ans,
                "message": "Z3 value matches the gold answer", "elapsed_ms": 3.0, "exact": True}
    if dimension == "understanding":
        return {"status": "verified", "message": "schema ok"}
    return {"status": "verified", "message": "injection recorded"}


def add_artifact(store: Store, seed_id: int, dimension: str, *, i: int | None = None,
                 status: str = "verified", version: int | None = None,
                 replaces_id: int | None = None, content: dict[str, Any] | None = None,
                 generator: str | None = None, model: str | None = None) -> int:
    """Insert one artifact row; ``i`` (problem number) defaults to the seed id."""
    i = seed_id if i is None else i
    with store.transaction():
        if version is None:
            version = int(store.scalar("SELECT COALESCE(MAX(version), 0) + 1 FROM artifacts "
                                       "WHERE seed_id = ? AND dimension = ?", (seed_id, dimension)))
        stamp = now()
        content = content if content is not None else content_for(dimension, i, revision=version)
        seed = store.one("SELECT question, solution, answer_text, answer_value FROM seeds WHERE id = ?",
                         (seed_id,)) or {}
        return store.insert("artifacts", {
            "seed_id": seed_id, "dimension": dimension, "version": version, "status": status,
            "content": content,
            **stored_flags(dimension, content, dict(seed)),  # as the generation loop stores them
            "generator": generator or {"understanding": "llm", "reasoning": "rule:gsm8k-calculator",
                                       "arithmetic": "rule:notation",
                                       "refinement": "rule:inject"}[dimension],
            "model": model if model is not None else ("gpt-4o-mini" if dimension == "understanding" else None),
            "prompt_version": f"{dimension}-v1", "attempt_id": None, "replaces_id": replaces_id,
            "verify_result": verify_result_for(dimension, i) if status != "generated" else None,
            "created_at": stamp, "updated_at": stamp,
        })


def add_full_seed(store: Store, i: int, *, source: str = "gsm8k",
                  statuses: dict[str, str | None] | None = None, level: str | None = None) -> int:
    """A seed with one artifact per dimension (status ``verified`` unless given; None = no
    artifact for that dimension)."""
    sid = add_seed(store, i, source=source, level=level)
    statuses = statuses or {}
    for dim in DIMENSIONS:
        st = statuses.get(dim, "verified")
        if st is not None:
            add_artifact(store, sid, dim, i=i, status=st)
    return sid


def populate(store: Store, per_source: dict[str, int], *, start: int = 0) -> list[int]:
    """Seeds with four verified artifacts each: ``{"gsm8k": 60, "mawps": 30}``."""
    ids = []
    i = start
    for source, n in per_source.items():
        for _ in range(n):
            ids.append(add_full_seed(store, i, source=source))
            i += 1
    return ids


def regenerate(store: Store, artifact_id: int, *, status: str = "verified",
               supersede: bool = True) -> int:
    """Do what the generation loop does for a rejected artifact: a new row with version + 1
    and ``replaces_id``; the rejected row becomes ``superseded``."""
    old = store.one("SELECT * FROM artifacts WHERE id = ?", (artifact_id,))
    assert old is not None
    seed = store.one("SELECT orig_id FROM seeds WHERE id = ?", (old["seed_id"],))
    assert seed is not None
    i = int(str(seed["orig_id"]).rsplit("-", 1)[-1])
    with store.transaction():
        new_id = add_artifact(store, int(old["seed_id"]), old["dimension"], i=i, status=status,
                              version=int(old["version"]) + 1, replaces_id=artifact_id)
        if supersede:
            store.execute("UPDATE artifacts SET status = 'superseded', updated_at = ? WHERE id = ?",
                          (now(), artifact_id))
    return new_id


def artifact_status(store: Store, artifact_id: int) -> str:
    return str(store.scalar("SELECT status FROM artifacts WHERE id = ?", (artifact_id,)))


def events(store: Store, action: str) -> list[dict[str, Any]]:
    rows = store.query("SELECT * FROM events WHERE action = ? ORDER BY id", (action,))
    for r in rows:
        r["detail"] = json.loads(r["detail"])
    return rows


# -- multi-process workers (module-level so ``spawn`` children can import them) ------------

def review_worker(db_path: str, annotator: str, dimension: str, start: Any, results: Any,
                  think_s: float = 0.01) -> None:
    """One annotator's session: claim and decide until nothing is left, "reading" each item
    for ``think_s`` seconds between claim and decision (outside any transaction). Rejects
    every item whose artifact id is divisible by 4 and skips (once) every item whose id is
    divisible by 5. Reports (annotator, decided item ids, skipped item ids, errors)."""
    import time

    from qcstation.core.review.decisions import decide, next_item

    decided: list[int] = []
    skipped: list[int] = []
    errors: list[str] = []
    store = Store(db_path)
    try:
        start.wait(timeout=300)
        while True:
            item = next_item(store, annotator, dimension)
            if item is None:
                break
            time.sleep(think_s)
            if item.item_id % 5 == 0 and item.item_id not in skipped:
                decide(store, item.item_id, annotator, "skip")
                skipped.append(item.item_id)
                continue
            if item.artifact_id % 4 == 0:
                decide(store, item.item_id, annotator, "reject", "changes the answer")
            else:
                decide(store, item.item_id, annotator, "accept")
            decided.append(item.item_id)
    except Exception as exc:  # reported to the parent, which fails the test
        errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        store.close()
    results.put((annotator, decided, skipped, errors))


def race_decide_worker(db_path: str, annotator: str, item_id: int, start: Any, results: Any) -> None:
    """Decide one given item without claiming it first, all workers at the same moment."""
    from qcstation.core.review.decisions import decide
    from qcstation.common.errors import ReviewError

    store = Store(db_path)
    outcome = "error"
    try:
        start.wait(timeout=300)
        decide(store, item_id, annotator, "accept")
        outcome = "ok"
    except ReviewError as exc:
        outcome = f"refused: {exc}"
    except Exception as exc:
        outcome = f"error: {type(exc).__name__}: {exc}"
    finally:
        store.close()
    results.put((annotator, outcome))


def rewind_to(store: Store, db_file: Any, version: int) -> list[tuple[str, str]]:
    """Drop from ``store`` every table, index, view and trigger the migrations after
    ``version`` made (found by migrating a fresh database to ``version`` beside ``db_file``)
    and set its version back: the database as an old release left it, for migration tests.
    Returns what was dropped, as (name, type)."""
    old_db = Store(db_file.with_name(f"v{version}.db"), migrate=False)
    old_db.migrate(version)
    old = {r[0] for r in old_db.conn.execute("SELECT name FROM sqlite_master")}
    old_db.close()
    made = [(str(r[0]), str(r[1])) for r in store.conn.execute(
        "SELECT name, type FROM sqlite_master WHERE type IN ('trigger', 'view', 'index', "
        "'table') ORDER BY type = 'table', type = 'index'") if r[0] not in old]
    for name, kind in made:
        store.conn.execute(f"DROP {kind.upper()} IF EXISTS {name}")
    store.conn.execute(f"PRAGMA user_version = {int(version)}")
    return made


def run_at_once(target: Any, arg_lists: list[tuple[Any, ...]], after: tuple[Any, ...] = (),
                timeout: float = 300) -> list[Any]:
    """Start ``target(*args, start, results, *after)`` in one spawned process per ``args``,
    released together by a barrier; returns what each put on ``results``, after every process
    ended with exit code 0."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    start = ctx.Barrier(len(arg_lists))
    results = ctx.Queue()
    procs = [ctx.Process(target=target, args=(*args, start, results, *after)) for args in arg_lists]
    for p in procs:
        p.start()
    got = [results.get(timeout=timeout) for _ in procs]
    for p in procs:
        p.join(timeout=300)
        assert p.exitcode == 0
    return got
