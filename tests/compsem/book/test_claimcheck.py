"""compsem.book.checks.claimcheck: every claim of a page is produced or checked, read in its
context; the counts on tiny pages and tiny executed notebooks (nbformat) worked by hand."""

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from compsem import claims
from compsem.book import checkbook
from compsem.book.checks.claimcheck import claim_check, claim_spans, claim_summary, prose_sentences


def _nb(path, cells, glued=None, caption=None):
    """A tiny executed chapter: Markdown cells, then one code cell that glued ``glued`` (papermill's
    way) and, with ``caption``, is captioned as a figure."""
    outs = [
        new_output(
            "display_data",
            data={"application/papermill.record/text/plain": repr(v)},
            metadata={"scrapbook": {"mime_prefix": "application/papermill.record/", "name": k}},
        )
        for k, v in (glued or {}).items()
    ]
    code = new_code_cell("", outputs=outs, execution_count=1)
    if caption:
        code.metadata["mystnb"] = {"figure": {"caption": caption}}
    nbformat.write(new_notebook(cells=[new_markdown_cell(c) for c in cells] + [code]), str(path))


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
            # 2 checked: "up to seven samples" lies in the check's quote
            "$S_{curr}$ appears in up to seven samples of its quintuple.\n\n"
            # 3 a finding: "faster" outside any glue or check
            "The cache is faster than the encoder.",
            # 4 marked: the prior's design; no claim: a definition, code, a table of no claim
            "```{note}\nWith its stop list `bow` often gives a sentence and its negation one vector.\n```\n\n"
            "```python\nx = 'never'  # code: not prose\n```\n\nThe margin is the difference of the two cosines.",
            # 5 a finding: the check covers "seven rows" but not "most models"
            "It has seven rows, and most models agree.",
        ],
        {"often": "seldom"},
    )
    (pages / "intro.md").write_text("# Intro\n\nThe toy's red phrases are as far apart as dog and law.\n")
    (checks / "not_claims.toml").write_text(
        '[10_x]\n"often gives a sentence and its negation one vector" = "what the stop list implies"\n'
    )
    (checks / "intro.py").write_text(
        "from compsem import claims\n\n"
        "def check(executed=None):\n"
        "    claims.check('as far apart as dog and law', page='book/intro.md', holds=True, numbers={'d': 2.0})\n\n"
        "CHECKS = {'intro': check}\n"
    )
    claims.check_count("S_{curr} appears in up to seven samples of its quintuple", 7, page="10_x")
    claims.check_count("It has seven rows", 7, page="10_x")
    return ex, pages, checks, tmp_path / "results" / "claims"


def test_sentences_are_plain_text_with_glue_and_code_left_out(book):
    ex, pages, _, _ = book
    texts = [s.text for s in prose_sentences(ex, pages)]
    assert "S_{curr} appears in up to seven samples of its quintuple." in texts
    assert "For bow the margin holds {glue:often} at ε = 0." in texts
    assert "With its stop list bow often gives a sentence and its negation one vector." in texts  # a note is prose
    assert not any("x =" in t for t in texts)  # a code block is not
    assert "Intro" in texts  # a heading is


def test_the_counts_by_hand(book):
    ex, pages, checks, results = book
    counts, problems = claim_check(ex, pages, results, checks)
    # produced: 1; checked: sentence 2 and the intro's far-apart sentence; marked: the stop list;
    # unchecked: "faster", "most models"; none from a finding
    assert counts == {"from findings": 0, "produced": 1, "checked": 2, "marked": 1, "unchecked": 2}
    assert claim_summary(counts) == "claims: 6 found: 0 from findings, 1 produced, 2 checked, 1 marked, 2 unchecked"
    assert len(problems) == 2
    assert problems[0].startswith("10_x: cell 0 states a result in words (faster)")
    assert problems[1].startswith("10_x: cell 2 states a result in words (most models, agree)")


def test_a_failed_check_a_stale_quote_and_a_stale_mark_are_problems(book):
    ex, pages, checks, results = book
    with pytest.raises(claims.ClaimError):
        claims.check_count("It has nine rows", 7, page="10_x")
    (checks / "not_claims.toml").write_text(
        '[10_x]\n"often gives a sentence" = "x"\n"a vanished phrase" = "y"\n"the two cosines" = "z"\n'
    )
    _, problems = claim_check(ex, pages, results, checks)
    assert '10_x: the check of "It has nine rows" failed (the number it states is the data\'s count)' in problems
    assert '10_x: a check quotes "It has nine rows", which the page no longer says' in problems
    assert '10_x: book/checks/not_claims.toml marks "a vanished phrase", which the page no longer says' in problems
    assert (
        '10_x: book/checks/not_claims.toml marks "the two cosines", which covers no claim word that a mark may '
        "exempt: delete the line"
    ) in problems


