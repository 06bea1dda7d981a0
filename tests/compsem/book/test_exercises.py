"""Student copies hold the exercises and none of the solutions."""

import json
import re

import pytest

from compsem.book.teaching.exercises import (
    NO_REPO_SETUP,
    book_titles,
    chapter_numbers,
    exercise_blocks,
    page_notebook,
    render_roles,
    strip_solutions,
    student_notebook,
    student_setup,
    write_student_copies,
)
from compsem.paths import repo_root
from compsem.studies import STUDIES

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
    assert blocks[0][1] == "Compute 2 + 2."  # option lines dropped
    nb = page_notebook(strip_solutions(PAGE))
    kinds = [c["cell_type"] for c in nb["cells"]]
    assert kinds == ["markdown"] + ["markdown", "code"] * 3
    assert "".join(nb["cells"][3]["source"]).startswith("## Exercise 2: Second")
    assert "(sec-x)=" not in "".join(nb["cells"][0]["source"])
    setup = {
        "cell_type": "code",
        "id": "compsem-setup",
        "metadata": {"tags": ["remove-cell", "compsem-setup"]},
        "source": "pass",
        "outputs": [],
        "execution_count": None,
    }
    nb = page_notebook(strip_solutions(PAGE), setup)
    assert [c["cell_type"] for c in nb["cells"]][:3] == ["markdown", "code", "markdown"]
    assert nb["cells"][1]["metadata"]["tags"] == ["remove-cell", "compsem-setup"]
    assert len({c["id"] for c in nb["cells"]}) == len(nb["cells"])  # ids stay unique


def test_unclosed_blocks_are_errors():
    with pytest.raises(ValueError, match="line 1: the ```` block opened here is never closed"):
        strip_solutions("````{solution} ex\ntext\n```\n")
    with pytest.raises(ValueError, match="no {solution-end}"):
        strip_solutions("```{solution-start} ex\n```\nhidden\n")


def test_student_notebook_drops_solution_cells():
    nb = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "Q"},
            {
                "cell_type": "code",
                "metadata": {"tags": ["solution"]},
                "source": "answer = 42",
                "outputs": [],
                "execution_count": 3,
            },
            {"cell_type": "code", "metadata": {}, "source": "x = 1", "outputs": [{"a": 1}], "execution_count": 4},
        ]
    }
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
    original = page.read_text()
    sol = _solution_lines(original)
    outside = original
    for line in sol:
        outside = outside.replace(line, "")
    distinctive = [ln.strip() for ln in sol if len(ln.strip()) > 25 and ln.strip() not in outside]
    assert len(distinctive) > 5  # the check has something to find
    for line in distinctive:
        assert line not in md, line
    assert "{solution" not in md
    n_ex = len(re.findall(r"^(`{3,}|:{3,})\{exercise\}", original, flags=re.M))
    assert n_ex == md.count("## Exercise ")
    assert n_ex == len(re.findall(r"^(`{3,}|:{3,})\{solution\}", original, flags=re.M))
    assert all(p.parent == tmp_path for p in written)
    # issue 48: a Part's one student notebook is the gradeable one (make release); no page notebook here
    assert not (tmp_path / page.with_suffix(".ipynb").name).exists()


# ---- numbering, roles and the set-up cell of the copies -----------------------------------------
TOC = """format: jb-book
root: book/intro
parts:
  - caption: Foundations
    numbered: true
    chapters:
      - file: notebooks/00_toolkit
  - caption: Unnumbered
    chapters:
      - file: book/aside
  - caption: "Part I"
    numbered: true
    chapters:
      - file: book/part1
        sections:
          - file: notebooks/11_x
          - file: book/part1_ex
      - file: book/part1b
"""


def test_chapter_numbers_run_on_across_numbered_parts():
    assert chapter_numbers(TOC) == {
        "notebooks/00_toolkit": 1,
        "book/part1": 2,
        "notebooks/11_x": 2,
        "book/part1_ex": 2,
        "book/part1b": 3,
    }


