"""GPU check: the CUDA paths of the library, run where a GPU is lent (not part of ``make bench``).

``python benchmarks/gpu_check.py [--out=FILE] [--quick] [--device=cpu]`` writes one JSON record
(default ``benchmarks/gpu.json``) with the GPU and the versions, and:

* ``encode``: ``sbert-mini`` on the GPU with the library's default weights (fp32) and with
  bf16 weights, and on this machine's CPU (fp32, torch), on the benchmark's sentences: texts
  per second, the largest difference of each GPU path's vectors from the CPU's
  (:func:`compsem.book.appendices.bench.vector_gap`) and the identities (one cache key per precision);
* ``studies``: ``gpu(device, quick)`` of every study's benchmark that has one
  (:func:`compsem.book.appendices.bench.study_gpu_checks`; Part II trains, Part III reproduces its cells).

``--device=cpu`` is a dry run of the script on a machine without a GPU. Nothing is asserted
here: the record is what was measured (the book's precision defaults cite it).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def machine(device: str) -> dict:
    import torch

    rec = {
        "device": device,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
    }
    if device.startswith("cuda"):
        p = torch.cuda.get_device_properties(0)
        rec.update(
            gpu=torch.cuda.get_device_name(0),
            capability=".".join(map(str, torch.cuda.get_device_capability(0))),
            multiprocessors=p.multi_processor_count,
            memory_gib=round(p.total_memory / 2**30, 1),
            bf16=torch.cuda.is_bf16_supported(),
            cuda=torch.version.cuda,
        )
    for name in ("transformers", "sentence_transformers", "numpy"):
        rec[name] = __import__(name).__version__
    return rec


def encode(device: str, n: int) -> dict:
    from compsem.book.appendices.bench import _sentences, encode_rate, encoder_in, vector_gap
    from compsem.encoders import get_encoder

    texts = _sentences(n)
    cpu = get_encoder("sbert-mini", device="cpu")
    r_cpu, X_cpu = encode_rate(lambda t: cpu.encode(t, batch_size=64), texts, repeats=1)
    out: dict = {"sentences": n, "cpu_identity": cpu.identity, "cpu_fp32_texts_per_s": round(r_cpu, 1)}
    for name, enc in (
        ("gpu_default", get_encoder("sbert-mini", device=device)),
        ("gpu_bf16", encoder_in("sbert-mini", device=device, dtype="bfloat16")),
    ):
        rate, X = encode_rate(lambda t: enc.encode(t, batch_size=256), texts)
        out[name] = {
            "identity": enc.identity,
            "weights": str(next(enc.model.parameters()).dtype).removeprefix("torch."),
            "texts_per_s": round(rate, 1),
            **vector_gap(X, X_cpu),
        }
    return out


def main(argv: list[str]) -> int:
    import torch

    opt = dict(a.removeprefix("--").split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    device, quick = opt.get("device", "cuda"), "--quick" in argv
    out = Path(opt.get("out", ROOT / "benchmarks" / "gpu.json"))
    if device.startswith("cuda") and not torch.cuda.is_available():
        print(
            "gpu_check: torch sees no CUDA device; run it on a machine with a GPU (or --device=cpu for a dry run)",
            file=sys.stderr,
        )
        return 2
    os.environ["COMPSEM_ENCODE_BACKEND"] = "torch"  # the CPU side of each comparison is plain torch
    from compsem.book.appendices.bench import study_gpu_checks

    rec = {"machine": machine(device), "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "quick": quick}
    t0 = time.perf_counter()
    rec["encode"] = {**encode(device, 2000 if quick else 10_000), "wall_s": round(time.perf_counter() - t0, 1)}
    rec["studies"] = study_gpu_checks(device, quick)
    out.write_text(json.dumps(rec, indent=1))
    print(json.dumps(rec, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
