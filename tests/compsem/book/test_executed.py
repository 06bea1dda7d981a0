"""Reading executed notebooks (compsem.book.executed)."""

import json

from compsem.book import executed


def test_glued_values_are_read_behind_papermills_prefix(tmp_path):
    nb = tmp_path / "10_a.ipynb"
    glued = {
        "output_type": "display_data",
        "metadata": {"scrapbook": {"name": "rate", "mime_prefix": ""}},
        "data": {"application/papermill.record/text/plain": ["34", ".1"]},
    }
    plain = {"output_type": "execute_result", "metadata": {}, "data": {"text/plain": "t", "text/html": "<b>t</b>"}}
    nb.write_text(
        json.dumps(
            {
                "cells": [{"cell_type": "code", "metadata": {}, "source": "x", "outputs": [glued, plain]}],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 4,
            }
        )
    )
    assert executed.notebooks(tmp_path) == [nb]
    assert executed.glued_values(nb) == {"rate": "34.1"}
    assert executed.mime(glued) == {"text/plain": ["34", ".1"]} and executed.mime(plain)["text/html"] == "<b>t</b>"
