"""One reader for the papers' numbers, one mapping of the papers' models."""

import pandas as pd
import pytest

from compsem import reference
from compsem.encoders import check_spec, split_options
from compsem.llm import is_generator_spec
from compsem.errors import DataError
from compsem.studies import STUDIES


def test_every_transcribed_table_reads_and_cites_its_source():
    """Every study has transcribed tables unless the registry declares them absent (then none)."""
    for s in STUDIES:
        study = s.name
        names = reference.paper_tables(study)
        assert bool(names) != ("paper_tables" in s.absent), study
        for name in names:
            df = reference.paper_table(study, name)
            assert len(df) > 0
            cited = "source" in df.columns or df.attrs["comment"]
            assert cited, f"{study}_{name}.csv names no source"


def test_comment_lines_are_kept_apart_from_the_table(tmp_path, monkeypatch):
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "ssm_demo.csv").write_text(
        "# Paper X, Table 9.\n# second line\na,b\n1,x # not a comment\n"
    )
    monkeypatch.setenv("COMPSEM_DATA", str(tmp_path))
    df = reference.paper_table("ssm", "demo")
    assert list(df.columns) == ["a", "b"] and df.shape == (1, 2)
    assert df.loc[0, "b"] == "x # not a comment"  # a '#' inside a row is data
    assert df.attrs["comment"] == "Paper X, Table 9. second line"


def test_one_error_lists_what_the_study_has():
    with pytest.raises(DataError, match=r"available: .*c1_cells"):
        reference.paper_table("setcomp", "table99")
    with pytest.raises(DataError, match="studies are " + ", ".join(s.name for s in STUDIES)):
        reference.paper_table("nope", "x")


def test_paper_models_schema_and_specs_parse():
    df = reference.paper_models()
    assert tuple(df.columns) == reference.PAPER_MODEL_COLUMNS
    # every study has its panel, unless the registry declares the paper's models absent
    assert set(df["study"]) == {s.name for s in STUDIES if "paper_models" not in s.absent}
    assert set(df["kind"]) <= set(reference.MODEL_KINDS)
    assert df["same_model"].map(type).eq(bool).all() and df["trust_remote_code"].map(type).eq(bool).all()
    for _, row in df[df["spec"] != ""].iterrows():
        if row["kind"] == "generator":
            assert is_generator_spec(row["spec"]), row["spec"]
        elif row["spec"].startswith("nli:"):
            base, _ = split_options(row["spec"])
            assert base[4:], row["spec"]
        else:
            assert check_spec(row["spec"]) == row["spec"]
    # a model without a runnable spec, or without a hub id, says why
    assert (df.loc[df["spec"] == "", "note"] != "").all()
    assert (df.loc[df["hub_id"] == "", "note"] != "").all()
    # trust_remote_code only where the row says so, and only OpenELM and the original OLMo need it
    assert set(df.loc[df["trust_remote_code"], "hub_id"]) == {"apple/OpenELM-3B", "allenai/OLMo-7B"}
    # every paper row name is a row of that study's transcribed tables (or a documented extra)
    for study in reference.STUDIES:
        names = set()
        for table in reference.paper_tables(study):
            names |= set(reference.paper_table(study, table).get("model", []))
        mapped = set(df.loc[(df["study"] == study) & (df["kind"] != "generator"), "paper_name"])
        assert mapped <= set(names), (study, mapped - set(names))


def test_paper_models_rejects_bad_rows(tmp_path, monkeypatch):
    (tmp_path / "reference" / "paper_models").mkdir(parents=True)
    header = ",".join(reference.PAPER_MODEL_COLUMNS)
    study, other = reference.STUDIES[0], reference.STUDIES[1]
    path = tmp_path / "reference" / "paper_models" / f"{study}.csv"
    path.write_text(f"# test\n{header}\n{study},X,,encoder,,bow,maybe,1,,MIT,false,\n")
    monkeypatch.setenv("COMPSEM_DATA", str(tmp_path))
    with pytest.raises(DataError, match="row 0, column 'same_model'"):
        reference.paper_models()
    path.write_text(f"{header}\n{study},X,,decoder,,bow,false,1,,MIT,false,\n")
    with pytest.raises(DataError, match="column 'kind'"):
        reference.paper_models()
    path.write_text(f"{header}\n{other},X,,encoder,,bow,false,1,,MIT,false,\n")  # a row in another study's file
    with pytest.raises(DataError, match=f"'{other}' is not the study of this file \\({study}\\)"):
        reference.paper_models(study)


def test_use_is_not_the_papers_use():
    use = reference.paper_models("setcomp").set_index("spec").loc["use"]
    assert not use["same_model"] and "v4" in use["note"] and "multilingual" in use["note"]


