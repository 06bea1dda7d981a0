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
        t.title = "another"  # a declaration, not state


def test_a_paper_run_defaults_to_the_paper_panel_on_shipped_data():
    run = PaperRun("51_x_main.ipynb")
    assert run.params == {"models": "paper"} and run.scale() == (1.0, 1.0)
    assert PaperRun("a.ipynb", scale=lambda: (2.0, 4.0)).scale() == (2.0, 4.0)


def test_a_stub_not_written_yet_is_a_compsem_error_and_not_implemented():
    with pytest.raises(CompsemError, match="not written yet"):
        raise NotWrittenYet("compsem.x.study.run is not written yet")
    assert issubclass(NotWrittenYet, NotImplementedError)


def test_a_leader_paragraph_names_a_leader_only_where_ranked_and_as_far_as_the_paired_intervals_allow():
    import numpy as np

    from compsem.faces import Finding, leader_paragraph

    offsets = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])

    def row(model, value, *, spread=0.0, degenerate="", criterion="K", control_of=""):
        return {
            "model": model,
            "criterion": criterion,
            "value": value,
            "low": value - 0.1,
            "high": value + 0.1,
            "higher": True,
            "degenerate": degenerate,
            "replicates": value + spread * offsets,
            "control_of": control_of,
            "ranked": True,
            "test": "",
        }

    rows = pd.DataFrame(
        [
            row("a", 0.9),
            row("b", 0.5),
            row("c", 0.7, degenerate="every item gives exactly 0.7"),
            row("a", 0.0, criterion="L"),
        ]
    )
    say = leader_paragraph("K", "share kept")
    # a − b = 0.4 on every replicate: paired interval [0.40, 0.40]; c is degenerate, named
    assert say(rows, ["a", "b", "c"], []) == (
        "`a` has the highest share kept (0.90 [0.80, 1.00]); on the same items the paired interval of its lead "
        "lies above zero over every other model (the smallest: 0.40 [0.40, 0.40] over `b`; one paired comparison, "
        "a 95 % interval). `c` is left out of the ranking: every item gives exactly 0.7."
    )
    # b as a control: a − b on the same items, above zero
    assert say(rows, ["a"], ["b"]) == (
        "`a` has the highest share kept (0.90 [0.80, 1.00]), the only model that can be ranked here. On the same items "
        "every model lies above each of its controls by a paired 95 % interval (1 comparison; the smallest "
        "difference: `a` − `b` 0.40 [0.40, 0.40])."
    )
    # the lowest has no "lead": b − a = −0.4 on every replicate, an interval below zero, worded as falling below
    assert say(rows.assign(higher=False), ["a", "b"], []) == (
        "`b` has the lowest share kept (0.50 [0.40, 0.60]); on the same items it falls below every other model by a "
        "difference whose paired interval lies below zero (the closest: -0.40 [-0.40, -0.40] from `a`; one paired "
        "comparison, a 95 % interval)."
    )
    # b with spread 0.2: a − b = 0.4 ∓ 1.9 × 0.2 = [0.02, 0.78]; with spread 0.3: [-0.17, 0.97], no evidence
    wide = rows.assign(replicates=[r.replicates if r.model != "b" else 0.5 + 0.3 * offsets for r in rows.itertuples()])
    assert say(wide, ["a", "b"], []) == (
        "`a` has the highest share kept (0.90 [0.80, 1.00]), but over `b` (0.40 [-0.17, 0.97]) the paired interval "
        "of its lead on the same items includes zero: no evidence of a difference (one paired comparison, a 95 % "
        "interval)."
    )
    # the lowest of the same wide rows: b − a = −0.4 ± 0.57: [-0.97, 0.17], no evidence, and no "lead"
    assert say(wide.assign(higher=False), ["a", "b"], []) == (
        "`b` has the lowest share kept (0.50 [0.40, 0.60]), but from `a` (-0.40 [-0.97, 0.17]) the paired interval "
        "of its difference on the same items includes zero: no evidence of a difference (one paired comparison, a "
        "95 % interval)."
    )
    # three models: 2 comparisons, each at 97.5 %; a − b is 0.4 on every replicate (clear), a − d spans
    # -0.2, 0.1, 0.4, 0.7, 1.0: its 97.5 % interval (positions 0.05 and 3.95 of 4) is [-0.185, 0.985], not the
    # 95 % one [-0.17, 0.97]
    three = pd.concat([rows, wide[wide.model == "b"].assign(model="d")], ignore_index=True)
    assert say(three, ["a", "b", "d"], []) == (
        "`a` has the highest share kept (0.90 [0.80, 1.00]), but over `d` (0.40 [-0.19, 0.99]) the paired interval "
        "of its lead on the same items includes zero: no evidence of a difference (2 paired comparisons, each "
        "interval at 97.5 % by Bonferroni so that all 2 hold together at 95 %)."
    )
    # a model with no replicates: undefined, not "no evidence"
    bare = rows.assign(replicates=[r.replicates if r.model != "b" else None for r in rows.itertuples()])
    assert say(bare, ["a", "b"], []).startswith(
        "`a` has the highest share kept (0.90 [0.80, 1.00]), but over `b` the paired test is undefined"
    )
    unranked = rows.assign(ranked=False, test="does not separate encoders from the controls here (made up).")
    assert say(unranked, ["a", "b"], []) == "K is not ranked here: it does not separate encoders from the controls."
    assert say(rows, ["z"], []) == "No model has a value of K in this run."
    f = Finding("Topic", "an encoder does it", "How.", say)
    assert f.sentences is say and f.question == "an encoder does it"
