"""Staging the book: every chapter gets its rerun box; unchanged files are not rewritten."""

import json
from pathlib import Path

from compsem.book.stage import rerun_box, stage
from tests.helpers import ROOT




def test_rerun_box_names_the_notebook_and_its_parameters():
    box = rerun_box(ROOT / "notebooks" / "00_toolkit.ipynb")
    # the parameters cell's own example comes first
    assert """.venv/bin/python -m compsem run notebooks/00_toolkit.ipynb -p models '["sbert-mini"]'""" in box
    assert "papermill notebooks/00_toolkit.ipynb runs/00_toolkit.ipynb --cwd notebooks" in box
    for name in ("models", "sentence_a", "sentence_b", "sentence_c"):
        assert f"| `{name}` |" in box


def test_stage_inserts_one_box_after_the_first_markdown_cell(tmp_path):
    executed = tmp_path / "executed"
    executed.mkdir()
    src = json.loads((ROOT / "notebooks" / "00_toolkit.ipynb").read_text())
    (executed / "00_toolkit.ipynb").write_text(json.dumps(src))
    out = tmp_path / "site"
    [staged] = stage(ROOT, executed, out)
    cells = json.loads(staged.read_text())["cells"]
    assert len(cells) == len(src["cells"]) + 1
    assert cells[0] == src["cells"][0] and "Rerun this chapter" in "".join(cells[1]["source"])
    assert (out / "_toc.yml").is_file() and (out / "book" / "intro.md").is_file()
    assert (out / "_static" / "compsem.css").read_text() == (ROOT / "_static" / "compsem.css").read_text()
    assert (out / "exercises" / "part1_setcomp_exercises.ipynb").is_file()      # the course guide's downloads
    mtime = staged.stat().st_mtime_ns
    stage(ROOT, executed, out)             # nothing changed: the file is left alone
    assert staged.stat().st_mtime_ns == mtime
    assert len(json.loads(staged.read_text())["cells"]) == len(src["cells"]) + 1


def test_the_book_css_lets_table_cells_wrap():
    css = (ROOT / "_static" / "compsem.css").read_text()
    rule = css[css.index(".cell_output table.dataframe td"):]
    rule = rule[:rule.index("}")]
    assert "white-space: normal" in rule and "text-overflow: clip" in rule


def test_rerun_box_shows_a_change_not_a_default():
    # chapters 40 and 99 have no `models`: the box takes the parameters cell's own example
    box40 = rerun_box(ROOT / "notebooks" / "40_ssm_pool.ipynb")
    assert "run notebooks/40_ssm_pool.ipynb -p pool_source '\"path/to/pool.csv\"'" in box40
    assert "-p pool_source 'None'" not in box40
    box99 = rerun_box(ROOT / "notebooks" / "99_reproducibility.ipynb")
    assert "run notebooks/99_reproducibility.ipynb -p executed '\"../runs/my-build\"'" in box99
