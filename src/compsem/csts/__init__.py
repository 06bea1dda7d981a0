"""Part II: conditional semantic textual similarity (C-STS, Deshpande et al. 2023).

* :mod:`compsem.csts.data` — the loader for the published files, pairing, the predictions writer;
* :mod:`compsem.csts.splitting` — grouped splits, subsamples, the embedded set;
* :mod:`compsem.csts.models` — cross-, bi- and tri-encoders over a Hugging Face encoder;
* :mod:`compsem.csts.training` — MSE / Quad / Quad+MSE, paired batches, fit, evaluate;
* :mod:`compsem.csts.zeroshot` — zero-shot cosine scores with the shared embedding panel;
* :mod:`compsem.csts.prompting` — prompts, the answer parsers, generator backends.

Torch-dependent modules are not imported here, so ``import compsem.csts`` stays cheap.
"""

from .data import LoadReport, load_csts, write_predictions
from .splitting import build_embedded, group_split, split_by_pair, splits

__all__ = ["LoadReport", "build_embedded", "group_split", "load_csts", "split_by_pair", "splits", "write_predictions"]