def test_a_page_check_that_fails_is_a_problem(book):
    ex, pages, checks, results = book
    (checks / "intro.py").write_text(
        "from compsem import claims\n\n"
        "def check(executed=None):\n"
        "    claims.check('as far apart as dog and law', page='book/intro.md', holds=False, numbers={'d': 1.28})\n\n"
        "CHECKS = {'intro': check}\n"
    )
    counts, problems = claim_check(ex, pages, results, checks)
    assert any(
        p.startswith(
            "book/intro.md: its check file intro.py fails: ClaimError: book/intro.md: the sentence "
            "'as far apart as dog and law' does not hold"
        )
        for p in problems
    )


def test_checkbook_prints_the_claims_line_with_notebooks_only(book, capsys):
    ex, pages, checks, _ = book
    root = checks.parent.parent
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
    assert rc == 1
    line = "claims: 6 found: 0 from findings, 1 produced, 2 checked, 1 marked, 2 unchecked"
    assert line in capsys.readouterr().out.splitlines()


def _one_page(tmp_path, md, marks="", cells=None, glued=None, caption=None):
    """One page ``p.md`` and, with ``cells`` or ``caption``, one chapter ``10_x``; ``marks``: TOML
    lines of fragment = reason, for both."""
    pages, checks, ex = tmp_path / "book", tmp_path / "book" / "checks", tmp_path / "ex"
    checks.mkdir(parents=True), ex.mkdir()
    (pages / "p.md").write_text(md)
    (checks / "not_claims.toml").write_text(f"[p]\n{marks}\n[10_x]\n{marks}\n")
    if cells or caption:
        _nb(ex / "10_x.ipynb", cells or [], glued, caption)
    return claim_check(ex, pages, tmp_path / "none", checks)


def test_a_heading_that_states_a_result_is_a_finding(tmp_path):
    counts, problems = _one_page(tmp_path, "# Sentence encoders ignore the condition\n\nThe chapter's plan.\n")
    assert counts["unchecked"] == 1
    assert problems[0].startswith("book/p.md: page states a result in words (ignore)")


def test_a_link_text_and_a_figure_caption_are_read(tmp_path):
    counts, problems = _one_page(
        tmp_path, "See [why `bow` beats `use`](x.md).\n", caption="Most models pass C1 at every margin."
    )
    assert counts["unchecked"] == 2
    assert any("(beats)" in p and p.startswith("book/p.md") for p in problems)
    assert any("(Most models)" in p and p.startswith("10_x: cell 0") for p in problems)


def test_a_mark_exempts_only_the_words_it_covers(tmp_path):
    # "two" is a pair's arity and needs no mark (so the mark is stale); "three models" is a count
    counts, problems = _one_page(
        tmp_path, "Over the two margins we ran three models.\n", marks='"Over the two margins" = "the design"'
    )
    assert counts["unchecked"] == 1 and "(three models)" in problems[0]
    assert any('marks "Over the two margins", which covers no claim word' in p for p in problems)


def test_a_count_of_models_typed_by_hand_is_a_finding_even_when_marked(tmp_path):
    counts, problems = _one_page(tmp_path, "The panel has four models.\n", marks='"four models" = "the panel"')
    assert counts == {"from findings": 0, "produced": 0, "checked": 0, "marked": 0, "unchecked": 1}
    assert "(four models (a count of data: glue it))" in problems[0]


def test_a_fixed_conclusion_around_a_glued_number_is_a_finding(tmp_path):
    cell = "`bow` is better than `use` by {glue:text}`gap` points."
    counts, problems = _one_page(
        tmp_path, "Nothing.\n", cells=[cell], glued={"gap": 3.1}, marks='"better than" = "the table says so"'
    )
    assert counts["unchecked"] == 1 and counts["produced"] == 0
    assert "better than (a conclusion around a glued value: produce it with the value)" in problems[0]
    # the same words inside the glued value are produced
    counts, problems = _one_page(
        tmp_path / "b",
        "Nothing.\n",
        cells=["In this run {glue:md}`lead`"],
        glued={"lead": "bow is better than use by 3.1 points"},
    )
    assert counts == {"from findings": 0, "produced": 1, "checked": 0, "marked": 0, "unchecked": 0} and problems == []


