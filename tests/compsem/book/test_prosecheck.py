"""The prose checks of make check-book (compsem/book/checks/prosecheck.py): one planted defect each, and a clean page."""

import json

import pytest

from compsem.book.checks import prosecheck
from compsem.book.checkbook import main
from tests.helpers.notebooks import _code, _html, _md, _nb

TABLE = (
    "<table><caption>RSA and gap</caption><tr><th>model</th><th>RSA</th><th>gap (NaN: undefined)</th><th>n</th></tr>"
    "<tr><td>bow</td><td>0.545 [0.48, 0.60]</td><td>0.1622</td><td>12</td></tr>"
    "<tr><td>use</td><td>0.512 [0.45, 0.58]</td><td>0.0000</td><td>7</td></tr>"
    "<tr><td>glove</td><td>n/a</td><td>NaN</td><td>1,203</td></tr></table>"
)


CLEAN = [
    _md(
        "# A page\n\nThe chosen model is {glue:md}`best` (see Table 3.2 and Eq. 5; `make book`), "
        "its code in `src/compsem/stats.py`, its test in tests/compsem/test_stats.py. Files under "
        "`data/reference/<study>_*.csv`. Inline maths $0.25 + 0.5$ and\n\n```python\nx = 0.123  # code\n```\n"
    ),
    _code(_html(TABLE)),
    _md(
        "The bow row prints 0.545 as the table does; 12 models; 100 texts; 95 % "
        "intervals; a threshold of 0.5, margins ≤ 0.33, within 0.001, such as 0.55; "
        "a made-up value $0.42$; Fig. 5.9."
    ),
    _code({"output_type": "stream", "name": "stdout", "text": "done in 3 steps\n"}),
]


@pytest.fixture
def clean_book(tmp_path):
    (tmp_path / "executed").mkdir()
    (tmp_path / "repo" / "src" / "compsem").mkdir(parents=True)
    (tmp_path / "repo" / "src" / "compsem" / "stats.py").write_text("")
    (tmp_path / "repo" / "tests" / "compsem").mkdir(parents=True)
    (tmp_path / "repo" / "tests" / "compsem" / "test_stats.py").write_text("")
    (tmp_path / "repo" / "book").mkdir()
    (tmp_path / "repo" / "book" / "intro.md").write_text("# Intro\n\nSee `src/compsem/stats.py`.\n")
    _nb(tmp_path / "executed" / "10_page.ipynb", CLEAN)
    return tmp_path


def _check(book):
    return prosecheck.prose_check(book / "executed", book / "repo", book / "repo" / "book")


def test_clean_pages_pass_every_prose_check(clean_book):
    assert _check(clean_book) == []


