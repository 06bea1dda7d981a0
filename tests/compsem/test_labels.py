"""Column headers and cells for people (compsem.labels): one label dictionary, a refusal for an
identifier without a label, containers written as words."""

from __future__ import annotations

import pandas as pd
import pytest

from compsem import labels
from compsem.errors import CompsemError
from compsem.labels import LabelError, cell, is_container, is_identifier, label, labelled


def test_a_known_name_gets_its_words_and_extra_wins():
    assert label("n_seeds") == "seeds"
    assert label("test_spearman") == "test Spearman (×100)"
    assert label("n_seeds", {"n_seeds": "runs (seeds)"}) == "runs (seeds)"
    assert label("model") == "model"  # already a word: kept


def test_an_identifier_without_a_label_is_refused_naming_it():
    with pytest.raises(LabelError, match="'zz_unknown_col' has no label") as e:
        label("zz_unknown_col")
    assert isinstance(e.value, CompsemError)
    assert label("zz_unknown_col", {"zz_unknown_col": "unknown (units)"}) == "unknown (units)"


def test_a_model_spec_as_a_header_passes_through():
    out = labelled(pd.DataFrame({"nli:/tmp/run_1/nli": [1.0]}, index=pd.Index(["E"], name="category")))
    assert list(out.columns) == ["nli:/tmp/run_1/nli"]


def test_every_label_of_the_dictionary_reads_as_words():
    assert [k for k, v in labels.LABELS.items() if is_identifier(v)] == []


def test_labelled_renames_every_header_level_and_the_index_names():
    df = pd.DataFrame(
        {("n_case", "a_larger"): [3], ("n_case", "comparable"): [4]}, index=pd.Index(["bow"], name="model")
    )
    df.columns.names = ["quantity", "norm_case"]
    out = labelled(df, {"quantity": "what"})
    assert list(out.columns) == [("samples in the case", "A larger"), ("samples in the case", "comparable")]
    assert list(out.columns.names) == ["what", "case of the norms"] and out.index.name == "model"
    assert out.iloc[0, 0] == 3 and list(df.columns)[0] == ("n_case", "a_larger")  # values kept, input untouched


def test_style_keys_its_formats_by_the_codes_names():
    html = labels.style(pd.DataFrame({"gpu_hours": [1.23456]}), {"gpu_hours": "{:.2f}"}).to_html()
    assert "GPU hours (estimate)" in html and "1.23" in html and "1.2346" not in html and "gpu_hours" not in html


@pytest.mark.parametrize(
    "text, expected",
    [
        ("n_case", True),
        ("test_spearman_mean", True),
        ("hours_on_16_gpus", True),
        ("samples in the case", False),
        ("D_rel", False),
        ("S_curr", False),
        ("sbert-mini", False),
        ("test Spearman (×100)", False),
        ("gen:hf:Qwen2.5-7B", False),
        # a model spec or path a reader gives is shown as it is (chapter 41 with nli:/some/folder_name)
        ("nli:/tmp/test_chapter_41/nli", False),
        ("st:org/all_mini_lm", False),
        ("see my_model: a path", True),
    ],
)
def test_an_identifier_is_lower_case_words_joined_by_underscores(text, expected):
    assert is_identifier(text) is expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("{'steps': 64, 'blocks': 4}", True),
        ("['avx2', 'avx512f', 'avx512_bf16']", True),
        ("[{'path': 'unsorted', 'repeat': 0}]", True),
        ("(1, 2, 3)", True),
        ("[121.35, 116.86, 106.88, 129.6]", True),
        ("{1, 2}", True),
        ("runs: ['a', 'b']", True),  # a container inside words
        ("np.float64(0.5)", True),
        ("[2.2, 5.9]", False),  # an interval: two ordered numbers
        ("0.55 [0.50, 0.60]", False),
        ("(0.1, 0.3)", False),
        ("avx2, avx512f", False),
        ("61.3", False),
        ("bi/quad+mse", False),
        ("(none)", False),
    ],
)
def test_a_container_cell_is_found_and_an_interval_is_not(text, expected):
    assert is_container(text) is expected


def test_a_container_is_written_as_words():
    assert cell(["avx2", "avx512f"]) == "avx2, avx512f"
    assert cell({"steps": 64, "n_seeds": 3, "warm_up": 0.1}) == "steps 64, seeds 3, warm up 0.1"
    assert cell((1, 2)) == "1, 2" and cell({"b", "a"}) == "a, b" and cell(7) == "7"
    assert not is_container(cell({"a": [1, 2]}))
