"""compsem.reference.paper_model_count on a tiny panel worked by hand."""

import pandas as pd

from compsem import reference


def _panel(monkeypatch, rows):
    frame = pd.DataFrame(rows, columns=["paper_name", "kind", "same_model"])
    monkeypatch.setattr(reference, "paper_models", lambda study=None: frame)


def test_rows_sharing_a_paper_name_are_one_model(monkeypatch):
    _panel(
        monkeypatch,
        [("A", "encoder", False), ("A", "encoder", True), ("B", "encoder", False), ("G", "generator", False)],
    )
    assert reference.paper_model_count("setcomp") == 2  # A (two rows) and B
    assert reference.paper_model_count("setcomp", same_model=True) == 1  # A: one of its rows loads its weights
    assert reference.paper_model_count("setcomp", same_model=False) == 1  # B
    assert reference.paper_model_count("setcomp", "generator") == 1


def test_one_more_model_in_the_file_changes_the_count(monkeypatch):
    _panel(monkeypatch, [("A", "encoder", True), ("B", "encoder", False), ("C", "encoder", True)])
    assert reference.paper_model_count("setcomp") == 3
    assert reference.paper_model_count("setcomp", same_model=True) == 2
