"""Finding 1: ``-p trust_remote_code False`` must never run a model folder's own code.

The folder below is a tiny BERT whose ``config.json`` points at a Python file of its own; that
file writes a marker when it is imported, so the marker appears exactly when the loader ran the
folder's code.
"""

import json
import shutil

import pytest

from compsem import embed
from compsem.book.running.params import check_parameters, parse_parameters
from compsem.encoders import check_available, get_encoder, resolve_models
from compsem.errors import check_trust_remote_code
from compsem.llm import HFGenerator
from tests.helpers import ROOT

BAD = ["False", "no", 0, "0", None, 1, "true"]

CODE = """
import pathlib
pathlib.Path({marker!r}).write_text("the folder's code ran")
from transformers import BertConfig, BertModel


class MarkerConfig(BertConfig):
    model_type = "bert"


class MarkerModel(BertModel):
    config_class = MarkerConfig
"""


@pytest.fixture
def remote_code_folder(tmp_path, tiny_bert):
    folder = tmp_path / "model"
    shutil.copytree(tiny_bert, folder)
    marker = tmp_path / "MARKER"
    (folder / "marker_code.py").write_text(CODE.format(marker=str(marker)))
    cfg = json.loads((folder / "config.json").read_text())
    cfg["auto_map"] = {"AutoConfig": "marker_code.MarkerConfig", "AutoModel": "marker_code.MarkerModel"}
    (folder / "config.json").write_text(json.dumps(cfg))
    return folder, marker


@pytest.mark.parametrize("value", BAD)
def test_anything_but_a_literal_bool_is_a_type_error_and_runs_nothing(remote_code_folder, value):
    folder, marker = remote_code_folder
    for call in (
        lambda: get_encoder(str(folder), trust_remote_code=value),
        lambda: embed(["a red car"], str(folder), trust_remote_code=value, cache=False),
        lambda: check_available([str(folder)], trust_remote_code=value),
        lambda: resolve_models([str(folder)], trust_remote_code=value),
        lambda: HFGenerator(str(folder), trust_remote_code=value),
    ):
        with pytest.raises(TypeError, match=r"trust_remote_code must be True or False, got"):
            call()
    assert not marker.exists()


def test_the_folder_really_runs_its_code_when_trusted_and_not_otherwise(remote_code_folder):
    folder, marker = remote_code_folder
    get_encoder(str(folder), trust_remote_code=False)  # the plain BERT class, the folder's code ignored
    assert not marker.exists()
    try:
        get_encoder(str(folder), trust_remote_code=True)
    except Exception:  # noqa: BLE001 - only the import of the code matters here
        pass
    assert marker.exists()  # the oracle: this folder does run code when allowed


def test_shared_check_accepts_only_true_and_false():
    assert check_trust_remote_code(True) is True and check_trust_remote_code(False) is False
    for value in BAD:
        with pytest.raises(TypeError, match=repr(value).replace("(", r"\(")):
            check_trust_remote_code(value, where="x")


@pytest.mark.parametrize("text", ["False", "no", "0", "True", "1"])
def test_command_line_value_must_be_a_json_bool(text):
    nb = ROOT / "notebooks" / "31_montague_single.ipynb"
    with pytest.raises(
        ValueError,
        match=r"parameter 'trust_remote_code' of 31_montague_single.ipynb: got .*"
        r"expected a JSON bool \(true or false\)",
    ):
        parse_parameters([("trust_remote_code", text)], nb)
    assert parse_parameters([("trust_remote_code", "false")], nb) == {"trust_remote_code": False}
    assert parse_parameters([("trust_remote_code", "true")], nb) == {"trust_remote_code": True}


def test_every_kind_of_default_is_checked():
    defaults = {"flag": False, "n": 250, "x": 0.25, "models": "panel", "seeds": [0], "over": {}, "cap": None}
    good = [
        {"flag": True},
        {"n": 3},
        {"n": None},
        {"x": 1},
        {"x": 0.5},
        {"models": ["bow"]},
        {"models": "paper"},
        {"seeds": [1, 2]},
        {"seeds": "paper"},
        {"over": {"lr": 1e-4}},
        {"cap": 10},
        {"cap": "anything"},
    ]
    for p in good:
        check_parameters(defaults, p)
    bad = [
        ({"flag": "False"}, "flag"),
        ({"flag": 0}, "flag"),
        ({"n": "3"}, "n"),
        ({"n": True}, "n"),
        ({"n": 2.5}, "n"),
        ({"x": "0.5"}, "x"),
        ({"x": False}, "x"),
        ({"models": 3}, "models"),
        ({"models": True}, "models"),
        ({"seeds": 0}, "seeds"),
        ({"over": []}, "over"),
    ]
    for p, name in bad:
        with pytest.raises(ValueError, match=f"parameter '{name}'") as err:
            check_parameters(defaults, p)
        assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="no parameter"):
        check_parameters(defaults, {"modles": ["bow"]})


def test_cross_study_pages_do_not_turn_a_string_into_true(monkeypatch):
    """The try-it and synthesis pages pass trust_remote_code through to the studies, checked
    first: a string or a number is refused before any study is asked."""
    from compsem.crossstudy import synthesis, tryit

    from compsem.studies import STUDIES

    seen = []
    study = STUDIES[-1]
    monkeypatch.setattr(study.module("report"), "try_it", lambda *a, trust_remote_code: seen.append(trust_remote_code))
    values = tryit.page_inputs()[study.name]
    tryit.compute(study, values, [], trust_remote_code=True)
    tryit.compute(study, values, [])
    assert seen == [True, False]
    for value in ("False", "no", 0, "0"):
        with pytest.raises(TypeError, match="trust_remote_code must be True or False"):
            tryit.compute(study, values, [], trust_remote_code=value)
        with pytest.raises(TypeError, match="trust_remote_code must be True or False"):
            synthesis.profile(["bow"], trust_remote_code=value)
    assert len(seen) == 2


def test_defaults_are_read_without_a_kernel_and_expressions_accept_anything(tmp_path):
    import nbformat

    from compsem.book.running.params import parameter_defaults

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell('flag = False\nn: int = 3\nlabel = "x".upper()  # an expression')
    cell.metadata["tags"] = ["parameters"]
    nb.cells = [cell]
    path = tmp_path / "p.ipynb"
    nbformat.write(nb, path)
    d = parameter_defaults(path)
    assert d["flag"] is False and d["n"] == 3
    check_parameters(d, {"label": 5})  # no literal default: not checked
    with pytest.raises(ValueError, match="parameter 'n'"):
        check_parameters(d, {"n": "3"})


@pytest.mark.parametrize("value", ["False", "no", 0, "0", None])
def test_csts_backbone_and_nli_loaders_refuse_a_non_bool(value):
    """The two loaders that call transformers themselves check the switch before anything loads."""
    from compsem.csts.models import load_backbone
    from compsem.ssm.nli import load_nli

    with pytest.raises(TypeError, match="trust_remote_code"):
        load_backbone("sbert-mini", trust_remote_code=value)
    with pytest.raises(TypeError, match="trust_remote_code"):
        load_nli("no-such-model", trust_remote_code=value)
