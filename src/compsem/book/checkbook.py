"""Check the built book as a reader sees it (``make check-book``).

Two passes over ``_build/html``:

1. **Static** (every HTML file, parsed with the standard library): each internal link points to
   an existing page and, when it has a ``#fragment``, to an existing id on that page; each
   image file exists; no script, stylesheet, image or font is loaded from another host.
2. **In a browser** (:mod:`.browsercheck`: headless Chromium driven by Playwright, offline
   flags): every page is opened from ``file://`` and given ``--page-timeout`` seconds to settle
   (its load event, MathJax's startup promise, its images; never "network idle", which a page
   may not reach); a page that does not settle is one problem naming what it waited for. It
   fails on any request that is not a local file or a data URL, an image that did not load,
   maths left as raw TeX after MathJax ran, and a notebook cell whose output is an error, a
   table cell cut short with an ellipsis by CSS (``text-overflow: ellipsis``). Screenshots of a
   few pages are saved.

Besides, :func:`truncated_cells` and the prose checks of :mod:`.prosecheck` (stderr and
progress-bar output, "(s)" templates, paths that do not exist, estimates outside their own
intervals, numbers typed rather than glued) read the executed notebooks and ``book/*.md``
(``--notebooks-only`` runs these without a built HTML book), and the claims of
:mod:`.claimcheck`: every sentence stating a result in words is produced (from a declared
finding, or else by other code), checked or marked (unchecked otherwise, a problem); the line
``claims: N found: F from findings, G produced, C checked, M marked, U unchecked`` is printed in
both modes. :func:`truncated_cells`: a table cell whose text ends in
"…" or "..." when no source (the notebook's cells, the files under ``data/``) has that text was
cut by pandas (``display.max_colwidth``), and the reader loses the end of it.

Prints one line per problem and returns the number of problems.
"""

from __future__ import annotations

import argparse
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .checks.browsercheck import PAGE_TIMEOUT_S, browser_check
from .checks.claimcheck import claim_check, claim_summary
from .executed import cells as _cells, mime
from .checks.prosecheck import prose_check
from .checks.shown import problems as shown_problems
from .checks.rendercheck import render_check
from ..fmt import plural
from ..paths import results_dir

__all__ = ["static_check", "browser_check", "notebook_errors", "truncated_cells", "main"]


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.resources: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag in ("img", "script", "iframe", "source", "video", "audio") and a.get("src"):
            self.resources.append((tag, a["src"]))
        if tag == "link" and a.get("href") and (a.get("rel") or "") in ("stylesheet", "preload", "icon"):
            self.resources.append((tag, a["href"]))


def _parse(path: Path) -> _Page:
    p = _Page()
    p.feed(path.read_text(encoding="utf-8", errors="replace"))
    return p


def static_check(html_dir: Path) -> list[str]:
    """Broken internal links and anchors, missing images, remote resources."""
    problems: list[str] = []
    pages = {p: _parse(p) for p in sorted(html_dir.rglob("*.html")) if "_static" not in p.parts}
    for page, parsed in pages.items():
        rel = page.relative_to(html_dir)
        for tag, src in parsed.resources:
            parts = urlsplit(src)
            if parts.scheme in ("http", "https") or src.startswith("//"):
                problems.append(f"{rel}: <{tag}> loads a remote resource {src}")
            elif parts.scheme in ("", "file") and not src.startswith("data:"):
                target = (page.parent / unquote(parts.path)).resolve()
                if not target.exists():
                    problems.append(f"{rel}: <{tag}> source missing: {src}")
        for href in parsed.links:
            parts = urlsplit(href)
            if parts.scheme or href.startswith(("//", "mailto:", "javascript:")):
                continue
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                problems.append(f"{rel}: broken link {href}")
                continue
            if parts.fragment and target.suffix == ".html":
                tparsed = pages.get(target) or _parse(target)
                if unquote(parts.fragment) not in tparsed.ids:
                    problems.append(f"{rel}: broken anchor {href}")
    return problems


def notebook_errors(executed_dir: Path) -> list[str]:
    """Error outputs in the executed notebooks."""
    problems = []
    for nb in sorted(executed_dir.glob("*.ipynb")):
        cells = _cells(nb)
        for i, c in enumerate(cells):
            wants_figure = "figure" in c.get("metadata", {}).get("mystnb", {})
            has_image = any(k.startswith("image/") for o in c.get("outputs", []) for k in mime(o))
            if wants_figure and not has_image:
                problems.append(f"{nb.name}: cell {i} is captioned as a figure but produced no image")
            for o in c.get("outputs", []):
                if o.get("output_type") == "error":
                    problems.append(f"{nb.name}: cell {i} raised {o.get('ename')}: {o.get('evalue', '')[:200]}")
                # glued outputs carry their mime types behind a papermill prefix
                data = mime(o)
                text = "".join(data.get("text/plain", ""))
                if text.startswith("<Figure size") and not any(k.startswith("image/") for k in data):
                    problems.append(f"{nb.name}: cell {i} has a figure rendered as text only ({text[:40]})")
    return problems


