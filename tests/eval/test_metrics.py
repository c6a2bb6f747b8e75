"""Metrics over real SQLite scores: hand-worked items, bootstrap intervals, confusion,
McNemar, Spearman, and the CLI actions in a subprocess."""

from __future__ import annotations


import numpy as np
import pytest

from db import Store
from qcstation.common.safe import display_text
from qcstation.eval import metrics as M
from tests.eval_factory import add_item, make_run, row
from tests.must import must

# Four hand-worked items (one sample each):
#        un   re  ar  rt  rm  fi
#   1    95   c   c   c   c   c     All-Pass
#   2    80   c   c   c   c   u     All-Pass w/o Un only (un < 90)
#   3    92   c   e   w   c   c
#   4   100   w   c   c   w   w
HAND = {
    1: row(un=95, re="c", ar="c", rt="c", rm="c", fi="c"),
    2: row(un=80, re="c", ar="c", rt="c", rm="c", fi="u"),
    3: row(un=92, re="c", ar="e", rt="w", rm="c", fi="c"),
    4: row(un=100, re="w", ar="c", rt="c", rm="w", fi="w"),
}


def hand_run(store: Store, model: str = "model-a", **kw) -> int:
    run = make_run(store, model=model, **kw)
    for seed, scores in HAND.items():
        add_item(store, run, seed, source=("gsm8k" if seed % 2 else "math500"),
                 difficulty=("easy", "hard", "easy", None)[seed - 1], scores=scores)
    return run


def test_hand_worked_values(store: Store) -> None:
    run = hand_run(store)
    (rm,) = M.leaderboard(store, [run], n_boot=200)
    v = {c: mv.value for c, mv in rm.values.items()}
    assert v["un"] == pytest.approx((95 + 80 + 92 + 100) / 4)
    assert v["re"] == v["ar"] == v["rt"] == v["rm_ungated"] == pytest.approx(0.75)
    assert v["fi"] == pytest.approx(0.5)                 # unparseable and wrong both count 0
    # the paper's ACC@R-m is gated: items 1, 2, 4 have a correct reflection
    assert v["rm"] == pytest.approx(2 / 3)
    assert rm.values["rm"].n == 3
    assert v["all"] == pytest.approx(0.25)               # item 1 only: item 2 has un 80
    assert v["all_no_un"] == pytest.approx(0.5)          # items 1 and 2
    assert rm.values["fi"].counts == {"correct": 2, "unparseable": 1, "wrong": 1}
    assert rm.values["ar"].counts == {"correct": 3, "error": 1}
    assert rm.values["un"].counts == {"correct": 3, "wrong": 1}    # the scorer's >= 90 verdict
    assert rm.values["all"].counts == {"correct": 1, "wrong": 3}
    assert all(mv.n == 4 for c, mv in rm.values.items()
               if c in ("un", "re", "ar", "rt", "rm_ungated", "fi", "all", "all_no_un"))
    assert rm.label == "model-a" and rm.run_id == run


def test_samples_are_averaged_per_item_first(store: Store) -> None:
    run = make_run(store, samples=2)
    add_item(store, run, 1, samples=[row(fi="c"), row(fi="w")])   # item value 0.5
    add_item(store, run, 2, samples=[row(fi="c")])                # item value 1.0
    fi = M.leaderboard(store, [run], n_boot=0)[0].values["fi"]
    assert fi.value == pytest.approx(0.75)      # pooled over samples it would be 2/3
    assert fi.n == 2 and fi.n_samples == 3
    assert fi.lo is None and fi.hi is None      # n_boot=0: no interval


def test_understanding_not_scored_never_makes_up_all_pass(store: Store) -> None:
    run = make_run(store)
    add_item(store, run, 1, scores=row(un="n"))
    add_item(store, run, 2, scores=row(un="n", rm="w"))
    vals = M.leaderboard(store, [run], n_boot=100)[0].values
    assert vals["un"].value is None and "no judge" in (vals["un"].note or "")
    assert vals["all"].value is None and vals["all"].lo is None
    assert "not scored" in (vals["all"].note or "")
    assert vals["all_no_un"].value == pytest.approx(0.5)

    # one item judged, the other not: still no All-Pass over a subset
    run2 = make_run(store)
    add_item(store, run2, 1, scores=row(un=99))
    add_item(store, run2, 2, scores=row(un="n"))
    vals2 = M.leaderboard(store, [run2], n_boot=0)[0].values
    assert vals2["un"].value == pytest.approx(99) and vals2["un"].n == 1
    assert vals2["all"].value is None and "1 of 2" in (vals2["all"].note or "")