@pytest.mark.parametrize(
    "sentence",
    [
        "The margin is the difference of the two margins.",
        "C2 uses the ratio of two angles.",
        "A two-sided test at the 5 % level.",
        "A model that ignores the condition scores 50 % on C-STS.",
        "If bow beats use, the synthesis says so.",
        "Compare the three models of the panel.",
        "Does bow beat use on C2?",
        "The encoder reads each sentence's three words.",
        "The prior never reads a sentence of bow's pairs.",
        "C2 holds for about half their length.",
        'A scorer counts a pair when it scores "higher than 0.5".',
        "Table 7 reproduced under the official reading.",
        "The gap may reflect the size of the models.",
        "Each quintuple gives six samples per operator.",
        "Models are compared by a paired test, never by their intervals alone.",
        "The chapter trains on batches of eight such pairs (sixteen rows).",
        "Each window holds three consecutive sentences of the source.",
        "Three criteria follow.",
    ],
)
def test_definitions_designs_and_hypotheses_are_no_claims(sentence):
    assert claim_spans(sentence) == []


@pytest.mark.parametrize(
    "sentence, words",
    [
        ("The panel has six models.", ["six models"]),
        ("bow beats use on C2.", ["beats"]),
        ("C2 largely follows from C1.", ["follows from"]),
        ("The two encoders are indistinguishable on C1.", ["indistinguishable"]),
        ("The data hold 44,652 phrases.", ["44,652 phrases"]),
        ("Only one model passes C1.", ["Only one model"]),
        ("Only one phrase and only one premise pass C1.", ["Only one phrase", "only one premise"]),
        ("Most models pass C1, which may reflect their size.", ["Most models"]),
    ],
)
def test_results_are_claims(sentence, words):
    assert [sentence[a:b] for a, b, _ in claim_spans(sentence)] == words


def test_a_removed_check_leaves_no_record_that_still_checks(book):
    ex, pages, checks, results = book
    counts, _ = claim_check(ex, pages, results, checks)  # intro.py's check records the far-apart sentence
    assert counts["checked"] == 2
    (checks / "intro.py").write_text("CHECKS = {}\n")
    counts, problems = claim_check(ex, pages, results, checks)
    assert counts["checked"] == 1 and any(
        p.startswith("book/intro.md: page states a result in words (far apart)") for p in problems
    )


def test_a_number_in_words_counts_the_toy_only_on_a_worked_page():
    heading, digits = "Four words and four phrases in two dimensions", "The pool has 251 sentences."
    assert [heading[a:b] for a, b, _ in claim_spans(heading)] == ["four phrases"]
    assert claim_spans(heading, toy=True) == []
    assert [digits[a:b] for a, b, _ in claim_spans(digits, toy=True)] == ["251 sentences"]  # digits: data


def test_a_sentence_quoting_a_findings_text_counts_from_findings(tmp_path):
    # "reproduced" in the verdicts' summary (a Found, under a verdicts_ key) and "beats" in a study's
    # produced sentence: 1 from findings, 1 produced; the verdict's own words need no check
    counts, problems = _one_page(
        tmp_path,
        "Nothing.\n",
        cells=["Part I: {glue:text}`verdicts_summary`", "In this run {glue:md}`lead`"],
        glued={"verdicts_summary": "2 of 3 claims reproduced", "lead": "bow beats use"},
    )
    assert counts == {"from findings": 1, "produced": 1, "checked": 0, "marked": 0, "unchecked": 0}
    assert problems == []


def test_a_check_runs_only_for_a_page_of_the_build_and_bad_marks_are_a_problem(tmp_path):
    checks = tmp_path / "book" / "checks"
    checks.mkdir(parents=True)
    (tmp_path / "book" / "p.md").write_text("Nothing.\n")
    (checks / "x.py").write_text(
        "def boom(executed=None):\n    raise ValueError('ran')\n\nCHECKS = {'absent': boom, 'p': boom}\n"
    )
    (checks / "not_claims.toml").write_text("[p\n")
    _, problems = claim_check(None, tmp_path / "book", tmp_path / "none", checks)
    assert problems[0].startswith("book/checks/not_claims.toml is no valid TOML")
    assert problems[1:] == ["book/p.md: its check file x.py fails: ValueError: ran"]  # not for the absent page


def test_glue_all_keeps_findings_text_under_its_own_keys():
    from compsem.errors import CompsemError
    from compsem.results import Found, glue_all

    with pytest.raises(CompsemError, match="'verdicts_summary'"):
        glue_all({"verdicts_summary": "typed by hand: all reproduced"})  # a verdict's key, text not a Found
    with pytest.raises(CompsemError, match="'lead'"):
        glue_all({"lead": Found("2 of 3 claims reproduced")})  # a finding's text under another key
