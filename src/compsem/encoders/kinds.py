"""Which kind of model a chapter runs, and whether a spec is of that kind.

A chapter's ``models`` parameter takes specs of one kind: a sentence encoder (most chapters), a
text generator (``gen:`` specs, the prompting chapter), an entailment scorer (Part IV: lexical,
``nli:``, ``gen:`` or any encoder) or a fine-tunable backbone (the fine-tuning chapters). Each
study declares the kind of its chapters (``study.MODEL_SLOTS``, a :class:`ModelSlot` per
chapter number); the planner and the runner check a run's models against it before any work
starts (:func:`kind_problems`), so that ``use`` is refused for fine-tuning with the reason, not
after minutes with a download error.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import CompsemError
from ..fmt import plural

__all__ = [
    "KINDS",
    "shown_name",
    "who",
    "ModelSlot",
    "ModelKindError",
    "kind_problem",
    "kind_problems",
    "what_is",
    "FINETUNABLE",
    "CONTROLS",
    "CONTROL_WHY",
    "is_control",
]

#: The kinds, as a page names them.
KINDS: dict[str, str] = {
    "encoder": "sentence encoder",
    "generator": "text generator",
    "scorer": "entailment scorer",
    "finetune": "fine-tunable backbone",
}

#: The named specs whose weights can be trained (transformers loaded by sentence-transformers).
FINETUNABLE: tuple[str, ...] = ("sbert-mini", "sbert-l")

# why a spec that embeds texts cannot be fine-tuned (by spec, then by prefix)
_NOT_TRAINABLE = {
    "use": "it is a TensorFlow-Hub export with no trainable layers",
    "glove-50d": "it averages fixed word vectors: there is no network to train",
    "bow": "it is a hashed bag of words with no weights",
    "random": "it is a control that draws a random vector per text, with no weights",
}
_NOT_TRAINABLE_PREFIX = {
    "vec:": _NOT_TRAINABLE["glove-50d"],
    "bow:": _NOT_TRAINABLE["bow"],
    "random:": _NOT_TRAINABLE["random"],
    "oa:": "its weights sit behind a web API",
}


class ModelKindError(CompsemError, ValueError):
    """A chapter was given a model of the wrong kind, or more models than it runs."""


@dataclass(frozen=True)
class ModelSlot:
    """What a chapter's ``models`` parameter takes: one of :data:`KINDS`, and at most
    ``at_most`` models (None: any number)."""

    kind: str
    at_most: int | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")


def what_is(spec: str) -> str:
    """What a spec names, in words: ``"a text generator"``, ``"an NLI scorer"``,
    ``"the lexical baseline"`` or ``"a sentence encoder"``."""
    s = spec.strip()
    if s.startswith("gen:"):
        return "a text generator"
    if s.startswith("nli:"):
        return "an NLI scorer"
    if s == "lexical":
        return "the lexical baseline"
    return "a sentence encoder"


def _untrainable(spec: str) -> str | None:
    if spec in _NOT_TRAINABLE:
        return _NOT_TRAINABLE[spec]
    for prefix, why in _NOT_TRAINABLE_PREFIX.items():
        if spec.startswith(prefix):
            return why
    if what_is(spec) != "a sentence encoder":
        return f"it is {what_is(spec)}, not an encoder backbone"
    return None


def kind_problem(spec: str, kind: str, *, offline: Iterable[str] = ()) -> str | None:
    """Why ``spec`` cannot be a model of ``kind``, or None when it can.

    ``offline``: the specs of that kind that run here, named in the message as the way out.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    s = str(spec).strip()
    instead = ", ".join(offline)
    if kind == "scorer":  # Part IV scores with anything: its own grammar checks the spec
        return None
    if kind == "generator":
        if s.startswith("gen:"):
            return None
        return (
            f"`{s}` is {what_is(s)}, not a text generator: this chapter prompts a generator, "
            "a spec 'gen:hf:<name or folder>' or 'gen:openai:<model>'"
            + (f"; generators offline: {instead}" if instead else " (none ships with the book)")
        )
    if kind == "encoder":
        if what_is(s) == "a sentence encoder":
            return None
        return f"`{s}` is {what_is(s)}, not a sentence encoder" + (
            f"; sentence encoders offline: {instead}" if instead else ""
        )
    why = _untrainable(s)  # finetune
    if why is None:
        return None
    return f"`{s}` cannot be fine-tuned: {why}" + (f"; fine-tunable offline: {instead}" if instead else "")


def kind_problems(specs: Iterable[str], slot: ModelSlot, *, chapter: str, offline: Iterable[str] = ()) -> list[str]:
    """Every reason why ``specs`` do not fit ``slot`` in ``chapter`` (empty when they do)."""
    specs = [str(s).strip() for s in specs]
    offline = list(offline)
    problems = [p for p in (kind_problem(s, slot.kind, offline=offline) for s in specs) if p]
    if slot.at_most is not None and len(specs) > slot.at_most:
        problems.append(
            f"{chapter} runs at most {plural(slot.at_most, KINDS[slot.kind])}, got "
            f"{plural(len(specs), 'model')} ({', '.join(specs)}): run the chapter once per model"
        )
    return problems


#: The named specs that are controls, not models: a page draws them beside the models and never
#: ranks them among them (the bag of words, the random vectors, Part IV's lexical-coverage
#: baseline; ``bow:`` and ``random:`` specs too).
CONTROLS: tuple[str, ...] = ("bow", "random", "lexical")

#: why a ranking leaves a control out, as a page says it
CONTROL_WHY = "a control, shown beside the models, never ranked among them"


def is_control(spec: str) -> bool:
    """Whether ``spec`` names a control (:data:`CONTROLS`, or a ``bow:`` / ``random:`` spec)."""
    return spec in CONTROLS or spec.startswith(("bow:", "random:"))


def shown_name(spec: str) -> str:
    """How a table heads a model's column or row: ``"control: bow"`` for a control
    (:func:`is_control`), the spec itself otherwise."""
    return f"control: {spec}" if is_control(spec) else spec


def who(spec: str) -> str:
    """How a sentence opens on a model: ``"The control `bow`"`` for a control, ``"`sbert-mini`"``
    otherwise."""
    return f"The control `{spec}`" if is_control(spec) else f"`{spec}`"
