"""compsem/faces.py: what a study declares for the pages that loop over every study."""

import pandas as pd
import pytest

from compsem.errors import CompsemError
from compsem.faces import NotWrittenYet, PaperRun, TryIt


def test_a_try_it_section_shows_its_table_and_reads_nothing_by_default():
    t = TryIt("a title", "an intro", {"text": "A sentence."})
    table = pd.DataFrame({"model": ["bow"], "value": [0.5]})
    assert t.show(table, ["bow"]) == [table] and t.read(table) == ""
    with pytest.raises(AttributeError):
        t.title = "another"                                          # a declaration, not state


def test_a_paper_run_defaults_to_the_paper_panel_on_shipped_data():
    run = PaperRun("51_x_main.ipynb")
    assert run.params == {"models": "paper"} and run.scale() == (1.0, 1.0)
    assert PaperRun("a.ipynb", scale=lambda: (2.0, 4.0)).scale() == (2.0, 4.0)


def test_a_stub_not_written_yet_is_a_compsem_error_and_not_implemented():
    with pytest.raises(CompsemError, match="not written yet"):
        raise NotWrittenYet("compsem.x.study.run is not written yet")
    assert issubclass(NotWrittenYet, NotImplementedError)
