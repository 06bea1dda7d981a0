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
    (tmp_path / "img.png").write_bytes(
        bytes.fromhex(
            "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
            "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
        )
    )
    (tmp_path / "index.html").write_text(GOOD)
    (tmp_path / "other.html").write_text('<html><body><h2 id="sec">S</h2></body></html>')
    return tmp_path


def test_clean_site_has_no_static_problems(site):
    assert static_check(site) == []


def test_static_problems_are_named(site):
    (site / "bad.html").write_text(
        '<html><body><a href="missing.html">x</a><a href="other.html#nope">y</a><a href="#gone">z</a>'
        '<img src="nothere.png"><script src="https://cdn.example.org/x.js"></script></body></html>'
    )
    problems = static_check(site)
    assert "bad.html: broken link missing.html" in problems
    assert "bad.html: broken anchor other.html#nope" in problems
    assert "bad.html: broken anchor #gone" in problems
    assert "bad.html: <img> source missing: nothere.png" in problems
    assert "bad.html: <script> loads a remote resource https://cdn.example.org/x.js" in problems
    assert len(problems) == 5


def test_notebook_errors(tmp_path):
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "outputs": [{"output_type": "error", "ename": "ValueError", "evalue": "boom"}],
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    (tmp_path / "x.ipynb").write_text(json.dumps(nb))
    assert notebook_errors(tmp_path) == ["x.ipynb: cell 0 raised ValueError: boom"]
    fig = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "outputs": [
                    {"output_type": "display_data", "data": {"text/plain": "<Figure size 640x480 with 1 Axes>"}},
                    {
                        "output_type": "display_data",
                        "data": {"text/plain": "<Figure size 640x480 with 1 Axes>", "image/png": "iVBOR"},
                    },
                    {
                        "output_type": "display_data",
                        "data": {
                            "application/papermill.record/text/plain": "<Figure size 640x480 with 1 Axes>",
                            "application/papermill.record/image/png": "iVBOR",
                        },
                    },
                ],
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    (tmp_path / "x.ipynb").write_text(json.dumps(fig))
    assert notebook_errors(tmp_path) == [
        "x.ipynb: cell 0 has a figure rendered as text only (<Figure size 640x480 with 1 Axes>)"
    ]
    captioned = {
        "cells": [{"cell_type": "code", "metadata": {"mystnb": {"figure": {"caption": "c"}}}, "outputs": []}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    (tmp_path / "x.ipynb").write_text(json.dumps(captioned))
    assert notebook_errors(tmp_path) == ["x.ipynb: cell 0 is captioned as a figure but produced no image"]


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_browser_finds_remote_requests_raw_tex_and_broken_images(site):
    (site / "bad.html").write_text(
        '<html><body><main><span class="math">\\(x^2\\)</span>'
        '<img src="http://remote.invalid/remote.png"><img src="broken.png">'
        '<div class="output"><pre>&lt;Figure size 640x480 with 1 Axes&gt;</pre></div></main></body></html>'
    )
    (site / "broken.png").write_bytes(b"not an image")
    problems = browser_check(site)
    assert all(p.startswith("bad.html") for p in problems), problems
    text = "\n".join(problems)
    assert "request to another host: http://remote.invalid/remote.png" in text
    assert "1 maths block left as raw TeX" in text  # one span: the singular
    assert "image did not load: broken.png" in text
    assert re.search(r"\d+ figures? shown as '<Figure size \.\.\.>' text", text)


def _executed(tmp_path, html, source="x = 1"):
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "source": source,
                "metadata": {},
                "outputs": [{"output_type": "execute_result", "data": {"text/html": html}}],
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
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
    assert problems == [
        "x.ipynb: cell 0 shows a table cell cut short: "
        "'the overlap sentence is closer to each input t...' "
        "(pd.set_option('display.max_colwidth', None))"
    ]
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
        'text-overflow:ellipsis">a long definition that does not fit</td><td>ok</td></tr></table></main></body></html>'
    )
    problems = browser_check(site)
    assert problems == [
        "cut.html: a table cell is cut short by CSS (text-overflow: ellipsis): 'a long definition that does not fit'"
    ]


def test_main_reports_cut_cells(site, tmp_path, capsys):
    cut = "<table><tr><td>the overlap sentence is closer to each input t...</td></tr></table>"
    executed = _executed(tmp_path, cut)
    assert (
        main(["--html", str(site), "--executed", str(executed), "--data", str(tmp_path / "none"), "--no-browser"]) == 1
    )
    out = capsys.readouterr().out
    assert (
        "check-book: x.ipynb: cell 0 shows a table cell cut short: 'the overlap sentence is closer to each input t...'"
        in out
    )
