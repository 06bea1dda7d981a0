"""Part II: conditional semantic textual similarity (C-STS, Deshpande et al. 2023).

Faces (the study contract): :func:`study.resolve_models`, :func:`study.planned_texts`,
:func:`study.run` (a :class:`study.CstsRun` with ``provenance()``), the ``*_values`` functions of
:mod:`.report` (glued with :func:`compsem.results.glue_all`), ``report.paper_table``,
``report.headlines`` and ``report.try_it``. The loader is ``data.load_csts``, the
split ``splitting.splits``, the predictions writer ``data.write_predictions``.

Modules: :mod:`.data` (the loader for the published files, the predictions writer),
:mod:`.pairing` (pair keys, C-High / C-Low roles), :mod:`.splitting` (grouped splits,
subsamples, the embedded set), :mod:`.metrics` (Spearman, pair accuracy, the condition prior,
the quadruplet loss in NumPy), :mod:`.config` (``TrainConfig``, the presets, the paper's Table 8),
:mod:`.frozen` (the frozen-layer cache on disk), :mod:`.models` (cross-, bi- and tri-encoders),
:mod:`.training` (objectives, batches, the training loop), :mod:`.study` (zero-shot scores,
baselines, fine-tuning runs and their cache), :mod:`.tables` (pair bootstrap, summaries over
seeds), :mod:`.report` (what the chapters show) and :mod:`.prompting` (prompts, answer parsers).

``import compsem.csts`` does not load torch: the torch-dependent modules (:mod:`.models`,
:mod:`.training`) are imported by name where they are needed.
"""

from . import (
    config,
    data,
    finding,
    frozen,
    lesson,
    metrics,
    pairing,
    prompting,
    report,
    splitting,
    study,
    tables,
    tryit,
)

__all__ = [
    "data",
    "metrics",
    "study",
    "tables",
    "report",
    "config",
    "frozen",
    "pairing",
    "prompting",
    "splitting",
    "lesson",
    "tryit",
    "finding",
]