@pytest.mark.parametrize(
    "spec, study, row",
    [
        ("sbert-mini", "montague", "MiniLM"),
        ("sbert-mini", "setcomp", "SBERT-mini"),
        ("hf:sentence-transformers/all-MiniLM-L6-v2", "setcomp", "SBERT-mini"),
        ("sentence-transformers/all-MiniLM-L6-v2", "montague", "MiniLM"),
        ("hf:roberta-base", "setcomp", "RoBERTa"),
        ("st:FacebookAI/roberta-base", "csts", "RoBERTa-base"),
        ("hf:FacebookAI/roberta-base#pool=mean", "csts", "RoBERTa-base"),
        ("hf:princeton-nlp/sup-simcse-roberta-large", "ssm", "SimCSE"),
        ("nli:roberta-large-mnli", "ssm", "RoBERTa large"),
        ("vec:/somewhere/else/glove.6B.300d.txt", "montague", "GloVe"),
        ("glove-50d", "montague", "GloVe"),
        ("oa:text-embedding-ada-002", "setcomp", "GPT3"),
        ("gen:hf:google/flan-t5-xl", "csts", "Flan-T5-xl"),
        ("hf:allenai/OLMo-7B", "setcomp", "OLMo"),
        ("hf:allenai/OLMo-7B-hf", "setcomp", "OLMo"),
        ("use", "setcomp", "USE"),
        ("bow", "setcomp", None),
        ("use", "montague", None),
        ("hf:roberta-large", "setcomp", None),
    ],
)
def test_paper_row_maps_any_spec_form(spec, study, row):
    assert reference.paper_row(study, spec) == row


def test_paper_match_gives_variant_and_identity():
    hit = reference.paper_match("ssm", "nli:FacebookAI/roberta-large-mnli")
    assert (hit["paper_name"], hit["paper_variant"], hit["same_model"]) == ("RoBERTa large", "MNLI", False)
    assert reference.paper_match("csts", "hf:princeton-nlp/sup-simcse-roberta-large")["same_model"] is True
    assert reference.paper_match("setcomp", "") is None


def test_paper_panel_per_kind_and_trust():
    enc = reference.paper_panel("setcomp")
    assert enc[:3] == ["use", "sbert-l", "sbert-mini"] and "oa:text-embedding-ada-002" in enc
    assert len(enc) == 14  # 16 paper encoders less InferSent and LASER
    assert "hf:allenai/OLMo-7B-hf" in enc and "hf:allenai/OLMo-7B" not in enc  # one row per paper model
    assert any(s.startswith("hf:apple/OpenELM-3B") for s in enc)  # kept: check_available says it needs remote code
    assert reference.paper_panel("setcomp", kind="generator") == ["gen:openai:gpt-3.5-turbo"]
    assert len(reference.paper_panel("csts", kind="generator")) == 10
    assert reference.paper_panel("montague") == [
        "st:sentence-transformers/stsb-bert-base",
        "st:sentence-transformers/all-distilroberta-v1",
        "st:sentence-transformers/sentence-t5-base",
        "st:sentence-transformers/facebook-dpr-ctx_encoder-single-nq-base",
        "st:sentence-transformers/LaBSE",
        "sbert-mini",
        "vec:glove.6B.300d.txt",
        "vec:GoogleNews-vectors-negative300.bin",
    ]
    assert all(s.startswith("nli:") for s in reference.paper_panel("ssm", kind="nli"))
    assert len(reference.paper_panel("ssm", kind=None)) == 7
    with pytest.raises(ValueError, match="unknown model kind"):
        reference.paper_panel("ssm", kind="scorer")


@pytest.mark.parametrize("study", [s.name for s in STUDIES if "paper_models" not in s.absent])
def test_models_paper_resolves_per_study(study):
    """Every study with the paper's models (the registry does not declare them absent)."""
    from compsem import resolve_models

    kinds = set(reference.paper_models(study)["kind"]) - {"generator"}
    assert kinds, f"{study} has no encoder or NLI model in its paper panel"
    for kind in kinds:
        specs = resolve_models("paper", study=study, kind=kind)
        assert specs == reference.paper_panel(study, kind=kind) and specs


def test_a_study_without_a_paper_panel_runs_nothing_for_paper(tmp_path, monkeypatch):
    """No data/reference/paper_models/<study>.csv: "this study has no paper numbers" is a valid
    state, so models="paper" is empty rather than an error; an empty list of models still is one."""
    from compsem import resolve_models

    (tmp_path / "reference").mkdir()
    monkeypatch.setenv("COMPSEM_DATA", str(tmp_path))
    study = reference.STUDIES[0]
    assert reference.paper_models(study).empty and list(reference.paper_models(study).columns) == list(
        reference.PAPER_MODEL_COLUMNS
    )
    assert resolve_models("paper", study=study) == []
    assert resolve_models(["paper", "bow"], study=study) == ["bow"]
    with pytest.raises(ValueError, match="models is empty"):
        resolve_models([], study=study)


def test_models_paper_mixes_with_specs():
    from compsem import resolve_models

    assert resolve_models(["bow", "paper"], study="setcomp")[:3] == ["bow", "use", "sbert-l"]
    assert resolve_models(["gen:hf:/tmp/x", "paper"], study="csts", kind="generator")[:2] == [
        "gen:hf:/tmp/x",
        "gen:hf:google/flan-t5-small",
    ]
    with pytest.raises(ValueError, match="needs the study"):
        resolve_models("paper")
