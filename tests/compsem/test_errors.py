"""compsem.errors: every message says where and what, as the standards ask."""

import pytest

from compsem.errors import (
    CompsemError,
    DataError,
    EmptyTextError,
    ModelsUnavailableError,
    UnknownModelError,
    WebAPIError,
)


def test_data_error_names_file_row_and_column():
    e = DataError("not a number: 'x'", file="data/a.csv", row=3, column="score")
    assert str(e) == "file data/a.csv, row 3, column 'score': not a number: 'x'"
    assert (e.file, e.row, e.column) == ("data/a.csv", 3, "score")
    assert str(DataError("plain")) == "plain"
    assert isinstance(EmptyTextError("x"), DataError) and isinstance(e, ValueError) and isinstance(e, CompsemError)


def test_unknown_model_lists_what_is_available_without_keyerror_quotes():
    e = UnknownModelError("nope", ["a", "b"], forms=("'x:<name>'",))
    assert str(e) == "unknown model spec 'nope'. Available: a, b; or 'x:<name>'."
    assert str(UnknownModelError("nope", ["a"], forms=())) == "unknown model spec 'nope'. Available: a."
    with pytest.raises(KeyError):  # callers that catch KeyError still do
        raise e


def test_models_unavailable_lists_each_model_and_each_remedy_once():
    e = ModelsUnavailableError(
        [("m1", "not installed", "pip install x"), ("m2", "offline", "pip install x")], footer="bye"
    )
    assert str(e).splitlines() == [
        "2 models of this run cannot be loaded here:",
        "  - m1: not installed",
        "  - m2: offline",
        "What to do:",
        "  * pip install x",
        "bye",
    ]
    assert WebAPIError("refused", status=429).status == 429
