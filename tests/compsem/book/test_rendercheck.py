"""What leaks from the code into a rendered page (compsem.book.checks.rendercheck): one planted defect
per case on an otherwise clean page, named with its page and cell; the clean page passes."""

from __future__ import annotations

import pytest

from compsem.book.checks import rendercheck
from tests.helpers.notebooks import _code, _glued, _html, _md, _nb

CLEAN = [
    _md(
        "# A page\n\nNone of the models separates the classes; `bow` is left out (`None` in code is fine).\n"
        "The relatedness distance $D_{rel}$ and $D_{dis} \\equiv 1$ are maths here, and\n\n$$x = \\frac{a}{b}$$\n"
    ),
    _code(
        _html(
            "<table><tr><th>model</th><th>gap</th><th>paper (NaN: not reported)</th></tr>"
            "<tr><td>bow</td><td>0.5</td><td>nan</td></tr><tr><td>use</td><td>0.4</td><td>0.3</td></tr></table>"
        )
    ),
    _md("The table above lists two models; in at least 95 % of the rows the cosine rises; p < 0.001."),
    _code(_glued("verdict", "no"), _glued("share", "87.5")),
    _md("Tied: {glue:text}`verdict`; in {glue:text}`share:.1f` % of the rows."),
]


@pytest.fixture
def book(tmp_path):
    (tmp_path / "executed").mkdir()
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "intro.md").write_text("# Intro\n\nThe margin $\\varepsilon$ is in maths.\n")
    _nb(tmp_path / "executed" / "90_page.ipynb", CLEAN)
    return tmp_path


def _check(book):
    return rendercheck.render_check(book / "executed", book / "book")


def test_a_clean_page_passes(book):
    assert _check(book) == []


def _md_out(text):
    return {"output_type": "display_data", "data": {"text/markdown": text, "text/plain": "<Markdown>"}, "metadata": {}}


@pytest.mark.parametrize(
    "cells, expected",
    [
        # a glued flag rendered in a sentence, a reason that is a bool
        (
            [_code(_glued("left_out", "True")), _md("bow is left out of the ranking: {glue:text}`left_out`.")],
            "cell 6 renders the Python literal True in its prose",
        ),
        (
            [
                _code(
                    {
                        "output_type": "display_data",
                        "metadata": {"scrapbook": {"name": "s", "mime_prefix": ""}},
                        "data": {
                            "application/papermill.record/text/markdown": "`bow` on PAIR (True)",
                            "application/papermill.record/text/plain": "<Markdown>",
                        },
                    }
                ),
                _md("Left out: {glue:md}`s`."),
            ],
            "cell 6 renders the Python literal True in its prose",
        ),
        ([_md("The leader is none: (None).")], "cell 5 renders the Python literal None in its prose"),
        (
            [
                _code(
                    _html(
                        "<table><tr><th>model</th><th>degenerate</th></tr><tr><td>bow</td><td>False</td></tr></table>"
                    )
                )
            ],
            "cell 5 shows the Python literal False in its output",
        ),
        (
            [_code(_md_out("`glove`: symmetric, so $D_{dis} \\equiv 1$ and only one space exists"))],
            "cell 5 prints raw TeX '$D_{dis} \\\\equiv 1$' in an output",
        ),
        (
            [_code(_glued("where", "nearest in $D_{rel}$")), _md("It is {glue:text}`where`.")],
            "cell 6 shows the glued text `where` with raw TeX",
        ),
        ([_md("The margin \\varepsilon is zero.")], "cell 5 has the TeX control word \\varepsilon outside maths"),
        (
            [
                _code(
                    _html(
                        "<table><tr><th>model</th><th>C4 paper</th></tr><tr><td>bow</td><td>NaN</td></tr>"
                        "<tr><td>use</td><td>0.3</td></tr></table>"
                    )
                )
            ],
            "cell 5, table 1, column 'C4 paper' shows 1 'NaN' cell(s)",
        ),
        (
            [
                _md("The table below lists the prompts."),
                _code(_html("<table><tr><th>prompt</th><th>k</th></tr></table>")),
            ],
            "cell 5 speaks of the table below, which has no rows",
        ),
        ([_md("Some prose."), _md("As the table above shows, …")], "cell 6 speaks of the table above, but there is no"),
        (
            [_code(_glued("up", "100")), _md("The cosine rises (in at least {glue:text}`up:.0f` % of the rows).")],
            "cell 6 states 'at least 100 %'",
        ),
        (
            [_code(_html("<table><tr><th>test</th><th>p</th></tr><tr><td>pairs</td><td>0.0e+00</td></tr></table>"))],
            "cell 5 prints the p-value '0.0e+00'",
        ),
    ],
)
def test_each_planted_leak_is_named(book, cells, expected):
    _nb(book / "executed" / "90_page.ipynb", CLEAN + cells)
    problems = _check(book)
    assert len(problems) == 1 and problems[0].startswith(f"90_page.ipynb: {expected}"), problems


