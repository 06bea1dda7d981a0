"""The try-it page's loop (crossstudy/tryit.py): every study of the registry with a declared
section, its inputs read from the page's ``inputs`` parameter, ``trust_remote_code`` passed
through. Each study's own criteria are checked by hand in ``tests/compsem/<study>/test_tryit.py``."""

import pandas as pd
import pytest

from compsem.crossstudy import tryit
from compsem.errors import CompsemError
from compsem.faces import TryIt
from compsem.studies import STUDIES


def test_remote_code_reaches_a_study_only_when_asked_and_never_silently_dropped():
    def plain(models):
        return models

    def able(models, *, trust_remote_code=False):
        return trust_remote_code

    assert tryit.remote_code_kwargs(plain, False) == {}
    assert tryit.remote_code_kwargs(able, True) == {"trust_remote_code": True}
    with pytest.raises(ValueError, match="plain does not take trust_remote_code"):
        tryit.remote_code_kwargs(plain, True)


def test_sections_follow_the_registry_and_skip_a_declared_absence(monkeypatch):
    declared = [(s, s.module("report").TRY_IT) for s in STUDIES if s.module("report").TRY_IT is not None]
    assert tryit.sections() == declared and all(isinstance(t, TryIt) for _, t in declared)
    monkeypatch.setattr(STUDIES[0].module("report"), "TRY_IT", None)
    assert tryit.sections() == [(s, t) for s, t in declared if s is not STUDIES[0]]


def test_inputs_are_the_defaults_with_the_readers_values_in_their_place():
    names = [n for _, t in tryit.sections() for n in t.inputs]
    assert len(names) == len(set(names)), "two sections declare the same input name"
    defaults = tryit.page_inputs()
    assert defaults == {s.name: dict(t.inputs) for s, t in tryit.sections()}
    study, section = tryit.sections()[0]
    first, default = next(iter(section.inputs.items()))
    value = ["my", "own"] if isinstance(default, list) else "My own sentence."
    given = tryit.page_inputs({first: value})
    assert given[study.name][first] == value
    assert {k: v for k, v in given[study.name].items() if k != first} == {
        k: v for k, v in defaults[study.name].items() if k != first
    }
    assert list(given[study.name]) == list(section.inputs)  # the order try_it takes them in
    with pytest.raises(CompsemError, match="no input setence_a; its inputs are"):
        tryit.page_inputs({"setence_a": "x"})
    with pytest.raises(CompsemError, match=f"input '{first}' must be"):
        tryit.page_inputs({first: 3})


def test_trust_remote_code_is_passed_through_to_every_study(monkeypatch):
    seen = {}
    for s, _ in tryit.sections():
        monkeypatch.setattr(
            s.module("report"),
            "try_it",
            lambda *a, _n=s.name, **kw: seen.setdefault(_n, (len(a), kw["trust_remote_code"])) and pd.DataFrame(),
        )
    given = tryit.page_inputs()
    for s, t in tryit.sections():
        tryit.compute(s, given[s.name], ["bow"], trust_remote_code=True)
    assert seen == {s.name: (len(t.inputs) + 1, True) for s, t in tryit.sections()}
    for value in ("False", 0):
        with pytest.raises(TypeError, match="trust_remote_code must be True or False"):
            tryit.compute(
                *tryit.sections()[0][:1], given[tryit.sections()[0][0].name], ["bow"], trust_remote_code=value
            )


def test_every_section_runs_shows_and_reads_the_bag_of_words_control():
    given = tryit.page_inputs()
    for s, t in tryit.sections():
        table = tryit.compute(s, given[s.name], ["bow"])
        frames = t.show(table, ["bow"])
        assert frames and all(isinstance(f, pd.DataFrame) and len(f) for f in frames), s.name
        assert "`bow`" in t.read(table), s.name
        head = tryit.heading(s, t, given[s.name])
        assert head.startswith(f"**Part {s.roman}: {t.title}.**") and all(f"`{k}`" in head for k in t.inputs)


def test_the_pages_own_command_names_real_inputs():
    """The command the page shows (`python -m compsem run notebooks/91_try_it.ipynb -p inputs '...'`)
    parses against the page's parameters, and its inputs are ones a section declares."""
    import json
    import re
    import shlex

    from compsem.book.running.params import parse_parameters
    from tests.helpers import ROOT

    nb = ROOT / "notebooks" / "91_try_it.ipynb"
    text = "".join(json.loads(nb.read_text())["cells"][0]["source"])
    command = re.search(r"`(python -m compsem run notebooks/91_try_it\.ipynb [^`]+)`", text).group(1)
    args = shlex.split(command)[5:]
    pairs = [(args[i + 1], args[i + 2]) for i in range(0, len(args), 3) if args[i] == "-p"]
    params = parse_parameters(pairs, nb)
    given = tryit.page_inputs(params["inputs"])
    assert any(params["inputs"].items() <= values.items() for values in given.values())
