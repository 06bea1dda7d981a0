"""Part IV's session of the course guide: ``report.LESSON`` (:class:`compsem.faces.Lesson`)."""

from __future__ import annotations

from ..faces import LabStep, Lesson

__all__ = ["LESSON"]

_M = "../notebooks/42_ssm_metrics.ipynb"

LESSON = Lesson(
    title="sentence spaces",
    chapters="{doc}`part4_ssm`, {doc}`../notebooks/41_ssm_matrices`, {doc}`../notebooks/42_ssm_metrics`.",
    worked="{ref}`ssm-worked` (a sentence space of three sentences: $D_{rel}$, $D_{dis}$, sparsity, RSA).",
    by_hand=("ex-ssm-1", "ex-ssm-2"),
    discussion=("ex-ssm-3",),
    homework=("ex-ssm-5",),
    lab=(
        LabStep(
            "{ref}`ex-ssm-4`, the metrics chapter with two encoders and fewer bootstrap draws",
            "42_ssm_metrics.ipynb",
            {"models": ["sbert-mini", "glove-50d"], "n_boot": 200},
        ),
    ),
    expected=(
        "both encoders are symmetric, so for each the two inferential accuracies add up to about 1; in the "
        f"book they add up to between {{glue:text}}`{_M}::ssm_sym_infsum_min:.2f` and "
        f"{{glue:text}}`{_M}::ssm_sym_infsum_max:.2f` for the symmetric scorers. The reference's relatedness "
        f"sparsity stays {{glue:text}}`{_M}::ssm_ref_sparsity_rel:.3f`: it does not depend on the models."
    ),
    goals=(
        (
            "turn directional scores into $D_{rel}$ and $D_{dis}$ and compute the three metrics by hand",
            ("ex-ssm-1", "ex-ssm-2"),
        ),
        (
            "say what each metric cannot see, and why a symmetric scorer has no discrepancy space",
            ("ex-ssm-2", "ex-ssm-3"),
        ),
        ("judge a sentence-space picture against its metrics", ("ex-ssm-4", "ex-ssm-5")),
    ),
)
