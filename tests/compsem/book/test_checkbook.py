"""The built-book checker finds each kind of problem it promises to find."""

import json
import re
import shutil

import pytest

from compsem.book.checkbook import browser_check, main, notebook_errors, static_check, truncated_cells

GOOD = """<html><head><link rel="stylesheet" href="_static/s.css"></head><body>
<h1 id="top">Title</h1><a href="other.html#sec">ok</a><a href="#top">self</a>
<a href="https://example.org/">an outside link is fine</a><img src="img.png"></body></html>"""


@pytest.fixture
def site(tmp_path):
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "s.css").write_text("body{}")
    (tmp_path / "img.png").write_bytes(bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"))
    (tmp_path / "index.html").write_text(GOOD)
    (tmp_path / "other.html").write_text('<html><body><h2 id="sec">S</h2></body></html>')
    return tmp_path


def test_clean_site_has_no_static_problems(site):
    assert static_check(site) == []


def test_static_problems_are_named(site):
    (site / "bad.html").write_text(
        '<html><body><a href="missing.html">x</a><a href="other.html#nope">y</a><a href="#gone">z</a>'
        '<img src="nothere.png"><script src="https://cdn.example.org/x.js"></script></body></html>')
    problems = static_check(site)
    assert "bad.html: broken link missing.html" in problems
    assert "bad.html: broken anchor other.html#nope" in problems
    assert "bad.html: broken anchor #gone" in problems
    assert "bad.html: <img> source missing: nothere.png" in problems
    assert "bad.html: <script> loads a remote resource https://cdn.example.org/x.js" in problems
    assert len(problems) == 5


def test_notebook_errors(tmp_path):
    nb = {"cells": [{"cell_type": "code", "outputs": [{"output_type": "error", "ename": "ValueError",
                                                        "evalue": "boom"}]}]}
    (tmp_path / "x.ipynb").write_text(json.dumps(nb))
    assert notebook_errors(tmp_path) == ["x.ipynb: cell 0 raised ValueError: boom"]
    fig = {"cells": [{"cell_type": "code", "outputs": [
        {"output_type": "display_data", "data": {"text/plain": "<Figure size 640x480 with 1 Axes>"}},
        {"output_type": "display_data", "data": {"text/plain": "<Figure size 640x480 with 1 Axes>",
                                                  "image/png": "iVBOR"}},
        {"output_type": "display_data", "data": {
            "application/papermill.record/text/plain": "<Figure size 640x480 with 1 Axes>",
            "application/papermill.record/image/png": "iVBOR"}}]}]}
    (tmp_path / "x.ipynb").write_text(json.dumps(fig))
    assert notebook_errors(tmp_path) == ["x.ipynb: cell 0 has a figure rendered as text only (<Figure size 640x480 with 1 Axes>)"]
    captioned = {"cells": [{"cell_type": "code", "metadata": {"mystnb": {"figure": {"caption": "c"}}}, "outputs": []}]}
    (tmp_path / "x.ipynb").write_text(json.dumps(captioned))
    assert notebook_errors(tmp_path) == ["x.ipynb: cell 0 is captioned as a figure but produced no image"]


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_browser_finds_remote_requests_raw_tex_and_broken_images(site):
    (site / "bad.html").write_text(
        '<html><body><main><span class="math">\\(x^2\\)</span>'
        '<img src="http://remote.invalid/remote.png"><img src="broken.png">'
        '<div class="output"><pre>&lt;Figure size 640x480 with 1 Axes&gt;</pre></div></main></body></html>')
    (site / "broken.png").write_bytes(b"not an image")
    problems = browser_check(site)
    assert all(p.startswith("bad.html") for p in problems), problems
    text = "\n".join(problems)
    assert "request to another host: http://remote.invalid/remote.png" in text
    assert "1 maths block left as raw TeX" in text                      # one span: the singular
    assert "image did not load: broken.png" in text
    assert re.search(r"\d+ figures? shown as '<Figure size \.\.\.>' text", text)


def _executed(tmp_path, html, source="x = 1"):
    nb = {"cells": [{"cell_type": "code", "source": source, "metadata": {}, "outputs": [
        {"output_type": "execute_result", "data": {"text/html": html}}]}]}
    (tmp_path / "nb").mkdir(exist_ok=True)
    (tmp_path / "nb" / "x.ipynb").write_text(json.dumps(nb))
    return tmp_path / "nb"


def test_truncated_table_cells_are_flagged(tmp_path):
    import pandas as pd

    long = "the overlap sentence is closer to each input than the inputs are to each other"
    df = pd.DataFrame({"meaning": [long, "short"]})
    with pd.option_context("display.max_colwidth", 50):
        cut = df._repr_html_()
    problems = truncated_cells(_executed(tmp_path, cut))
    assert problems == ["x.ipynb: cell 0 shows a table cell cut short: "
                        "'the overlap sentence is closer to each input t...' "
                        "(pd.set_option('display.max_colwidth', None))"]
    with pd.option_context("display.max_colwidth", None):
        assert truncated_cells(_executed(tmp_path, df._repr_html_())) == []
    # pandas eliding rows/columns shows a bare "..." cell: not a cut text
    with pd.option_context("display.max_rows", 4):
        assert truncated_cells(_executed(tmp_path, pd.DataFrame({"a": range(10)})._repr_html_())) == []
    # a text that ends in an ellipsis in the notebook's source or in the data is the data's own
    own = "<table><tr><td>And then…</td></tr></table>"
    assert truncated_cells(_executed(tmp_path, own, source="s = 'And then…'")) == []
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "d.csv").write_text("text\nAnd then…\n")
    assert truncated_cells(_executed(tmp_path, own), tmp_path / "data") == []
    assert len(truncated_cells(_executed(tmp_path, own))) == 1


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_browser_flags_cells_cut_by_css(site):
    (site / "cut.html").write_text(
        '<html><body><main><table><tr><td style="max-width:40px;overflow:hidden;white-space:nowrap;'
        'text-overflow:ellipsis">a long definition that does not fit</td><td>ok</td></tr></table></main></body></html>')
    problems = browser_check(site)
    assert problems == ["cut.html: a table cell is cut short by CSS (text-overflow: ellipsis): "
                        "'a long definition that does not fit'"]


