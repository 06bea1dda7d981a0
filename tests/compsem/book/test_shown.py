"""Every command the project shows a reader is checked (compsem.book.checks.shown).

The commands of README, CONTRIBUTING, every book page (the course guide and the exercise pages
among them), the chapters' cells and every generated rerun box are collected; each one passes
its check here: a chapter's run through the planner with the same parameters, a make target by
``make -n`` (the teaching targets run for real in test_make_targets.py), an installation or a
long run by its reasoned entry in ``shown.NOT_RUN``. The light chapters' rerun examples execute
in the slow tests.
"""

import json
import shlex
import shutil
from collections import Counter

import pytest

from compsem.book.checks import shown as S
from compsem.book.running.params import parameter_defaults, parse_value
from compsem.book.running.stage import rerun_example
from tests.helpers import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SHOWN = S.collect(ROOT)
# one check per command and kind of place (a rerun box must also run offline)
DISTINCT = list({(s.page.startswith("rerun box of "), s.command): s for s in SHOWN}.values())

#: Chapters whose rerun box shows the plain command, and why.
NO_EXAMPLE = {
    "98_cluster_scale.ipynb": "its one parameter is the benchmark file the book ships; `make bench` rewrites "
    "that file, and the plain rerun then shows the new numbers",
}


@pytest.mark.parametrize("shown", DISTINCT, ids=[f"{s.page}: {s.command[:70]}" for s in DISTINCT])
def test_every_shown_command_passes_its_check(shown):
    if shown.command.startswith("make") and shutil.which("make") is None:
        pytest.skip("make is not installed")
    assert S.check(shown, ROOT) is None, f"{shown}: {S.check(shown, ROOT)}"


def test_the_count_of_shown_commands(capsys):
    pages = {s.page for s in SHOWN}
    with capsys.disabled():
        print(
            f"\nshown commands: {len(SHOWN)} on {len(pages)} pages and rerun boxes, "
            f"{len(DISTINCT)} distinct, each checked"
        )
    # what the collector must find, counted independently of it
    assert sum(s.page.startswith("rerun box of ") and " -m compsem run " in s.command for s in SHOWN) == len(NOTEBOOKS)
    assert {f"rerun box of notebooks/{nb.name}" for nb in NOTEBOOKS} <= pages
    for page in ("README.md", "CONTRIBUTING.md", "book/course_guide.md", "book/part3_montague_exercises.md"):
        assert page in pages, page
    assert S.Shown("README.md", "make exercises") in SHOWN


# ---- each chapter's own rerun example ------------------------------------------------------------
def _example(nb):
    args = rerun_example(nb)
    words = shlex.split(args or "")
    return {words[i + 1]: parse_value(words[i + 2]) for i in range(len(words) - 2) if words[i] == "-p"}


def test_every_chapter_declares_its_own_rerun_example():
    missing = [nb.name for nb in NOTEBOOKS if rerun_example(nb) is None and nb.name not in NO_EXAMPLE]
    assert missing == []
    assert all(rerun_example(ROOT / "notebooks" / name) is None for name in NO_EXAMPLE)


def test_rerun_examples_are_distinct():
    counts = Counter(rerun_example(nb) for nb in NOTEBOOKS if rerun_example(nb))
    assert [ex for ex, n in counts.items() if n > 1] == []


def test_each_rerun_example_changes_a_parameter_from_its_default():
    for nb in NOTEBOOKS:
        values, defaults = _example(nb), parameter_defaults(nb)
        if nb.name in NO_EXAMPLE:
            continue
        assert values, nb.name
        assert all(name in defaults and defaults[name] != v for name, v in values.items()), (nb.name, values)


def _values(command):
    words = shlex.split(command)
    return {words[i + 1]: parse_value(words[i + 2]) for i in range(len(words) - 2) if words[i] == "-p"}


