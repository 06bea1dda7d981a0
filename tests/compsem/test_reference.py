"""One reader for the papers' numbers, one mapping of the papers' models."""

import pandas as pd
import pytest

from compsem import reference
from compsem.encoders import check_spec
from compsem.errors import DataError


def test_every_transcribed_table_reads_and_cites_its_source():
    for study in reference.STUDIES:
        names = reference.paper_tables(study)
        assert names, study
        for name in names:
            df = reference.paper_table(study, name)
            assert len(df) > 0
            cited = "source" in df.columns or df.attrs["comment"]
            assert cited, f"{study}_{name}.csv names no source"


def test_comment_lines_are_kept_apart_from_the_table(tmp_path, monkeypatch):
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "ssm_demo.csv").write_text("# Paper X, Table 9.\n# second line\na,b\n1,x # not a comment\n")
    monkeypatch.setenv("COMPSEM_DATA", str(tmp_path))
    df = reference.paper_table("ssm", "demo")
    assert list(df.columns) == ["a", "b"] and df.shape == (1, 2)
    assert df.loc[0, "b"] == "x # not a comment"      # a '#' inside a row is data
    assert df.attrs["comment"] == "Paper X, Table 9. second line"


def test_one_error_lists_what_the_study_has():
    with pytest.raises(DataError, match=r"available: .*c1_cells"):
        reference.paper_table("setcomp", "table99")
    with pytest.raises(DataError, match="studies are setcomp, csts, montague, ssm"):
        reference.paper_table("nope", "x")


def test_paper_models_schema_and_specs_parse():
    df = reference.paper_models()
    assert tuple(df.columns[:len(reference.PAPER_MODEL_COLUMNS)]) == reference.PAPER_MODEL_COLUMNS
    assert set(df["study"]) <= set(reference.STUDIES)
    assert df["same_model"].map(type).eq(bool).all() and df["trust_remote_code"].map(type).eq(bool).all()
    for spec in df["spec"]:
        if spec:
            check_spec(spec) if not spec.startswith(("gen:", "nli:", "lexical")) else None
    # a model without a runnable spec says why
    assert (df.loc[df["spec"] == "", "note"] != "").all()


def test_paper_row_and_panel():
    assert reference.paper_row("montague", "sbert-mini") == "MiniLM"
    assert reference.paper_row("setcomp", "sbert-mini") == "SBERT-mini"
    assert reference.paper_row("setcomp", "bow") is None
    assert "sbert-mini" in reference.paper_panel("setcomp")
    use = reference.paper_models("setcomp").set_index("spec").loc["use"]
    assert not use["same_model"]                       # ours is multilingual USE v3, not the paper's v4


def test_models_paper_resolves_per_study():
    from compsem import resolve_models

    assert resolve_models("paper", study="montague")[0] == "sbert-mini"
    assert resolve_models(["bow", "paper"], study="setcomp")[:2] == ["bow", "sbert-mini"]
    with pytest.raises(ValueError, match="needs the study"):
        resolve_models("paper")