def test_main_reports_cut_cells(site, tmp_path, capsys):
    cut = "<table><tr><td>the overlap sentence is closer to each input t...</td></tr></table>"
    executed = _executed(tmp_path, cut)
    assert main(["--html", str(site), "--executed", str(executed), "--data", str(tmp_path / "none"),
                 "--no-browser"]) == 1
    out = capsys.readouterr().out
    assert "check-book: x.ipynb: cell 0 shows a table cell cut short: 'the overlap sentence is closer to each input t...'" in out


# ---- the prose checks (compsem.book.prosecheck): one planted defect each, and a clean page ----------
from compsem.book import prosecheck  # noqa: E402

TABLE = ("<table><caption>RSA and gap</caption><tr><th>model</th><th>RSA</th><th>gap (NaN: undefined)</th><th>n</th></tr>"
         "<tr><td>bow</td><td>0.545 [0.48, 0.60]</td><td>0.1622</td><td>12</td></tr>"
         "<tr><td>use</td><td>0.512 [0.45, 0.58]</td><td>0.0000</td><td>7</td></tr>"
         "<tr><td>glove</td><td>n/a</td><td>NaN</td><td>1,203</td></tr></table>")


def _nb(path, cells):
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def _md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _code(*outputs):
    return {"cell_type": "code", "metadata": {}, "source": "x", "outputs": list(outputs), "execution_count": 1}


def _html(html):
    return {"output_type": "execute_result", "data": {"text/html": html, "text/plain": "t"}, "metadata": {}}


CLEAN = [_md("# A page\n\nThe closest model is {glue:md}`best` (see Table 3.2 and Eq. 5; `make book`), "
             "its code in `src/compsem/stats.py`, its test in tests/compsem/test_stats.py. Files under "
             "`data/reference/<study>_*.csv`. Inline maths $0.25 + 0.5$ and\n\n```python\nx = 0.123  # code\n```\n"),
         _code(_html(TABLE)), _md("The bow row prints 0.545 as the table does; 12 models; 100 texts; 95 % "
                                  "intervals; a threshold of 0.5, margins ≤ 0.33, within 0.001, such as 0.55; "
                                  "a made-up value $0.42$; Fig. 5.9."),
         _code({"output_type": "stream", "name": "stdout", "text": "done in 3 steps\n"})]


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