def test_chapter_numbers_of_the_book_agree_with_its_toc():
    """Worked out independently with a YAML reader: numbered parts' chapters, counted in order."""
    yaml = pytest.importorskip("yaml")
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    expected, n = {}, 0
    for part in toc["parts"]:
        for chapter in part["chapters"]:
            if part.get("numbered"):
                n += 1
                expected[chapter["file"]] = n
                for section in chapter.get("sections", []):
                    expected[section["file"]] = n
    assert chapter_numbers((ROOT / "_toc.yml").read_text()) == expected
    # the toolkit is chapter 1, then one numbered chapter per Part, in the registry's order
    with_exercises = [(i, s) for i, s in enumerate(STUDIES) if "exercises" not in s.absent]
    assert [f"book/{p.stem}" for p in PAGES] == [s.page("exercises") for _, s in with_exercises]
    assert [expected[f"book/{p.stem}"] for p in PAGES] == [i + 2 for i, _ in with_exercises]


def test_roles_become_what_the_book_shows():
    titles = {"sec-a": "A worked pair", "ex-2": "Exercise 3.2", "doc:notebooks/21_z": "Zero-shot"}
    text = (
        "See {ref}`sec-a`, {ref}`the chapter <sec-a>`, {numref}`ex-2`, {doc}`../notebooks/21_z`, "
        "{math}`x^2`, {cite}`smith2020` and {ref}`unknown-label`."
    )
    assert render_roles(text, titles, "book/part2_ex") == (
        "See *A worked pair*, *the chapter*, Exercise 3.2, *Zero-shot*, $x^2$, [smith2020] and *unknown-label*."
    )


def test_book_titles_find_sections_pages_and_exercises(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "_toc.yml").write_text(TOC)
    (tmp_path / "book" / "part1_ex.md").write_text(
        "(sec-ex)=\n# Exercises\n\n```{exercise} One\n:label: ex-one\nQ.\n```\n\n"
        "```{exercise} Two\n:label: ex-two\nQ.\n```\n"
    )
    nb = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["(sec-nb)=\n", "# A chapter\n", "\n", "## Later\n"]}
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    (tmp_path / "notebooks" / "11_x.ipynb").write_text(json.dumps(nb))
    titles = book_titles(tmp_path)
    assert titles["ex-one"] == "Exercise 2.1" and titles["ex-two"] == "Exercise 2.2"
    assert titles["sec-ex"] == "Exercises" and titles["sec-nb"] == "A chapter"
    assert titles["doc:notebooks/11_x"] == "A chapter" and titles["doc:book/part1_ex"] == "Exercises"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_copies_number_exercises_as_the_book_and_show_no_myst_role(page, tmp_path):
    write_student_copies(ROOT, tmp_path)
    number = chapter_numbers((ROOT / "_toc.yml").read_text())[f"book/{page.stem}"]
    md = (tmp_path / page.name).read_text()
    n_ex = len(re.findall(r"^(`{3,}|:{3,})\{exercise\}", page.read_text(), flags=re.M))
    for text in (md,):
        assert re.findall(r"^## Exercise (\S+):", text, flags=re.M) == [f"{number}.{k}" for k in range(1, n_ex + 1)]
        assert not re.search(r"\{[\w:-]+\}`", text), re.search(r".{30}\{[\w:-]+\}`.{30}", text)
        assert "```{" not in text and ":::{" not in text and ":label:" not in text


def _run_cell(source, cwd, monkeypatch, capsys):
    monkeypatch.setenv("COMPSEM_ROOT", "")  # recorded, so that what the cell sets is undone
    monkeypatch.delenv("COMPSEM_ROOT")
    monkeypatch.chdir(cwd)
    exec(compile(source, "setup-cell", "exec"), {})
    return capsys.readouterr().out


def test_setup_cell_without_a_repository_gives_one_line_and_does_not_raise(tmp_path, monkeypatch, capsys):
    chapters_cell = {
        "cell_type": "code",
        "metadata": {"tags": ["remove-cell", "compsem-setup"]},
        "source": ["COMPSEM_REPO = ''\n", "raise RuntimeError('no repository')\n"],
    }
    cell = student_setup(chapters_cell)
    source = "".join(cell["source"])
    assert source == NO_REPO_SETUP and "compsem-setup" in cell["metadata"]["tags"]
    out = _run_cell(source, tmp_path, monkeypatch, capsys)
    assert out.count("\n") == 1 and out.startswith("No checkout of the study found") and "make lab" in out
    # inside a checkout it finds it and says where
    (tmp_path / "src" / "compsem").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "notebooks").mkdir()
    out = _run_cell(source, tmp_path / "notebooks", monkeypatch, capsys)
    assert out == f"The study's checkout: {tmp_path}\n"
    assert student_setup(None)["source"] == cell["source"]
    assert student_setup({**chapters_cell, "source": "COMPSEM_REPO = None\n"})["source"] == cell["source"]