def test_a_chapters_prose_and_its_box_give_the_same_path():
    """Where a chapter's own cells show a rerun of it with a path for the parameter its rerun
    example gives a path, it is the same path (chapter 99 once gave two different ones)."""
    compared = 0
    for nb in NOTEBOOKS:
        paths = {k: v for k, v in _example(nb).items() if isinstance(v, str) and "/" in v}
        for s in SHOWN:
            if s.page == f"notebooks/{nb.name}" and f"run notebooks/{nb.name}" in s.command:
                for name, value in _values(s.command).items():
                    if name in paths and isinstance(value, str):
                        compared += 1
                        assert value == paths[name], (nb.name, s.command)
    assert compared >= 1  # chapter 99: its prose and its parameters cell show one command


# ---- the checks fail where they should -----------------------------------------------------------
@pytest.mark.parametrize(
    "page, command, reason",
    [
        (
            "book/x.md",
            """python -m compsem run notebooks/22_csts_finetune.ipynb -p models '["use"]'""",
            "ModelKindError: `use` cannot be fine-tuned",
        ),
        (
            "book/x.md",
            """python -m compsem plan notebooks/24_csts_prompting.ipynb -p models '["sbert-mini"]'""",
            "ModelKindError: `sbert-mini` is a sentence encoder, not a text generator",
        ),
        ("book/x.md", "python -m compsem run notebooks/nope.ipynb", "no notebook notebooks/nope.ipynb"),
        (
            "book/x.md",
            "python -m compsem run notebooks/43_ssm_space.ipynb -p basis_sed 7",
            "has no parameter ['basis_sed']",
        ),
        # papermill's -p passes a list as text, which the chapter's list default does not take
        (
            "book/x.md",
            "papermill notebooks/22_csts_finetune.ipynb out.ipynb -p seeds '[1]'",
            "papermill's -p passes seeds as the text '[1]'",
        ),
        (
            "book/x.md",
            """papermill notebooks/32_montague_pairs.ipynb out.ipynb -p distance '"l2"'""",
            "with its quotes",
        ),
        # a rerun box's example must run offline; the same command on a page is for a reader with internet
        (
            "rerun box of notebooks/32_montague_pairs.ipynb",
            """python -m compsem run notebooks/32_montague_pairs.ipynb -p models '["st:sentence-transformers/LaBSE"]'""",
            "LaBSE",
        ),
        ("README.md", "make nosuchtarget", "the Makefile has no target nosuchtarget"),
        ("README.md", "make exercises NOSUCHVAR=1", "the Makefile has no variable NOSUCHVAR"),
        ("README.md", "pip install -e '.[nosuch]'", "pyproject.toml declares no extra [nosuch]"),
        ("README.md", "python -m compsem cache frobnicate", "does not parse"),
        ("README.md", "python -m compsem.nosuchmodule --help", "no module compsem.nosuchmodule"),
        ("README.md", "curl https://example.org/install.sh", "no check is known for this command"),
        ("README.md", "pytest tests/compsem/test_nosuch.py", "no test file tests/compsem/test_nosuch.py"),
    ],
)
def test_a_failing_command_is_named_with_the_reason(page, command, reason):
    why = S.check(S.Shown(page, command), ROOT)
    assert why is not None and reason in why, why


def test_the_same_example_on_a_page_is_only_planned():
    command = (
        """python -m compsem run notebooks/32_montague_pairs.ipynb -p models '["st:sentence-transformers/LaBSE"]'"""
    )
    assert S.check(S.Shown("book/part3_montague.md", command), ROOT) is None


def test_problems_name_the_page(tmp_path):
    (tmp_path / "Makefile").write_text("all:\n\t@true\n")
    (tmp_path / "README.md").write_text(
        "Build:\n\n```bash\nmake all   # the default\nmake nosuch\n```\n\nThen `make all`.\n"
    )
    assert S.problems(tmp_path) == ["README.md: shown command `make nosuch` fails: the Makefile has no target nosuch"]


