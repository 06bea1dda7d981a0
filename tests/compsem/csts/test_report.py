"""Part II's report: glue values against counts computed here, figures, reference tables."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

from compsem.csts import report as R
from compsem.csts import study as S
from compsem.csts import tables as TB
from compsem.csts import views as V
from compsem.errors import DataError


def test_data_values_on_the_embedded_set():
    parts, rep = S.book_data("embedded")
    v = R.data_values(rep, parts)
    df = pd.concat(parts.values())
    assert v["csts_n_pairs"] == 165 and v["csts_n_rows"] == 330 and v["csts_n_ties"] == 0
    assert v["csts_n_test"] == len(parts["test"]) and v["csts_n_test_pairs"] == len(parts["test"]) // 2
    extremes = df["label"].isin([1.0, 5.0]).mean() * 100
    assert v["csts_label_extreme_pct"] == pytest.approx(extremes)
    assert isinstance(R.label_figure(df), matplotlib.figure.Figure)


def test_reference_tables_load():
    t3 = R.paper_table("table3_finetune")
    assert t3.query("encoding == 'bi' and model == 'SimCSE-large'")["spearman_mean"].item() == 47.5
    with pytest.raises(DataError, match="available"):
        R.paper_table("nope")


def test_table8_transcription():
    t8 = R.paper_table("table8_best_settings")
    assert len(t8) == 15 and set(t8.encoding) == {"cross", "bi", "tri"}
    row = t8.query("model == 'SimCSE-large' and encoding == 'bi'").iloc[0]
    assert (row["lr"], row["weight_decay"], bool(row["transform"]), row["objective"], row["spearman"]) == (
        1e-5,
        0.1,
        False,
        "mse",
        47.70,
    )


def test_values_dispatches_to_the_chapter_view():
    parsed = {"official": {"invalid_rate": 10.0, "out_of_range_rate": 0.0}}
    t11 = pd.DataFrame(
        {
            "model": ["A", "B", "A"],
            "instruction": ["none", "short", "none"],
            "k": [0, 0, 2],
            "invalid_pct": [60.0, 4.0, 1.0],
        }
    )
    t4 = pd.DataFrame({"model": ["GPT-4", "GPT-4", "SimCSE-large"], "spearman": [40.0, 43.6, 47.5]})
    v = R.values("prompting", parsed, t11, t4)
    # by hand: k = 0 without an instruction: 60 %, with one: 4 %; the worst cell is A (60 %)
    assert (v["pr_none0_invalid_mean"], v["pr_instr0_invalid_mean"], v["pr_max_invalid_model"]) == (60.0, 4.0, "A")
    assert v["pr_gpt4_best"] == 43.6 and v["pr_simcse"] == 47.5 and v["pr_demo_invalid_official"] == 10.0
    with pytest.raises(ValueError, match="view must be one of"):
        R.values("nope")


def _pairs(n):
    return pd.DataFrame(
        {"pair_id": np.repeat(np.arange(n), 2), "role": ["high", "low"] * n, "label": [4.0, 2.0] * n, "tied": False}
    )


def test_zero_shot_ranking_by_hand():
    # four untied sentence pairs, C-High row first
    df = _pairs(4)
    up, down = [0.9, 0.1], [0.1, 0.9]
    scores = {
        ("a", "attached"): np.array(up * 4),  # every pair right: 100 %
        ("b", "attached"): np.array(up * 2 + down * 2),  # outcomes 1, 1, 0, 0: 50 %
        ("c", "attached"): np.array(up * 3 + down),
    }  # outcomes 1, 1, 1, 0: 75 %
    zs = TB.zero_shot_table(scores, df, n_boot=200)
    # the sign test of each row, by hand: a 4 wins of 4 -> 2/16; b 2 of 4 -> 1; c 3 of 4 -> 2 * 5/16
    assert zs["pair_accuracy_sign_p"].tolist() == pytest.approx([0.125, 1.0, 0.625])
    tied = TB.zero_shot_table({("t", "ignored"): np.array([0.5] * 8)}, df, n_boot=10)
    assert np.isnan(tied["pair_accuracy_sign_p"].iloc[0])  # every pair ties: undefined, never a p-value
    out = R.zero_shot_ranking(zs, scores, df, ["a", "b", "c"], n_boot=2000, seed=0)
    # c - b per pair: 0, 0, 1, 0 (x100). A resample's mean is 75 or more when 3 of its 4 draws hit the one pair:
    # P = 4 (1/4)^3 (3/4) + (1/4)^4 = 5.1 % > 2.5 %, and 0 with P = (3/4)^4 = 32 %: the paired interval [0, 75],
    # said of the lowest, b, as b − c: -25.0 [-75.0, 0.0].
    # a is constant (every pair gives 100) and is left out, not ranked.
    assert out["zs_low_pairacc_sentence"] == (
        "`b` has the lowest pair accuracy with the condition attached (50.0 %) on the same 4 untied pairs, but for "
        "its difference from `c` (-25.0 [-75.0, 0.0]) the paired interval includes zero: no evidence of a difference "
        "(one paired comparison, a 95 % interval). `a` is left out of the ranking: every item gives exactly 100."
    )
    # sign tests: a 4 of 4 (p = 2/16), b 2 of 4 (p = 1), c 3 of 4 (p = 2 * 5/16): none below 0.05/3
    chance = str(out["zs_chance_sentence"])
    assert chance.startswith(
        "With the condition attached, the pair accuracy shows no evidence of a difference from "
        "chance (50 %) for all 3: `a` (100.0 % [100.0, 100.0], p = 0.125), `b` (50.0 % ["
    )
    assert chance.endswith(
        "p = 0.625): exact sign tests over the untied pairs, 3 tests, each at α = 0.0167 (Bonferroni)."
    )
    assert out["zs_chance_summary"] == "no encoder of the panel shows evidence of a pair accuracy different from chance"
    assert "`a (condition attached)` has the highest absolute Spearman" in str(out["zs_abs_sentence"])


def test_the_chapters_words_follow_the_pair_accuracy_test():
    # contradicting data: 20 pairs, every C-Low row above its C-High row for both models: p = 2^-19 each
    df = _pairs(20)
    wrong = {(m, "attached"): np.array([0.1, 0.9] * 20) for m in ("a", "b")}
    wrong[("b", "attached")][0] = 0.95  # one pair right for b
    zs = TB.zero_shot_table(wrong, df, n_boot=100)
    out = R.zero_shot_ranking(zs, wrong, df, ["a", "b"], n_boot=200)
    assert out["zs_chance_summary"] == (
        "every encoder of the panel responds to the condition, in the wrong direction: "
        "its pair accuracy lies below chance"
    )
    assert str(out["zs_chance_sentence"]).startswith(
        "With the condition attached, the pair accuracy lies below chance "
        "(50 %) for all 2: `a` (0.0 % [0.0, 0.0], p < 0.001)"
    )
    right = {k: np.array([0.9, 0.1] * 20) for k in wrong}
    right[("b", "attached")][1] = 0.95
    out = R.zero_shot_ranking(TB.zero_shot_table(right, df, n_boot=100), right, df, ["a", "b"], n_boot=200)
    assert out["zs_chance_summary"] == "every encoder of the panel separates C-High from C-Low better than chance"
    mixed = {("a", "attached"): wrong[("a", "attached")], ("b", "attached"): right[("b", "attached")]}
    out = R.zero_shot_ranking(TB.zero_shot_table(mixed, df, n_boot=100), mixed, df, ["a", "b"], n_boot=200)
    assert out["zs_chance_summary"] == (
        "the encoders differ: 1 of the 2 lie below chance, 1 above it and 0 show no evidence of a difference from it"
    )


def test_the_range_and_the_sign_tests_cover_the_same_attached_rows():
    # 20 untied pairs; a and b (the panel, condition attached) are wrong on every pair; the text-pair variant of a
    # is right on every pair, so testing it changes the words: a range and a test that leave it out would not
    df = _pairs(20)
    wrong, right = np.array([0.1, 0.9] * 20), np.array([0.9, 0.1] * 20)
    scores = {("a", "attached"): wrong, ("b", "attached"): wrong.copy(), ("a text pair", "attached"): right}
    scores[("bow", "attached")] = right.copy()  # a control: shown beside, never tested
    zs = TB.zero_shot_table(scores, df, n_boot=100)
    assert R.attached_rows(zs) == ["a", "b", "a text pair"]
    assert R.attached_rows_text(zs) == "the 3 rows of the models (`a`, `b` and `a text pair`)"
    out = R.zero_shot_ranking(zs, scores, df, ["a", "b", "bow"], n_boot=200)
    chance = str(out["zs_chance_sentence"])
    # 3 tests (a, b and the text pair), each at 0.05 / 3; 20 of 20 right gives p = 2 * 2^-20 < 0.001
    assert "3 tests, each at α = 0.0167 (Bonferroni)" in chance
    assert "lies above chance (50 %) for `a text pair` (100.0 % [100.0, 100.0], p < 0.001)" in chance
    assert out["zs_chance_summary"] == (
        "the encoders differ: 2 of the 3 lie below chance, 1 above it and 0 show no evidence of a difference from it"
    )
    # without the text-pair row the same models are all below chance, and the count is 2
    del scores[("a text pair", "attached")]
    zs2 = TB.zero_shot_table(scores, df, n_boot=100)
    out2 = R.zero_shot_ranking(zs2, scores, df, ["a", "b", "bow"], n_boot=200)
    assert "2 tests, each at α = 0.025 (Bonferroni)" in str(out2["zs_chance_sentence"])
    assert out2["zs_chance_summary"].startswith("every encoder of the panel responds to the condition")


def test_a_run_records_a_pair_bootstrap_interval_of_its_spearman():
    # predictions that order every row as its label does: every resample gives Spearman 100
    df = pd.DataFrame(
        {
            "pair_id": ["p1", "p1", "p2", "p2", "p3", "p3"],
            "label": [1.0, 2.0, 3.0, 4.0, 5.0, 4.5],
            "sentence1": list("abcdef"),
            "sentence2": list("ghijkl"),
            "condition": list("mnopqr"),
            "role": ["low", "high", "low", "high", "high", "low"],
        }
    )
    row = S.score_row(df["label"].to_numpy() * 2, df, prefix="test_", ci=True)
    assert row["test_spearman"] == pytest.approx(100) and row["test_spearman_ci_low"] == pytest.approx(100)
    assert row["test_spearman_ci_high"] == pytest.approx(100)
    assert "test_spearman_ci_low" not in S.score_row(df["label"].to_numpy(), df, prefix="test_")


def test_the_ablation_values_put_each_mode_beside_the_papers_table_10():
    summary = pd.DataFrame({"input_mode": ["full", "condition_only"], "test_spearman_mean": [46.5, 44.2]})
    runs = pd.DataFrame({"n_train_rows": [6806], "n_train_pairs": [3403]})
    v = R.values("ablation", summary, pd.DataFrame({"spearman": [40.8]}), runs, ["full", "condition_only"])
    assert v["abl_full"] == 46.5 and v["abl_condition_only"] == 44.2
    assert v["abl_full_minus_cond"] == pytest.approx(2.3)
    assert (
        v["abl_p_full"] == 40.11
    )  # Table 10, full input and v["abl_prior"] == 40.8 and v["abl_n_train_pairs"] == 3403


def _chapter21_defaults() -> dict:
    from compsem.book.running.plan import notebook_parameters
    from compsem.paths import notebooks_dir

    return notebook_parameters(notebooks_dir() / "21_csts_zeroshot.ipynb")


def test_the_headline_scores_chapter_21s_own_rows():
    # the synthesis reads Part II's number on the rows chapter 21 scores, not on the hand-written set
    nb = _chapter21_defaults()
    parts, _ = S.book_data(
        nb["data"], split=nb["split"], split_seed=nb["split_seed"], eval_pairs=nb["eval_pairs"], sample_seed=nb["seed"]
    )
    df = parts[nb["eval_split"]]
    pd.testing.assert_frame_equal(R.headline_data(), df)
    # the value is the chapter's pair accuracy, worked out here from the outcomes of the untied pairs
    s = S.zero_shot_scores(df, "bow", template=nb["template"])["attached"].to_numpy()
    outcomes = []
    for _, g in df.reset_index(drop=True).assign(score=s).groupby("pair_id"):
        if set(g.role) == {"high", "low"} and g.label.nunique() == 2:
            d = g.score[g.role == "high"].iloc[0] - g.score[g.role == "low"].iloc[0]
            outcomes.append(1.0 if d > 0 else 0.5 if d == 0 else 0.0)
    want = 100 * np.mean(outcomes)
    (row,) = R.headlines(["bow"], n_boot=100, seed=1)
    assert row["value"] == pytest.approx(want) and row["n"] == len(outcomes)
    assert row["low"] < row["value"] < row["high"] and row["criterion"] == "CSTS"
    # not the 165 hand-written pairs
    assert row["n"] != 165
    # the replicates: the mean outcome on resamples of the pairs (in the file order of their C-High rows) that
    # every model scored on these rows shares
    ordered = []
    for _, g in df.reset_index(drop=True).assign(score=s).groupby("pair_id"):
        if set(g.role) == {"high", "low"} and g.label.nunique() == 2:
            d = g.score[g.role == "high"].iloc[0] - g.score[g.role == "low"].iloc[0]
            ordered.append((g.index[g.role == "high"][0], 1.0 if d > 0 else 0.5 if d == 0 else 0.0))
    by_row = np.array([o for _, o in sorted(ordered)])
    draws = np.random.default_rng(1).integers(0, len(by_row), size=(100, len(by_row)))
    np.testing.assert_allclose(row["replicates"], 100 * by_row[draws].mean(axis=1))


@pytest.mark.slow
def test_the_headline_equals_chapter_21s_result_file(tmp_path):
    import subprocess
    import sys

    from compsem.paths import repo_root

    out = tmp_path / "run"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "compsem",
            "run",
            "notebooks/21_csts_zeroshot.ipynb",
            "--out",
            str(out),
            "--quiet",
            "-p",
            "models",
            '["bow"]',
            "-p",
            "textpair_encoder",
            "",
            "-p",
            "n_boot",
            "200",
        ],
        check=True,
        cwd=repo_root(),
    )
    zs = pd.read_csv(out / "results" / "csts" / "zeroshot.csv").set_index(["model", "condition"])
    (row,) = R.headlines(["bow"], n_boot=200, seed=0)
    chapter = zs.loc[("bow", "attached")]
    assert (row["value"], row["low"], row["high"]) == pytest.approx(
        (chapter["pair_accuracy_%"], chapter["pair_accuracy_ci_low"], chapter["pair_accuracy_ci_high"])
    )


def _toy_run(preds: dict[str, np.ndarray], df: pd.DataFrame):
    from types import SimpleNamespace

    return SimpleNamespace(parts={"test": df}, predictions={("m", c, 0, "test"): p for c, p in preds.items()})


def _toy_pairs(n_pairs: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    labels = rng.integers(1, 6, size=2 * n_pairs).astype(float)
    return pd.DataFrame({"pair_id": np.repeat([f"p{i:03d}" for i in range(n_pairs)], 2), "label": labels})


def test_paired_replicates_match_a_slow_oracle():
    from scipy.stats import spearmanr

    df = _toy_pairs(30)
    rng = np.random.default_rng(1)
    a = df.label.to_numpy() + rng.normal(0, 1.0, len(df))
    b = a + rng.normal(0, 0.3, len(df))
    reps = V.paired_replicates(_toy_run({"x": a, "y": b}, df), n_boot=40, seed=3)
    # the oracle: draw pairs (sorted ids) with the seeded generator, take both rows of each, Spearman x100
    ids = sorted(df.pair_id.unique())
    draws = np.random.default_rng(3).integers(0, len(ids), size=(40, len(ids)))
    for name, pred in (("x", a), ("y", b)):
        want = []
        for row in draws:
            rows = [i for j in row for i in np.flatnonzero(df.pair_id.to_numpy() == ids[j])]
            want.append(100 * spearmanr(pred[rows], df.label.to_numpy()[rows]).statistic)
        assert reps[name] == pytest.approx(np.array(want))


def test_the_top_configuration_is_clear_only_when_the_paired_interval_excludes_zero():
    df = _toy_pairs(200)
    rng = np.random.default_rng(2)
    gold = df.label.to_numpy()
    good = gold + rng.normal(0, 1.0, len(df))
    same = good + rng.normal(0, 0.01, len(df))  # the same predictions up to noise: no real difference
    poor = gold + rng.normal(0, 4.0, len(df))
    run = _toy_run({"a": good, "b": same, "c": poor}, df)
    reps = V.paired_replicates(run, n_boot=300)
    rho = {
        k: 100 * pd.Series(v).corr(pd.Series(gold), method="spearman")
        for k, v in {"a": good, "b": same, "c": poor}.items()
    }
    summary = pd.DataFrame({"config": list(rho), "test_spearman_mean": list(rho.values())})
    leader = max(rho, key=rho.get)
    other = "b" if leader == "a" else "a"
    s = V.ranking_sentence(summary, replicates=reps)
    assert s.startswith(f"`{leader}` has the highest test Spearman ({rho[leader]:.1f}), but its lead over `{other}`")
    assert "`c`" not in s and "no evidence of a difference on these test pairs" in s
    two = summary[summary.config.isin([leader, "c"])]
    s = V.ranking_sentence(two, replicates=reps)
    assert "its lead over every other configuration has a paired 95 % interval above zero" in s and "`c`" in s


def _seed_record(path, base, head):
    import json

    rec = {
        "base_commit": "a" * 40,
        "head_commit": "b" * 40,
        "machine": {"cpu_model": "Test CPU"},
        "seeds": {"seeds": [0, 1, 2], "head_commit": "c" * 40 + "+dirty", "spearman": {"base": base, "head": head}},
    }
    path.write_text(json.dumps(rec), encoding="utf-8")
    return path


def test_one_seed_reads_the_books_own_seed_record_and_gives_the_papers(tmp_path):
    summary = pd.DataFrame({"config": ["bi/mse"], "test_spearman_std": [np.nan]})
    t3 = R.paper_table("table3_finetune")
    papers = (
        f"the paper's Table 3 reports seed standard deviations from {t3.spearman_std.min():.1f} to "
        f"{t3.spearman_std.max():.1f} points over 3 seeds"
    )
    # no record with seeds: only this run's one seed and the paper
    assert V.seed_spread_text(summary, records=[]) == f"not measured in this run (one seed per configuration); {papers}"
    # a record: seeds 60, 61, 62 (sd 1.0) and 50, 50.5, 51 (sd 0.5) on the older side; 40, 40, 40 (sd 0) on the newer
    rec = _seed_record(
        tmp_path / "csts_ab_bf16.json", {"bi/mse": [60, 61, 62], "cross/mse": [50, 50.5, 51]}, {"bi/mse": [40, 40, 40]}
    )
    records = V.recorded_seeds([rec])
    assert records[0]["sd"] == {("base", "bi/mse"): 1.0, ("base", "cross/mse"): 0.5, ("head", "bi/mse"): 0.0}
    text = V.seed_spread_text(summary, records=records)
    assert text == (
        "not measured in this run (one seed per configuration); the book's own seed record "
        "(`benchmarks/csts_ab_bf16.json`: chapter 22 with seeds 0, 1 and 2 on Test CPU, at commit `aaaaaaa` "
        "and at an uncommitted tree based on `ccccccc`) gives a standard deviation over seeds of the test "
        f"Spearman from 0.0 to 1.0 points for 2 configurations; {papers}"
    )
    # contradicting data: wider seeds, and the words follow
    rec = _seed_record(tmp_path / "b.json", {"bi/mse": [50, 60, 70]}, {"bi/mse": [50, 60, 70]})
    assert "of 10.0 points for `bi/mse`" in V.recorded_seed_text(V.recorded_seeds([rec]), "bi/mse")
    assert V.recorded_seed_text(V.recorded_seeds([rec]), "cross/mse") == ""
    # runs with several seeds state their own spread
    assert (
        V.seed_spread_text(pd.DataFrame({"test_spearman_std": [0.4, 1.2]}))
        == "1.2 points (largest standard deviation over seeds)"
    )
    (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
    assert V.recorded_seeds([tmp_path / "bad.json"]) == []  # no seeds: skipped
    (tmp_path / "broken.json").write_text('{"seeds": {"x": 1}}', encoding="utf-8")
    with pytest.raises(DataError, match="not an A/B record with seeds"):
        V.recorded_seeds([tmp_path / "broken.json"])


def test_a_share_below_100_never_reads_at_least_100():
    assert R._share_text(99.96) == "in at least 99.9 % of the rows"
    assert R._share_text(100.0) == "in every row"
    assert R._share_text(87.25) == "in at least 87.2 % of the rows"


def test_the_prompting_demo_says_invalid_and_the_run_sentence_says_when_there_is_no_table():
    samples = ["4.0", "no idea"]
    parsed = {"official": S.parse_answers(samples, rule="official")}
    demo = R.prompting_demo(samples, parsed)
    assert list(demo["official"]) == ["4.00", "invalid"]
    base = pd.DataFrame({"spearman": [40.0]})
    queries = pd.DataFrame({"x": range(3)})
    v = R.prompting_run_values(pd.DataFrame(), queries, base)
    assert v["pr_runs_sentence"].startswith("No generator was named in this run, so there is no table")
    v = R.prompting_run_values(pd.DataFrame({"k": [0]}), queries, base)
    assert v["pr_runs_sentence"].startswith("The table above lists") and "3 query rows" in v["pr_runs_sentence"]


def test_paper_tables_as_shown_say_what_an_empty_cell_means():
    t8 = R.table8_view()
    assert set(t8["transform"]) <= {"yes", "no"} and not t8.isna().any().any()
    raw = R.paper_table("table8_best_settings")
    n_tri = int(raw["tri_op"].notna().sum())
    assert (t8["tri-encoder op. (tri only)"] != "–").sum() == n_tri
    table = pd.DataFrame({"x": [1.0, 2.0]}, index=["full", "condition prior"])
    out = R.with_paper_column(table, pd.Series({"full": 43.21}), "paper")
    assert list(out["paper"]) == ["43.2", "not in the paper"]


def test_precision_comparison_reads_the_bench_file(tmp_path):
    """Per configuration fp32 and bf16 Spearman in a table, the largest difference (by hand:
    |−0.30| > |+0.12|) and whether the ranking holds in a sentence that names the machine, from a
    file written as make bench writes it; no file: said so."""
    import json

    from compsem.csts.views import precision_comparison

    rec = {
        "train_rows": 6806,
        "measured": "2026-11-29T00:56:51Z",
        "machine": {"cpu_model": "AMD EPYC", "cpu_family": "26", "cpu_count": 2, "cpu_flags": ["avx2", "avx512_bf16"]},
        "configs": {
            "bi/mse": {
                "fp32_test_spearman": 50.0,
                "bf16_test_spearman": 50.12,
                "bf16_minus_fp32": 0.12,
                "fp32_examples_per_s": 150.4,
                "bf16_examples_per_s": 260.6,
            },
            "tri/quad+mse": {"fp32_test_spearman": 49.9, "bf16_test_spearman": 49.6, "bf16_minus_fp32": -0.3},
        },
        "utilisation": {"configs": {"bi/mse": {"fp32_loop_gflop_per_s": 111.0, "fp32_share_of_fp32_limit": 0.569}}},
    }
    path = tmp_path / "p.json"
    path.write_text(json.dumps(rec))
    v = precision_comparison(path)
    assert v["ft_prec_max_diff"] == pytest.approx(0.3)
    text = v["ft_prec_text"]
    assert text.startswith(
        "Measured by `make bench` on AMD Zen 5 (AMD EPYC), 2 cores, on 2026-11-29, with one seed per "
        "configuration and 6,806 training rows, the test"
    )
    assert (
        "differs by at most 0.30 points (tri/quad+mse)" in text and "ranking of the configurations is the same" in text
    )
    t = v["ft_prec_table"]
    assert t.loc["bi/mse"].to_dict() == {
        "Spearman fp32": "50.00",
        "Spearman bf16": "50.12",
        "bf16 − fp32": "+0.12",
        "examples/s fp32": "150",
        "examples/s bf16": "261",
        "loop GFLOP/s fp32 (share of its limit)": "111 (57 %)",
    }
    assert (
        t.loc["tri/quad+mse", "bf16 − fp32"] == "-0.30" and t.loc["tri/quad+mse", "examples/s fp32"] == "not measured"
    )
    rec["configs"]["tri/quad+mse"]["bf16_test_spearman"] = 50.5
    path.write_text(json.dumps(rec))
    assert "is not the same" in precision_comparison(path)["ft_prec_text"]
    absent = precision_comparison(tmp_path / "absent.json")
    assert "not measured" in absent["ft_prec_text"] and absent["ft_prec_table"] is None


def test_the_paired_table_holds_each_ordered_pair_and_follows_the_data():
    # two configurations, replicates made by hand: x − y is 2 in every replicate but one
    reps = {"x": np.array([3.0, 4.0, 5.0, 6.0]), "y": np.array([1.0, 2.0, 3.0, 4.0 + 3.0])}
    summary = pd.DataFrame({"config": ["x", "y"], "test_spearman_mean": [50.0, 46.5]})
    t = R.paired_table(summary, reps, level=0.5).set_index(["a", "b"])
    assert list(t.index) == [("x", "y"), ("y", "x")]
    # differences 2, 2, 2, -1: the 25 % and 75 % quantiles (linear) are 1.25 and 2.0
    assert t.loc[("x", "y"), ["difference", "low", "high"]].tolist() == pytest.approx([3.5, 1.25, 2.0])
    assert t.loc[("y", "x"), ["difference", "low", "high"]].tolist() == pytest.approx([-3.5, -2.0, -1.25])
    # contradicting data: y's replicates above x's, so the interval of x − y falls below zero
    flipped = R.paired_table(summary, {"x": reps["y"] - 5, "y": reps["x"]}, level=0.5).set_index(["a", "b"])
    assert flipped.loc[("x", "y"), "high"] < 0
    # no predictions recorded: an empty table with its columns
    assert list(R.paired_table(summary, {}).columns) == [
        "a",
        "b",
        "split",
        "difference",
        "low",
        "high",
        "level",
        "n_boot",
    ]


def test_a_control_is_shown_beside_the_sign_tests_never_among_the_encoders():
    # 20 pairs: the model `a` ranks every pair wrong (0 %), the bow control every pair right (100 %)
    df = _pairs(20)
    scores = {("a", "attached"): np.array([0.1, 0.9] * 20), ("bow", "attached"): np.array([0.9, 0.1] * 20)}
    out = R.zero_shot_ranking(TB.zero_shot_table(scores, df, n_boot=50), scores, df, ["a", "bow"], n_boot=100)
    chance = str(out["zs_chance_sentence"])
    assert chance.startswith("With the condition attached, the pair accuracy lies below chance (50 %) for `a` (0.0 %")
    assert "`bow` (100.0 %, p" not in chance  # bow is not tested as a model
    assert chance.endswith(" The control `bow` (100.0 %) is shown beside the models, not tested among them.")
    # the group's words follow the model alone: below chance, although the control lies above it
    assert str(out["zs_chance_summary"]).startswith("every encoder of the panel responds to the condition")


def test_the_zero_shot_range_and_counts_leave_the_control_out():
    # by hand: the model `a` at 0 % and 100 % rows, the bow control at 100 %; its range and counts are a's alone
    df = _pairs(4)
    scores = {
        ("a", "attached"): np.array([0.1, 0.9] * 4),
        ("a", "ignored"): np.array([0.5, 0.5] * 4),
        ("bow", "attached"): np.array([0.9, 0.1] * 4),
        ("bow", "ignored"): np.array([0.5, 0.5] * 4),
    }
    zs = TB.zero_shot_table(scores, df, n_boot=20)
    paper = pd.DataFrame({"model": ["X"], "csts_spearman": [1.0], "stsb_spearman": [80.0]})
    prior = pd.Series({"spearman": 10.0, "pair_accuracy": 60.0})
    v = R.zero_shot_values(zs, scores, df, ["a", "bow"], paper, prior, n_boot=20, template="{sentence} ({condition})")
    zs_first, scores_first = zs, dict(scores)
    assert (v["zs_pairacc_min"], v["zs_pairacc_max"], v["zs_n_attached"], v["zs_n_cells"]) == (0.0, 0.0, 1, 2)
    assert str(v["zs_controls_attached_text"]) == "the control bow: 100.0 %"
    # the encoders' attached rows (the course guide's lab compares its own with them), the control left out
    assert str(v["zs_attached_text"]) == "a 0.0 %" and str(v["zs_template"]) == '"{sentence} ({condition})"'
    # contradicting data: a second encoder that ranks every pair right; the words change
    scores[("b", "attached")], scores[("b", "ignored")] = scores[("bow", "attached")], scores[("a", "ignored")]
    zs = TB.zero_shot_table(scores, df, n_boot=20)
    v = R.zero_shot_values(zs, scores, df, ["a", "b", "bow"], paper, prior, n_boot=20)
    assert str(v["zs_attached_text"]) == "a 0.0 % and b 100.0 %" and str(v["zs_template"]) == "the chapter's default"
    assert str(v["zs_textpair_text"]) == "none in this run"
    # a text-pair row reads no template: named apart from the template rows
    scores[("a text pair", "attached")] = scores[("bow", "attached")]
    zs = TB.zero_shot_table(scores, df, n_boot=20)
    v = R.zero_shot_values(zs, scores, df, ["a", "b", "bow"], paper, prior, n_boot=20)
    assert (
        str(v["zs_attached_text"]) == "a 0.0 % and b 100.0 %" and str(v["zs_textpair_text"]) == "a text pair (100.0 %)"
    )
    # the first run again: 4 complete pairs, none tied: both counts are 4; contradicting data: 2 of the 4 pairs tied (equal labels)
    v = R.zero_shot_values(zs_first, scores_first, df, ["a", "bow"], paper, prior, n_boot=20)
    assert (v["zs_n_complete_pairs"], v["zs_n_pairs"]) == (4, 4)
    tied = df.assign(tied=[True, True, False, False, True, True, False, False])
    tied.loc[tied["tied"], "label"] = 3.0
    v = R.zero_shot_values(
        TB.zero_shot_table(scores_first, tied, n_boot=20), scores_first, tied, ["a", "bow"], paper, prior, n_boot=20
    )
    assert (v["zs_n_complete_pairs"], v["zs_n_pairs"]) == (4, 2)


def test_table8_counts_read_the_transform_column():
    import pandas as pd

    from compsem.csts.report import table8_counts

    t8 = pd.DataFrame({"transform": [True, False, True]})
    assert table8_counts(t8) == {"paper_t8_n_settings": 3, "paper_t8_n_transform": 2}
    flipped = pd.DataFrame({"transform": ["False", "False", "True", "False"]})  # read from a CSV: the words change
    assert table8_counts(flipped) == {"paper_t8_n_settings": 4, "paper_t8_n_transform": 1}