@pytest.mark.parametrize(
    "cell, expected",
    [
        (
            _code({"output_type": "stream", "name": "stderr", "text": "FutureWarning: 'lsuffix' is deprecated\n"}),
            "cell 4 writes to stderr: FutureWarning: 'lsuffix' is deprecated",
        ),
        (
            _code(
                {
                    "output_type": "stream",
                    "name": "stdout",
                    "text": "embed sbert-mini:   2%|▏         | 1024/48385 [00:25<19:40, 40.1text/s]\n",
                }
            ),
            "cell 4 shows 1 progress-bar line ",
        ),
        (
            _code(
                {
                    "output_type": "display_data",
                    "data": {"application/vnd.jupyter.widget-view+json": {}},
                    "metadata": {},
                }
            ),
            "cell 4 shows 1 progress widget ",
        ),
        (
            _md("The discrepancy space exists for {glue:text}`n` asymmetric scorer(s) in this run."),
            "cell 4 has a pluralisation template 'scorer(s)'",
        ),
        (
            _code(_html("<table><tr><td>exists for 1 asymmetric scorer(s)</td></tr></table>")),
            "cell 4 has a pluralisation template 'scorer(s)'",
        ),
        (
            _md("Every number is recomputed in `tests/test_teaching_ssm.py`."),
            "cell 4 names tests/test_teaching_ssm.py, which does not exist in the repository",
        ),
        (
            _code(_html("<table><tr><td>use</td><td>0.999 [1.00, 1.00]</td></tr></table>")),
            "cell 4 prints 0.999 outside its own interval [1.00, 1.00]",
        ),
        (
            _code(_html("<table><tr><td>0.0</td><td>-0.0000</td></tr></table>")),
            "cell 4, table 1, column 'column 2' prints -0.0000: print a value that rounds to zero as zero",
        ),
        (_code({"output_type": "stream", "name": "stdout", "text": "gap: -0.0000\n"}), "cell 4 prints -0.0000"),
        (
            _code(
                _html(
                    "<table><tr><th>model</th><th>gap</th></tr><tr><td>a</td><td>0.0</td></tr>"
                    "<tr><td>b</td><td>0.0000</td></tr><tr><td>c</td><td>12</td></tr></table>"
                )
            ),
            "cell 4, table 1, column 'gap' mixes numbers of decimals ('0.0', '0.0000')",
        ),
        (
            _code(
                _html(
                    "<table><tr><th>model</th><th>M(A,O) − M(A,B)</th></tr><tr><td>a</td><td>0.412 ± 0.1</td></tr>"
                    "<tr><td>paper</td><td>0.0478 ± 0.1270</td></tr></table>"
                )
            ),
            "cell 4, table 1, column 'M(A,O) − M(A,B)' mixes numbers of decimals ('0.412 ± 0.1', '0.0478 ± 0.1270')",
        ),
        # percentages marked "%" are compared among themselves: one decimal for them, two for the correlation is fine,
        # a percentage at two decimals is not
        (
            _code(
                _html(
                    "<table><tr><th>criterion</th><th>use</th></tr><tr><td>C1</td><td>49.6 % [40.8, 59.2]</td></tr>"
                    "<tr><td>RSA</td><td>0.43 [0.41, 0.45]</td></tr><tr><td>C2</td><td>99.25 % [97.6, 100.0]</td></tr>"
                    "<tr><td>gap</td><td>-0.05 [-0.18, 0.08]</td></tr></table>"
                )
            ),
            "cell 4, table 1, column 'use' mixes numbers of decimals ('49.6 % [40.8, 59.2]', '99.25 % [97.6, 100.0]')",
        ),
        # a pandas table: the index in <th> cells with a rowspan, a two-level header, a caption
        (
            _code(
                _html(
                    "<table><caption>C4 by mode</caption><thead><tr><th></th><th></th><th colspan='2'>pooled</th></tr>"
                    "<tr><th>subset</th><th>model</th><th>cos</th><th>ned</th></tr></thead><tbody>"
                    "<tr><th rowspan='2'>main</th><th>bow</th><td>18.9</td><td>20.1</td></tr>"
                    "<tr><th>use</th><td>25.0</td><td>20.12</td></tr></tbody></table>"
                )
            ),
            "cell 4, table 1 ('C4 by mode'), column 'pooled / ned' mixes numbers of decimals ('20.1', '20.12')",
        ),
        (_md("Under the equations the gap is 0.167."), "cell 4 types the number 0.167 into the prose"),
        (_md("It passes for 42.5 % of the phrases."), "cell 4 types the number 42.5 into the prose"),
        (_md("The use row gives 0.161 here."), "cell 4 types 0.161 where a table of the page prints 0.1622"),
    ],
)
def test_each_planted_defect_is_named(clean_book, cell, expected):
    _nb(clean_book / "executed" / "10_page.ipynb", CLEAN + [cell])
    problems = _check(clean_book)
    assert len(problems) == 1 and problems[0].startswith(f"10_page.ipynb: {expected}"), problems


def test_markdown_pages_are_read_for_templates_and_paths(clean_book):
    (clean_book / "repo" / "book" / "part4.md").write_text("Run `tests/teaching/test_ssm.py` on the model(s).\n")
    problems = _check(clean_book)
    assert problems == [
        "book/part4.md: page has a pluralisation template 'model(s)': say the count's own form",
        "book/part4.md: page names tests/teaching/test_ssm.py, which does not exist in the repository",
    ]


def test_main_notebooks_only_fails_on_a_planted_defect(clean_book, capsys):
    args = [
        "--notebooks-only",
        "--executed",
        str(clean_book / "executed"),
        "--root",
        str(clean_book / "repo"),
        "--pages",
        str(clean_book / "repo" / "book"),
        "--data",
        str(clean_book / "nodata"),
    ]
    assert main(args) == 0
    _nb(clean_book / "executed" / "10_page.ipynb", CLEAN + [_md("The gap is 0.167.")])
    assert main(args) == 1
    assert "types the number 0.167" in capsys.readouterr().out