def test_a_failed_understanding_reply_is_apart_from_the_judged_score(store: Store) -> None:
    """Issue 27.5: a failed or unreadable reply has no score on LLM@Un's 1..100 scale: it is
    counted apart ('failed'), never averaged in as 0, and fails All-Pass."""
    run = make_run(store)
    add_item(store, run, 1, scores=row(un=100))
    add_item(store, run, 2, scores=row(un="e"))       # the request failed
    add_item(store, run, 3, scores=row(un="u"))       # the reply was unreadable
    add_item(store, run, 4, samples=[row(un=80), row(un="e")])
    v = M.leaderboard(store, [run], n_boot=0)[0].values
    un = v["un"]
    # judged: item 1 (100) and item 4's first sample (80): (100 + 80) / 2 items
    assert un.value == pytest.approx(90.0) and un.n == 2 and un.n_samples == 2
    assert un.failed == 3
    assert un.counts == {"correct": 1, "wrong": 1, "error": 2, "unparseable": 1}
    # All-Pass: item 1 passes; items 2, 3 fail; item 4: 80 and a failed reply -> 0 of 2
    assert v["all"].value == pytest.approx(1 / 4) and v["all"].n == 4
    # every reply failed: not a 0, not scored, and says why
    run2 = make_run(store, model="m2")
    add_item(store, run2, 1, scores=row(un="e"))
    un2 = M.leaderboard(store, [run2], n_boot=0)[0].values["un"]
    assert un2.value is None and un2.failed == 1 and "failed" in (un2.note or "")
    # compare reads LLM@Un >= 90 over judged replies, the failed ones counted apart
    c = M.compare(store, run, run2, "un")
    assert c.n == 0 and (c.a_failed, c.b_failed) == (3, 1)
    # the runs list (the app) reads the same: the judged mean, the failed apart
    from qcstation.eval.browse import headline

    for scratch in (False, True):
        h = headline(store, run, from_scratch=scratch)["un"]
        assert h.value == pytest.approx(90.0) and (h.n, h.failed) == (2, 3)


def test_the_leaderboard_prints_failed_understanding_replies_apart(
        store: Store, db_file, capsys: pytest.CaptureFixture[str]) -> None:
    from qcstation.cli import main

    run = make_run(store)
    add_item(store, run, 1, scores=row(un=100))
    add_item(store, run, 2, scores=row(un="e"))
    for wide in ([], ["--wide"]):
        assert main(["--db", str(db_file), "eval", "leaderboard", *wide]) == 0
        out = capsys.readouterr().out
        assert "LLM@Un over 1 judged item-samples; 1 failed" in " ".join(out.split())
    assert "100.0 [" in out and "(1 failed)" in out      # --wide: the cell says it too


def test_task_not_run_is_absent_not_zero(store: Store) -> None:
    run = make_run(store, tasks=("reasoning", "final"))
    add_item(store, run, 1, scores=row(un=None, ar=None, rt=None, rm=None, re="c", fi="w"))
    vals = M.leaderboard(store, [run], n_boot=0)[0].values
    assert vals["re"].value == 1.0 and vals["fi"].value == 0.0
    for code in ("un", "ar", "rt", "rm", "rm_ungated", "all", "all_no_un"):
        assert vals[code].value is None, code
        assert must(vals[code].note).startswith("not run"), (code, vals[code].note)
    assert "ACC@Ar" in (vals["all_no_un"].note or "")

    # asked for but not scored yet (the run's spec lists the task): said so, still None
    pending = make_run(store, tasks=("reasoning", "final"))
    add_item(store, pending, 1, scores={"re": "c"})
    pv = M.leaderboard(store, [pending], n_boot=0)[0].values
    assert pv["fi"].value is None and pv["fi"].note == "not scored yet: no scores for ACC@Fi"
    assert pv["ar"].note == "not run: no scores for ACC@Ar"


