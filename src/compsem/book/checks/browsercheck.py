"""The browser pass of ``make check-book``: every built page opened in headless Chromium.

Playwright drives Debian's Chromium (``$CHROMIUM``, else ``chromium`` on PATH; never a
downloaded browser) with offline flags. Each page is opened from ``file://`` and given a time
limit to *settle*: its load event (scripts and images of the HTML), MathJax's own startup
promise when MathJax is on the page, and every image of the text (lazy ones made eager). The
check never waits for the network to fall idle, which a page may never reach without anything
being missing. A page that does not settle is one problem naming what it still waited for; a
browser error on a page is one problem too; a browser that cannot start is one problem. The
check goes on with the next page and never ends in a traceback.

Then it looks at the page: requests to other hosts (recorded and aborted), maths left as raw
TeX, images that did not load, figures shown as ``<Figure size ...>`` text, error outputs and
table cells cut short by CSS (``text-overflow: ellipsis``). Screenshots of chosen pages are saved.
"""

from __future__ import annotations

from pathlib import Path

from compsem.fmt import plural

__all__ = ["browser_check", "find_browser", "PAGE_TIMEOUT_S"]

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SKIP_PAGES = {"genindex.html", "search.html"}


def _is_redirect(path: Path) -> bool:
    """jupyter-book writes index.html as a meta-refresh stub pointing at the root page."""
    head = path.read_text(encoding="utf-8", errors="replace")[:2000].lower()
    return 'http-equiv="refresh"' in head


# Waits for what a reader's page needs, each with the page's time limit: the load event (scripts
# and images in the HTML), MathJax's own startup promise when MathJax is on the page, and every
# image of the text (lazy ones are made eager). It never waits for the network to fall idle: a
# page may keep a request open for ever without anything being missing. It resolves with the
# list of what was still pending when the time ran out (empty: the page settled).
_SETTLE_SCRIPT = r"""
async (ms) => {
  const pending = new Set();
  const track = (name, promise) => {
    pending.add(name);
    return Promise.resolve(promise).then(() => pending.delete(name), () => pending.delete(name));
  };
  const loaded = () => document.readyState === 'complete' ? null
      : new Promise(r => window.addEventListener('load', r, {once: true}));
  const images = () => Array.from(document.querySelectorAll('article img, main img')).map(i => {
    if (i.loading === 'lazy') i.loading = 'eager';
    return i.complete ? null : track('image ' + i.getAttribute('src'),
        new Promise(r => { i.addEventListener('load', r, {once: true}); i.addEventListener('error', r, {once: true}); }));
  });
  const work = (async () => {
    await track('the load event', loaded());
    if (window.MathJax && window.MathJax.startup && window.MathJax.startup.promise) {
      await track('MathJax startup', window.MathJax.startup.promise);
    }
    await Promise.all(images());
  })();
  const timer = new Promise(r => setTimeout(r, ms));
  await Promise.race([work, timer]);
  window.__compsemSettled = Array.from(pending);
  return window.__compsemSettled;
}
"""

_PAGE_SCRIPT = """
() => {
  const mathNodes = Array.from(document.querySelectorAll('.math, span.math, div.math'));
  const rawMath = mathNodes.filter(n => !n.querySelector('mjx-container') && /\\\\|\\$/.test(n.textContent)).length;
  const imgs = Array.from(document.querySelectorAll('article img, main img'));
  const broken = imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'));
  const errors = document.querySelectorAll('.output.error, .cell_output .output.traceback').length;
  const textFigures = Array.from(document.querySelectorAll('pre, .output'))
      .filter(n => /^\\s*<Figure size/.test(n.textContent)).length;
  const clipped = Array.from(document.querySelectorAll('article td, article th, main td, main th'))
      .filter(n => getComputedStyle(n).textOverflow === 'ellipsis' && n.scrollWidth > n.clientWidth)
      .map(n => n.textContent.trim().slice(0, 60));
  return {mathNodes: mathNodes.length, rawMath, broken, errors, textFigures, clipped, hasMathJax: !!window.MathJax};
}
"""

PAGE_TIMEOUT_S = 30.0


def find_browser() -> str | None:
    """``$CHROMIUM``, else the first of chromium, chromium-browser, google-chrome on PATH."""
    import os
    import shutil

    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


def _first_line(err: BaseException) -> str:
    return (str(err).strip().splitlines() or [type(err).__name__])[0]


