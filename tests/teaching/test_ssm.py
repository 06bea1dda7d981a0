"""The hand-worked numbers of Part IV's teaching pages, recomputed with ``compsem.ssm``.

``book/part4_ssm_worked.md`` works a 3x3 entailment score matrix through D_rel, D_dis,
sparsity, RSA and accuracy; ``book/part4_ssm_exercises.md`` adds the Calinski-Harabasz index
and a variant of the matrix. Each number printed there is recomputed here and compared at the
printed rounding, and each printed string is looked up on its page, so that a change in the
library or on the page makes this test fail.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from compsem.ssm import data as ssm_data
from compsem.ssm import metrics as ssm
from compsem.ssm import tables as ssm_tables
from compsem.ssm.metrics import upper
from tests.helpers import ROOT, graded


WORKED = ROOT / "book" / "part4_ssm_worked.md"
EXERCISES = ROOT / "book" / "part4_ssm_exercises.md"
SVG = ROOT / "book" / "images" / "ssm_worked_graph.svg"

# the matrices printed on the worked-example page (rows = premise i, columns = hypothesis j)
R = np.array([[1.0, 0.9, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.0]])
R_REF = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
LABELS = np.array([0, 0, 1])  # cluster A = {s1, s2}, cluster B = {s3}
CATS = np.array(
    [
        ["identical", "inferential", "irrelevant"],
        ["inferential_reversed", "identical", "irrelevant"],
        ["irrelevant", "irrelevant", "identical"],
    ]
)


def _page(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _fmt(x: float, nd: int) -> str:
    return f"{x:.{nd}f}"


def _assert_printed(value: float, printed: str, page: str, where: Path):
    """``value`` rounds to ``printed``, and ``printed`` appears on the page."""
    nd = len(printed.split(".")[1]) if "." in printed else 0
    assert _fmt(value, nd) == printed, f"library gives {value!r}, {where.name} prints {printed}"
    assert re.search(rf"(?<![\d.]){re.escape(printed)}(?!\d)", page), f"{printed} not found on {where.name}"


# ------------------------------------------------------------------------------------------
# the worked example
# ------------------------------------------------------------------------------------------
def test_the_page_prints_the_matrices_tested_here():
    page = _page(WORKED)
    assert r"R = \begin{pmatrix} 1.0 & 0.9 & 0.1 \\ 0.3 & 1.0 & 0.2 \\ 0.1 & 0.2 & 1.0 \end{pmatrix}" in page
    assert r"R_{ref} = \begin{pmatrix} 1 & 1 & 0 \\ 0 & 1 & 0 \\ 0 & 0 & 1 \end{pmatrix}" in page
    code = "R = np.array([[1.0, 0.9, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.0]])"
    assert code in page


def test_the_figure_shows_the_same_scores():
    labels = re.findall(r"R\((\d),(\d)\)(?: = R\((\d),(\d)\))? = ([\d.]+)", _page(SVG))
    assert len(labels) == 4
    seen = set()
    for i, j, k, m, v in labels:
        for a, b in ((i, j), (k, m)):
            if a:
                assert R[int(a) - 1, int(b) - 1] == pytest.approx(float(v))
                seen.add((int(a), int(b)))
    assert seen == {(1, 2), (2, 1), (1, 3), (3, 1), (2, 3), (3, 2)}


def test_relatedness_and_discrepancy_matrices():
    D, D_ref = ssm.distances(R), ssm.distances(R_REF)
    np.testing.assert_allclose(D["rel"], [[0, 0.4, 0.9], [0.4, 0, 0.8], [0.9, 0.8, 0]], atol=1e-12)
    np.testing.assert_allclose(D_ref["rel"], [[0, 0.5, 1], [0.5, 0, 1], [1, 1, 0]], atol=1e-12)
    np.testing.assert_allclose(D["dis"], [[1, 0.4, 1], [0.4, 1, 1], [1, 1, 1]], atol=1e-12)
    np.testing.assert_allclose(D_ref["dis"], [[1, 0, 1], [0, 1, 1], [1, 1, 1]], atol=1e-12)
    page = _page(WORKED)
    for M in (
        r"D_{rel} = \begin{pmatrix} 0 & 0.4 & 0.9 \\ 0.4 & 0 & 0.8 \\ 0.9 & 0.8 & 0 \end{pmatrix}",
        r"D^{ref}_{rel} = \begin{pmatrix} 0 & 0.5 & 1 \\ 0.5 & 0 & 1 \\ 1 & 1 & 0 \end{pmatrix}",
        r"D_{dis} = \begin{pmatrix} 1 & 0.4 & 1 \\ 0.4 & 1 & 1 \\ 1 & 1 & 1 \end{pmatrix}",
        r"D^{ref}_{dis} = \begin{pmatrix} 1 & 0 & 1 \\ 0 & 1 & 1 \\ 1 & 1 & 1 \end{pmatrix}",
    ):
        assert M in page
    # the step-by-step lines
    assert r"D_{rel}(1, 2) &= 1 - \tfrac{0.9 + 0.3}{2} = 1 - 0.6 = 0.4" in page
    assert r"D_{dis}(1, 2) &= 1 - \lvert 0.9 - 0.3 \rvert = 1 - 0.6 = 0.4" in page


@pytest.mark.parametrize(
    "matrix, space, total, printed",
    [
        ("model", "rel", "4.8", "0.533"),
        ("reference", "rel", "4", "0.444"),
        ("model", "dis", "1.2", "0.133"),
        ("reference", "dis", "2", "0.222"),
    ],
)
def test_sparsity(matrix, space, total, printed):
    D = ssm.distances(R if matrix == "model" else R_REF)[space]
    page = _page(WORKED)
    assert np.abs(1 - D).sum() == pytest.approx(float(total))  # the numerator on the page
    assert rf"\tfrac{{{total}}}{{9}}" in page
    _assert_printed(ssm.sparsity(D), printed, page, WORKED)


def test_diagonal_share_of_sparsity_and_the_pool_size():
    # an "empty" scorer keeps only the diagonal: sparsity 1/N
    page = _page(WORKED)
    empty = np.eye(3)
    _assert_printed(ssm.sparsity(ssm.relatedness_distance(empty)), "0.333", _page(EXERCISES), EXERCISES)
    # the book's pool size is glued from chapter 40 (never typed), and the diagonal alone gives 1/N there
    pool = ssm_data.load_pool()
    glued = "{glue:text}`../notebooks/40_ssm_pool.ipynb::ssm_n_sentences:d` sentences"
    assert page.count(glued) == 2 and "just $1/N$" in page
    assert np.isclose(ssm.sparsity(ssm.relatedness_distance(np.eye(len(pool)))), 1 / len(pool))


def test_rsa_relatedness_step_by_step():
    D, D_ref = ssm.distances(R), ssm.distances(R_REF)
    a, b = upper(D["rel"]), upper(D_ref["rel"])
    np.testing.assert_allclose(a, [0.4, 0.9, 0.8])
    np.testing.assert_allclose(b, [0.5, 1, 1])
    assert a.mean() == pytest.approx(0.7) and b.mean() == pytest.approx(5 / 6)
    da, db = a - a.mean(), b - b.mean()
    np.testing.assert_allclose(da, [-0.3, 0.2, 0.1], atol=1e-12)
    np.testing.assert_allclose(db, [-1 / 3, 1 / 6, 1 / 6], atol=1e-12)
    assert (da * db).sum() == pytest.approx(0.15)
    assert (da**2).sum() == pytest.approx(0.14)
    assert (db**2).sum() == pytest.approx(1 / 6)
    page = _page(WORKED)
    _assert_printed(b.mean(), "0.833", page, WORKED)
    _assert_printed(np.sqrt(0.14 / 6), "0.1528", page, WORKED)
    _assert_printed(ssm.rsa(D["rel"], D_ref["rel"]), "0.982", page, WORKED)


def test_rsa_discrepancy_is_exactly_one():
    D, D_ref = ssm.distances(R), ssm.distances(R_REF)
    a, b = upper(D["dis"]), upper(D_ref["dis"])
    np.testing.assert_allclose(a, [0.4, 1, 1])
    np.testing.assert_allclose(b, [0, 1, 1])
    assert a.mean() == pytest.approx(0.8) and b.mean() == pytest.approx(2 / 3)
    np.testing.assert_allclose(a - a.mean(), 0.6 * (b - b.mean()), atol=1e-12)
    assert ssm.rsa(D["dis"], D_ref["dis"]) == pytest.approx(1.0)
    assert r"r_{dis} = 1" in _page(WORKED)


def test_accuracy_table():
    acc = ssm.entailment_accuracy(R, R_REF, CATS)
    assert acc["inferential"] == (1.0, 1)
    assert acc["inferential_reversed"] == (1.0, 1)
    assert acc["irrelevant"] == (1.0, 4)
    # the table rows: R and R_ref entries of each pair
    page = _page(WORKED)
    for (i, j), cat in {
        (1, 2): "inferential",
        (2, 1): "inferential (reversed)",
        (1, 3): "irrelevant",
        (2, 3): "irrelevant",
    }.items():
        r, rr = R[i - 1, j - 1], R_REF[i - 1, j - 1]
        yes = lambda v: "yes" if v > 0.5 else "no"  # noqa: E731
        assert f"| {cat} | {r:g} | {yes(r)} | {rr:g} | {yes(rr)} | ✓ |" in page


def test_ssm_table_agrees_with_the_pieces():
    rows = {r["space"]: r for r in ssm_tables.ssm_table(R, R_REF, LABELS)}
    assert rows["rel"]["sparsity"] == pytest.approx(4.8 / 9)
    assert rows["dis"]["sparsity"] == pytest.approx(1.2 / 9)
    assert rows["rel"]["rsa"] == pytest.approx(0.98198, abs=1e-5)


# ------------------------------------------------------------------------------------------
# the exercises
# ------------------------------------------------------------------------------------------
def _between_within(D, labels):
    labels = np.asarray(labels)
    centre = D.mean(axis=0)
    B = W = 0.0
    for k in np.unique(labels):
        rows = D[labels == k]
        ck = rows.mean(axis=0)
        B += len(rows) * ((ck - centre) ** 2).sum()
        W += ((rows - ck) ** 2).sum()
    return B, W


def test_exercise_1_calinski_harabasz_by_hand():
    page = _page(EXERCISES)
    D = ssm.distances(R)["rel"]
    B, W = _between_within(D, LABELS)
    np.testing.assert_allclose(D[:2].mean(axis=0), [0.2, 0.2, 0.85])
    np.testing.assert_allclose(D.mean(axis=0), np.array([1.3, 1.2, 1.7]) / 3)
    assert ((D[0] - D[:2].mean(axis=0)) ** 2).sum() == pytest.approx(0.0825)
    _assert_printed(W, "0.165", page, EXERCISES)
    cA = D[:2].mean(axis=0) - D.mean(axis=0)
    c3 = D[2] - D.mean(axis=0)
    _assert_printed((cA**2).sum(), "0.175", page, EXERCISES)
    _assert_printed((c3**2).sum(), "0.699", page, EXERCISES)
    _assert_printed(B, "1.048", page, EXERCISES)
    ch = ssm.calinski_harabasz(D, LABELS)
    assert ch == pytest.approx(B / W)  # K - 1 = N - K = 1
    _assert_printed(ch, "6.35", page, EXERCISES)
    # the reference, for comparison
    D_ref = ssm.distances(R_REF)["rel"]
    B_ref, W_ref = _between_within(D_ref, LABELS)
    _assert_printed(W_ref, "0.25", page, EXERCISES)
    _assert_printed(B_ref, "1.417", page, EXERCISES)
    _assert_printed(ssm.calinski_harabasz(D_ref, LABELS), "5.67", page, EXERCISES)
    assert W_ref / W > B_ref / B  # "W grows by a larger factor than B"


def test_exercise_2_the_reverse_inference():
    page = _page(EXERCISES)
    R2 = R.copy()
    R2[1, 0] = 0.6
    D, D_ref = ssm.distances(R2), ssm.distances(R_REF)
    assert D["rel"][0, 1] == pytest.approx(0.25) and D["dis"][0, 1] == pytest.approx(0.7)
    assert np.abs(1 - D["rel"]).sum() == pytest.approx(5.1)
    _assert_printed(ssm.sparsity(D["rel"]), "0.567", page, EXERCISES)
    _assert_printed(ssm.sparsity(D["dis"]), "0.067", page, EXERCISES)
    r_rel = ssm.rsa(D["rel"], D_ref["rel"])
    _assert_printed(r_rel, "0.990", page, EXERCISES)
    assert r_rel > ssm.rsa(ssm.distances(R)["rel"], D_ref["rel"])
    assert ssm.rsa(D["dis"], D_ref["dis"]) == pytest.approx(1.0)
    acc = ssm.entailment_accuracy(R2, R_REF, CATS)
    assert acc["inferential_reversed"] == (0.0, 1)
    assert acc["inferential"] == (1.0, 1)
    # the numbers quoted from the worked example
    for printed in ("0.533", "0.133", "0.982"):
        assert printed in page


def test_exercise_3_degenerate_scorers():
    empty = np.eye(3)
    D = ssm.distances(empty)
    assert ssm.sparsity(D["rel"]) == pytest.approx(1 / 3)
    assert (D["dis"] == 1).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(ssm.rsa(D["rel"], ssm.distances(R_REF)["rel"]))
    sym = (R + R.T) / 2  # any symmetric scorer
    D = ssm.distances(sym)
    assert (D["dis"] == 1).all() and ssm.sparsity(D["dis"]) == 0
    with pytest.warns(RuntimeWarning, match="constant"):
        assert np.isnan(ssm.rsa(D["dis"], ssm.distances(R_REF)["dis"]))
    assert "symmetric" not in ssm.distances(sym, symmetric=True) and "dis" not in ssm.distances(sym, symmetric=True)


def test_exercise_commands_name_real_parameters():
    """The rerun exercises name notebooks and parameters that exist."""
    import json

    page = _page(EXERCISES)
    for nb, params in (("42_ssm_metrics", ("models", "n_boot")), ("43_ssm_space", ("basis_seed", "zoom_model"))):
        assert f"notebooks/{nb}.ipynb" in page
        cells = json.loads((ROOT / "notebooks" / f"{nb}.ipynb").read_text())["cells"]
        first = next(c for c in cells if c["cell_type"] == "code")
        assert "parameters" in first["metadata"].get("tags", [])
        src = "".join(first["source"])
        for p in params:
            assert re.search(rf"^{p}\s*=", src, re.M), f"{nb} has no parameter {p}"
            assert f"-p {p} " in page


def test_exercise_4_sparsity_larger_means_denser():
    """Ex 5.4: the sparsity value grows as distances shrink (a denser space)."""
    near = ssm.distances(np.full((3, 3), 0.9) + 0.1 * np.eye(3))["rel"]  # every pair highly related
    far = ssm.distances(np.eye(3))["rel"]  # nothing related
    assert ssm.sparsity(near) > ssm.sparsity(far)
    assert "a *larger* value\n  means a *denser*, less sparse space" in _page(EXERCISES)


def test_exercise_4_symmetric_scorer_inferential_accuracies_add_up_to_one():
    rng = np.random.default_rng(0)
    n = 8
    S = rng.uniform(size=(n, n))
    S = (S + S.T) / 2  # a symmetric scorer
    np.fill_diagonal(S, 1.0)
    cats = np.full((n, n), "irrelevant", dtype=object)
    ref = np.eye(n)
    for i, j in ((0, 1), (2, 3), (4, 5), (6, 7), (1, 2)):
        cats[i, j], cats[j, i] = "inferential", "inferential_reversed"
        ref[i, j] = 1.0  # forward accepted, reverse rejected
    np.fill_diagonal(cats, "identical")
    acc = ssm.entailment_accuracy(S, ref, cats)
    assert acc["inferential"][0] + acc["inferential_reversed"][0] == pytest.approx(1.0)
    ref[1, 0] = 1.0  # a reverse the reference accepts too
    acc = ssm.entailment_accuracy(S, ref, cats)
    assert acc["inferential"][0] + acc["inferential_reversed"][0] != pytest.approx(1.0)
    assert "add up to exactly 1" in _page(EXERCISES)


def test_exercise_1_the_papers_simcse_clusters_more_than_humans():
    from compsem.ssm import report

    t = report.paper_table("table3_ssm").set_index("model")
    assert t.loc["SimCSE", "ch_rel"] > t.loc["Human", "ch_rel"]
    assert "SimCSE's\nrelatedness space clusters more strongly than the human one" in _page(EXERCISES)


def test_exercise_5_the_stress_does_not_depend_on_the_basis():
    """Ex 5.5: the layout and its stress come from D and mds_seed only; the basis seed picks
    sentences after the map is drawn."""
    import inspect

    from compsem.ssm import space

    assert list(inspect.signature(space.mds_layout).parameters) == ["D", "seed", "n_init", "max_iter"]
    D = ssm.distances(R)["rel"]
    assert space.mds_layout(D, seed=0)[1] == space.mds_layout(D.copy(), seed=0)[1]
    nb = (ROOT / "notebooks" / "43_ssm_space.ipynb").read_text()
    assert 'stress[\\"basis_seed\\"] = basis_seed' in nb and '\\"mds_stress\\"' in nb
    for name in ("accuracy", "ssm_metrics"):
        assert f'\\"ssm\\", \\"{name}\\"' in (ROOT / "notebooks" / "42_ssm_metrics.ipynb").read_text()
        assert f"results/ssm/{name}.csv" in _page(EXERCISES)


def test_autograded_answers_are_the_librarys():
    """The answers `make assignments` grades Exercises 1 and 2 against, recomputed as above."""
    D = ssm.distances(R)["rel"]
    B, W = _between_within(D, LABELS)
    D_ref = ssm.distances(R_REF)["rel"]
    graded(
        _page(EXERCISES),
        "ex-ssm-1",
        {
            "within_w": W,
            "between_b": B,
            "ch_model": ssm.calinski_harabasz(D, LABELS),
            "more_clustered": bool(ssm.calinski_harabasz(D, LABELS) > ssm.calinski_harabasz(D_ref, LABELS)),
        },
    )
    R2 = R.copy()
    R2[1, 0] = 0.6
    D2, Dr = ssm.distances(R2), ssm.distances(R_REF)
    graded(
        _page(EXERCISES),
        "ex-ssm-2",
        {
            "d_rel_12": D2["rel"][0, 1],
            "d_dis_12": D2["dis"][0, 1],
            "sparsity_rel": ssm.sparsity(D2["rel"]),
            "sparsity_dis": ssm.sparsity(D2["dis"]),
            "rsa_rel": ssm.rsa(D2["rel"], Dr["rel"]),
            "rsa_dis": ssm.rsa(D2["dis"], Dr["dis"]),
            "accuracy_reversed": ssm.entailment_accuracy(R2, R_REF, CATS)["inferential_reversed"][0],
        },
    )