def test_bootstrap_interval_matches_the_binomial_by_hand(store: Store) -> None:
    # 70 of 100 correct: resampling items of a 0/1 metric draws Binomial(100, 0.7)/100,
    # whose 2.5% and 97.5% quantiles are 61 and 79 (scipy.stats.binom.ppf).
    run = make_run(store)
    for i in range(100):
        add_item(store, run, i, scores={"fi": "c" if i < 70 else "w"})
    fi = M.leaderboard(store, [run], n_boot=4000, seed=3)[0].values["fi"]
    assert fi.value == pytest.approx(0.70)
    assert fi.lo is not None and fi.hi is not None
    assert fi.lo == pytest.approx(0.61, abs=0.015) and fi.hi == pytest.approx(0.79, abs=0.015)
    again = M.leaderboard(store, [run], n_boot=4000, seed=3)[0].values["fi"]
    assert (again.lo, again.hi) == (fi.lo, fi.hi)        # deterministic with the seed


def test_bootstrap_ordering_width_and_edge_cases() -> None:
    rng = np.random.default_rng(7)
    small = (rng.random(25) < 0.6).astype(float)
    big = (rng.random(2500) < 0.6).astype(float)
    m_s, lo_s, hi_s = M.bootstrap_mean(small, n_boot=1000, rng=np.random.default_rng(1))
    m_b, lo_b, hi_b = M.bootstrap_mean(big, n_boot=1000, rng=np.random.default_rng(1))
    assert lo_s is not None and hi_s is not None and lo_b is not None and hi_b is not None
    assert lo_s <= m_s <= hi_s and lo_b <= m_b <= hi_b
    assert (hi_b - lo_b) < (hi_s - lo_s) / 5            # width shrinks like 1/sqrt(n)
    assert M.bootstrap_mean(np.ones(30), n_boot=500, rng=np.random.default_rng(1)) == (1.0, 1.0, 1.0)
    # many distinct values (judge means): the index-resampling path, same ordering
    scores = rng.uniform(1, 100, 5000)
    m, lo, hi = M.bootstrap_mean(scores, n_boot=300, rng=np.random.default_rng(2))
    se = scores.std() / np.sqrt(len(scores))
    assert lo is not None and hi is not None and lo < m < hi
    assert hi - lo == pytest.approx(2 * 1.96 * se, rel=0.25)


def test_breakdown_by_source_and_difficulty(store: Store) -> None:
    run = hand_run(store)
    by_src = M.breakdown(store, run, "source", n_boot=0)
    assert list(by_src) == ["gsm8k", "math500"]          # items 1, 3 | items 2, 4
    assert by_src["gsm8k"]["fi"].value == 1.0 and by_src["gsm8k"]["fi"].n == 2
    assert by_src["math500"]["fi"].value == 0.0
    assert by_src["math500"]["fi"].counts == {"unparseable": 1, "wrong": 1}
    assert by_src["gsm8k"]["all"].value == 0.5
    by_diff = M.breakdown(store, run, "difficulty", n_boot=100)
    assert list(by_diff) == ["easy", "hard", "(none)"]
    assert by_diff["easy"]["un"].value == pytest.approx((95 + 92) / 2)
    assert by_diff["(none)"]["re"].value == 0.0 and by_diff["(none)"]["re"].n == 1
    with pytest.raises(M.MetricsError):
        M.breakdown(store, run, "model")
    assert M.group_order(["Level 10", "(none)", "Level 2", "hard", "easy"], "difficulty") == \
        ["easy", "hard", "Level 2", "Level 10", "(none)"]
    assert M.group_order(["b", "10", "a2", "9", "a10"], "source") == ["9", "10", "a2", "a10", "b"]
    assert M.group_order(["9" * 5000, "1"], "source") == ["1", "9" * 5000]   # no huge int()


def test_confusion_counts_as_smart_fig21(store: Store) -> None:
    run = hand_run(store)
    conf = M.confusion(store, run)
    # item 1: fi P re P -> TP; 2: fi N re P -> FP; 3: fi P re P -> TP; 4: fi N re N -> TN
    assert (conf["re"].tp, conf["re"].fp, conf["re"].fn, conf["re"].tn) == (2, 1, 0, 1)
    # ar: 1 TP; 2 FP; 3 fi P, ar error -> FN; 4 fi N ar P -> FP
    assert (conf["ar"].tp, conf["ar"].fp, conf["ar"].fn, conf["ar"].tn) == (1, 2, 1, 0)
    # re and ar both correct: 1 TP; 2 FP; 3 FN; 4 TN
    assert (conf["re+ar"].tp, conf["re+ar"].fp, conf["re+ar"].fn, conf["re+ar"].tn) == (1, 1, 1, 1)
    c = conf["ar"]
    assert c.n == 4 and c.rate("fp") == 0.5
    assert must(c.rate("tp")) + must(c.rate("fn")) == pytest.approx(0.5)     # = ACC@Fi
    assert c.to_dict()["rates"]["fn"] == 0.25


