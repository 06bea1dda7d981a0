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
