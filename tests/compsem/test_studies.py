"""compsem.studies: the registry agrees with the repository."""

import pytest

from compsem import paths, studies
from compsem.errors import CompsemError


def test_every_study_has_package_data_chapters_and_citation():
    bib = (paths.repo_root() / "references.bib").read_text()
    for s in studies.STUDIES:
        assert s.module().__name__ == f"compsem.{s.name}"
        assert paths.data_dir(s.data_folder).is_dir()
        assert s.chapters(paths.notebooks_dir()), s.name
        assert f"{{{s.citation}," in bib
        assert list(paths.data_dir("reference").glob(f"{s.reference_prefix}*.csv"))


def test_lookups():
    assert studies.get("ssm").part == 4
    assert studies.by_part("3").name == "montague"
    assert studies.by_part(9) is None
    assert studies.of_notebook("notebooks/22_csts_finetune.ipynb").name == "csts"
    assert studies.of_notebook("90_synthesis.ipynb") is None
    with pytest.raises(CompsemError, match="setcomp, csts, montague, ssm"):
        studies.get("nope")


def test_the_makefile_include_is_generated_from_the_registry():
    """studies.mk (read by make before anything is installed) says what the registry says."""
    text = (paths.repo_root() / "studies.mk").read_text()
    assert text == studies.makefile_include(), "studies.mk is out of date: python -W ignore -m compsem.studies > studies.mk"
    assert "STUDIES := setcomp csts montague ssm\n" in text and "STUDY_PART_montague := 3\n" in text
    assert "include studies.mk" in (paths.repo_root() / "Makefile").read_text()