def test_check_book_reports_a_failing_command_by_page(tmp_path, capsys):
    from compsem.book.checkbook import main

    (tmp_path / "Makefile").write_text("all:\n\t@true\n")
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "guide.md").write_text("Run `make nosuch` before the class.\n")
    (tmp_path / "executed").mkdir()
    args = [
        "--notebooks-only",
        "--executed",
        str(tmp_path / "executed"),
        "--root",
        str(tmp_path),
        "--pages",
        str(tmp_path / "book"),
        "--data",
        str(tmp_path / "nodata"),
    ]
    assert main(args) == 0  # without --commands the pages' commands are not read
    assert main([*args, "--commands"]) == 1
    assert (
        "check-book: book/guide.md: shown command `make nosuch` fails: the Makefile has no target nosuch"
        in capsys.readouterr().out
    )


# ---- the collector -------------------------------------------------------------------------------
def test_shell_blocks_join_continuations_and_drop_comments():
    text = (
        "```bash\n# a comment line\n$ python -m compsem run notebooks/a.ipynb \\\n    -p x '\"a # b\"'   # why\n"
        "make book\n```\n\n```python\nmake = 1\n```\n\nIn prose, `make lab` and `models` and make the point.\n"
    )
    assert S._from_markdown(text) == [
        "python -m compsem run notebooks/a.ipynb -p x '\"a # b\"'",
        "make book",
        "make lab",
    ]


def test_directives_are_read_as_markdown():
    text = (
        "````{exercise}\n:label: ex-1\nRun `python -m compsem models`.\n\n```bash\nmake exercises\n```\n````\n"
        "```{solution} ex-1\nIt prints the panel; `pip install -e .` first.\n```\n"
    )
    assert S._from_markdown(text) == ["make exercises", "python -m compsem models", "pip install -e ."]


def test_code_cells_show_their_commented_commands_only():
    src = (
        "# Parameters: change these, or rerun with\n#   python -m compsem run notebooks/x.ipynb -p n 3\n"
        "bench = 'results.json'   # written by `make bench`\nmake = 'python -m compsem run'\n"
    )
    assert S._from_code_comments(src) == ["python -m compsem run notebooks/x.ipynb -p n 3", "make bench"]


def test_the_set_up_cell_is_not_a_shown_page(tmp_path):
    nb = json.loads((ROOT / "notebooks" / "11_setcomp_overlap.ipynb").read_text())
    setup = next(c for c in nb["cells"] if "compsem-setup" in c["metadata"].get("tags", []))
    assert "make launch-cell" in "".join(setup["source"])
    assert not any(s.page == "notebooks/11_setcomp_overlap.ipynb" and s.command == "make launch-cell" for s in SHOWN)


# ---- the light chapters' examples execute ----------------------------------------------------------
#: Chapters whose example runs in well under a minute on two cores (no model, or one on three texts).
LIGHT = ("00_toolkit", "20_csts_data", "24_csts_prompting", "40_ssm_pool", "99_reproducibility")


def _outputs(path):
    nb = json.loads(path.read_text())
    return [json.dumps(c.get("outputs", []), sort_keys=True) for c in nb["cells"] if c["cell_type"] == "code"]


@pytest.mark.slow
@pytest.mark.parametrize("stem", LIGHT)
def test_a_light_chapters_example_runs_and_changes_what_it_shows(stem, tmp_path, monkeypatch):
    from compsem.book.running.runner import run_notebook

    monkeypatch.setenv("COMPSEM_RESULTS", str(tmp_path / "book-results"))
    nb = ROOT / "notebooks" / f"{stem}.ipynb"
    example = run_notebook(nb, _example(nb), out=tmp_path / "example", progress=False)
    default = run_notebook(nb, {}, out=tmp_path / "default", progress=False)
    errors = [
        o
        for c in json.loads(example.read_text())["cells"]
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors
    if stem != "99_reproducibility":  # its example reads a build of the reader's, absent here
        assert _outputs(example) != _outputs(default)
