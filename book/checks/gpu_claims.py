"""Shared by check files: sentences about the GPU check's record (``benchmarks/gpu.json``,
written by ``benchmarks/gpu_check.py`` where a session had a GPU). Not a page."""

import json

from compsem import claims
from compsem.paths import repo_root


def gpu():
    return json.loads((repo_root() / "benchmarks" / "gpu.json").read_text())


def bf16_training_slower(sentence, page):
    """bf16 autocast fine-tuned more slowly than fp32, for every configuration the check ran."""
    g = gpu()
    runs = g["studies"]["csts"]["runs"]
    configs = sorted({k.rsplit(" ", 1)[0] for k in runs})
    numbers = {
        f"{c}: examples/s fp32, bf16": f"{runs[c + ' fp32']['examples_per_s']:.0f}, "
        f"{runs[c + ' bf16']['examples_per_s']:.0f}"
        for c in configs
    }
    claims.check(
        sentence,
        page=page,
        numbers=numbers | {"GPU": g["machine"]["gpu"]},
        holds=bool(configs)
        and all(runs[c + " bf16"]["examples_per_s"] < runs[c + " fp32"]["examples_per_s"] for c in configs),
        rule="bf16 autocast slower than fp32 for every configuration",
    )


def reproduction(reproduces, bf16_moves, page):
    """The default weights reproduce every Part III cell within 1e-4; bf16 weights move some cell further."""
    rep = gpu()["studies"]["montague"]["reproduction"]
    within = {k: f"{v['within_1e-4']} of {v['cells']}" for k, v in rep.items()}
    default = [v for k, v in rep.items() if k.startswith("gpu_default")]
    bf16 = [v for k, v in rep.items() if k.startswith("gpu_bf16")]
    claims.check(
        reproduces,
        page=page,
        numbers=within,
        holds=bool(default) and all(v["within_1e-4"] == v["cells"] for v in default),
        rule="with the default weights, every cell within 1e-4 of the paper's",
    )
    claims.check(
        bf16_moves,
        page=page,
        numbers=within,
        holds=any(v["within_1e-4"] < v["cells"] for v in bf16),
        rule="with bf16 weights, some cell further than 1e-4 from the paper's",
    )