ELLIPSES = ("…", "...")


class _Cells(HTMLParser):
    """The texts of the ``<td>``/``<th>`` cells of an HTML fragment."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.cells: list[str] = []
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("td", "th"):
            self._depth += 1
            self.cells.append("")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._depth:
            self._depth -= 1

    def handle_data(self, data):
        if self._depth:
            self.cells[-1] += data


def _table_cells(html: str) -> list[str]:
    parser = _Cells()
    parser.feed(html)
    return [c.strip() for c in parser.cells]


def truncated_cells(executed_dir: Path, data_dir: Path | None = None) -> list[str]:
    """Table cells in the executed notebooks' outputs that end in an ellipsis their source lacks.

    A cell that is only an ellipsis is pandas eliding rows or columns and is not reported; a
    text that ends in "…" in the notebook's own cells or in a file under ``data_dir`` is the
    data's own.
    """
    corpus = ""
    if data_dir is not None and data_dir.is_dir():
        corpus = "\n".join(
            p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(data_dir.rglob("*"))
            if p.is_file() and p.suffix in (".csv", ".tsv", ".json", ".jsonl", ".txt", ".md")
        )
    problems = []
    for nb in sorted(executed_dir.glob("*.ipynb")):
        cells = _cells(nb)
        own = "\n".join("".join(c.get("source", "")) for c in cells)
        for i, c in enumerate(cells):
            for o in c.get("outputs", []):
                data = mime(o)
                html = "".join(data.get("text/html", ""))
                for text in _table_cells(html) if html else []:
                    if text.endswith(ELLIPSES) and text not in ELLIPSES and text not in own and text not in corpus:
                        problems.append(
                            f"{nb.name}: cell {i} shows a table cell cut short: '{text[-60:]}' "
                            f"(pd.set_option('display.max_colwidth', None))"
                        )
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m compsem.book.checkbook", description=__doc__.splitlines()[0])
    ap.add_argument("--html", default="_build/html")
    ap.add_argument("--executed", default="_build/executed/notebooks")
    ap.add_argument("--data", default="data", help="the shipped data (texts that end in an ellipsis there are fine)")
    ap.add_argument("--screenshots", default="_build/screenshots")
    ap.add_argument("--shot", action="append", default=[], help="page (relative path) to screenshot; repeatable")
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument(
        "--page-timeout",
        type=float,
        default=PAGE_TIMEOUT_S,
        help="seconds a page may take to settle in the browser (default: %(default)s)",
    )
    ap.add_argument("--root", default=".", help="the repository (paths named in prose must exist here)")
    ap.add_argument("--pages", default="book", help="the Markdown pages also read by the prose checks")
    ap.add_argument("--notebooks-only", action="store_true", help="only the checks of the executed notebooks")
    ap.add_argument(
        "--commands",
        action="store_true",
        help="also check every command the pages show (compsem.book.checks.shown; make check-book sets it)",
    )
    args = ap.parse_args(argv)
    executed = Path(args.executed)
    notebook_problems = (
        notebook_errors(executed)
        + truncated_cells(executed, Path(args.data))
        + prose_check(executed, Path(args.root), Path(args.pages))
        + render_check(executed, Path(args.pages))
    )
    if args.commands:
        notebook_problems += shown_problems(Path(args.root))
    counts, claim_problems = claim_check(
        executed, Path(args.pages), results_dir("claims"), Path(args.root) / "book" / "checks"
    )
    notebook_problems += claim_problems
    if args.notebooks_only:
        for p in notebook_problems:
            print(f"check-book: {p}")
        n = len(list(executed.glob("*.ipynb")))
        bad = {p.split(":", 1)[0] for p in notebook_problems}
        print(
            f"check-book: {plural(n, 'notebook')}, {plural(len(notebook_problems), 'problem')} on {plural(len(bad), 'page')}"
        )
        print(claim_summary(counts))
        return 1 if notebook_problems else 0
    html = Path(args.html).resolve()
    if not (html / "index.html").is_file():
        print(f"no built book at {html}: run `make book` first", file=sys.stderr)
        return 2
    problems = static_check(html) + notebook_problems
    n_pages = len([p for p in html.rglob("*.html") if "_static" not in p.parts])
    if not args.no_browser:
        shots = tuple(args.shot) or ("book/intro.html", "notebooks/00_toolkit.html")
        problems += browser_check(html, Path(args.screenshots), shots, page_timeout=args.page_timeout)
    for p in problems:
        print(f"check-book: {p}")
    bad_pages = {p.split(":", 1)[0] for p in problems}
    print(
        f"check-book: {plural(n_pages, 'page')}, {plural(len(problems), 'problem')} on {plural(len(bad_pages), 'page')}"
    )
    print(f"check-book: {n_pages - len(bad_pages)} passed, {len(bad_pages)} failed")
    print(claim_summary(counts))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
