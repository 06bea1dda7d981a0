"""The course guide is linked, its references resolve, and every exercise has a learning goal."""

import json
import re

from compsem.book.teaching import labtime
from compsem.book.teaching.courseguide import page_text
from compsem.book.teaching.assignments import assignment_parts
from compsem.paths import repo_root
from compsem.studies import STUDIES

ROOT = repo_root()
SOURCE = (ROOT / "book" / "course_guide.md").read_text()
GUIDE = page_text(ROOT / "book" / "course_guide.md", ROOT)  # as the book shows it


def _labels(pattern, paths):
    return {m for p in paths for m in re.findall(pattern, p.read_text(), flags=re.M)}


def test_guide_is_in_the_toc_and_linked_from_the_introduction():
    assert "- file: book/course_guide" in (ROOT / "_toc.yml").read_text()
    assert GUIDE.startswith("(course-guide)=") and SOURCE.startswith("(course-guide)=")
    assert "{ref}`course-guide`" in (ROOT / "book" / "intro.md").read_text()


def test_one_session_per_study_each_with_chapters_worked_example_exercises_and_a_lab():
    sessions = re.split(r"^### ", GUIDE, flags=re.M)[1:]
    with_lesson = [s for s in STUDIES if s.module("report").LESSON is not None]
    assert [re.search(r"\(Part (\w+)\)", s).group(1) for s in sessions] == [s.roman for s in with_lesson]
    for s in sessions:
        for part in ("**Chapters**", "**Worked example**", "**Exercises**", "**Lab**"):
            assert part in s, (s[:40], part)
        assert "python -m compsem run notebooks/" in s and "-p models" in s


def test_references_resolve():
    exercises = _labels(r"^:label: (ex-[\w-]+)", (ROOT / "book").glob("part*_exercises.md"))
    targets = _labels(r"^\(([\w-]+)\)=", [*(ROOT / "book").glob("*.md")])
    for ref in re.findall(r"\{ref\}`([\w-]+)`", GUIDE):
        assert ref in exercises | targets, ref
    for doc in re.findall(r"\{doc\}`([^`]+)`", GUIDE):
        assert (ROOT / "book" / f"{doc}.md").is_file() or (ROOT / "book" / f"{doc}.ipynb").is_file(), doc
    for nb in re.findall(r"python -m compsem run (notebooks/\w+\.ipynb)", GUIDE):
        assert (ROOT / nb).is_file(), nb


def test_every_exercise_is_mapped_to_a_learning_goal():
    exercises = _labels(r"^:label: (ex-[\w-]+)", (ROOT / "book").glob("part*_exercises.md"))
    table = GUIDE[GUIDE.index("## Learning goals") : GUIDE.index("## Assessment")]
    mapped = set(re.findall(r"\{ref\}`(ex-[\w-]+)`", table))
    assert mapped == exercises


def test_the_downloads_are_the_gradeable_notebooks_one_per_part():
    """Issue 48: one student notebook per Part, the one handed in (make release writes it, stage
    copies it to exercises/<part>.ipynb); no second kind."""
    downloads = re.findall(r"\{download\}`[^<`]*<\.\./exercises/([^>]+)>`", GUIDE)
    assert downloads == [f"{part}.ipynb" for part in assignment_parts(ROOT)]
    assert "_exercises.ipynb" not in GUIDE and "# your answer" not in GUIDE


def test_lab_commands_name_real_parameters():
    commands = re.findall(r"`(?:\.venv/bin/)?(python -m compsem (?:run|prefetch) notebooks/[^`]+)`", GUIDE)
    assert len(commands) >= 10
    for cmd in commands:
        nb = re.search(r"notebooks/(\w+\.ipynb)", cmd).group(1)
        cells = json.loads((ROOT / "notebooks" / nb).read_text())["cells"]
        params = "".join(next(c for c in cells if c["cell_type"] == "code")["source"])
        for name in re.findall(r" -p (\w+) ", cmd):
            assert re.search(rf"^{name}\s*=", params, re.M), f"{nb} has no parameter {name}"


# ---- the guide as a lesson plan: commands that parse, numbers glued from the build ------------
import shlex  # noqa: E402

from compsem.book.appendices import appendix  # noqa: E402
from compsem.book.running.params import parse_parameters  # noqa: E402
from compsem.book.running.plan import plan  # noqa: E402

SESSIONS = re.split(r"^### ", GUIDE, flags=re.M)[1:]


def _commands(text):
    return re.findall(r"`(\.venv/bin/python -m compsem (?:run|prefetch) [^`]+)`", text)


