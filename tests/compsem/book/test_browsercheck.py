"""The browser pass of the book check waits for what a page needs (its load event, MathJax's
startup promise, its images), each page within its own time limit, and reports a page that does
not settle by name instead of stopping with a traceback."""

import importlib.metadata
import os
import shutil
import threading
from pathlib import Path

import pytest

from compsem.book import checkbook

from compsem.book.checks import browsercheck
from compsem.book.checkbook import browser_check

pytestmark = pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


def _mathjax() -> Path:
    """The offline MathJax the book itself is built with (sphinx-mathjax-offline)."""
    dist = importlib.metadata.distribution("sphinx-mathjax-offline")
    path = Path(dist.locate_file("sphinx-mathjax-offline/static/mathjax/tex-chtml.js"))
    assert path.is_file(), path
    return path


def _release(fifo: Path) -> None:
    """Give a reader blocked on ``fifo`` its end of file (a writer that opens and closes at once)."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # no reader (any more): nothing to release
        pass


@pytest.fixture
def hanging(tmp_path, monkeypatch):
    """A named pipe: a file request that never ends until released. It is released after each
    page is checked, so that the browser can shut down quickly."""
    fifo = tmp_path / "hang.png"
    os.mkfifo(fifo)
    check = browsercheck._check_page

    def check_then_release(*args, **kwargs):
        try:
            return check(*args, **kwargs)
        finally:
            for _ in range(3):
                _release(fifo)

    monkeypatch.setattr(browsercheck, "_check_page", check_then_release)
    return fifo


def test_mathjax_typesets_and_the_page_passes(tmp_path):
    (tmp_path / "maths.html").write_text(
        '<html><head><script>window.MathJax = {tex: {inlineMath: [["\\\\(", "\\\\)"]]}};</script>'
        f'<script async src="{_mathjax().as_uri()}"></script></head>'
        '<body><main><p>The cosine <span class="math notranslate nohighlight">\\(\\cos(u, v) = '
        "\\frac{u \\cdot v}{\\|u\\|\\,\\|v\\|}\\)</span>.</p></main></body></html>"
    )
    assert browser_check(tmp_path, page_timeout=20) == []


def test_raw_tex_is_found_after_mathjax_gave_up(tmp_path):
    """MathJax present but never typesetting: the page is reported as raw TeX after its startup
    promise, not before it."""
    (tmp_path / "raw.html").write_text(
        "<html><head><script>window.MathJax = {startup: {promise: Promise.resolve()}};</script></head>"
        '<body><main><span class="math">\\(x^2\\)</span></main></body></html>'
    )
    assert browser_check(tmp_path, page_timeout=5) == ["raw.html: 1 maths block left as raw TeX"]


def test_a_page_whose_mathjax_never_starts_is_named_once(tmp_path):
    (tmp_path / "stuck.html").write_text(
        "<html><head><script>window.MathJax = {startup: {promise: new Promise(() => {})}};</script></head>"
        "<body><main><p>no maths here</p></main></body></html>"
    )
    (tmp_path / "fine.html").write_text("<html><body><main><p>fine</p></main></body></html>")
    assert browser_check(tmp_path, page_timeout=2) == [
        "stuck.html: the page did not settle within 2 s (still waiting for MathJax startup)"
    ]


def test_an_image_that_never_loads_names_its_page_and_the_check_goes_on(tmp_path, hanging):
    (tmp_path / "a_hangs.html").write_text(f'<html><body><main><p>x</p><img src="{hanging.name}"></main></body></html>')
    (tmp_path / "b_fine.html").write_text('<html><body><main><img src="ok.png"></main></body></html>')
    (tmp_path / "ok.png").write_bytes(PNG)
    problems = browser_check(tmp_path, page_timeout=2)
    assert problems[0] == "a_hangs.html: the page did not settle within 2 s (still waiting for the load event)"
    assert all(p.startswith("a_hangs.html: ") for p in problems), problems  # b_fine.html was checked and passed
    assert "a_hangs.html: image did not load: hang.png" in problems


def test_a_hanging_script_request_is_one_problem(tmp_path, hanging):
    (tmp_path / "script.html").write_text(
        f'<html><head><script async src="{hanging.name}"></script></head><body><main><p>x</p></main></body></html>'
    )
    assert browser_check(tmp_path, page_timeout=2) == [
        "script.html: the page did not settle within 2 s (still waiting for the load event)"
    ]


def test_a_lazy_image_below_the_fold_is_waited_for(tmp_path):
    (tmp_path / "ok.png").write_bytes(PNG)
    (tmp_path / "lazy.html").write_text(
        '<html><body><main><div style="height:5000px">tall</div><img loading="lazy" src="ok.png"></main></body></html>'
    )
    assert browser_check(tmp_path, page_timeout=5) == []


def test_no_browser_is_one_problem_not_a_traceback(tmp_path):
    (tmp_path / "x.html").write_text("<html><body></body></html>")
    problems = browser_check(tmp_path, executable=str(tmp_path / "no-such-browser"))
    assert len(problems) == 1 and problems[0].startswith("browser: ") and "did not start" in problems[0], problems


def test_main_passes_the_page_timeout(tmp_path, capsys):
    html = tmp_path / "html"
    html.mkdir()
    (html / "index.html").write_text("<html><body><main><p>home</p></main></body></html>")
    (html / "stuck.html").write_text(
        "<html><head><script>window.MathJax = {startup: {promise: new Promise(() => {})}};</script></head>"
        "<body><main><p>x</p></main></body></html>"
    )
    (tmp_path / "nb").mkdir()
    code = checkbook.main(
        [
            "--html",
            str(html),
            "--executed",
            str(tmp_path / "nb"),
            "--data",
            str(tmp_path),
            "--pages",
            str(tmp_path / "nopages"),
            "--root",
            str(tmp_path),
            "--screenshots",
            str(tmp_path / "shots"),
            "--page-timeout",
            "1.5",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "check-book: stuck.html: the page did not settle within 1.5 s (still waiting for MathJax startup)" in out
    assert "check-book: 2 pages, 1 problem on 1 page" in out


MINI_CONFIG = """title: mini
only_build_toc_files: true
execute:
  execute_notebooks: "off"
