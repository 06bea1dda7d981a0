"""What of :mod:`compsem.encoders.onnx`'s files on disk a process may believe.

An export in ``<cache>/onnx/`` (``model.onnx`` and its ``export.json``) and the stored choice of
``auto`` (``decision-<machine>.json``) sit in a folder that whoever can write the cache may edit.
So neither is trusted for what it says:

* an export is used only when its SHA-256 is one this user's processes wrote (kept in this
  user's private overlay, :func:`compsem.store.private_folder`, ``0700``, per machine: a list
  others could write is never read), or when it agrees with torch within :data:`TOLERANCE` on
  a probe drawn afresh at each check: the fixed :data:`PROBE` sentences and up to
  :data:`DRAWS` texts drawn at random (the system's random source) from the texts being
  embedded (:func:`probe_texts`). An export that someone edited to agree with torch on fixed
  sentences cannot know which of the embedded texts will be drawn. Such a verification holds
  for this process only (:data:`_SEEN`): each later process that loads an export it did not
  write draws its own probe (milliseconds). int8 exports, whose vectors differ from torch's by
  design, are trusted only when this user wrote them;
* a stored choice is used only when :func:`read_decision` finds it to be exactly what
  :meth:`~compsem.encoders.onnx.OnnxBackend.decide` writes, for this model's identity; anything
  else is a :class:`~compsem.encoders.facts.RecordError`, which the caller turns into one warning
  and a new measurement.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..device import machine_key
from ..paths import overlay_dir
from ..store import BrokenStoreError, private_folder, read_json, read_record, write_json
from .facts import RecordError

__all__ = [
    "PROBE",
    "DRAWS",
    "TOLERANCE",
    "CHOICES",
    "read_decision",
    "trusted",
    "vouch",
    "probe_texts",
    "probe_difference",
]

#: Largest absolute difference from torch's vectors an fp32 export may have on the probe.
TOLERANCE = 1e-5
#: Fixed sentences an export is checked on (short and long, punctuation, a rare word).
PROBE = (
    "A man is playing a guitar.",
    "The cat sat on the mat",
    "Nobody expected the results to be so different!",
    "Zymurgy, oddly enough, is the chemistry of fermentation.",
    "a",
)
#: Texts drawn at random from those being embedded, added to :data:`PROBE` at each check.
DRAWS = 32
#: The backends a stored choice may name.
CHOICES = ("torch", "onnxruntime fp32")
_SHA = re.compile(r"[0-9a-f]{64}")
_MEASURES = ("texts", "max_abs", "torch_s", "onnx_s", "speedup")


def read_decision(path: Path, identity: str) -> dict:
    """The choice stored in ``path`` when it is one :data:`CHOICES` made for ``identity`` with
    finite measurements; else a :class:`RecordError` naming the file and the fault
    (``FileNotFoundError`` when there is none)."""
    rec = read_record(path, "the stored ONNX choice", RecordError)
    if rec.get("backend") not in CHOICES:
        raise RecordError(
            f"the stored ONNX choice {path} names the backend {str(rec.get('backend'))[:40]!r}, not one "
            f"of {', '.join(CHOICES)}"
        )
    if rec.get("identity") != identity:
        raise RecordError(
            f"the stored ONNX choice {path} was made for {str(rec.get('identity'))[:120]!r}, not for "
            f"this model ({identity[:120]!r})"
        )
    for k in _MEASURES:
        v = rec.get(k)
        if k in rec and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0):
            raise RecordError(f"the stored ONNX choice {path} gives {k} = {str(v)[:40]}, not a finite number >= 0")
    if rec["backend"] != "torch" and not (isinstance(rec.get("max_abs"), (int, float)) and rec["max_abs"] <= TOLERANCE):
        raise RecordError(
            f"the stored ONNX choice {path} chose ONNX Runtime without a measured difference within {TOLERANCE:.0e}"
        )
    return rec


def _vouched_file() -> Path:
    folder = private_folder(overlay_dir()) / "onnx"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder / f"verified-{machine_key()}.json"


def _vouched() -> set[str]:
    try:
        got = read_json(_vouched_file())
    except (OSError, BrokenStoreError, RecordError):
        return set()
    return {s for s in got if isinstance(s, str) and _SHA.fullmatch(s)} if isinstance(got, list) else set()


_SEEN: set[str] = set()


def trusted(sha: str) -> bool:
    """Whether the export with checksum ``sha`` was written or verified by this user here."""
    return sha in _SEEN or sha in _vouched()


def vouch(sha: str, *, wrote: bool = True) -> None:
    """Remember ``sha`` as an export this user wrote (``wrote``: on this machine, in the private
    overlay) or verified on a drawn probe (this process only)."""
    _SEEN.add(sha)
    if not wrote:
        return
    try:
        write_json(_vouched_file(), sorted(_vouched() | {sha}))
    except OSError:  # no private overlay here: this process still remembers it
        pass


def probe_texts(texts: Sequence[str] = ()) -> list[str]:
    """:data:`PROBE` and up to :data:`DRAWS` distinct ``texts`` drawn at random (the system's
    random source, so no one can tell in advance which)."""
    pool = sorted({t for t in texts if isinstance(t, str) and t.strip()} - set(PROBE))
    return list(PROBE) + random.SystemRandom().sample(pool, min(DRAWS, len(pool)))


def probe_difference(torch_encode, onnx_encode, texts: Sequence[str] = ()) -> float:
    """The largest absolute difference between the two backends' vectors on a probe drawn
    from ``texts`` (:func:`probe_texts`)."""
    probe = probe_texts(texts)
    a = np.asarray(torch_encode(probe), dtype=np.float64)
    b = np.asarray(onnx_encode(probe), dtype=np.float64)
    if a.shape != b.shape or not np.isfinite(b).all():
        return math.inf
    return float(np.abs(a - b).max())