def _page_problems(rel: Path, info: dict) -> list[str]:
    problems = []
    if info["rawMath"]:
        problems.append(f"{rel}: {plural(info['rawMath'], 'maths block')} left as raw TeX")
    if info["mathNodes"] and not info["hasMathJax"]:
        problems.append(f"{rel}: maths on the page but MathJax did not load")
    for src in info["broken"]:
        problems.append(f"{rel}: image did not load: {src}")
    if info["textFigures"]:
        problems.append(
            f"{rel}: {plural(info['textFigures'], 'figure')} shown as '<Figure size ...>' text, not an image"
        )
    for text in dict.fromkeys(info["clipped"]):
        problems.append(f"{rel}: a table cell is cut short by CSS (text-overflow: ellipsis): '{text}'")
    if info["errors"]:
        problems.append(
            f"{rel}: {plural(info['errors'], 'cell output')} {'is an error' if info['errors'] == 1 else 'are errors'}"
        )
    return problems


def _check_page(ctx, path: Path, rel: Path, timeout_s: float, shot: Path | None) -> list[str]:
    """One page: open it, wait until it settles (or its time runs out), then look at it.

    A page that does not settle within ``timeout_s`` is one problem naming what it still waited
    for; a browser error on the page is one problem too, never a traceback."""
    from playwright.sync_api import Error as PlaywrightError

    remote: list[str] = []
    page = ctx.new_page()
    ms = int(timeout_s * 1000)
    page.set_default_timeout(ms + 5000)

    # Requests to other hosts are recorded and aborted: the check itself never goes online.
    def block(route, request):
        remote.append(request.url)
        route.abort()

    try:
        page.route(lambda url: not url.startswith(("file:", "data:", "blob:", "about:")), block)
        page.goto(path.as_uri(), wait_until="commit", timeout=ms)
        page.evaluate(f"() => {{ window.__compsemSettle = ({_SETTLE_SCRIPT})({ms}); return true; }}")
        # the page's own timer ends the wait; this backstop also ends it when the page's script hangs
        page.wait_for_function("() => window.__compsemSettled !== undefined", timeout=ms + 5000, polling=100)
        pending = page.evaluate("() => window.__compsemSettled")
        problems = [f"{rel}: request to another host: {url}" for url in remote]
        if pending:
            problems.append(
                f"{rel}: the page did not settle within {timeout_s:g} s (still waiting for {', '.join(pending)})"
            )
        problems += _page_problems(rel, page.evaluate(_PAGE_SCRIPT))
        if shot is not None:
            shot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(shot), full_page=False)
        return problems
    except PlaywrightError as err:
        what = "did not settle" if "Timeout" in type(err).__name__ else "could not be checked"
        return [f"{rel}: the page {what} within {timeout_s:g} s ({_first_line(err)})"]
    finally:
        try:
            page.close()
        except PlaywrightError:
            pass


def browser_check(
    html_dir: Path,
    screenshots: Path | None = None,
    shots: tuple[str, ...] = (),
    executable: str | None = None,
    page_timeout: float = PAGE_TIMEOUT_S,
) -> list[str]:
    """Open every page in headless Chromium; return the problems seen.

    Each page gets ``page_timeout`` seconds to settle (load event, MathJax's startup promise,
    images); a page that does not is reported by name, and the check goes on with the next one.
    A browser that cannot start is one problem, not a traceback."""
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError:
        return ["browser: playwright is not installed (it is in the project's pinned packages: make venv)"]

    executable = executable or find_browser()
    if executable is None:
        return ["browser: no Chromium found: apt-get install chromium (Debian), or set CHROMIUM=/path/to/browser"]

    problems: list[str] = []
    pages = [
        p
        for p in sorted(html_dir.rglob("*.html"))
        if "_static" not in p.parts and p.name not in SKIP_PAGES and "_sources" not in p.parts and not _is_redirect(p)
    ]
    with sync_playwright() as pw:
        try:
            browser = pw.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_FLAGS)
        except PlaywrightError as err:
            return [f"browser: {executable} did not start ({_first_line(err)})"]
        try:
            ctx = browser.new_context(viewport={"width": 1280, "height": 900})
            for path in pages:
                rel = path.relative_to(html_dir)
                shot = (
                    screenshots / (str(rel).replace("/", "__") + ".png")
                    if screenshots is not None and str(rel) in shots
                    else None
                )
                problems += _check_page(ctx, path, rel, page_timeout, shot)
        except PlaywrightError as err:  # the browser itself went away: say so, keep what was found
            problems.append(f"browser: stopped after {plural(len(problems), 'problem')} ({_first_line(err)})")
        finally:
            try:
                browser.close()
            except PlaywrightError:
                pass
    return problems
