"""Student copies hold the exercises and none of the solutions."""

import json
import re

import pytest

from compsem.book.exercises import exercise_blocks, page_notebook, strip_solutions, student_notebook, write_student_copies
from compsem.paths import repo_root

ROOT = repo_root()
PAGES = sorted((ROOT / "book").glob("part*_exercises.md"))

PAGE = """(sec-x)=
# Exercises

Intro text.

```{exercise} First
:label: ex-1

Compute 2 + 2.
```

````{solution} ex-1
:class: dropdown

The answer is four.

```python
print(2 + 2)   # shown inside the solution
```
````

:::{exercise} Second
:label: ex-2
Name a colour.
:::

::::{solution} ex-2
Red, for instance.
::::

```{exercise} Third
:label: ex-3
Gated.
```

```{solution-start} ex-3
```
Hidden between start and end.
```{solution-end}
```

After the last exercise.
"""


def test_strip_solutions_by_hand():
    out = strip_solutions(PAGE)
    for gone in ("four", "print(2 + 2)", "Red, for instance", "Hidden between", "{solution"):
        assert gone not in out
    for kept in ("Intro text.", "Compute 2 + 2.", "Name a colour.", "Gated.", "After the last exercise."):
        assert kept in out
    assert "\n\n\n" not in out


def test_exercise_blocks_and_page_notebook():
    intro, blocks = exercise_blocks(strip_solutions(PAGE))
    assert [t for t, _ in blocks] == ["First", "Second", "Third"]
    assert blocks[0][1] == "Compute 2 + 2."                      # option lines dropped
    nb = page_notebook(strip_solutions(PAGE))
    kinds = [c["cell_type"] for c in nb["cells"]]
    assert kinds == ["markdown"] + ["markdown", "code"] * 3
    assert "".join(nb["cells"][3]["source"]).startswith("## Exercise 2: Second")
    assert "(sec-x)=" not in "".join(nb["cells"][0]["source"])
    setup = {"cell_type": "code", "id": "compsem-setup", "metadata": {"tags": ["remove-cell", "compsem-setup"]},
             "source": "pass", "outputs": [], "execution_count": None}
    nb = page_notebook(strip_solutions(PAGE), setup)
    assert [c["cell_type"] for c in nb["cells"]][:3] == ["markdown", "code", "markdown"]
    assert nb["cells"][1]["metadata"]["tags"] == ["remove-cell", "compsem-setup"]
    assert len({c["id"] for c in nb["cells"]}) == len(nb["cells"])      # ids stay unique


def test_unclosed_blocks_are_errors():
    with pytest.raises(ValueError, match="line 1: the ```` block opened here is never closed"):
        strip_solutions("````{solution} ex\ntext\n```\n")
    with pytest.raises(ValueError, match="no {solution-end}"):
        strip_solutions("```{solution-start} ex\n```\nhidden\n")


def test_student_notebook_drops_solution_cells():
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "Q"},
                    {"cell_type": "code", "metadata": {"tags": ["solution"]}, "source": "answer = 42",
                     "outputs": [], "execution_count": 3},
                    {"cell_type": "code", "metadata": {}, "source": "x = 1", "outputs": [{"a": 1}], "execution_count": 4}]}
    out = student_notebook(nb)
    assert [c["source"] for c in out["cells"]] == ["Q", "x = 1"]
    assert out["cells"][1]["outputs"] == [] and out["cells"][1]["execution_count"] is None
    assert student_notebook({"cells": nb["cells"][:1]}) is None


def _solution_lines(text):
    """Lines inside the pages' solution blocks, found independently: from a line opening a
    {solution} fence to the next line that is exactly that fence."""
    lines, inside, fence = [], False, None
    for line in text.splitlines():
        m = re.match(r"^(`+|:+)\{solution\}", line)
        if not inside and m:
            inside, fence = True, m.group(1)
        elif inside and line.strip() == fence:
            inside = False
        elif inside:
            lines.append(line)
    assert not inside
    return lines


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_student_copies_of_the_book_hold_no_solution_text(page, tmp_path):
    written = write_student_copies(ROOT, tmp_path)
    md = (tmp_path / page.name).read_text()
    nb_text = "".join("".join(c["source"]) for c in json.loads((tmp_path / page.with_suffix(".ipynb").name)
                                                                  .read_text())["cells"])
    original = page.read_text()
    sol = _solution_lines(original)
    outside = original
    for line in sol:
        outside = outside.replace(line, "")
    distinctive = [ln.strip() for ln in sol if len(ln.strip()) > 25 and ln.strip() not in outside]
    assert len(distinctive) > 5                                   # the check has something to find
    for line in distinctive:
        assert line not in md and line not in nb_text, line
    assert "{solution" not in md
    n_ex = len(re.findall(r"^(`{3,}|:{3,})\{exercise\}", original, flags=re.M))
    assert n_ex == len(exercise_blocks(md)[1]) == nb_text.count("## Exercise ")
    assert n_ex == len(re.findall(r"^(`{3,}|:{3,})\{solution\}", original, flags=re.M))
    assert all(p.parent == tmp_path for p in written)
    cells = json.loads((tmp_path / page.with_suffix(".ipynb").name).read_text())["cells"]
    assert "compsem-setup" in cells[1]["metadata"]["tags"]              # runs on Colab too