def test_each_session_has_a_prefetch_a_lab_with_its_run_time_and_expected_results():
    for s in SESSIONS:
        assert "**Prefetch**" in s and "**Expected**" in s, s[:40]
        prefetch = [c for c in _commands(s) if " prefetch " in c]
        runs = [c for c in _commands(s) if " run " in c]
        assert prefetch and runs, s[:40]
        timed = {labtime.lab_key(step) for _, step in labtime.timed_steps()}
        for cmd in runs:  # every lab chapter's run time is glued: the chapter's, or a timed lab run's own
            stem = re.search(r"notebooks/(\w+)\.ipynb", cmd).group(1)
            own = [k for k in timed if k.startswith(stem) and f"99_reproducibility.ipynb::labtime_min_{k}:" in s]
            assert f"99_reproducibility.ipynb::runtime_min_{stem}:" in s or own, (s[:40], stem)
        expected = s[s.index("**Expected**") :]
        assert "{glue:text}`../notebooks/" in expected, s[:40]
        assert not re.search(r"(?<![\w.`{$])\d+\.\d+(?![\w}`$])", re.sub(r"\{glue:[a-z]+\}`[^`]*`", "", expected)), s[
            :40
        ]


def test_lab_and_prefetch_commands_parse_and_plan():
    for cmd in _commands(GUIDE):
        argv = shlex.split(cmd)
        nb = argv[4]
        pairs = [(argv[i + 1], argv[i + 2]) for i, a in enumerate(argv) if a == "-p"]
        params = parse_parameters(pairs, ROOT / nb)
        table, notes = plan(ROOT / nb, params)
        assert not any("cannot" in n.lower() or "unknown" in n.lower() for n in notes[1:]), (cmd, notes)


def test_glued_keys_come_from_the_chapters_they_name():
    """Each ``path::key`` the guide glues names an existing chapter, and the key is one that
    chapter's code glues (chapter 99: one run time per chapter, from ``appendix.run_time_values``)."""
    src = "\n".join(p.read_text() for p in (ROOT / "src" / "compsem").rglob("*.py"))
    refs = re.findall(r"\{glue:text\}`\.\./notebooks/(\w+)\.ipynb::(\w+)", GUIDE)
    assert len(refs) >= 15
    for nb, key in refs:
        assert (ROOT / "notebooks" / f"{nb}.ipynb").is_file(), nb
        if nb == "99_reproducibility" and key.startswith("labtime_min_"):  # a timed lab run (labtime)
            assert key in {labtime.glue_name(step) for _, step in labtime.timed_steps()}, key
        elif nb == "99_reproducibility":
            stem = key.removeprefix("runtime_min_")
            assert key.startswith("runtime_min_") and (ROOT / "notebooks" / f"{stem}.ipynb").is_file(), key
        else:
            assert re.search(rf"[\"']{key}[\"']\s*:|\b{key}=", src), key
    ch99 = (ROOT / "notebooks" / "99_reproducibility.ipynb").read_text()
    assert "glue_all(appendix.run_time_values(Path(executed)))" in ch99
    assert "glue_all(labtime.time_values(Path(labs)))" in ch99


def test_run_time_values_read_the_build_records(tmp_path):
    (tmp_path / "11_setcomp_overlap.runtime.json").write_text(
        json.dumps({"notebook": "11_setcomp_overlap.ipynb", "seconds": 90.0, "parameters": {}})
    )
    (tmp_path / "21_csts_zeroshot.runtime.json").write_text(
        json.dumps({"notebook": "21_csts_zeroshot.ipynb", "seconds": 30, "parameters": {}})
    )
    assert appendix.run_time_values(tmp_path) == {
        "runtime_min_11_setcomp_overlap": 1.5,
        "runtime_min_21_csts_zeroshot": 0.5,
    }
    assert appendix.run_time_values(tmp_path / "none") == {}


def test_class_setup_is_described_with_its_variables():
    setup = GUIDE[GUIDE.index("## Class set-up on one JupyterHub") : GUIDE.index("## Student notebooks")]
    for needed in (
        "compsem prefetch",
        "COMPSEM_CACHE=/srv/class/compsem-cache",
        "chmod -R a+rX,a-w",
        "COMPSEM_CACHE_OVERLAY",
        "per-user, private",
    ):
        assert needed in setup, needed
    reference = (ROOT / "book/using.md").read_text()
    assert "chmod -R a+rX,a-w /srv/class/compsem-cache" in reference  # the same command as the reference page's
    # one block of commands: the one environment, the class cache, each student's clone on it
    blocks = re.findall(r"^```bash\n(.*?)^```", setup, flags=re.M | re.S)
    assert len(blocks) == 1
    for needed in (
        "make venv",
        "echo 'COMPSEM_CACHE=/srv/class/compsem-cache'",
        "git clone /srv/class/compsem ~/compsem",
        "ln -s /srv/class/compsem/.venv ~/compsem/.venv",
    ):
        assert needed in blocks[0], needed