def test_a_book_page_with_tex_outside_maths_is_named(book):
    (book / "book" / "part.md").write_text("The gap \\equiv 0 here.\n")
    assert _check(book) == ["book/part.md: page has the TeX control word \\equiv outside maths: put it in $…$"]


def test_the_rendered_prose_puts_glued_values_in_place(book):
    ((i, prose),) = [(i, p) for i, p in rendercheck.rendered_prose(book / "executed" / "90_page.ipynb") if i == 4]
    assert "Tied: no; in 87.5 % of the rows." in prose


def test_an_admonitions_text_is_prose_too(book):
    box = _md("```{admonition} Why\n:class: note\nThe gap is {glue:text}`flag`.\n```\n\n```python\nx = True\n```")
    _nb(book / "executed" / "90_page.ipynb", CLEAN + [_code(_glued("flag", "False")), box])
    assert _check(book) == [
        "90_page.ipynb: cell 6 renders the Python literal False in its prose: say what the value means in words"
    ]


def test_inline_maths_over_a_line_break_is_maths(book):
    (book / "book" / "ex.md").write_text("Then $\\lambda + \\cos(a, b)\n   = 0.5 - \\tfrac{1}{2} \\approx 0$, so.\n")
    assert _check(book) == []


@pytest.mark.parametrize(
    "table, expected",
    [
        (
            "<table><tr><th>quantity</th><th>value</th></tr><tr><td>steps</td><td>{'steps': 64, 'blocks': 4}</td></tr>"
            "</table>",
            "cell 5, table 1 shows 1 cell(s) holding Python containers, e.g. \"{'steps': 64, 'blocks': 4}\"",
        ),
        (
            "<table><tr><th>machine</th><th>flags</th></tr><tr><td>EPYC</td><td>['avx2', 'avx512f']</td></tr></table>",
            "cell 5, table 1 shows 1 cell(s) holding Python containers, e.g. \"['avx2', 'avx512f']\"",
        ),
        (
            "<table><tr><th>model</th><th>n_case</th></tr><tr><td>bow</td><td>3</td></tr></table>",
            "cell 5, table 1 has the header 'n_case', a name of the code",
        ),
        # a pandas table whose index name is an identifier (the second header row)
        (
            "<table><thead><tr><th></th><th>samples</th></tr><tr><th>norm_case</th><th></th></tr></thead>"
            "<tbody><tr><th>comparable</th><td>4</td></tr></tbody></table>",
            "cell 5, table 1 has the header 'norm_case', a name of the code",
        ),
    ],
)
def test_a_table_for_code_not_people_is_named(book, table, expected):
    _nb(book / "executed" / "90_page.ipynb", CLEAN + [_code(_html(table))])
    problems = _check(book)
    assert len(problems) == 1 and problems[0].startswith(f"90_page.ipynb: {expected}"), problems


def test_a_markdown_table_in_an_output_is_read_too(book):
    md = "| model | train_pairs |\n| --- | --- |\n| bow | ['a', 'b'] |\n"
    _nb(book / "executed" / "90_page.ipynb", CLEAN + [_code(_md_out(md))])
    assert _check(book) == [
        "90_page.ipynb: cell 5, table 1 shows 1 cell(s) holding Python containers, e.g. \"['a', 'b']\": write the "
        "items as words (compsem.labels.cell) or give each its own column",
        "90_page.ipynb: cell 5, table 1 has the header 'train_pairs', a name of the code: label it with words and "
        "units (compsem.labels.labelled)",
    ]


def test_words_intervals_and_notation_in_a_table_pass(book):
    table = (
        "<table><tr><th>model</th><th>test Spearman (×100)</th><th>D_rel</th></tr>"
        "<tr><td>bi/mse</td><td>61.3 [59.0, 63.5]</td><td>[2.2, 5.9]</td></tr></table>"
    )
    _nb(book / "executed" / "90_page.ipynb", CLEAN + [_code(_html(table))])
    assert _check(book) == []


def test_row_labels_of_an_index_of_names_are_data_but_a_quantity_row_label_is_a_header(book):
    packages = (
        "<table><thead><tr><th></th><th>installed</th></tr><tr><th>package</th><th></th></tr></thead>"
        "<tbody><tr><th>huggingface_hub</th><td>1.0</td></tr></tbody></table>"
    )
    quantities = (
        "<table><thead><tr><th></th><th>value</th></tr></thead>"
        "<tbody><tr><th>n_rows_read</th><td>11342</td></tr></tbody></table>"
    )
    _nb(book / "executed" / "90_page.ipynb", CLEAN + [_code(_html(packages)), _code(_html(quantities))])
    assert _check(book) == [
        "90_page.ipynb: cell 6, table 1 has the header 'n_rows_read', a name of the code: label "
        "it with words and units (compsem.labels.labelled)"
    ]


def test_code_quoted_in_a_markdown_table_cell_is_meant_as_code(book):
    md = '| setting | ours |\n| --- | --- |\n| precision | `overrides={"precision": "fp16"}` on a GPU |\n'
    _nb(book / "executed" / "90_page.ipynb", CLEAN + [_code(_md_out(md))])
    assert _check(book) == []
