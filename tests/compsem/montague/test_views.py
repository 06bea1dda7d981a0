"""Tests of compsem.montague.views: what each Part III chapter computes from one run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from compsem import montague as mt
from tests.compsem.montague.toy import small_vocab
from tests.helpers.fake_encoders import seeded_embed_fn


@pytest.fixture(scope="module")
def run():
    return mt.study.run(["a", "b"], vocab=small_vocab(), embed_fn=seeded_embed_fn(dim=6), progress=False)


def test_tie_rates_weight_cells_by_their_counts():
    cells = pd.DataFrame({"model": ["m", "m", "k"], "tie_rate": [0.5, 0.0, 1.0], "n": [2, 6, 4]})
    # by hand: m (0.5 * 2 + 0) / 8 = 0.125; k 1.0
    assert mt.views.tie_rates(cells).to_dict() == {"m": 0.125, "k": 1.0}


def test_pairs_view_diagonal_is_one_half_without_ties(run):
    view = mt.views.pairs(run, n_boot=10, n_perm=20)
    d = view.diagonal
    assert list(d.index) == ["a", "b"] and (d.overall_tie_rate == 0).all()
    assert np.allclose(d.drop(columns="overall_tie_rate").to_numpy(), 0.5)
    # 10 adjectives, 4 nouns; official reading: n2 > n1, 6 noun pairs per ordered adjective pair
    assert view.combinations.loc["a", "valid combinations"] == 10 * 9 * 6
    assert list(view.si_row.columns) == ["S-NI", "NS-Pl", "NS-Pr", "A"]
    assert view.scores.shape == (10, 3)


def test_single_view_without_a_paper_model_has_empty_reproductions(run):
    view = mt.views.single(run, n_boot=10, n_perm=20)
    assert view.cmp1.empty and view.cmp6.empty and view.dec.empty
    assert set(view.an.reading) == {"official"} and set(view.an_all.reading) == {"official", "equations"}
    assert len(view.aan) == 2 * 25


def test_phrases_view_summary_and_geometry(run):
    view = mt.views.phrases(run)
    assert list(view.summary.model) == ["a", "b"] and (view.summary.dim == 6).all()
    assert len(view.geo) == 10 * 4 and list(view.geo_means.index) == list(mt.data.CATEGORIES)


def test_views_save_the_chapters_tables(run, tmp_path, monkeypatch):
    monkeypatch.setenv("COMPSEM_RESULTS", str(tmp_path))
    mt.views.nonsub(run, n_boot=10, n_perm=20).save()
    saved = sorted(p.name for p in (tmp_path / "montague").iterdir())
    assert saved == [
        "nonsub_category_tests.csv",
        "nonsub_category_tests.json",
        "nonsubsective.csv",
        "nonsubsective.json",
    ]  # no paper model: nothing beside the paper
    assert len(pd.read_csv(tmp_path / "montague" / "nonsubsective.csv")) == 2 * 2 * 5
