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


def test_a_leader_paragraph_ranks_one_criterion_as_far_as_the_intervals_allow():
    import pandas as pd

    from compsem.faces import Finding, leader_paragraph

    rows = pd.DataFrame([{"model": "a", "criterion": "K", "value": 0.9, "low": 0.8, "high": 1.0, "higher": True,
                          "degenerate": ""},
                         {"model": "b", "criterion": "K", "value": 0.5, "low": 0.4, "high": 0.6, "higher": True,
                          "degenerate": ""},
                         {"model": "c", "criterion": "K", "value": 0.7, "low": 0.7, "high": 0.7, "higher": True,
                          "degenerate": "every item gives exactly 0.7"},
                         {"model": "a", "criterion": "L", "value": 0.0, "low": 0.0, "high": 0.0, "higher": True,
                          "degenerate": ""}])
    say = leader_paragraph("K", "share kept")
    # a [0.8, 1.0] clears b [0.4, 0.6]; c is degenerate, named; the control b is left out when asked
    assert say(rows, ["a", "b", "c"], []) == ("`a` has the highest share kept (0.90 [0.80, 1.00]), its interval clear of "
                                             "every other model's. `c` is left out of the ranking: every item gives "
                                             "exactly 0.7.")
    assert say(rows, ["a"], ["b"]) == "`a` (0.90 [0.80, 1.00]) is the only model that can be ranked here."
    assert say(rows.assign(higher=False), ["a", "b"], []).startswith("`b` has the lowest share kept")
    assert say(rows, ["z"], []) == "No model has a value of K in this run."
    f = Finding("Topic", "an encoder does it", "How.", say)
    assert f.sentences is say and f.question == "an encoder does it"
