"""compsem.book.authoring.scaffold_files: the files new-study writes carry its values as data."""

import ast
import json

import pytest

from compsem.book.authoring.scaffold import chapter
from compsem.book.authoring.scaffold_files import FILES, bib_entry, files, md, registry_line, toc_part
from compsem.studies import Study

ODD = Study("nova", 7, "VII", 'Kim\'s "x" *y* `z` $1 <b> #2', "kim2024:a.b-c", absent=("worked",))


def test_markdown_escape_keeps_the_text_literal():
    assert md("a *b* `c` $d$ #e [f](g) <h>") == r"a \*b\* \`c\` \$d\$ \#e \[f\]\(g\) \<h\>"
    assert md("Kim's plain title") == "Kim's plain title"


def test_python_values_round_trip_through_repr():
    line = registry_line(ODD)
    call = ast.parse(line.strip().rstrip(",")).body[0].value
    assert [ast.literal_eval(a) for a in call.args] == ["nova", 7, "VII", ODD.title, ODD.citation]
    assert ast.literal_eval(call.keywords[0].value) == ("worked",)
    out = files(ODD, paper=True)
    assert {f"src/compsem/nova/{m}.py" for m in FILES} <= set(out)
    for path, text in out.items():
        if path.endswith(".py"):
            tree = ast.parse(text)  # every module parses
            if path == "src/compsem/nova/report.py":
                assert repr(ODD.title) in text and any(
                    isinstance(n, ast.Constant) and n.value == ODD.title for n in ast.walk(tree)
                )
    assert "PAPER_RUN: PaperRun | None = None" in files(ODD, paper=False)["src/compsem/nova/study.py"]


def test_the_toc_part_and_the_chapter_hold_the_title_as_text():
    yaml = pytest.importorskip("yaml")
    part = yaml.safe_load("parts:\n" + toc_part(ODD))["parts"][0]
    assert part["caption"] == f"Part VII: {ODD.title}" and part["chapters"][0]["file"] == "book/part7_nova"
    nb = chapter(ODD)
    json.dumps(nb)
    assert nb["cells"][0]["source"][0] == f"# {md(ODD.title)}\n"
    assert bib_entry(ODD, "note").startswith("\n\n@misc{kim2024:a.b-c,\n  title = {")
