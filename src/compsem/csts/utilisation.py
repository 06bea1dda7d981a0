"""How much of the CPU's arithmetic the C-STS training loop uses (``make bench``'s ``utilisation``).

:func:`gemm_limit` measures the GFLOP/s of a matrix product of about a training batch's shape in
fp32 or bf16 — the limit a loop made of such products could reach on this machine, measured in
the same run as the loop itself. :func:`flops_per_row` counts the floating-point operations of
one training row (forward and backward of the layers that train) with torch's own counter over
the first batches of a run's plan. Loop GFLOP/s = operations per row × examples per second.
Torch is imported inside the functions (heavy; the module itself is torch-free).
"""

from __future__ import annotations

import time

__all__ = ["GEMM_SHAPE", "gemm_limit", "flops_per_row"]

#: (m, k, n) of the limits' product: about a batch's packed tokens × the hidden size, times the
#: feed-forward weight (the loop's largest multiply)
GEMM_SHAPE = (1024, 384, 1536)


def gemm_limit(dtype: str, *, shape=GEMM_SHAPE, reps: int = 30) -> float:
    """GFLOP/s (``2·m·k·n`` per product) of the fastest of ``reps`` products of ``shape`` in
    ``dtype`` (``"fp32"`` or ``"bf16"``) with torch's threads, after three unmeasured ones."""
    import torch

    if dtype not in ("fp32", "bf16"):
        raise ValueError(f"dtype must be 'fp32' or 'bf16', got {dtype!r}")
    m, k, n = shape
    dt = torch.float32 if dtype == "fp32" else torch.bfloat16
    a, b = torch.randn(m, k, dtype=dt), torch.randn(k, n, dtype=dt)
    for _ in range(3):
        a @ b
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t0)
    return 2 * m * k * n / best / 1e9


def flops_per_row(encoder: str, train, cfg, *, n_batches: int = 12, seed: int = 0) -> float:
    """Floating-point operations of one training row under ``cfg`` (a
    :class:`~compsem.csts.config.TrainConfig`): forward and backward of the model on the first
    ``n_batches`` batches of the run's own plan (seed ``seed``), counted by
    ``torch.utils.flop_counter.FlopCounterMode`` (matrix products and attention), divided by the
    rows; the frozen layers' fill is not counted (it is filled before, as in training)."""
    import numpy as np
    from torch.utils.flop_counter import FlopCounterMode

    from . import training as T

    model = T.new_model(encoder, cfg, seed=seed, disk=False).train()
    plan = T._batches(train, cfg, np.random.default_rng(seed))[:n_batches]
    s1, s2, cc = train["sentence1"].tolist(), train["sentence2"].tolist(), train["condition"].tolist()
    rows = [int(i) for idx, _, _ in plan for i in idx]
    if not rows:
        raise ValueError("no training batch to count")
    model.fill_frozen_cache([s1[i] for i in rows], [s2[i] for i in rows], [cc[i] for i in rows])
    with FlopCounterMode(display=False) as counter:
        for idx, _, _ in plan:
            model([s1[i] for i in idx], [s2[i] for i in idx], [cc[i] for i in idx]).sum().backward()
    return counter.get_total_flops() / len(rows)
