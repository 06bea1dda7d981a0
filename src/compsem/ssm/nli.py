"""The NLI cross-encoder scorer of Part IV (spec ``nli:NAME``).

A Hugging Face sequence-classification model fine-tuned for natural language inference reads
each ordered pair as one input, ``[CLS] premise [SEP] hypothesis [SEP]``, and gives logits over
its labels. The scorer keeps the whole softmax ``P[i, j, :]`` of every pair, so that both of the
paper's readings come from one pass:

* ``R(i, j) = P[i, j, e]``, the probability of the entailment label ``e`` (Section 2.3.1);
* the model's predicted label, ``argmax_c P[i, j, c] == e`` (Section 2.4: the paper scores the
  BERT-family models by their predicted label, pooling contradiction and neutral).

The entailment label is found in ``config.id2label``; a model whose labels are only
``LABEL_0..2`` needs it named in the spec, ``nli:NAME#entailment=1`` (an index) or
``nli:NAME#entailment=entailment`` (a label name). Where the model runs and in which precision
is decided by :mod:`compsem.device`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..device import resolve_device, torch_dtype
from ..encoders import split_options, validate_texts, weights_digest
from ..encoders.base import looks_like_hub_failure, quiet_transformers
from ..errors import DataError, HubUnavailableError, UnknownModelError, check_trust_remote_code
from ..progress import bar as progress_bar
from .data import unique_texts

__all__ = [
    "MissingEntailmentLabel",
    "entailment_index",
    "NLICrossEncoder",
    "load_nli",
    "parse_nli_spec",
    "ENTAILMENT_NAMES",
    "GROUP_ROWS",
]

#: label names read as "entailment" (case-insensitive)
ENTAILMENT_NAMES = ("entailment", "entail", "entailed")

#: Premises per group of an N x N matrix: the pairs of ``GROUP_ROWS`` rows (all N columns) are
#: sorted by length and batched among themselves, never with another group's. A batch's padding
#: (and so a probability's last bits) then depends only on the group, and a block of whole
#: groups scored on its own (``python -m compsem prefetch``) equals the same rows of a one-pass
#: matrix bit for bit. Part of the scorer's identity, so part of the matrices' cache key.
GROUP_ROWS = 16

#: what an unreachable hub suggests instead
_OFFLINE = (
    "lexical",
    "the panel encoders (sbert-mini, use, glove-50d, bow)",
    "a local folder with an NLI model (nli:/path/to/model)",
)


class MissingEntailmentLabel(DataError):
    """The classification model's ``config.id2label`` has no (unique) entailment label."""


def _labels(id2label: dict) -> dict[int, str]:
    return {int(k): str(v) for k, v in id2label.items()}


def entailment_index(id2label: dict, override: int | str | None = None) -> int:
    """Index of the entailment label in a ``config.id2label`` mapping.

    Parameters
    ----------
    id2label : dict
        ``{index: label name}`` (keys may be strings, as in a saved config).
    override : int or str, optional
        The reader's choice from the spec (``#entailment=1`` or ``#entailment=entail``): an
        index (digits) or a label name.

    Raises
    ------
    MissingEntailmentLabel
        No override and no (or more than one) label called "entailment"; an override index out
        of range or a name that is not a label.
    """
    labels = _labels(id2label)
    if override is not None and str(override).strip() != "":
        text = str(override).strip()
        if text.lstrip("-").isdigit():
            k = int(text)
            if k not in labels:
                raise MissingEntailmentLabel(
                    f"#entailment={k} is not a label index of the model; its labels are {labels}"
                )
            return k
        hits = [k for k, v in labels.items() if v.strip().lower() == text.lower()]
        if len(hits) != 1:
            raise MissingEntailmentLabel(
                f"#entailment={text!r} names no single label of the model; its labels are {labels}"
            )
        return hits[0]
    hits = [k for k, v in labels.items() if v.strip().lower() in ENTAILMENT_NAMES]
    if len(hits) != 1:
        why = "no" if not hits else "more than one"
        raise MissingEntailmentLabel(
            f"the model has {why} label called 'entailment' in config.id2label = {labels}; an NLI scorer needs a "
            "sequence-classification model fine-tuned for NLI (e.g. cross-encoder/nli-deberta-v3-base). If its "
            "labels are unnamed (LABEL_0, LABEL_1, ...), name the entailment one in the spec: "
            "'nli:NAME#entailment=1' (index) or 'nli:NAME#entailment=<label name>'"
        )
    return hits[0]


