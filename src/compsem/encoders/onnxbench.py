"""torch against ONNX Runtime fp32, measured for the benchmarks (``make bench``): interleaved A/B
rounds in one process on the same texts (see :mod:`compsem.encoders.onnx` for the backend)."""

from __future__ import annotations

import os
import time

import numpy as np

from .onnx import OnnxBackend

__all__ = ["compare_backends"]


def compare_backends(encoder, texts: list[str], *, rounds: int = 4, batch_size: int = 32) -> dict:
    """torch against ONNX Runtime fp32 on ``texts`` for a sentence-transformers ``encoder``,
    measured as interleaved A/B in this process: ``rounds`` rounds, each encoding every text
    with both backends, the order alternating (ABBA), after one warm-up of each.

    Returns ``texts``, ``rounds``, ``torch_texts_per_s`` and ``onnx_texts_per_s`` (from the
    median times), the per-round ratio torch time / ONNX time (``ratio_min``,
    ``ratio_median``), ``max_abs_diff`` between the two backends' vectors and the load
    averages before and after (``load_before``, ``load_after``).
    """
    backend = OnnxBackend(encoder.model, spec=encoder.spec, identity=encoder.identity, mode="onnx")
    load_before = [round(x, 2) for x in os.getloadavg()]
    backend._torch(texts[:batch_size], batch_size), backend.encode_onnx(texts[:batch_size], batch_size=batch_size)
    t_torch, t_onnx, diff = [], [], 0.0
    for r in range(rounds):
        for which in ("torch", "onnx") if r % 2 == 0 else ("onnx", "torch"):
            t0 = time.perf_counter()
            if which == "torch":
                X = backend._torch(texts, batch_size)
            else:
                X = backend.encode_onnx(texts, batch_size=batch_size)
            (t_torch if which == "torch" else t_onnx).append(time.perf_counter() - t0)
            if which == "torch":
                A = X
            else:
                B = X
        diff = max(diff, float(np.abs(A - B).max()))
    ratios = np.asarray(t_torch) / np.asarray(t_onnx)
    return {
        "texts": len(texts),
        "rounds": rounds,
        "batch_size": batch_size,
        "torch_texts_per_s": len(texts) / float(np.median(t_torch)),
        "onnx_texts_per_s": len(texts) / float(np.median(t_onnx)),
        "ratio_min": float(ratios.min()),
        "ratio_median": float(np.median(ratios)),
        "max_abs_diff": diff,
        "load_before": load_before,
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }
