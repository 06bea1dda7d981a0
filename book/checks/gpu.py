"""The sentences about the GPU check's record, benchmarks/gpu.json (chapter 99, book/part2_csts.md)."""

import json

from compsem import claims
from compsem.paths import repo_root


def _gpu():
    return json.loads((repo_root() / "benchmarks" / "gpu.json").read_text())


def _bf16_training_slower(sentence, page):
    """bf16 autocast fine-tuned more slowly than fp32, for every configuration the check ran."""
    g = _gpu()
    runs, speed = g["studies"]["csts"]["runs"], lambda c, p: runs[f"{c} {p}"]["examples_per_s"]
    configs = sorted({k.rsplit(" ", 1)[0] for k in runs})
    claims.check(
        sentence,
        page=page,
        holds=bool(configs) and all(speed(c, "bf16") < speed(c, "fp32") for c in configs),
        numbers={f"{c}: examples/s fp32, bf16": f"{speed(c, 'fp32'):.0f}, {speed(c, 'bf16'):.0f}" for c in configs}
        | {"GPU": g["machine"]["gpu"]},
        rule="bf16 autocast slower than fp32 for every configuration",
    )


def appendix(executed=None):
    """The default weights reproduce every Part III cell within 1e-4; bf16 weights move some cell further."""
    page = "99_reproducibility"
    _bf16_training_slower("bf16 autocast fine-tuned more slowly than fp32 at the book's preset", page)
    rep = _gpu()["studies"]["montague"]["reproduction"]
    within = {k: f"{v['within_1e-4']} of {v['cells']}" for k, v in rep.items()}
    of = {w: [v for k, v in rep.items() if k.startswith(f"gpu_{w}")] for w in ("default", "bf16")}
    claims.check(
        "Part III then reproduces the paper's MiniLM cells from the GPU's vectors",
        page=page,
        numbers=within,
        rule="with the default weights, every cell within 1e-4",
        holds=bool(of["default"]) and all(v["within_1e-4"] == v["cells"] for v in of["default"]),
    )
    claims.check(
        "while they moved Part III's reproduced cells by more than the 1e-4 the book holds",
        page=page,
        numbers=within,
        rule="with bf16 weights, some cell further than 1e-4",
        holds=any(v["within_1e-4"] < v["cells"] for v in of["bf16"]),
    )


def part(executed=None):
    _bf16_training_slower(
        "bf16 autocast fine-tuned sbert-mini slower than fp32 at the book's preset", "book/part2_csts.md"
    )


CHECKS = {"99_reproducibility": appendix, "part2_csts": part}