def parse_nli_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"nli:NAME#entailment=1"`` -> ``("NAME", {"entailment": "1"})``; other options are refused."""
    if not isinstance(spec, str) or not spec.startswith("nli:") or not spec[4:].split("#")[0].strip():
        raise UnknownModelError(str(spec), ["nli:<Hugging Face NLI model or local folder>"], forms=())
    name, opts = split_options(spec[4:])
    unknown = sorted(set(opts) - {"entailment"})
    if unknown:
        raise UnknownModelError(
            spec, ["nli:NAME", "nli:NAME#entailment=<index or label name>"], forms=(f"unknown option(s) {unknown}",)
        )
    return name.strip(), opts


def load_nli(name: str, *, device: str | None = None, dtype: str | None = None, trust_remote_code: bool = False):
    """(model, tokenizer) for a Hugging Face NLI model name or local folder, on ``device`` in
    ``dtype`` (:func:`compsem.device.resolve_device`, :func:`compsem.device.torch_dtype`)."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    quiet_transformers()
    device = resolve_device(device)
    kw = {"trust_remote_code": check_trust_remote_code(trust_remote_code, where="nli")}
    try:
        tok = AutoTokenizer.from_pretrained(name, **kw)
        model = AutoModelForSequenceClassification.from_pretrained(name, dtype=torch_dtype(device, dtype), **kw)
    except Exception as exc:  # noqa: BLE001 - rewrapped with advice
        if os.path.isdir(name) or not looks_like_hub_failure(exc):
            raise
        raise HubUnavailableError(f"nli:{name}", exc, _OFFLINE) from exc
    return model.to(device).eval(), tok


