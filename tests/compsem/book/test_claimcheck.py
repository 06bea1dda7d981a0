"""compsem.book.checks.claimcheck: every sentence with a claim word is produced, checked or marked;
the counts on a small book worked by hand."""

import json

import pytest

from compsem import claims
from compsem.book import checkbook
from compsem.book.checks.claimcheck import claim_check, claim_summary, prose_sentences


def _nb(path, cells, glued):
    outs = [
        {
            "data": {"application/papermill.record/text/plain": repr(v)},
            "output_type": "display_data",
            "metadata": {"scrapbook": {"mime_prefix": "application/papermill.record/", "name": k}},
        }
        for k, v in glued.items()
    ]
    nb = {
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": c} for c in cells]
        + [{"cell_type": "code", "metadata": {}, "source": "", "outputs": outs, "execution_count": 1}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb))


@pytest.fixture
def book(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPSEM_RUN", raising=False)
    monkeypatch.setenv("COMPSEM_RESULTS", str(tmp_path / "results"))
    monkeypatch.setattr(claims, "_STARTED", set())
    ex, pages, checks = tmp_path / "ex", tmp_path / "book", tmp_path / "book" / "checks"
    ex.mkdir(), checks.mkdir(parents=True)
    _nb(
        ex / "10_x.ipynb",
        [
            # 1 produced: the frequency word is the glued value
            "For `bow` the margin holds {glue:text}`often` at ε = 0.\n\n"
            # 2 checked: "seven" lies in the check's quote
            "$S_{curr}$ appears in up to seven samples of its quintuple.\n\n"
            # 3 unchecked: "faster" outside any glue, check or mark
            "The cache is faster than the encoder.",
            # 4 marked: a definition; 5 no claim word at all
            "```{note}\nEach quintuple holds five sentences.\n```\n\n```python\nx = 'never'  # code: not prose\n```\n\n"
            "The table shows the margins.",
            # 6 unchecked: the check covers "seven" but not "most"
            "It has seven rows, and most models agree.",
        ],
        {"often": "seldom"},
    )
    (pages / "intro.md").write_text(
        "# Intro\n\nThe chapters take the paper's three operator tables.\n\n"
        "The toy's red phrases are as far apart as dog and law.\n"
    )
    (checks / "10_x.py").write_text('NOT_CLAIMS = {"holds five sentences": "the definition of a quintuple"}\n')
    (checks / "common.py").write_text('NOT_CLAIMS = {"three operator tables": "the paper\'s design"}\n')
    (checks / "intro.py").write_text(
        "from compsem import claims\n\n"
        "def check(executed=None):\n"
        "    claims.check('as far apart as dog and law', page='book/intro.md', holds=True, numbers={'d': 2.0})\n"
    )
    claims.check_count("S_{curr} appears in up to seven samples of its quintuple", 7, page="10_x")
    claims.check_count("It has seven rows", 7, page="10_x")
    return ex, pages, checks, tmp_path / "results" / "claims"


def test_sentences_are_plain_text_with_glue_code_left_out(book):
    ex, pages, _, _ = book
    texts = [s.text for s in prose_sentences(ex, pages)]
    assert "S_{curr} appears in up to seven samples of its quintuple." in texts
    assert "For bow the margin holds {glue:often} at ε = 0." in texts
    assert "Each quintuple holds five sentences." in texts  # a note's body is prose
    assert not any("never" in t for t in texts)  # a code block is not
    assert not any(t.startswith("Intro") for t in texts)  # nor a heading


def test_the_counts_by_hand(book):
    ex, pages, checks, results = book
    counts, problems = claim_check(ex, pages, results, checks)
    # produced: 1; checked: sentence 2 and the intro's far-apart sentence; marked: five sentences,
    # three operator tables; unchecked: "faster", "most"
    assert counts == {"produced": 1, "checked": 2, "unchecked": 2, "marked": 2}
    assert claim_summary(counts) == "claims: 7 found, 1 produced, 2 checked, 2 unchecked, 2 marked"
    unchecked = [p for p in problems if "neither a glue nor a check" in p]
    assert len(unchecked) == 2
    assert unchecked[0].startswith("10_x: cell 0 states a result in words (faster)")
    assert unchecked[1].startswith("10_x: cell 2 states a result in words (most models, agree)")
    assert len(problems) == 2


def test_a_failed_check_a_stale_quote_and_a_stale_mark_are_problems(book):
    ex, pages, checks, results = book
    with pytest.raises(claims.ClaimError):
        claims.check_count("It has nine rows", 7, page="10_x")
    (checks / "10_x.py").write_text('NOT_CLAIMS = {"holds five sentences": "x", "a vanished phrase": "y"}\n')
    _, problems = claim_check(ex, pages, results, checks)
    assert '10_x: the check of "It has nine rows" failed (the number it states is the data\'s count)' in problems
    assert '10_x: a check quotes "It has nine rows", which the page no longer says' in problems
    assert '10_x: book/checks/10_x.py marks "a vanished phrase", which the page no longer says' in problems


def test_a_page_check_that_fails_is_a_problem(book):
    ex, pages, checks, results = book
    (checks / "intro.py").write_text(
        "from compsem import claims\n\n"
        "def check(executed=None):\n"
        "    claims.check('as far apart as dog and law', page='book/intro.md', holds=False, numbers={'d': 1.28})\n"
    )
    counts, problems = claim_check(ex, pages, results, checks)
    assert any(
        p.startswith(
            "book/intro.md: its check file intro.py fails: ClaimError: book/intro.md: the sentence "
            "'as far apart as dog and law' does not hold"
        )
        for p in problems
    )


def test_checkbook_prints_the_claims_line_with_notebooks_only(book, capsys, monkeypatch):
    ex, pages, checks, _ = book
    root = checks.parent.parent
    (root / "book").exists()
    rc = checkbook.main(
        [
            "--executed",
            str(ex),
            "--pages",
            str(pages),
            "--root",
            str(root),
            "--notebooks-only",
            "--data",
            str(root / "nodata"),
        ]
    )
    out = capsys.readouterr().out.splitlines()
    assert rc == 1
    assert "claims: 7 found, 1 produced, 2 checked, 2 unchecked, 2 marked" in out


def test_a_glued_markdown_sentence_is_read_by_its_markdown(tmp_path):
    ex = tmp_path / "ex"
    ex.mkdir()
    out = {
        "data": {
            "application/papermill.record/text/markdown": "`a` has the highest share, its interval clear of b's.",
            "application/papermill.record/text/plain": "<IPython.core.display.Markdown object>",
        },
        "output_type": "display_data",
        "metadata": {"scrapbook": {"mime_prefix": "application/papermill.record/", "name": "lead"}},
    }
    nb = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "In this run, {glue:md}`lead` That is all."},
            {"cell_type": "code", "metadata": {}, "source": "", "outputs": [out], "execution_count": 1},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (ex / "11_x.ipynb").write_text(json.dumps(nb))
    counts, problems = claim_check(ex, None, tmp_path / "none", tmp_path / "none")
    assert counts == {"produced": 1, "checked": 0, "unchecked": 0, "marked": 0} and problems == []


def test_a_figure_caption_is_prose_and_a_code_block_is_not(tmp_path):
    md = (
        "```{glue:figure} fig_x\n:name: fig-x\n\nThe caption says bow beats use.\n```\n\n"
        "````{exercise} A title\n:label: ex-1\n\nRun this:\n\n```bash\necho 'never faster'\n```\n````\n"
    )
    (tmp_path / "p.md").write_text(md)
    texts = [s.text for s in prose_sentences(None, tmp_path)]
    assert texts == ["The caption says bow beats use.", "Run this:"]
