"""Benchmarks (``make bench``): numbers written to ``benchmarks/results.json`` for the book.

The foundation measures encode throughput per panel model, with a cold cache (every text
encoded) and a warm one (every text read back), the share of work saved by folding duplicate
texts, and the cache's own cost (vectors written and read per second, without a model). Each study of the registry may add ``benchmarks/bench_<study>.py`` with ``run(quick) -> dict``
(importing only ``compsem``); :func:`run_all` collects them under the study's name. The
machine is recorded with them (:func:`compsem.cpu.this_machine`: CPU model, its
AVX2 / AVX-512 / AVX-512 BF16 / AMX flags, cores, and the load at the start and the end), and
:func:`encode_backends` measures torch against ONNX Runtime side by side in the same run, and
:func:`precision_probe` times the training precisions afresh (the probe behind ``precision="auto"``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

from compsem import device as D
from compsem.cache import EmbeddingCache, embed, last_stats, text_key
from compsem.encoders import get_encoder
from compsem.encoders.onnx import backends_used
from compsem.encoders.onnxbench import compare_backends
from compsem.encoders.registry import PANEL
from compsem.paths import repo_root
from compsem.studies import STUDIES
from compsem.cpu import this_machine

__all__ = [
    "encode_throughput",
    "cache_overhead",
    "encode_backends",
    "run_all",
    "encoder_in",
    "encode_rate",
    "vector_gap",
    "study_gpu_checks",
]


def _sentences(n: int, seed: int = 0) -> list[str]:
    """``n`` distinct news-like sentences built from a small grammar (deterministic)."""
    rng = np.random.default_rng(seed)
    subj = [
        "The council",
        "A spokesperson",
        "The minister",
        "Local residents",
        "The company",
        "Researchers",
        "The coach",
        "Police officers",
        "The court",
        "Two volunteers",
    ]
    verb = ["announced", "rejected", "welcomed", "questioned", "reported", "delayed", "approved", "described"]
    obj = [
        "the new budget",
        "a bridge repair plan",
        "the flood warning",
        "an unusual discovery",
        "the transfer deal",
        "a pilot programme",
        "the election result",
        "the price rise",
    ]
    tail = [
        "on Monday",
        "after a long debate",
        "in a short statement",
        "despite protests",
        "late last night",
        "for the second time",
        "without giving details",
        "in the capital",
    ]
    out = set()
    while len(out) < n:
        out.add(
            f"{rng.choice(subj)} {rng.choice(verb)} {rng.choice(obj)} {rng.choice(tail)}, "
            f"officials said {int(rng.integers(0, 10_000))} times."
        )
    return sorted(out)


def encode_throughput(specs=("sbert-mini", "use", "glove-50d", "bow"), n: int = 1000, dup_factor: int = 2) -> dict:
    """Sentences per second per model, cold and warm cache, and the dedup saving.

    The input holds ``n`` distinct sentences, each repeated ``dup_factor`` times (so the
    dedup ratio is ``1 / dup_factor`` of the texts reaching the model).
    """
    texts = _sentences(n) * dup_factor
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        store = EmbeddingCache(Path(tmp) / "bench.sqlite")
        for spec in specs:
            embed(["warm up the model"], spec, cache=False)
            t0 = time.perf_counter()
            embed(texts, spec, cache=store)
            cold = time.perf_counter() - t0
            st = last_stats()
            t0 = time.perf_counter()
            embed(texts, spec, cache=store)
            warm = time.perf_counter() - t0
            out[spec] = {
                "texts": len(texts),
                "unique": st.n_unique,
                "encoded_cold": st.n_encoded,
                "dedup_ratio": st.n_unique / st.n_texts,
                "cold_texts_per_s": len(texts) / cold,
                "warm_texts_per_s": len(texts) / warm,
                "encoded_per_s_cold": st.n_encoded / cold,
                "cold_s": cold,
                "warm_s": warm,
                "cached": bool(last_stats().n_cached),
                "backend": backends_used().get(spec, "-"),
            }
    return out


def cache_overhead(n: int = 10_000, dims=(384, 4096), chunk_size: int = 1024) -> dict:
    """What the embedding cache costs, apart from any model: ``n`` random float32 vectors
    written in ``embed``'s chunks (one transaction each) to a fresh file, then read back.

    Returns per dimension: vectors written and read per second, and the file size per 1,000
    vectors.
    """
    out = {}
    rng = np.random.default_rng(0)
    keys = [text_key(f"benchmark text {i}") for i in range(n)]
    for dim in dims:
        with tempfile.TemporaryDirectory() as tmp:
            store = EmbeddingCache(Path(tmp) / "overhead.sqlite")
            X = rng.standard_normal((n, dim)).astype(np.float32)
            t0 = time.perf_counter()
            for s in range(0, n, chunk_size):
                store.put_many("m", keys[s : s + chunk_size], X[s : s + chunk_size])
            write = time.perf_counter() - t0
            t0 = time.perf_counter()
            got = store.get_many("m", keys, dim)
            read = time.perf_counter() - t0
            assert len(got) == n
            store._with_retry(lambda con: con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall())
            size = store.path.stat().st_size
            out[str(dim)] = {
                "vectors": n,
                "write_per_s": n / write,
                "read_per_s": n / read,
                "MB_per_1000": size / 1e6 / (n / 1000),
                "chunk_size": chunk_size,
            }
    return out


def encode_backends(n: int = 1000, *, rounds: int = 4, spec: str = "sbert-mini") -> dict:
    """torch against ONNX Runtime fp32 on ``n`` benchmark sentences, interleaved in this process
    (:func:`compsem.encoders.onnxbench.compare_backends`); a study's benchmark adds its own texts
    (Part III: chapter 30's phrases) under its ``encode_backends``."""
    return {"sentences": compare_backends(get_encoder(spec), _sentences(n), rounds=rounds)}


def _study_benchmarks(quick: bool) -> dict:
    """``run(quick)`` of ``benchmarks/bench_<study>.py`` for every study of the registry that has
    one (a benchmark imports only ``compsem``: tests/compsem/book/test_bench.py checks)."""
    results = {}
    for study in STUDIES:
        mod = _bench_module(study.name)
        if mod is None:
            continue
        t0 = time.perf_counter()
        results[study.name] = {**mod.run(quick=quick), "wall_s": time.perf_counter() - t0}
    return results


def _bench_module(name: str):
    """``benchmarks/bench_<name>.py`` loaded as a module, or None where the study has none."""
    path = repo_root() / "benchmarks" / f"bench_{name}.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def encoder_in(spec: str, *, device: str, dtype: str | None = None):
    """A fresh encoder of a panel spec on ``device`` with ``dtype`` weights (the GPU check's bf16
    path; the encoders' default is fp32, see :class:`~compsem.encoders.neural.SentenceTransformerEncoder`)."""
    return PANEL[spec].factory(device=device, dtype=dtype)


def encode_rate(encode, texts: list[str], *, repeats: int = 2) -> tuple[float, np.ndarray]:
    """Texts per second of ``encode(texts)`` (best of ``repeats`` passes after a warm-up batch,
    CUDA synchronised around each pass when a GPU is visible) and the vectors of the last pass."""
    import torch  # heavy: torch synchronises CUDA around each pass; only a benchmark loads it

    sync = torch.cuda.synchronize if torch.cuda.is_available() else (lambda: None)
    encode(texts[:64])
    best, X = float("inf"), None
    for _ in range(repeats):
        sync()
        t0 = time.perf_counter()
        X = encode(texts)
        sync()
        best = min(best, time.perf_counter() - t0)
    return len(texts) / best, np.asarray(X, dtype=np.float32)


def vector_gap(a, b) -> dict:
    """How far two encodings of the same texts are apart: the largest absolute difference of a
    coordinate (``max_abs_diff``) and the largest ``1 - cos`` of a row (``max_one_minus_cos``)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return {"max_abs_diff": float(np.abs(a - b).max()), "max_one_minus_cos": float((1 - cos).max())}


def study_gpu_checks(device: str, quick: bool) -> dict:
    """``gpu(device, quick)`` of ``benchmarks/bench_<study>.py`` for every study of the registry
    whose benchmark has one (``benchmarks/gpu_check.py``); a failing study's entry holds its error."""
    results = {}
    for study in STUDIES:
        mod = _bench_module(study.name)
        if mod is None or not hasattr(mod, "gpu"):
            continue
        t0 = time.perf_counter()
        try:
            results[study.name] = mod.gpu(device=device, quick=quick)
        except Exception as exc:  # noqa: BLE001 - one failing study does not hide the others
            traceback.print_exc()
            results[study.name] = {"error": f"{type(exc).__name__}: {exc}"}
        results[study.name]["wall_s"] = round(time.perf_counter() - t0, 1)
    return results


def study_gpu_words(sections: dict) -> dict[str, str]:
    """``gpu_words(section)`` of ``benchmarks/bench_<study>.py`` for every study of the registry
    whose benchmark has one: the words chapter 99 glues about that study's part of the GPU check,
    from its section of ``benchmarks/gpu.json`` (``sections[study]``, None where it has none)."""
    words: dict[str, str] = {}
    for study in STUDIES:
        mod = _bench_module(study.name)
        if mod is not None and hasattr(mod, "gpu_words"):
            words |= mod.gpu_words(sections.get(study.name))
    return words


def precision_probe() -> dict:
    """The precision probe measured afresh in this run (:func:`compsem.device.probe_precisions`,
    never a stored choice): GFLOP/s per precision, the choice :func:`compsem.device.choose_precision`
    makes from them and why, and the CPU's model, family, model number and the flags of
    :data:`PROBE_FLAGS` it has (:func:`compsem.device.machine_fields`)."""
    got = D.probe_precisions()
    choice, why = D.choose_precision(got["rates"])
    m = D.machine_fields()
    have = set(m["cpu_flags"].split())
    return {
        **got,
        "choice": choice,
        "why": why,
        "min_gain": D.MIN_GAIN,
        "machine": {
            **{k: m[k] for k in ("cpu_model", "cpu_family", "cpu_model_number", "cores", "torch_threads")},
            "cpu_flags": " ".join(f for f in PROBE_FLAGS if f in have),
        },
    }


#: the CPU flags the precision probe's record keeps (those that name a precision's instructions)
PROBE_FLAGS = ("avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_tile")


def run_all(quick: bool = False, out: str | os.PathLike | None = None) -> Path:
    """Run every benchmark and write the JSON file; return its path."""
    import torch  # heavy: torch sets the thread count the benchmarks record; only here

    machine = this_machine()
    res = {
        "machine": {
            **machine,
            "python": platform.python_version(),
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "torch_threads": torch.get_num_threads(),
            "numpy": np.__version__,
            "torch": torch.__version__,
        },
        "quick": quick,
        "encode": encode_throughput(n=200 if quick else 1000),
        "encode_backends": encode_backends(n=200 if quick else 1000, rounds=2 if quick else 4),
        "cache": cache_overhead(n=2000 if quick else 10_000),
        "precision_probe": precision_probe(),
        "studies": _study_benchmarks(quick),
    }
    res["machine"]["load_at_end"] = this_machine()["load"]
    path = Path(out) if out else repo_root() / "benchmarks" / "results.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(res, indent=1, default=float))
    return path
