"""The sentence-space map helpers of Part IV."""

from __future__ import annotations

import numpy as np
import pytest

from compsem.ssm.metrics import relatedness_distance
from compsem.ssm.space import basis_colours, layouts, mates_near, mds_layout, pick_basis, zoom_window
from compsem.ssm.study import Scored

R3 = np.array([[1.0, 0.8, 0.3], [0.4, 1.0, 0.0], [0.3, 0.6, 1.0]])


def test_space_helpers():
    labels = np.repeat(np.arange(5), 3)
    b = pick_basis(labels, seed=3)
    assert len(set(labels[b])) == 3 and np.array_equal(b, pick_basis(labels, seed=3))
    D = relatedness_distance(R3)
    np.testing.assert_allclose(basis_colours(D, [0, 1, 2]), 1 - D.T)
    xy, stress = mds_layout(D, seed=0)
    assert xy.shape == (3, 2) and stress < 0.05  # three points embed exactly in a plane
    np.testing.assert_allclose(np.linalg.norm(xy[0] - xy[1]), 0.4, atol=0.02)


def test_zoom_window_is_the_nearest_on_the_map():
    xy = np.array([[0, 0], [5, 5], [0.5, 0], [0, 2], [3, 0]], float)
    np.testing.assert_array_equal(zoom_window(xy, 0, k=3), [0, 2, 3])


def test_layouts_leave_out_sentences_without_scores_and_have_no_dis_map_for_symmetric_models():
    R = np.array([[1, 0.9, 0.1, np.nan], [0.5, 1, 0.2, np.nan], [0.1, 0.3, 1, np.nan], [np.nan] * 4])
    S = np.array([[1, 0.7, 0.1], [0.7, 1, 0.2], [0.1, 0.2, 1]])
    maps = layouts({"a": Scored("a", R, False, "a"), "c": Scored("c", S, True, "c")}, seed=0)
    assert set(maps) == {("a", "rel"), ("a", "dis"), ("c", "rel")}
    lay = maps[("a", "rel")]
    assert lay.xy.shape == (3, 2) and lay.valid.tolist() == [True, True, True, False]
    np.testing.assert_allclose(lay.D, relatedness_distance(R[:3, :3]))
    assert lay.basis([0, 2]).tolist() == [0, 2] and 0 <= lay.stress1 < 0.05  # 3 points fit a plane


def test_mates_near_leaves_the_centre_out():
    # five points on a line; the centre 0 (cluster "a") is its own nearest point, at distance 0: of the k = 3
    # nearest (0, 1, 2) the others are 1 and 2, and only 1 is a cluster-mate -> (2, 1), not 2 of 3
    xy = np.array([[0.0, 0], [1, 0], [2, 0], [3, 0], [4, 0]])
    clusters = ["a", "a", "b", "a", "b"]
    assert mates_near(xy, 0, clusters, k=3) == (2, 1)
    # contradicting data: the mate moved out of the window -> none of the others is a mate
    assert mates_near(xy, 0, ["a", "b", "b", "a", "b"], k=3) == (2, 0)
    with pytest.raises(ValueError):
        mates_near(xy, 0, clusters[:4], k=3)