@dataclass
class NLICrossEncoder:
    """R(i, j) = P(entailment | premise s_i, hypothesis s_j) from a sequence-classification model.

    All ordered pairs of the unique texts (identical pairs included) are scored group by group
    (``group_rows`` premises, default :data:`GROUP_ROWS`, with every hypothesis), each group's
    pairs in batches sorted by length, with a tqdm progress bar. ``entailment`` overrides the
    label lookup (an index or a label name); ``device``/``dtype`` follow :mod:`compsem.device`
    (CPU in float32 by default when no GPU is visible).
    """

    model_name: str
    model: object = None
    tokenizer: object = None
    batch_size: int = 32
    max_length: int = 256
    device: str | None = None
    dtype: str | None = None
    entailment: int | str | None = None
    trust_remote_code: bool = False
    symmetric: bool = False
    group_rows: int | None = None
    _ent: int = field(default=-1, repr=False)

    def __post_init__(self):
        if self.model is None or self.tokenizer is None:
            self.model, self.tokenizer = load_nli(
                self.model_name, device=self.device, dtype=self.dtype, trust_remote_code=self.trust_remote_code
            )
        self._ent = entailment_index(self.model.config.id2label, self.entailment)
        self.model.eval()

    @classmethod
    def from_spec(cls, spec: str, **kw) -> "NLICrossEncoder":
        """The scorer of an ``nli:NAME[#entailment=...]`` spec."""
        name, opts = parse_nli_spec(spec)
        return cls(name, entailment=opts.get("entailment"), **kw)

    @property
    def entailment_label(self) -> int:
        """Index of the label read as entailment."""
        return self._ent

    @property
    def name(self) -> str:
        suffix = f"#entailment={self.entailment}" if self.entailment not in (None, "") else ""
        return f"nli:{self.model_name}{suffix}"

    @property
    def rows_per_group(self) -> int:
        """Premises per group (:data:`GROUP_ROWS` unless set on the scorer)."""
        rows = int(self.group_rows or GROUP_ROWS)
        if rows < 1:
            raise ValueError(f"group_rows must be at least 1, got {rows}")
        return rows

    @property
    def identity(self) -> str:
        """Name plus hub revision (or a digest of a local folder's weights), length limit, the
        batching (rows per group, pairs per batch: a probability's last bits depend on its
        batch's padding) and, when not float32, the precision: what the cached probabilities
        depend on. The entailment label is not part of it: the cache keeps every label's
        probability."""
        rev = getattr(self.model.config, "_commit_hash", None) or ""
        if os.path.isdir(self.model_name):
            rev = weights_digest(self.model_name)
        dt = str(getattr(self.model, "dtype", "float32")).removeprefix("torch.")
        return (
            f"nli:{self.model_name}@{rev}:max_length={self.max_length}"
            f":groups={self.rows_per_group}x{self.batch_size}" + ("" if dt == "float32" else f":{dt}")
        )

    def pair_probabilities(
        self, premises: Sequence[str], hypotheses: Sequence[str], *, progress: bool = True
    ) -> np.ndarray:
        """Softmax over the labels for each (premise, hypothesis) pair, in input order: (n, C)."""
        import torch  # optional heavy dependency, loaded only when a model scores

        premises, hypotheses = list(premises), list(hypotheses)
        if len(premises) != len(hypotheses):
            raise ValueError("premises and hypotheses differ in length")
        order = np.argsort([-(len(a) + len(b)) for a, b in zip(premises, hypotheses)], kind="stable")
        out = np.empty((len(order), int(self.model.config.num_labels)))
        bar = progress_bar(total=len(order), show=progress, desc=f"NLI pairs ({self.model_name})", unit="pair")
        with torch.inference_mode():
            for s in range(0, len(order), self.batch_size):
                idx = order[s : s + self.batch_size]
                enc = self.tokenizer(
                    [premises[k] for k in idx],
                    [hypotheses[k] for k in idx],
                    padding=True,
                    truncation=True,
                    max_length=self.max_length,
                    return_tensors="pt",
                )
                enc = {k: v.to(self.model.device) for k, v in enc.items()}
                logits = self.model(**enc).logits.float()
                out[idx] = torch.softmax(logits, dim=-1).cpu().numpy()
                bar.update(len(idx))
        bar.close()
        return out

    def score_pairs(self, premises: Sequence[str], hypotheses: Sequence[str], *, progress: bool = True) -> np.ndarray:
        """Entailment probability for each (premise, hypothesis) pair, in input order: (n,)."""
        return self.pair_probabilities(premises, hypotheses, progress=progress)[:, self._ent]

    def rows_probabilities(self, uniq: Sequence[str], r0: int, r1: int, *, progress: bool = True) -> np.ndarray:
        """P (r1 - r0, n, C) for premises ``uniq[r0:r1]`` against every hypothesis of ``uniq``,
        one group of :attr:`rows_per_group` rows at a time. ``r0:r1`` must be whole groups (the
        last may end at ``n``): then the block has the bits of the same rows of
        :meth:`probabilities`."""
        uniq, rows, n = list(uniq), self.rows_per_group, len(uniq)
        if not 0 <= r0 <= r1 <= n or r0 % rows or (r1 % rows and r1 != n):
            raise ValueError(f"rows {r0}:{r1} of {n} are not whole groups of {rows} rows")
        out = np.empty((r1 - r0, n, int(self.model.config.num_labels)))
        bar = progress_bar(total=(r1 - r0) * n, show=progress, desc=f"NLI pairs ({self.model_name})", unit="pair")
        for g0 in range(r0, r1, rows):
            g1 = min(r1, g0 + rows)
            I, J = np.divmod(np.arange((g1 - g0) * n), n)
            P = self.pair_probabilities([uniq[g0 + i] for i in I], [uniq[j] for j in J], progress=False)
            out[g0 - r0 : g1 - r0] = P.reshape(g1 - g0, n, -1)
            bar.update((g1 - g0) * n)
        bar.close()
        return out

    def probabilities(self, texts: Sequence[str], *, progress: bool = True) -> np.ndarray:
        """P (N, N, C): the label probabilities of every ordered pair (premise = row)."""
        uniq, inv = unique_texts(validate_texts(texts))
        P = self.rows_probabilities(uniq, 0, len(uniq), progress=progress)
        return P[np.ix_(inv, inv)]

    def split(self, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(R, predicted) from P (N, N, C): R the entailment probability, ``predicted`` True where
        the model's most probable label is the entailment label (ties go to the lowest index)."""
        P = np.asarray(P, dtype=float)
        return P[..., self._ent], P.argmax(axis=-1) == self._ent

    def score(self, texts: Sequence[str], *, progress: bool = True) -> np.ndarray:
        """R (N, N), the entailment probability of every ordered pair."""
        return self.split(self.probabilities(texts, progress=progress))[0]
