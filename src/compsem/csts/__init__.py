"""Part II: conditional semantic textual similarity (C-STS, Deshpande et al. 2023).

* :mod:`compsem.csts.data` — the embedded set, the loader for the real format, pairing, splits;
* :mod:`compsem.csts.models` — cross-, bi- and tri-encoders over a Hugging Face encoder;
* :mod:`compsem.csts.training` — MSE / Quad / Quad+MSE, paired batches, fit, evaluate;
* :mod:`compsem.csts.zeroshot` — zero-shot cosine scores with the shared embedding panel;
* :mod:`compsem.csts.prompting` — prompts, the answer parser, generator backends.

Torch-dependent modules are imported lazily, so ``import compsem.csts`` stays cheap.
"""

from .data import LoadReport, build_embedded, check_pairing, load_csts, split_by_pair

__all__ = ["LoadReport", "build_embedded", "check_pairing", "load_csts", "split_by_pair", "splits"]


def splits(df):
    """``{"train": …, "validation": …, "test": …}`` sub-frames (index reset) of a loaded table."""
    return {name: df[df["split"] == name].reset_index(drop=True) for name in ("train", "validation", "test")}
