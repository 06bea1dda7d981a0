"""Part III figures (compsem/montague/plots.py): what each panel shows, on hand-made tables."""

import matplotlib

matplotlib.use("Agg")  # noqa: E402  (tests draw off-screen; chapters never call matplotlib.use)

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from compsem.montague import plots  # noqa: E402
from compsem.montague.data import CATEGORIES  # noqa: E402

CATS = list(CATEGORIES)


def _pairs(model, base):
    return pd.DataFrame(
        [
            {"model": model, "type1": a, "type2": b, "consistency": base + 0.01 * i + 0.001 * j}
            for i, a in enumerate(CATS)
            for j, b in enumerate(CATS)
        ]
    )


def test_a_diverging_type_matrix_spans_the_largest_deviation_around_its_centre():
    m = pd.DataFrame(np.full((len(CATS), len(CATS)), 0.5), index=CATS, columns=CATS)
    m.iloc[0, 1], m.iloc[2, 3] = 0.8, 0.4  # largest deviation from 0.5: 0.3
    fig, ax = plt.subplots()
    plots.plot_type_matrix(m, ax, center=0.5, fmt="{:+.2f}")
    assert ax.collections[0].get_clim() == pytest.approx((0.2, 0.8))
    assert (ax.get_ylabel(), ax.get_xlabel()) == ("type of a1", "type of a2")
    plt.close(fig)


def test_one_type_matrix_per_model_titled_by_it():
    cells = pd.concat([_pairs("bow", 0.1), _pairs("use", 0.5)])
    fig = plots.plot_type_matrices(cells, ["bow", "use"], title="pairs: {model}")
    assert [ax.get_title() for ax in fig.axes if ax.get_title()] == ["pairs: bow", "pairs: use"]
    plt.close(fig)


def test_classes_draw_the_papers_values_as_black_markers_in_class_order():
    cells = pd.DataFrame({"model": "bow", "category": CATS[::-1], "consistency": 0.5, "ci_low": 0.4, "ci_high": 0.6})
    paper = pd.DataFrame({"model": "MiniLM", "category": CATS, "value": np.linspace(0.1, 0.9, len(CATS))})
    fig, ax = plt.subplots()
    plots.plot_classes(cells, paper, ylabel="consistency", ax=ax)
    marks = [c for c in ax.collections if c.get_label() == "paper: MiniLM"]
    assert len(marks) == 1
    np.testing.assert_allclose(marks[0].get_offsets()[:, 1], np.linspace(0.1, 0.9, len(CATS)))
    assert ax.get_ylim() == (-0.02, 1.05)
    plt.close(fig)


def test_the_set_diagrams_are_one_panel_per_class():
    axes = plots.plot_set_diagrams()
    assert len(axes) == 4 and [a.get_title().split("\n")[1] for a in axes] == [
        "(red dog)",
        "(skilful student)",
        "(counterfeit law)",
        "(alleged king)",
    ]
    plt.close("all")


def test_the_intersective_panel_draws_p_as_the_whole_overlap():
    """P = A ∩ N: the dashed outline is the two circles' own arcs, each clipped to the other
    circle (a smaller ellipse inside the lens would draw P as a proper subset of A ∩ N)."""
    from matplotlib.patches import Circle

    axes = plots.plot_set_diagrams()
    patches = axes[0].patches
    filled = [p for p in patches if isinstance(p, Circle) and p.get_facecolor()[3] > 0]
    dashed = [p for p in patches if p.get_linestyle() == "--"]
    assert len(filled) == 2 and len(dashed) == 2
    for arc, _other in zip(dashed, filled[::-1]):
        assert isinstance(arc, Circle)
        assert arc.get_clip_path() is not None
    assert sorted((p.center, p.radius) for p in dashed) == sorted((p.center, p.radius) for p in filled)
    # the other classes keep one dashed ellipse for P, unclipped
    assert all(sum(p.get_linestyle() == "--" for p in ax.patches) == 1 for ax in axes[1:])
    plt.close("all")
