"""compsem.book.myst: the one MyST reader (myst-parser's markdown-it-py parser) on tiny pages
worked by hand, and the guard that keeps it the only one."""

import re
from pathlib import Path

from compsem.book import myst

PAGE = """(sec-x)=
# Three models agree

% a comment
See [the data chapter](10_x.md), {ref}`the table <tab-x>` and {glue:text}`n_models` models; $x_2$ is maths
and `make book` is code. {cite}`paper2024`

```{note} A title
:class: tip

A **note's** body.
```

:::{figure} img.png
:name: fig-x

The caption.
:::

| a | b |
|---|---|
| `x` one | two |

$$
y = 1
$$

```bash
make check-book
```
"""


def test_blocks_read_what_a_reader_reads():
    got = [(b.kind, b.text) for b in myst.blocks(PAGE)]
    assert got == [
        ("heading", "Three models agree"),
        ("text", "See the data chapter, the table and n_models models; is maths and make book is code."),
        ("title", "A title"),
        ("text", "A note's body."),
        ("text", "The caption."),
        ("row", "a b"),
        ("row", "x one two"),
        ("math", "\ny = 1\n"),
        ("code", "make check-book\n"),
    ]
    blocks = myst.blocks(PAGE)
    assert (
        blocks[1].code == ["make book"]
        and blocks[1].bare == "See the data chapter, the table and n_models models; is maths and is code."
    )
    assert blocks[3].directive == "note" and blocks[4].directive == "figure" and blocks[8].lang == "bash"


def test_prose_tables_roles_and_code():
    assert myst.roles(PAGE) == [("ref", "the table <tab-x>"), ("glue:text", "n_models"), ("cite", "paper2024")]
    (table,) = myst.tables(PAGE)
    assert [r.cells for r in table] == [["a", "b"], ["x one", "two"]] and table[1].bare_cells == ["one", "two"]
    prose = myst.prose(PAGE, role=lambda name, content: "")
    assert "y = 1" not in prose and "make check-book" not in prose and "A note's body." in prose
    assert "make check-book" not in myst.without_code(PAGE) and "$x_2$" in myst.without_code(PAGE)


def test_a_directive_with_options_in_yaml_and_a_code_directive():
    md = "```{admonition} Rerun\n---\nclass: tip\n---\nRun it.\n```\n\n```{code-cell} python\nx = 'never'\n```\n"
    assert [(b.kind, b.text, b.lang) for b in myst.blocks(md)] == [
        ("title", "Rerun", ""),
        ("text", "Run it.", ""),
        ("code", "x = 'never'\n", "{code-cell}"),
    ]


#: Modules that still read fences or directives with their own patterns: the teaching generators
#: (student copies, assignments), whose rewrite over the tools' own outputs is issue 45's item 5.
KNOWN = {"book/teaching/exercises.py", "book/teaching/assignments.py"}
_PARSER = re.compile(r"^\s*(?:import|from)\s+(?:markdown_it|mdit_py_plugins|myst_parser)\b")
_SIGNS = ("```", "`{3", "~~~", "~{3", ":::", ":{3", "}`")


def second_parsers(source: str) -> list[int]:
    """The lines of ``source`` that import a Markdown parser or hold a regular expression reading
    fences, directives or roles."""
    return [
        i
        for i, line in enumerate(source.splitlines(), 1)
        if _PARSER.match(line) or (re.search(r"\bre\.\w+\(|_?compile\(", line) and any(s in line for s in _SIGNS))
    ]


def test_the_guard_sees_a_second_parser():
    assert second_parsers('x = 1\n_F = re.compile(r"^```(\\w+)")\nimport markdown_it\ny = "```"\n') == [2, 3]


def test_there_is_one_myst_parser():
    root = Path(__file__).resolve().parents[3] / "src" / "compsem"
    found = {
        p.relative_to(root).as_posix()
        for p in root.rglob("*.py")
        if p.relative_to(root).as_posix() != "book/myst.py" and second_parsers(p.read_text(encoding="utf-8"))
    }
    assert found <= KNOWN, (
        f"read MyST through compsem.book.myst, not with a parser of your own: {sorted(found - KNOWN)}"
    )
