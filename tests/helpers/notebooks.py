"""Builders of tiny executed notebooks for the book checks' tests (prose, render, glue)."""

from __future__ import annotations

import json


def _nb(path, cells):
    """Write ``cells`` as an nbformat-4 notebook at ``path``."""
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def _md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _code(*outputs):
    return {"cell_type": "code", "metadata": {}, "source": "x", "outputs": list(outputs), "execution_count": 1}


def _html(html):
    return {"output_type": "execute_result", "data": {"text/html": html, "text/plain": "t"}, "metadata": {}}


def _glued(name, text):
    """A papermill/scrapbook glue output of ``name`` with the plain text ``text``."""
    return {
        "output_type": "display_data",
        "metadata": {"scrapbook": {"name": name, "mime_prefix": ""}},
        "data": {"application/papermill.record/text/plain": text},
    }


def probe_notebook(path, parameters: str, body: str):
    """Write a two-cell chapter to ``path``: a ``parameters`` cell with the source ``parameters``
    and a cell with ``body``, on the ``python3`` kernel; return ``path``."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell(parameters)
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell(body)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return path