@pytest.mark.parametrize("cell, expected", [
    (_code({"output_type": "stream", "name": "stderr", "text": "FutureWarning: 'lsuffix' is deprecated\n"}),
     "cell 4 writes to stderr: FutureWarning: 'lsuffix' is deprecated"),
    (_code({"output_type": "stream", "name": "stdout",
            "text": "embed sbert-mini:   2%|▏         | 1024/48385 [00:25<19:40, 40.1text/s]\n"}),
     "cell 4 shows 1 progress-bar line "),
    (_code({"output_type": "display_data", "data": {"application/vnd.jupyter.widget-view+json": {}}, "metadata": {}}),
     "cell 4 shows 1 progress widget "),
    (_md("The discrepancy space exists for {glue:text}`n` asymmetric scorer(s) in this run."),
     "cell 4 has a pluralisation template 'scorer(s)'"),
    (_code(_html("<table><tr><td>exists for 1 asymmetric scorer(s)</td></tr></table>")),
     "cell 4 has a pluralisation template 'scorer(s)'"),
    (_md("Every number is recomputed in `tests/test_teaching_ssm.py`."),
     "cell 4 names tests/test_teaching_ssm.py, which does not exist in the repository"),
    (_code(_html("<table><tr><td>use</td><td>0.999 [1.00, 1.00]</td></tr></table>")),
     "cell 4 prints 0.999 outside its own interval [1.00, 1.00]"),
    (_code(_html("<table><tr><td>0.0</td><td>-0.0000</td></tr></table>")),
     "cell 4, table 1, column 'column 2' prints -0.0000: print a value that rounds to zero as zero"),
    (_code({"output_type": "stream", "name": "stdout", "text": "gap: -0.0000\n"}), "cell 4 prints -0.0000"),
    (_code(_html("<table><tr><th>model</th><th>gap</th></tr><tr><td>a</td><td>0.0</td></tr>"
                 "<tr><td>b</td><td>0.0000</td></tr><tr><td>c</td><td>12</td></tr></table>")),
     "cell 4, table 1, column 'gap' mixes numbers of decimals ('0.0', '0.0000')"),
    (_code(_html("<table><tr><th>model</th><th>M(A,O) − M(A,B)</th></tr><tr><td>a</td><td>0.412 ± 0.1</td></tr>"
                 "<tr><td>paper</td><td>0.0478 ± 0.1270</td></tr></table>")),
     "cell 4, table 1, column 'M(A,O) − M(A,B)' mixes numbers of decimals ('0.412 ± 0.1', '0.0478 ± 0.1270')"),
    # percentages marked "%" are compared among themselves: one decimal for them, two for the correlation is fine,
    # a percentage at two decimals is not
    (_code(_html("<table><tr><th>criterion</th><th>use</th></tr><tr><td>C1</td><td>49.6 % [40.8, 59.2]</td></tr>"
                 "<tr><td>RSA</td><td>0.43 [0.41, 0.45]</td></tr><tr><td>C2</td><td>99.25 % [97.6, 100.0]</td></tr>"
                 "<tr><td>gap</td><td>-0.05 [-0.18, 0.08]</td></tr></table>")),
     "cell 4, table 1, column 'use' mixes numbers of decimals ('49.6 % [40.8, 59.2]', '99.25 % [97.6, 100.0]')"),
    # a pandas table: the index in <th> cells with a rowspan, a two-level header, a caption
    (_code(_html("<table><caption>C4 by mode</caption><thead><tr><th></th><th></th><th colspan='2'>pooled</th></tr>"
                 "<tr><th>subset</th><th>model</th><th>cos</th><th>ned</th></tr></thead><tbody>"
                 "<tr><th rowspan='2'>main</th><th>bow</th><td>18.9</td><td>20.1</td></tr>"
                 "<tr><th>use</th><td>25.0</td><td>20.12</td></tr></tbody></table>")),
     "cell 4, table 1 ('C4 by mode'), column 'pooled / ned' mixes numbers of decimals ('20.1', '20.12')"),
    (_md("Under the equations the gap is 0.167."), "cell 4 types the number 0.167 into the prose"),
    (_md("It passes for 42.5 % of the phrases."), "cell 4 types the number 42.5 into the prose"),
    (_md("The use row gives 0.161 here."), "cell 4 types 0.161 where a table of the page prints 0.1622"),
])
def test_each_planted_defect_is_named(clean_book, cell, expected):
    _nb(clean_book / "executed" / "10_page.ipynb", CLEAN + [cell])
    problems = _check(clean_book)
    assert len(problems) == 1 and problems[0].startswith(f"10_page.ipynb: {expected}"), problems


def test_markdown_pages_are_read_for_templates_and_paths(clean_book):
    (clean_book / "repo" / "book" / "part4.md").write_text("Run `tests/teaching/test_ssm.py` on the model(s).\n")
    problems = _check(clean_book)
    assert problems == ["book/part4.md: page has a pluralisation template 'model(s)': say the count's own form",
                        "book/part4.md: page names tests/teaching/test_ssm.py, which does not exist in the repository"]


def test_main_notebooks_only_fails_on_a_planted_defect(clean_book, capsys):
    args = ["--notebooks-only", "--executed", str(clean_book / "executed"), "--root", str(clean_book / "repo"),
            "--pages", str(clean_book / "repo" / "book"), "--data", str(clean_book / "nodata")]
    assert main(args) == 0
    _nb(clean_book / "executed" / "10_page.ipynb", CLEAN + [_md("The gap is 0.167.")])
    assert main(args) == 1
    assert "types the number 0.167" in capsys.readouterr().out


def _glued(name, text):
    return {"output_type": "display_data", "metadata": {"scrapbook": {"name": name, "mime_prefix": ""}},
            "data": {"application/papermill.record/text/plain": text}}


def test_a_glued_value_the_prose_shows_must_be_defined(clean_book):
    cells = CLEAN + [_code(_glued("hours", "nan"), _glued("rate", "34.1"), _glued("unused", "nan")),
                     _md("Training takes {glue:text}`hours:.1f` hours at {glue:text}`rate:.0f` per second.")]
    _nb(clean_book / "executed" / "22_page.ipynb", cells)
    (clean_book / "repo" / "book" / "part.md").write_text(
        "Its {glue:text}`../notebooks/22_page.ipynb::hours:.1f` hours, at "
        "{glue:text}`../notebooks/22_page.ipynb::rate:.0f`.\n")
    problems = _check(clean_book)
    assert [p for p in problems if "glued value" in p] == [
        "22_page.ipynb: the glued value `hours` is nan where the prose shows it: compute it, or say why it is "
        "undefined",
        "book/part.md: the glued value `hours` of 22_page is nan where the prose shows it: compute it, or say "
        "why it is undefined"]
