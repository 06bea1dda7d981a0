"""Part I figures: what each panel shows, counted by hand on tiny inputs."""

import matplotlib

matplotlib.use("Agg")  # noqa: E402  (tests draw off-screen; chapters never call matplotlib.use)

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from compsem import measures as M  # noqa: E402
from compsem.setcomp import plots  # noqa: E402
from compsem.setcomp.data import FilterReport  # noqa: E402


def test_position_histograms_one_panel_per_model_with_degenerate_counts():
    a = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    b = np.array([[0.0, 1.0], [0.0, 1.0], [2.0, 0.0]])  # the third pair is parallel: degenerate
    t = np.array([[1.0, 1.0], [0.0, 1.0], [1.0, 1.0]])
    g = M.plane_geometry(a, b, t, warn=False)
    fig = plots.plot_position_histograms({"m1": g, "m2": g}, title="x")
    assert [ax.get_title() for ax in fig.axes] == ["m1 (1 degenerate)", "m2 (1 degenerate)"]
    plt.close(fig)


def test_norm_ratio_panels_and_the_filter_scatter():
    fig = plots.plot_norm_ratios({"m": np.array([1.0, 0.9, np.nan])})
    assert [ax.get_title() for ax in fig.axes] == ["m"]
    plt.close(fig)
    rep = FilterReport.__new__(FilterReport)
    rep.encoders, rep.cos_prev_curr, rep.cos_curr_next = ["e"], {"e": np.array([0.1, 0.5])}, {"e": np.array([0.2, 0.1])}
    rep.mask = np.array([True, False])
    fig = plots.plot_filter(rep, 0.25)
    ax = fig.axes[0]
    assert ax.get_title() == "difference filter under e"
    assert sum(len(c.get_offsets()) for c in ax.collections) == 2  # one point per quintuple
    plt.close(fig)


def test_cells_summary_draws_one_interval_per_model():
    tab = pd.DataFrame(
        {
            "model": ["a", "b"],
            "measure": "cos",
            "cell": "TT",
            "pct": [10.0, 20.0],
            "low": [5.0, 15.0],
            "high": [15.0, 25.0],
        }
    )
    fig = plots.plot_cells_summary(tab, label="%")
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["a", "b"]
    plt.close(fig)