def test_setup_cell_with_a_repository_is_the_chapters_own():
    cell = {
        "cell_type": "code",
        "metadata": {"tags": ["compsem-setup"]},
        "source": ["COMPSEM_REPO = 'https://example.org/study.git'\n"],
    }
    assert student_setup(cell) is cell


def test_copies_of_this_checkout_run_their_setup_cell(tmp_path, monkeypatch, capsys):
    """A page's notebook as built for this repository (page_notebook with the toolkit's set-up):
    its set-up cell runs without error far from a checkout (the toolkit's cell names no repository here)."""
    from compsem.book.teaching.exercises import _setup_cell

    nb = page_notebook(strip_solutions(PAGES[0].read_text()), student_setup(_setup_cell(ROOT)), 2, {}, "book/x")
    cells = nb["cells"]
    setup = "".join(cells[1]["source"])
    if "COMPSEM_REPO = ''" in setup or "COMPSEM_REPO" not in setup:
        (tmp_path / "far").mkdir()
        assert _run_cell(setup, tmp_path / "far", monkeypatch, capsys).startswith("No checkout")


def _executed_with(tmp_path, stem, values):
    outs = [
        {
            "output_type": "display_data",
            "metadata": {"scrapbook": {"name": k}},
            "data": {"application/papermill.record/text/plain": repr(v)},
        }
        for k, v in values.items()
    ]
    folder = tmp_path / "executed"
    folder.mkdir(exist_ok=True)
    (folder / f"{stem}.ipynb").write_text(
        json.dumps(
            {
                "cells": [{"cell_type": "code", "metadata": {}, "outputs": outs}],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 4,
            }
        )
    )
    return folder


def test_glued_numbers_show_the_builds_value_or_say_where_it_is(tmp_path):
    text = (
        "It trained {glue:text}`../notebooks/22_x.ipynb::n_runs` runs in "
        "{glue:text}`../notebooks/22_x.ipynb::minutes:.1f` minutes."
    )
    from compsem.book.teaching.exercises import NOT_BUILT, glued_numbers

    assert render_roles(text, {}, "book/p") == f"It trained {NOT_BUILT} runs in {NOT_BUILT} minutes."
    glued = glued_numbers(_executed_with(tmp_path, "22_x", {"n_runs": 4, "minutes": 7.4567}))
    assert render_roles(text, {}, "book/p", glued) == "It trained 4 runs in 7.5 minutes."


@pytest.mark.parametrize("with_build", [False, True])
def test_copies_of_the_book_show_no_glue_role(tmp_path, with_build):
    executed = (
        _executed_with(tmp_path, "22_csts_finetune", {"ft_n_runs": 4, "ft_train_minutes": 7.25})
        if with_build
        else tmp_path / "none"
    )
    write_student_copies(ROOT, tmp_path / "out", executed)
    md = (tmp_path / "out" / "part2_csts_exercises.md").read_text()
    assert "{glue" not in md
    assert (
        ("chapter's 4 runs took\n7.2 minutes of training" in md) if with_build else ("[the number in the book]" in md)
    )


def test_student_copies_hold_no_pointer_to_the_answers(tmp_path):
    """Issue 36: no pointer to tests/teaching, no "Solutions open with a click" (a copy has none),
    every command runs on the environment's own interpreter, and each rerun has a fresh --out."""
    executed = _executed_with(tmp_path, "22_csts_finetune", {"ft_n_runs": 4, "ft_train_minutes": 7.25})
    written = write_student_copies(ROOT, tmp_path / "out", executed, strict=True)
    for path in written:
        text = path.read_text()
        assert "tests/teaching" not in text and "open with a click" not in text.lower(), path.name
        assert "[the number in the book]" not in text, path.name
        assert not re.search(r"(?<![/\w.])python -m compsem", text), path.name
    for page in PAGES:
        outs = re.findall(r"--out (\S+)", strip_solutions(page.read_text()))
        assert len(outs) == len(set(outs)), (page.name, outs)


def test_strict_copies_refuse_numbers_the_build_lacks(tmp_path):
    from compsem.errors import CompsemError

    with pytest.raises(CompsemError, match=r"22_csts_finetune::ft_n_runs.*compsem run notebooks/22_csts_finetune"):
        write_student_copies(ROOT, tmp_path / "out", tmp_path / "none", strict=True)
    assert not (tmp_path / "out").exists()
