"""The Part IV sentence pool, the project's reference judgements and their loaders' errors."""

from __future__ import annotations

import collections

import numpy as np
import pandas as pd
import pytest

from compsem.errors import DataError
from compsem.paths import data_dir
from compsem.ssm.data import CATEGORIES, load_pool, load_reference, pair_categories

HEADER = "sentence_id,cluster,role,text\n"
GOOD = (
    HEADER + "p1,1,premise,The cat slept on the warm mat.\n"
    "s1,1,synonymous,On the warm mat the cat slept.\n"
    "i1,1,inferential,A cat was sleeping.\n"
    "p2,2,premise,Rain fell on the old town all night.\n"
    "i2,2,inferential,It rained.\n"
)


def _write(tmp_path, text, name="pool.csv"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_small_pool_categories_and_reference(tmp_path):
    pool = load_pool(_write(tmp_path, GOOD))
    assert len(pool) == 5 and pool.n_clusters == 2
    cats = pair_categories(pool)
    assert cats[0, 1] == "synonymous" and cats[1, 0] == "synonymous_reversed"
    assert cats[0, 2] == "inferential" and cats[2, 0] == "inferential_reversed"
    assert cats[1, 2] == "within_cluster" and cats[0, 3] == "irrelevant" and cats[4, 4] == "identical"
    judg = _write(
        tmp_path,
        "premise_id,hypothesis_id,category,score\np1,s1,synonymous,1\ni1,p1,inferential_reversed,0.3\n",
        "j.csv",
    )
    R = load_reference(pool, judg)
    expected = np.eye(5)
    expected[0, 1], expected[2, 0] = 1.0, 0.3
    np.testing.assert_array_equal(R, expected)


@pytest.mark.parametrize(
    "text, row, column, match",
    [
        (HEADER.replace(",role", ",kind") + "p1,1,premise,x y z\n", 1, "role", "missing column"),
        (GOOD + "p3,3,premise,   \n", 7, "text", "empty text"),
        (GOOD + "p3,three,premise,Some text here.\n", 7, "cluster", "integer"),
        (GOOD + "p3,3,hypothesis,Some text here.\n", 7, "role", "not one of"),
        (GOOD + "p1,3,premise,Some text here.\n", 7, "sentence_id", "duplicate id"),
        (GOOD + "p3,2,synonymous,it rained.\n", 7, "text", "duplicate of the sentence at row 6"),
        (GOOD + "p3,2,premise,A second premise.\n", 5, "role", "cluster 2 has 2 premises"),
    ],
)
def test_pool_loader_errors_name_file_row_column(tmp_path, text, row, column, match):
    path = _write(tmp_path, text)
    with pytest.raises(DataError, match=match) as err:
        load_pool(path)
    assert err.value.row == row and err.value.column == column and str(path) in str(err.value)
    assert f"row {row}" in str(err.value) and column in str(err.value)


def test_missing_file_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        load_pool(tmp_path / "nope.csv")


@pytest.mark.parametrize(
    "line, column, match",
    [
        ("p1,zz,synonymous,1", "hypothesis_id", "unknown sentence id"),
        ("p1,s1,synonymous,0.5", "score", "not on the scale"),
        ("p1,s1,synonymous,high", "score", "not a number"),
        ("p1,s1,inferential,1", "category", "pool makes this pair 'synonymous'"),
    ],
)
def test_judgement_loader_errors(tmp_path, line, column, match):
    pool = load_pool(_write(tmp_path, GOOD))
    judg = _write(tmp_path, "premise_id,hypothesis_id,category,score\n" + line + "\n", "j.csv")
    with pytest.raises(DataError, match=match) as err:
        load_reference(pool, judg)
    assert err.value.row == 2 and err.value.column == column


def test_shipped_pool_meets_the_spec():
    pool = load_pool()
    R = load_reference(pool)
    assert pool.n_clusters >= 30 and 230 <= len(pool) <= 300
    roles = collections.Counter(zip(pool.clusters, pool.roles))
    for c in np.unique(pool.clusters):
        assert roles[(c, "premise")] == 1
        assert 2 <= roles[(c, "synonymous")] <= 5 and 3 <= roles[(c, "inferential")] <= 5
    cats = pair_categories(pool)
    # every premise-hypothesis pair is judged in both directions, on the four-option scale
    for cat in CATEGORIES[:4]:
        assert (cats == cat).sum() == pool.roles.count(cat.split("_")[0])
    labelled = np.isin(cats, CATEGORIES[:4])
    judged = pd.read_csv(data_dir("ssm") / "judgements.csv")
    assert len(judged) == labelled.sum()  # the loader rejects repeats, so every pair is judged once
    assert set(np.round(R[labelled], 3)) <= {0.0, 0.3, 0.7, 1.0}
    assert (R[~labelled & (cats != "identical")] == 0).all() and (np.diag(R) == 1).all()
    assert len(pool.checksum) == 16


def test_datasheet_and_landing_page_numbers_match_the_data():

    from compsem.paths import repo_root

    pool = load_pool()
    cats = pair_categories(pool)
    n_judged = int(np.isin(cats, CATEGORIES[:4]).sum())
    sheet = (data_dir("ssm") / "DATASHEET.md").read_text()
    assert f"{len(pool)} English sentences in {pool.n_clusters} clusters" in sheet
    assert f"{n_judged} graded judgements" in sheet
    assert f"{int((cats == 'within_cluster').sum()):,} ordered pairs" in sheet
    from compsem.ssm.report import role_range

    for role in ("synonymous", "inferential"):  # "2 to 4" in the data is "2–4" in the sheet
        lo, _, hi = role_range(pool, role).partition(" to ")
        assert f"{lo}–{hi}\n  *{role}*" in sheet or f"{lo}–{hi} *{role}*" in sheet, role
    page = (repo_root() / "book" / "part4_ssm.md").read_text()
    assert f"{len(pool)} sentences in {pool.n_clusters} clusters" in page
    # the count beside the one annotator is glued from chapter 40 (whose values test_report checks)
    assert (
        f"{n_judged} premise" in page
        and "and {glue:text}`../notebooks/40_ssm_pool.ipynb::ssm_n_sentences:d` sentences" in page
    )
    assert f"{len(pool) ** 2:,} requests for our pool" in page  # the LLM scorer asks every ordered pair


def test_load_study_reads_the_judgements_beside_the_pool(tmp_path):
    from compsem.ssm.data import load_study

    pool_path = _write(tmp_path, GOOD)
    _write(tmp_path, "premise_id,hypothesis_id,category,score\np2,i2,inferential,0.7\n", "judgements.csv")
    pool, R, cats = load_study(pool_path)
    assert len(pool) == 5 and R[3, 4] == 0.7 and cats[3, 4] == "inferential" and R.sum() == 5 + 0.7


def test_unique_texts_and_the_inverse_index():
    from compsem.ssm.data import unique_texts

    uniq, inv = unique_texts(["b", "a", "b", "c", "a"])
    assert uniq == ["b", "a", "c"] and inv.tolist() == [0, 1, 0, 2, 1]
    assert [uniq[k] for k in inv] == ["b", "a", "b", "c", "a"]
    with pytest.raises(ValueError, match="no texts"):
        unique_texts([])