def test_compare_exact_mcnemar_by_hand(store: Store) -> None:
    a, b = make_run(store, model="a"), make_run(store, model="b")
    # fi per item for (A, B): 1 c/c, 2 c/w, 3 c/w, 4 c/w, 5 w/w, 6 w/c; 7 only in A
    pattern = {1: ("c", "c"), 2: ("c", "w"), 3: ("c", "w"), 4: ("c", "w"), 5: ("w", "w"), 6: ("w", "c")}
    for seed, (va, vb) in pattern.items():
        add_item(store, a, seed, scores={"fi": va})
        add_item(store, b, seed, scores={"fi": vb})
    add_item(store, a, 7, scores={"fi": "c"})
    cmp_ = M.compare(store, a, b, "fi")
    assert cmp_.n == 6 and cmp_.only_in_a == 1 and cmp_.only_in_b == 0
    assert (cmp_.a_only, cmp_.b_only, cmp_.both_correct, cmp_.both_wrong) == (3, 1, 1, 1)
    assert cmp_.a_only_ids == [2, 3, 4] and cmp_.b_only_ids == [6]
    # exact McNemar: 2 * P(X <= 1), X ~ Bin(4, 1/2) = 2 * 5/16
    assert cmp_.p_value == pytest.approx(10 / 16)
    assert cmp_.a_value == pytest.approx(4 / 6) and cmp_.b_value == pytest.approx(2 / 6)
    # one-sided pattern: 3 discordant all for A -> 2 * (1/8)
    a2, b2 = make_run(store), make_run(store)
    for seed in range(3):
        add_item(store, a2, seed, scores={"re": "c"})
        add_item(store, b2, seed, scores={"re": "u"})
    assert M.compare(store, a2, b2, "re").p_value == pytest.approx(0.25)
    assert M.compare(store, a2, a2, "re").p_value == 1.0
    with pytest.raises(M.MetricsError):
        M.compare(store, a, b, "rm_keep")


def test_compare_majority_of_samples_and_understanding_threshold(store: Store) -> None:
    a, b = make_run(store, samples=3), make_run(store, samples=3)
    add_item(store, a, 1, samples=[row(fi="c", un=95), row(fi="c", un=91), row(fi="w", un=50)])
    add_item(store, b, 1, samples=[row(fi="c", un=89), row(fi="w", un=89), row(fi="w", un=99)])
    cmp_ = M.compare(store, a, b, "fi")
    assert (cmp_.a_only, cmp_.b_only) == (1, 0)          # 2 of 3 vs 1 of 3
    cmp_un = M.compare(store, a, b, "un")
    assert (cmp_un.a_only, cmp_un.b_only) == (1, 0)      # 2 of 3 at >= 90 vs 1 of 3


def test_spearman_across_runs_by_hand(store: Store) -> None:
    # ACC@Re 0.2, 0.4, 0.6, 0.8 and ACC@Fi 0.1, 0.3, 0.2, 0.9 over 10 items each:
    # ranks 1 2 3 4 vs 1 3 2 4, sum d^2 = 2, rho = 1 - 6*2/(4*15) = 0.8
    runs = []
    for re_k, fi_k in ((2, 1), (4, 3), (6, 2), (8, 9)):
        run = make_run(store)
        for i in range(10):
            add_item(store, run, i, scores={"re": "c" if i < re_k else "w",
                                            "fi": "c" if i < fi_k else "w"})
        runs.append(run)
    corr = M.correlation(store, runs, codes=("re", "fi", "ar"))
    assert corr.rho["re"]["fi"] == pytest.approx(0.8)
    assert corr.rho["fi"]["re"] == pytest.approx(0.8)
    assert corr.rho["re"]["re"] == pytest.approx(1.0)
    assert corr.rho["re"]["ar"] is None and corr.n["re"]["ar"] == 0   # ar not run
    assert "4 runs" in corr.note and "mean little" in corr.note
    few = M.correlation(store, runs[:2])
    assert few.rho["re"]["fi"] is None and "at least 3 runs" in few.note


def test_display_text_escapes_control_characters() -> None:
    assert display_text("a\x1b[31mred\x07\nx") == "a\\x1b[31mred\\a x"
    assert display_text("\u202eevil") == "\\u202eevil"
    assert len(display_text("y" * 500, 20)) == 20
