"""Reading executed notebooks (``_build/executed/notebooks``) for the book's checks: their cells,
an output's data (papermill stores glued values behind a ``papermill.record/`` prefix), the
values a chapter glued. :mod:`.checkbook`, :mod:`.prosecheck` and :mod:`.gluecheck` read
through these."""

from __future__ import annotations

from pathlib import Path

from compsem import notebooks as _notebooks

__all__ = [
    "notebooks",
    "cells",
    "mime",
    "text",
    "glued_values",
    "glued_texts",
    "NOT_BUILT",
    "glued_numbers",
    "glued_number",
]


def notebooks(executed_dir: Path) -> list[Path]:
    """The executed notebooks of a folder, in name order."""
    return sorted(Path(executed_dir).glob("*.ipynb"))


def cells(nb: Path) -> list[dict]:
    """A notebook's cells."""
    return _notebooks.cells(nb)


def mime(output: dict) -> dict:
    """An output's data with papermill's ``papermill.record/`` prefix removed."""
    return {k.rsplit("papermill.record/", 1)[-1]: v for k, v in output.get("data", {}).items()}


def text(value) -> str:
    """A notebook string field (a list of lines or one string) as one string."""
    return "".join(value) if isinstance(value, list) else str(value)


def glued_values(nb: Path) -> dict[str, str]:
    """``{key: text}`` of every value a notebook glued (its plain-text form)."""
    return _glued(nb, ("text/plain",))


def glued_texts(nb: Path) -> dict[str, str]:
    """``{key: text}`` of every value a notebook glued, as a reader reads it: a glued Markdown
    sentence (``results.Prose``) by its Markdown, any other value by its plain text."""
    return _glued(nb, ("text/markdown", "text/plain"))


def _glued(nb: Path, kinds: tuple[str, ...]) -> dict[str, str]:
    """``{key: text}`` of every glued output, in the first of ``kinds`` it has."""
    out = {}
    for cell in cells(nb):
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            data = mime(o)
            kind = next((k for k in kinds if k in data), None)
            if name and kind:
                out[name] = text(data[kind])
    return out


#: What a glued number reads as in a student copy written without an executed build.
NOT_BUILT = "[the number in the book]"


def glued_numbers(executed_dir: Path) -> dict[str, dict[str, str]]:
    """``{notebook stem: {key: text}}`` of the values an executed build glued (empty without one)."""
    return {nb.stem: glued_values(nb) for nb in sorted(Path(executed_dir).glob("*.ipynb"))}


def glued_number(body: str, glued: dict[str, dict[str, str]], doc: str) -> str:
    """A ``{glue}`` role's text as the book shows it: the build's value in the role's format, or
    :data:`NOT_BUILT` when the value is not at hand."""
    page, sep, rest = body.partition("::")
    nb, (key, _, spec) = (Path(page).stem, rest.partition(":")) if sep else (Path(doc).name, body.partition(":"))
    value = glued.get(nb, {}).get(key)
    if value is None:
        return NOT_BUILT
    value = value.strip().strip("'\"")
    try:
        return format(float(value), spec) if spec else value
    except ValueError:
        return value
