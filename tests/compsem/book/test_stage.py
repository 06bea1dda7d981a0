"""Staging the book: every chapter gets its rerun box; unchanged files are not rewritten."""

import json
from pathlib import Path

import pytest

from compsem.book.running.stage import rerun_box, stage
from compsem.book.teaching.assignments import assignment_parts
from compsem.errors import CompsemError
from tests.helpers import ROOT


def fake_release(folder: Path) -> Path:
    """A release folder as make release writes it, each Part's notebook a distinct text."""
    for part in assignment_parts(ROOT):
        (folder / part).mkdir(parents=True)
        (folder / part / f"{part}.ipynb").write_text(f'{{"the gradeable notebook of": "{part}"}}\n')
    return folder


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
    release = fake_release(tmp_path / "release")
    [staged] = stage(ROOT, executed, out, release=release)
    cells = json.loads(staged.read_text())["cells"]
    assert len(cells) == len(src["cells"]) + 1
    assert cells[0] == src["cells"][0] and "Rerun this chapter" in "".join(cells[1]["source"])
    assert (out / "_toc.yml").is_file() and (out / "book" / "intro.md").is_file()
    assert (out / "_static" / "compsem.css").read_text() == (ROOT / "_static" / "compsem.css").read_text()
    # the course guide's downloads: each Part's gradeable notebook, as the release holds it, and nothing else
    parts = assignment_parts(ROOT)
    assert sorted(p.name for p in (out / "exercises").iterdir()) == sorted(f"{p}.ipynb" for p in parts)
    for part in parts:
        assert (out / "exercises" / f"{part}.ipynb").read_bytes() == (release / part / f"{part}.ipynb").read_bytes()
    mtime = staged.stat().st_mtime_ns
    stage(ROOT, executed, out, release=release)  # nothing changed: the file is left alone
    assert staged.stat().st_mtime_ns == mtime
    assert len(json.loads(staged.read_text())["cells"]) == len(src["cells"]) + 1


def test_the_book_css_lets_table_cells_wrap():
    css = (ROOT / "_static" / "compsem.css").read_text()
    rule = css[css.index(".cell_output table.dataframe td") :]
    rule = rule[: rule.index("}")]
    assert "white-space: normal" in rule and "text-overflow: clip" in rule


def test_rerun_box_shows_the_chapters_own_example_and_no_generic_one():
    box40 = rerun_box(ROOT / "notebooks" / "40_ssm_pool.ipynb")
    assert "run notebooks/40_ssm_pool.ipynb -p example_cluster 7\n" in box40
    box99 = rerun_box(ROOT / "notebooks" / "99_reproducibility.ipynb")
    assert "run notebooks/99_reproducibility.ipynb -p gpu_file '\"../benchmarks/none.json\"'" in box99
    # papermill's -p would pass a list as text: the box gives the values as one YAML mapping
    box22 = rerun_box(ROOT / "notebooks" / "22_csts_finetune.ipynb")
    assert """--cwd notebooks -y '{"configs": ["bi/mse"], "seeds": [1]}'""" in box22


def test_a_chapter_without_an_example_gets_the_plain_command(tmp_path):
    src = json.loads((ROOT / "notebooks" / "43_ssm_space.ipynb").read_text())
    cell = next(c for c in src["cells"] if "parameters" in c["metadata"].get("tags", []))
    cell["source"] = [line for line in cell["source"] if not line.startswith("#")]
    nb = tmp_path / "43_ssm_space.ipynb"
    nb.write_text(json.dumps(src))
    box = rerun_box(nb)
    assert ".venv/bin/python -m compsem run notebooks/43_ssm_space.ipynb\n" in box
    assert "runs/43_ssm_space.ipynb --cwd notebooks\n" in box  # papermill with no values either


def test_stage_refuses_a_release_without_a_parts_notebook(tmp_path):
    release = fake_release(tmp_path / "release")
    first = next(iter(assignment_parts(ROOT)))
    (release / first / f"{first}.ipynb").unlink()
    (tmp_path / "executed").mkdir()
    with pytest.raises(CompsemError, match=rf"lacks {first}/{first}.ipynb: write them first with `make release"):
        stage(ROOT, tmp_path / "executed", tmp_path / "site", release=release)