def test_no_session_calls_fine_tuning_longer_than_a_lab_without_the_records():
    assert "longer than a lab" not in GUIDE
    s2 = SESSIONS[1]
    assert "22_csts_finetune.ipynb::ft_train_minutes" in s2 and "22_csts_finetune.ipynb::ft_n_runs" in s2


def test_session_3_lab_is_what_its_exercise_runs():
    exercise = (ROOT / "book" / "part3_montague_exercises.md").read_text()
    ex_cmds = {c.strip() for c in re.findall(r"`(?:\.venv/bin/)?python -m compsem run ([^`]+)`", exercise)}
    lab = {c.split(" run ", 1)[1].strip() for c in _commands(SESSIONS[2]) if " run " in c}
    assert ex_cmds and ex_cmds == lab


def test_each_place_prints_the_lab_that_the_build_times():
    """Issue 48 item 7: the guide sends students to a clone, Binder and Colab; its table gives the
    lab command as typed in each, and each, read as compsem's command line reads it (``-p`` pairs
    through ``parse_parameters``), is the timed lab step that labtime runs: same chapter, same
    parameters. Binder and Colab start it with their own python, which holds the study there."""
    import shlex

    from compsem.book.running.params import parse_parameters
    from compsem.book.teaching import courseguide as cg
    from compsem.book.teaching.labtime import timed_steps

    step = timed_steps()[0][1]
    table = GUIDE[GUIDE.index("| where | a lab command is typed in") :]
    rows = re.findall(r"^\| ([^|]+) \| [^|]+ \| `([^`]+)` \|$", table[: table.index("\n\n")], flags=re.M)
    assert [where for where, _ in rows] == ["a clone (their own machine, the hub)", "Binder", "Colab"]
    starts = {"a clone (their own machine, the hub)": [".venv/bin/python"], "Binder": ["python"]}
    starts["Colab"] = ["!cd", "..", "&&", "python"]  # the set-up cell leaves the notebook in notebooks/
    for where, cmd in rows:
        words = shlex.split(cmd)
        start = starts[where]
        assert words[: len(start)] == start and words[len(start) : len(start) + 4] == [
            "-m",
            "compsem",
            "run",
            f"notebooks/{step.notebook}",
        ]
        rest = words[len(start) + 4 :]
        assert rest[::3] == ["-p"] * (len(rest) // 3) and len(rest) % 3 == 0
        pairs = list(zip(rest[1::3], rest[2::3]))
        assert parse_parameters(pairs, ROOT / "notebooks" / step.notebook) == dict(step.params), where
    # what each start relies on: Binder installs the study into its python, Colab's set-up moves into notebooks/
    assert (
        "pip install" in (ROOT / "binder" / "postBuild").read_text()
        and " -e ." in (ROOT / "binder" / "postBuild").read_text()
    )
    assert 'os.chdir(root / "notebooks")' in (ROOT / "src/compsem/book/teaching/colab.py").read_text()
    assert [python for _, _, python in cg.PLACES] == [" ".join(s) for s in starts.values()]


def test_the_hub_block_covers_what_failed_on_a_hub():
    """Issue 48 text 11: git's dubious ownership, an admin's Python students cannot run or that is
    older than the lock needs, a cache the lecturer's prefetch could not write."""
    setup = GUIDE[GUIDE.index("## Class set-up on one JupyterHub") : GUIDE.index("## Student notebooks")]
    block = setup[setup.index("```bash") : setup.index("```", setup.index("```bash") + 3)]
    lines = [ln for ln in block.splitlines()[1:] if ln and not ln.startswith("#")]
    assert "git config --system --add safe.directory /srv/class/compsem" in lines
    assert any(ln.startswith("make venv SHARED=1 PYTHON=") for ln in lines)
    assert "chown -R lecturer /srv/class/compsem /srv/class/compsem-cache" in lines
    opened, closed = (
        lines.index("chmod -R u+w /srv/class/compsem-cache"),
        lines.index("chmod -R a+rX,a-w /srv/class/compsem-cache"),
    )
    assert opened < closed < lines.index("git clone /srv/class/compsem ~/compsem")
    assert "3.11.5" in block