parse:
  myst_enable_extensions: [amsmath, colon_fence, dollarmath]
sphinx:
  extra_extensions:
    - sphinx-mathjax-offline
    - sphinx_exercise
  config:
    numfig: true
"""


@pytest.mark.slow
def test_a_page_built_like_the_books_settles_and_passes(tmp_path):
    """A two-page book built with the book's MathJax (sphinx-mathjax-offline, loaded with
    ``defer``) and an exercise with a folded solution, as the exercise pages are: every page
    settles and MathJax typesets the maths."""
    import subprocess
    import sys

    src = tmp_path / "src"
    src.mkdir()
    (src / "_config.yml").write_text(MINI_CONFIG)
    (src / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nparts:\n  - caption: One\n    numbered: true\n"
        "    chapters:\n      - file: maths\n"
    )
    (src / "intro.md").write_text("# Intro\n\nHello.\n")
    (src / "maths.md").write_text(
        "# Maths\n\nThe cosine $\\cos(u, v) = \\frac{u \\cdot v}{\\lVert u\\rVert \\lVert v\\rVert}$.\n\n"
        "$$\nD_{rel}(i, j) = 1 - \\frac{R(i, j) + R(j, i)}{2}\n$$\n\n"
        "```{exercise} A title\n:label: ex-1\n\nCompute $x^2$ for $x = 3$.\n```\n\n"
        "```{solution} ex-1\n:class: dropdown\n\n$9$.\n```\n"
    )
    jb = Path(sys.executable).parent / "jupyter-book"
    subprocess.run(
        [str(jb), "build", str(src), "--path-output", str(tmp_path / "out")],
        check=True,
        capture_output=True,
        timeout=600,
    )
    html = tmp_path / "out" / "_build" / "html"
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()
    assert browser_check(html, page_timeout=30) == []
    # the same page without its MathJax files: named, as raw TeX, and the check still ends
    shutil.rmtree(html / "_static" / "mathjax")
    problems = browser_check(html, page_timeout=5)
    assert problems and all(p.startswith("maths.html: ") for p in problems), problems
    assert any("left as raw TeX" in p for p in problems), problems
