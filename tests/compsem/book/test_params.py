"""compsem/book/running/params.py: -p values parsed as JSON, read against the parameters cell's defaults
(the hardening cases of issue 19 are in tests/compsem/security/test_trust_remote_code.py)."""

import json

import pytest

from compsem.book.running.params import (
    check_parameters,
    find_notebook,
    parameter_defaults,
    parse_parameters,
    parse_value,
)


def _notebook(path, source):
    path.write_text(
        json.dumps(
            {
                "cells": [
                    {"cell_type": "markdown", "metadata": {}, "source": "# t"},
                    {
                        "cell_type": "code",
                        "metadata": {"tags": ["parameters"]},
                        "source": source,
                        "outputs": [],
                        "execution_count": None,
                    },
                ],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 5,
            }
        )
    )
    return path


def test_values_are_json_when_they_parse_else_text():
    assert parse_value("3") == 3 and parse_value("true") is True and parse_value('["a", "b"]') == ["a", "b"]
    assert parse_value('"3"') == "3" and parse_value("False") == "False" and parse_value("a b") == "a b"
    assert parse_value("null") is None and parse_value('{"x": 1}') == {"x": 1}


def test_defaults_come_from_the_parameters_cell_as_python_values(tmp_path):
    nb = _notebook(
        tmp_path / "x.ipynb", 'models = "panel"   # a comment\nn: int = 3\nseeds = [0, 1]\ninputs = {}\nx = 2 * 3\n'
    )
    d = parameter_defaults(nb)
    assert d["models"] == "panel" and d["n"] == 3 and d["seeds"] == [0, 1] and d["inputs"] == {}
    assert set(d) == {"models", "n", "seeds", "inputs", "x"}
    check_parameters(d, {"x": "anything"})  # an expression accepts any value


def test_each_kind_of_default_accepts_its_table_row():
    d = {"flag": False, "n": 3, "f": 0.5, "s": "panel", "l": [0], "o": {}}
    for ok in ({"flag": True}, {"n": None}, {"f": 2}, {"s": ["bow"]}, {"s": {"a": 1}}, {"l": "paper"}, {"o": {"k": 1}}):
        check_parameters(d, ok)
    for bad, name in (
        ({"flag": "true"}, "flag"),
        ({"n": 1.5}, "n"),
        ({"f": True}, "f"),
        ({"l": 3}, "l"),
        ({"o": []}, "o"),
        ({"s": 1}, "s"),
    ):
        with pytest.raises(ValueError, match=f"parameter '{name}'"):
            check_parameters(d, bad)
    with pytest.raises(ValueError, match=r"\(JSON: write true or false, lower case\)"):
        check_parameters(d, {"flag": "True"})


def test_parse_parameters_reads_pairs_for_a_notebook_and_names_unknown_ones(tmp_path):
    nb = _notebook(tmp_path / "x.ipynb", 'models = "panel"\nseed = 0\n')
    assert parse_parameters([("models", '["bow"]'), ("seed", "2")], nb) == {"models": ["bow"], "seed": 2}
    with pytest.raises(ValueError, match=r"x.ipynb has no parameter \['sede'\]; its parameters are: models, seed"):
        parse_parameters([("sede", "2")], nb)
    with pytest.raises(FileNotFoundError, match="no notebook nothere.ipynb; available: "):
        find_notebook("nothere.ipynb")
