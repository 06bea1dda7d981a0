"""Test helpers: the repository root and the tiny-model builders (:mod:`.tiny`)."""

from pathlib import Path

#: The repository root (tests read the book pages, notebooks and data from it).
ROOT = Path(__file__).resolve().parents[2]
