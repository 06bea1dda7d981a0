"""compsem/book/checks/gluecheck.py: a glued value the prose shows must be defined."""

import json

from compsem.book.checks.gluecheck import UNDEFINED, _refs, undefined_glue
from tests.helpers.notebooks import _glued


def _write(path, cells):
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_roles_name_their_page_and_key():
    md = (
        "{glue:text}`hours:.1f` and {glue}`rate` and {glue:md}`../notebooks/22_page.ipynb::best` "
        "and {glue:text}`../notebooks/22_page.ipynb::hours:.2f`"
    )
    assert _refs(md) == [(None, "hours"), (None, "rate"), ("22_page", "best"), ("22_page", "hours")]
    assert {"nan", "none", "<na>"} <= UNDEFINED


def test_a_glued_value_the_prose_shows_must_be_defined(tmp_path):
    executed, book = tmp_path / "executed", tmp_path / "book"
    executed.mkdir(), book.mkdir()
    _write(
        executed / "22_page.ipynb",
        [
            {
                "cell_type": "code",
                "metadata": {},
                "source": "x",
                "execution_count": 1,
                "outputs": [
                    _glued("hours", "nan"),
                    _glued("rate", "34.1"),
                    _glued("unused", "nan"),
                    _glued("gap", "'None'"),
                ],
            },
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": "Training takes {glue:text}`hours:.1f` hours at {glue:text}`rate:.0f` per second; {glue}`gap`.",
            },
        ],
    )
    (book / "part.md").write_text(
        "Its {glue:text}`../notebooks/22_page.ipynb::hours:.1f` hours, at "
        "{glue:text}`../notebooks/22_page.ipynb::rate:.0f`.\n"
    )
    end = "where the prose shows it: compute it, or say why it is undefined"
    assert undefined_glue(executed, book) == [
        f"22_page.ipynb: the glued value `hours` is nan {end}",
        f"22_page.ipynb: the glued value `gap` is 'None' {end}",
        f"book/part.md: the glued value `hours` of 22_page is nan {end}",
    ]
    assert undefined_glue(executed) == [
        f"22_page.ipynb: the glued value `hours` is nan {end}",
        f"22_page.ipynb: the glued value `gap` is 'None' {end}",
    ]


def test_another_pages_key_without_a_format_is_a_problem(tmp_path):
    # myst-nb splits at the last colon, so `path::n` would look up the key 'path:' (a build warning)
    executed, book = tmp_path / "executed", tmp_path / "book"
    executed.mkdir(), book.mkdir()
    _write(
        executed / "22_page.ipynb",
        [{"cell_type": "code", "metadata": {}, "source": "x", "execution_count": 1, "outputs": [_glued("n", "1417")]}],
    )
    (book / "part.md").write_text(
        "On {glue:text}`../notebooks/22_page.ipynb::n` pairs and "
        "{glue:text}`../notebooks/22_page.ipynb::n:,.0f` pairs.\n"
    )
    assert undefined_glue(executed, book) == [
        "book/part.md: the glue role `../notebooks/22_page.ipynb::n` names another page's key without a format "
        "(myst-nb reads 'path:' as the key): add one, e.g. ':.0f'"
    ]
