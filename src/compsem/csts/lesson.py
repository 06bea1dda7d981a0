"""Part II's session of the course guide: ``report.LESSON`` (:class:`compsem.faces.Lesson`)."""

from __future__ import annotations

from ..faces import LabStep, Lesson

__all__ = ["LESSON"]

_ZS = "../notebooks/21_csts_zeroshot.ipynb"
_FT = "../notebooks/22_csts_finetune.ipynb"
#: The encoders and template of the lab's zero-shot run (Exercise 3.4).
_LAB_MODELS = ["sbert-mini", "use"]

LESSON = Lesson(
    title="similarity under a condition",
    chapters=(
        "{doc}`part2_csts`, {doc}`../notebooks/20_csts_data`, {doc}`../notebooks/21_csts_zeroshot`; "
        "{doc}`../notebooks/22_csts_finetune` read in class."
    ),
    note=(
        f"The fine-tuning chapter's {{glue:text}}`{_FT}::ft_n_runs:.0f` configurations took "
        f"{{glue:text}}`{_FT}::ft_train_minutes:.1f` minutes of training in all (each timed when it was trained: a "
        "run the build found in its cache keeps its first time), and in this build the whole chapter ran "
        "{glue:text}`../notebooks/99_reproducibility.ipynb::runtime_min_22_csts_finetune:.1f` min. The lab reruns it "
        "at lab size instead (its last step), and the chapter's own exercise ({ref}`ex-csts-5`), whose commands "
        "train four configurations each, is homework."
    ),
    worked=(
        "{ref}`sec-csts-worked` (conditional cosines, pair accuracy, the MSE on scaled labels and the "
        "quadruplet loss for one pair)."
    ),
    by_hand=("ex-csts-1", "ex-csts-2"),
    discussion=("ex-csts-3",),
    homework=("ex-csts-5",),
    lab=(
        LabStep(
            "{ref}`ex-csts-4`, the zero-shot chapter with the condition written as a prefix, with two encoders",
            "21_csts_zeroshot.ipynb",
            {"models": _LAB_MODELS, "template": "{condition}: {sentence}"},
        ),
        LabStep(
            "then {doc}`../notebooks/22_csts_finetune` at lab size: the bi-encoder with the MSE objective, "
            "with the training and test pairs cut to the numbers in the command",
            "22_csts_finetune.ipynb",
            {"configs": ["bi/mse"], "train_pairs": 300, "eval_pairs": 300},
            timed=True,
        ),
    ),
    expected=(
        "the lab's rows whose condition is `ignored`, the text-pair row, which reads the condition as a second text "
        f"(the book's: {{glue:text}}`{_ZS}::zs_textpair_text:s`), and the condition prior, which reads no sentence "
        f"({{glue:text}}`{_ZS}::zs_prior_pairacc:.1f` % pair accuracy), come out exactly as in the book: none of "
        "them reads the template. The other rows with the condition attached are what the lab changes: it writes the "
        f"condition as a prefix and runs {len(_LAB_MODELS)} of the book's encoders ({', '.join(_LAB_MODELS)}), so "
        "its rows are not the book's. Compare each "
        "with the book's row of the same encoder, which attached the condition with the template "
        f"{{glue:text}}`{_ZS}::zs_template:s`: on the same {{glue:text}}`{_ZS}::zs_n_pairs:,.0f` test pairs the "
        f"book's rows reach {{glue:text}}`{_ZS}::zs_attached_text:s` "
        f"({{glue:text}}`{_ZS}::zs_controls_attached_text:s`), and by the chapter's exact sign tests against "
        f"chance, in the book {{glue:text}}`{_ZS}::zs_chance_plain:s`. A template helps only where it lifts a model's "
        "pair accuracy above its own book row by a paired interval of the difference on those pairs that excludes "
        "zero (two runs' accuracies side by side do not decide it), and matters only where it lifts it above the "
        "prior by such an interval. The lab-sized "
        "fine-tuning run fits in a 25-minute lab even from empty caches; scored on so few pairs, its numbers show "
        "the training loop at work rather than a result, and the chapter's full run is the one to compare with "
        "the paper."
    ),
    goals=(
        (
            "explain why similarity needs a respect of comparison and how the paired design exposes a model that "
            "ignores it",
            ("ex-csts-1", "ex-csts-3"),
        ),
        (
            "compute conditional cosines, pair accuracy, MSE and quadruplet loss for one pair",
            ("ex-csts-1", "ex-csts-5"),
        ),
        (
            "read a result critically: Spearman against pair accuracy, intervals, shortcuts in the prompt or template",
            ("ex-csts-2", "ex-csts-3", "ex-csts-4"),
        ),
    ),
)
