"""How much of the CPU's arithmetic the C-STS training loop uses (``make bench``'s ``utilisation``).

:func:`gemm_limit` measures the GFLOP/s of a matrix product of about a training batch's shape in
fp32 or bf16 — the limit a loop made of such products could reach on this machine, measured in
the same run as the loop itself. :func:`flops_per_row` counts the floating-point operations of
one training row (forward and backward of the layers that train) with torch's own counter over
the first batches of a run's plan. Loop GFLOP/s = operations per row × examples per second.
:func:`profile_steps` profiles training steps with ``torch.profiler`` and :func:`profile_shares`
sums the operators' own CPU time per kind of work (:data:`OP_CATEGORIES`: matrix products,
softmax, GELU, casts and copies, dropout masks, layer norm, optimiser, gradient clipping,
elementwise arithmetic, the rest), the table ``make bench`` records per precision.
Torch is imported inside the functions (heavy; the module itself is torch-free).
"""

from __future__ import annotations

import time

__all__ = [
    "GEMM_SHAPE",
    "gemm_limit",
    "flops_per_row",
    "OP_CATEGORIES",
    "op_category",
    "profile_shares",
    "profile_steps",
]

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


#: kinds of work of a training step, each with the prefixes of the profiler's event names it
#: takes (the first kind whose prefix matches wins; anything else is "other")
OP_CATEGORIES = (
    (
        "matrix products",
        (
            "aten::mm",
            "aten::addmm",
            "aten::bmm",
            "aten::baddbmm",
            "aten::matmul",
            "aten::_scaled_dot_product",
            "aten::_addmm_activation",
        ),
    ),
    ("softmax", ("aten::_softmax", "aten::_safe_softmax", "aten::softmax", "aten::_softmax_backward_data")),
    ("GELU", ("aten::gelu",)),
    ("casts and copies", ("aten::copy_", "aten::_to_copy", "aten::to", "aten::clone", "aten::contiguous")),
    (
        "dropout masks",
        ("aten::bernoulli", "aten::native_dropout", "aten::dropout", "aten::random_", "aten::randint", "aten::rand"),
    ),
    ("layer norm", ("aten::native_layer_norm", "aten::layer_norm")),
    (
        "optimiser",
        (
            "aten::_fused_adamw",
            "Optimizer.",
            "aten::_foreach_",
            "aten::lerp",
            "aten::addcmul",
            "aten::addcdiv",
            "aten::sqrt",
        ),
    ),
    ("gradient clipping", ("aten::linalg_vector_norm", "aten::norm", "aten::clamp")),
    (
        "elementwise arithmetic",
        (
            "aten::add",
            "aten::sub",
            "aten::mul",
            "aten::div",
            "aten::sum",
            "aten::mean",
            "aten::fill_",
            "aten::zero_",
            "aten::where",
            "aten::masked_fill",
            "aten::exp",
            "aten::tanh",
            "aten::pow",
            "aten::neg",
            "aten::rsub",
        ),
    ),
)


def op_category(name: str) -> str:
    """The kind of work (:data:`OP_CATEGORIES`) of a profiler event named ``name``."""
    for kind, prefixes in OP_CATEGORIES:
        if name.startswith(prefixes):
            return kind
    return "other"


def profile_shares(events, *, steps: int = 1) -> dict:
    """``{kind: {"ms_per_step", "share"}}`` from ``events`` (``(name, self CPU microseconds)``
    pairs, e.g. the profiler's ``key_averages()`` as ``(e.key, e.self_cpu_time_total)``): each
    kind's own time summed, per step, and its share of the total, largest first."""
    total, per = 0.0, {}
    for name, us in events:
        per[op_category(name)] = per.get(op_category(name), 0.0) + float(us)
        total += float(us)
    if total <= 0:
        raise ValueError("no profiled time to share out")
    return {
        k: {"ms_per_step": round(v / 1000 / steps, 2), "share": round(v / total, 3)}
        for k, v in sorted(per.items(), key=lambda kv: -kv[1])
    }


def profile_steps(encoder: str, train, cfg, *, n_batches: int = 8, warmup: int = 2, seed: int = 0) -> dict:
    """Profile ``n_batches`` training steps under ``cfg`` (a
    :class:`~compsem.csts.config.TrainConfig`, its precision as :func:`compsem.device.autocast_dtype`
    resolves it) after ``warmup`` unprofiled ones, as :func:`compsem.csts.training.fit` runs them
    (autocast forward, loss, backward, clipping, optimiser step) on the first batches of the
    run's own plan, the frozen layers filled before; :func:`profile_shares` of the events, with
    the steps and the precision."""
    import numpy as np
    import torch
    from torch.profiler import ProfilerActivity, profile

    from compsem import device as D

    from . import training as T

    model = T.new_model(encoder, cfg, seed=seed, disk=False).train()
    dev = torch.device("cpu")
    amp = D.autocast_dtype("cpu", cfg.precision)
    plan = T._batches(train, cfg, np.random.default_rng(seed))[: warmup + n_batches]
    if len(plan) < warmup + 1:
        raise ValueError("too few training batches to profile")
    s1, s2, cc = train["sentence1"].tolist(), train["sentence2"].tolist(), train["condition"].tolist()
    y = torch.tensor(
        T.LabelScaler.fit(train["label"].to_numpy()).transform(train["label"].to_numpy()), dtype=torch.float32
    )
    rows = [int(i) for idx, _, _ in plan for i in idx]
    with torch.autocast(device_type="cpu", dtype=amp or torch.float32, enabled=amp is not None):
        model.fill_frozen_cache([s1[i] for i in rows], [s2[i] for i in rows], [cc[i] for i in rows])
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    opt, _ = T._optimizer(named, cfg, dev)

    def step(idx, n_pairs, qmask):
        with torch.autocast(device_type="cpu", dtype=amp or torch.float32, enabled=amp is not None):
            scores = model([s1[i] for i in idx], [s2[i] for i in idx], [cc[i] for i in idx])
        mask = None if qmask is None else torch.as_tensor(qmask)
        T.objective_loss(cfg.objective, scores.float(), y[idx], n_pairs, cfg.margin, mask).backward()
        if cfg.grad_clip:
            torch.nn.utils.clip_grad_norm_([p for _, p in named], cfg.grad_clip)
        opt.step()
        opt.zero_grad(set_to_none=True)

    for b in plan[:warmup]:
        step(*b)
    timed = plan[warmup:]
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for b in timed:
            step(*b)
    shares = profile_shares(((e.key, e.self_cpu_time_total) for e in prof.key_averages()), steps=len(timed))
    return {
        "steps": len(timed),
        "rows": sum(len(b[0]) for b in timed),
        "precision": "fp32" if amp is None else str(amp).removeprefix("torch.").replace("bfloat16", "bf16"),
        "kinds": shares,
    }
