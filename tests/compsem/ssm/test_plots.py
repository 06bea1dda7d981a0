"""Part IV's figures draw what they say: one panel per matrix or model, models in run order."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # tests only: no display

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from compsem.ssm import plots, report  # noqa: E402
from compsem.ssm.space import layouts, pick_basis  # noqa: E402
from compsem.ssm.study import REFERENCE, run  # noqa: E402


def test_figures_of_a_small_run(small_pool):
    r = run(["lexical", "bow"], pool_source=small_pool, progress=False)
    fig = plots.score_matrices(r.pool, r.matrices, first_clusters=2)
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles == [REFERENCE, "lexical", "bow"]
    assert fig.axes[0].images[0].get_array().shape == (12, 12)  # two clusters of six sentences
    tab, _ = report.ssm_metrics(r, n_boot=20)
    fig = plots.metric_intervals(tab)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["lexical", "bow"] and fig.axes[0].yaxis_inverted()  # first model on top
    basis = pick_basis(r.pool.clusters, seed=0)
    maps = layouts(r.with_reference, seed=0)
    fig = plots.space_maps(maps, basis, "dis")
    assert [ax.get_title() for ax in fig.axes if ax.get_title()] == [REFERENCE, "lexical"]
    fig = plots.zoom_maps(maps, r.pool, basis, "bow", k=4)
    assert len(fig.axes) == 3  # reference rel, bow rel, reference dis
    assert sum(len(ax.texts) for ax in fig.axes) == 12
    _, table = report.mean_scores(r)
    fig = plots.mean_scores_heatmap(table)
    assert len(fig.axes[0].texts) == 7 * 3  # every category x (reference, lexical, bow) annotated
    plots.reference_matrix(r.pool, r.R_ref)
    plt.close("all")
    assert np.isfinite(tab.rsa).all()
