"""The figure helpers draw what they are given."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from compsem import figures  # noqa: E402


def test_model_colours_are_stable_and_distinct():
    a = figures.model_colors(["bow", "sbert-mini", "hf:x"])
    b = figures.model_colors(["sbert-mini", "hf:y", "bow", "hf:x"])
    assert a["bow"] == b["bow"] and a["sbert-mini"] == b["sbert-mini"]
    assert len({tuple(c) for c in b.values()}) == 4


def test_interval_plot_draws_each_estimate_and_interval():
    df = pd.DataFrame(
        {
            "criterion": ["C1", "C2", "C1", "C2"],
            "model": ["m1", "m1", "m2", "m2"],
            "value": [10.0, 20.0, 30.0, 40.0],
            "low": [8.0, 15.0, 25.0, 39.0],
            "high": [12.0, 21.0, 31.0, 44.0],
        }
    )
    figures.set_theme()
    ax = figures.interval_plot(df, x="criterion", y="value", low="low", high="high", hue="model", reference=50)
    lines = [c for c in ax.containers]
    assert len(lines) == 2  # one errorbar container per model
    ys = np.concatenate([c.lines[0].get_ydata() for c in lines])
    assert sorted(ys) == [10.0, 20.0, 30.0, 40.0]
    segs = lines[0].lines[2][0].get_segments()  # m1's bars: from low to high
    assert [tuple(s[:, 1]) for s in segs] == [(8.0, 12.0), (15.0, 21.0)]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["C1", "C2"]
    plt.close("all")


def test_heatmap_annotates_finite_cells_only():
    m = pd.DataFrame([[0.5, np.nan], [0.25, 1.0]], index=["a", "b"], columns=["x", "y"])
    ax = figures.heatmap(m, center=0.5)
    assert sorted(t.get_text() for t in ax.texts) == ["0.25", "0.50", "1.00"]
    plt.close("all")


def test_heatmap_shows_given_texts_over_colours():
    colours = pd.DataFrame([[0.0, 1.0], [1.0, np.nan]], index=["a", "b"], columns=["x", "y"])
    texts = pd.DataFrame([["71", "0.25"], ["80", "–"]], index=["a", "b"], columns=["x", "y"])
    ax = figures.heatmap(colours, annot=texts, cbar=False)
    assert sorted(t.get_text() for t in ax.texts) == ["0.25", "71", "80"]  # the NaN cell stays blank
    plt.close("all")


def test_plane_plot_puts_the_vectors_where_the_basis_says():
    # a = (1,0,0) gives b1 = e1; b = (1,1,0) gives b2 = e2, so B sits at (1, 1); v = (0,1,1)
    # projects to (v·b1, v·b2) = (0, 1).
    ax = figures.plane_plot(np.array([1.0, 0, 0]), np.array([1.0, 1, 0]), np.array([0.0, 1, 1]), title="t")
    ends = [tuple(np.round(a.xy, 9)) for a in ax.texts if hasattr(a, "arrow_patch") and a.arrow_patch is not None]
    assert ends == [(1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
    assert [t.get_text() for t in ax.texts if not hasattr(t, "arrow_patch")] == [" A", " B", " P(C)"]
    plt.close("all")


def test_strip_plot_draws_each_point_and_each_group_mean():
    data = pd.DataFrame({"cls": ["b", "a", "a", "a", "c"], "score": [0.9, 0.0, 0.3, 0.6, np.nan]})
    ax = figures.strip_plot(data, x="cls", y="score", order=["a", "b", "c"], reference=0.5)
    pts = [c.get_offsets() for c in ax.collections if type(c).__name__ == "PathCollection"]
    # group a: three points spread evenly around x = 0; group b: one at x = 1
    a = np.asarray(pts[0])
    assert np.allclose(a[:, 0], [-0.2, 0.0, 0.2]) and np.allclose(a[:, 1], [0.0, 0.3, 0.6])
    assert np.allclose(np.asarray(pts[1]), [[1.0, 0.9]])
    means = [seg for c in ax.collections if type(c).__name__ == "LineCollection" for seg in c.get_segments()]
    assert [round(float(s[0][1]), 6) for s in means] == [0.3, 0.9]  # c has only NaN: no bar
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    plt.close("all")


def test_subplot_grid_switches_off_the_unused_panels():
    fig, axes = figures.subplot_grid(3, ncol=2, panel=(2, 1))
    assert len(axes) == 3 and len(fig.axes) == 4 and not fig.axes[3].axison
    assert tuple(fig.get_size_inches()) == (4.0, 2.0)
    fig1, axes1 = figures.subplot_grid(1)
    assert len(axes1) == 1 and tuple(fig1.get_size_inches()) == (4.2, 3.9)
    with pytest.raises(ValueError, match="at least one panel"):
        figures.subplot_grid(0)
    plt.close("all")


def test_shown_closes_the_figure_and_returns_it():
    import matplotlib.pyplot as plt

    from compsem import figures

    fig, _ = plt.subplots()
    assert plt.fignum_exists(fig.number)
    assert figures.shown(fig) is fig and not plt.fignum_exists(fig.number)
