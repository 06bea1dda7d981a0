"""Entailment scorers R(i, j) in [0, 1] over all N^2 ordered pairs of a sentence pool.

* :class:`LexicalCoverage` - offline, asymmetric: share of the hypothesis's content words
  that the premise contains.
* :class:`EmbeddingCosine` - any panel encoder through ``compsem.embed``; symmetric, so only
  the relatedness space exists.
* :class:`NLICrossEncoder` - a Hugging Face sequence-classification NLI model; R is the
  softmax probability of the label named "entailment" in ``config.id2label``.
* :class:`LLMChoice` - a generator answers the four-option question for every pair.

:func:`score_matrix` caches matrices on disk as ``.npy`` + ``.json`` (no pickle), keyed by the
scorer's identity and the pool checksum.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from compsem.errors import DataError
from compsem.measures import cosine_matrix
from compsem.paths import cache_dir as cache_root

# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _unique(texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """Unique texts in first-seen order and the inverse index (texts[k] == uniq[inv[k]])."""
    pos: dict[str, int] = {}
    inv = np.array([pos.setdefault(t, len(pos)) for t in texts], dtype=int)
    return list(pos), inv


def _check_texts(texts: Sequence[str]) -> list[str]:
    texts = list(texts)
    if not texts:
        raise ValueError("no texts to score")
    for k, t in enumerate(texts):
        if not isinstance(t, str) or not t.strip():
            raise ValueError(f"text {k} is empty; every sentence needs some text")
    return texts


# ---------------------------------------------------------------------------------------------
# lexical coverage
# ---------------------------------------------------------------------------------------------
#: function words dropped before counting coverage. Negations (not, no, never, nothing, nobody,
#: none) are deliberately *kept* as content words: they change what follows.
STOP_WORDS = frozenset("""
a an the this that these those some any each every all both either neither another such
i me my mine we us our ours you your yours he him his she her hers it its they them their theirs
one ones who whom whose which what where when while why how there here then than so too very
and or but nor if because since as though although until unless whether also just only even
of to in on at by for from with without into onto over under about above below after before
during through between among against across along around behind beside besides near off out up
down upon within per via
be am is are was were been being have has had having do does did doing done
will would shall should can could may might must ought
not_a_word
""".split())
NEGATIONS = frozenset({"not", "no", "never", "nothing", "nobody", "none"})
_TOKEN = re.compile(r"[a-z0-9]+(?:['\u2019][a-z]+)?")


def stem(word: str) -> str:
    """A deliberately crude suffix stripper (documented, deterministic):
    possessive 's; -ies -> -y; -es after s/x/z/ch/sh; plural -s (not -ss); -ing; -ed."""
    w = re.sub(r"['\u2019]s$", "", word)
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith("es") and re.search(r"(s|x|z|ch|sh)es$", w):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    if len(w) > 5 and w.endswith("ing"):
        return w[:-3]
    if len(w) > 4 and w.endswith("ed"):
        return w[:-2]
    return w


def content_words(text: str) -> frozenset[str]:
    """Lower-case, split into letter/digit runs (keeping one apostrophe suffix), expand
    "n't" to "not", drop :data:`STOP_WORDS`, stem with :func:`stem`."""
    out = set()
    for tok in _TOKEN.findall(text.lower()):
        if tok.endswith(("n't", "n\u2019t")):
            out.add("not")
            continue
        if tok in STOP_WORDS:
            continue
        out.add(tok if tok in NEGATIONS else stem(tok))
    return frozenset(out)


@dataclass
class LexicalCoverage:
    """R(i, j) = |C(s_i) & C(s_j)| / |C(s_j)|: the share of the hypothesis's content words
    covered by the premise. Asymmetric; a hypothesis without content words gives NaN (counted
    and warned)."""

    symmetric: bool = False
    identity: str = "lexical-coverage-v1"
    name: str = "lexical"

    def score(self, texts: Sequence[str], *, progress: bool = True) -> np.ndarray:
        texts = _check_texts(texts)
        uniq, inv = _unique(texts)
        sets = [content_words(t) for t in uniq]
        vocab = {w: k for k, w in enumerate(sorted(set().union(*sets)))}
        B = np.zeros((len(uniq), max(len(vocab), 1)))
        for r, s in enumerate(sets):
            B[r, [vocab[w] for w in s]] = 1.0
        overlap = B @ B.T                          # |C_i & C_j|
        size = B.sum(axis=1)                       # |C_j|
        n_empty = int((size == 0).sum())
        if n_empty:
            warnings.warn(f"{n_empty} sentence(s) have no content words: their column is NaN",
                          RuntimeWarning, stacklevel=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            R = overlap / np.where(size == 0, np.nan, size)[None, :]
        return R[np.ix_(inv, inv)]


# ---------------------------------------------------------------------------------------------
# embedding cosine
# ---------------------------------------------------------------------------------------------
@dataclass
class EmbeddingCosine:
    """R(i, j) = max(0, cos(e_i, e_j)) for a ``compsem`` encoder spec. Symmetric. Negative
    cosines are clipped to 0 (unrelated) so that R stays a score in [0, 1]."""

    model: str
    symmetric: bool = True
    clip: bool = True

    @property
    def name(self) -> str:
        return self.model

    @property
    def identity(self) -> str:
        from compsem import get_encoder
        return f"cosine:{get_encoder(self.model).identity}:clip={self.clip}"

    def score(self, texts: Sequence[str], *, progress: bool = True) -> np.ndarray:
        from compsem import embed  # the foundation: caches and deduplicates

        texts = _check_texts(texts)
        uniq, inv = _unique(texts)
        X = np.asarray(embed(uniq, self.model), dtype=float)
        norms = np.linalg.norm(X, axis=1)
        bad = ~np.isfinite(norms) | (norms == 0)
        if bad.any():
            warnings.warn(f"{int(bad.sum())} sentence(s) have no usable {self.model} embedding: "
                          "their rows and columns are NaN", RuntimeWarning, stacklevel=2)
        R = cosine_matrix(X, warn=False)          # NaN rows/columns for those sentences
        if self.clip:
            R = np.clip(R, 0.0, 1.0)
        return R[np.ix_(inv, inv)]


# ---------------------------------------------------------------------------------------------
# NLI cross-encoder
# ---------------------------------------------------------------------------------------------
class MissingEntailmentLabel(DataError):
    """The classification model's ``config.id2label`` has no entailment label."""


def entailment_index(id2label: dict) -> int:
    """Index of the label called "entailment" (case-insensitive; "entail"/"entailed" accepted)
    in a ``config.id2label`` mapping. Raises :class:`MissingEntailmentLabel` otherwise."""
    hits = [int(k) for k, v in id2label.items() if str(v).strip().lower() in ("entailment", "entail", "entailed")]
    if len(hits) != 1:
        labels = {int(k): v for k, v in id2label.items()}
        why = "no" if not hits else "more than one"
        raise MissingEntailmentLabel(
            f"the model has {why} label called 'entailment' in config.id2label = {labels}; "
            "an NLI scorer needs a sequence-classification model fine-tuned for NLI "
            "(e.g. cross-encoder/nli-deberta-v3-base)")
    return hits[0]


@dataclass
class NLICrossEncoder:
    """R(i, j) = P(entailment | premise s_i, hypothesis s_j) from a sequence-classification
    model. All ordered pairs of the unique texts (identical pairs included) are scored in
    batches sorted by length, with a tqdm progress bar."""

    model_name: str
    model: object = None
    tokenizer: object = None
    batch_size: int = 32
    max_length: int = 256
    device: str | None = None       # e.g. "cuda"; None keeps the model where it was loaded (CPU)
    symmetric: bool = False
    _ent: int = field(default=-1, repr=False)

    def __post_init__(self):
        if self.model is None or self.tokenizer is None:
            self.model, self.tokenizer = load_nli(self.model_name)
        self._ent = entailment_index(self.model.config.id2label)
        self.model.eval()
        if self.device is not None:
            self.model.to(self.device)

    @property
    def name(self) -> str:
        return f"nli:{self.model_name}"

    @property
    def identity(self) -> str:
        """Name plus hub revision, or a digest of the weight files for a local folder."""
        rev = getattr(self.model.config, "_commit_hash", None) or ""
        if os.path.isdir(self.model_name):
            from compsem.encoders import weights_digest
            rev = weights_digest(self.model_name)
        return f"nli:{self.model_name}@{rev}:max_length={self.max_length}"

    def score_pairs(self, premises: Sequence[str], hypotheses: Sequence[str], *, progress: bool = True) -> np.ndarray:
        """Entailment probability for each (premise, hypothesis) pair, in input order."""
        import torch
        from tqdm import tqdm

        premises, hypotheses = list(premises), list(hypotheses)
        if len(premises) != len(hypotheses):
            raise ValueError("premises and hypotheses differ in length")
        order = np.argsort([-(len(a) + len(b)) for a, b in zip(premises, hypotheses)], kind="stable")
        out = np.empty(len(order))
        bar = tqdm(total=len(order), desc=f"NLI pairs ({self.model_name})", unit="pair", disable=not progress)
        with torch.inference_mode():
            for s in range(0, len(order), self.batch_size):
                idx = order[s:s + self.batch_size]
                enc = self.tokenizer([premises[k] for k in idx], [hypotheses[k] for k in idx], padding=True,
                                     truncation=True, max_length=self.max_length, return_tensors="pt")
                enc = {k: v.to(self.model.device) for k, v in enc.items()}
                logits = self.model(**enc).logits.float()
                out[idx] = torch.softmax(logits, dim=-1)[:, self._ent].cpu().numpy()
                bar.update(len(idx))
        bar.close()
        return out

    def score(self, texts: Sequence[str], *, progress: bool = True) -> np.ndarray:
        texts = _check_texts(texts)
        uniq, inv = _unique(texts)
        n = len(uniq)
        I, J = np.divmod(np.arange(n * n), n)
        p = self.score_pairs([uniq[i] for i in I], [uniq[j] for j in J], progress=progress)
        return p.reshape(n, n)[np.ix_(inv, inv)]


def load_nli(name: str):
    """(model, tokenizer) for a Hugging Face NLI model name or local path."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    try:
        tok = AutoTokenizer.from_pretrained(name)
        model = AutoModelForSequenceClassification.from_pretrained(name)
    except OSError as exc:
        raise _hub_error(name, exc) from exc
    return model, tok


def _hub_error(name: str, exc: Exception) -> Exception:
    try:
        from compsem.errors import HubUnavailableError
        return HubUnavailableError(name, exc, offline_specs=("lexical", "the panel encoders"))
    except ImportError:  # pragma: no cover
        return OSError(f"cannot load {name!r} offline ({exc}); use 'lexical' or a panel encoder")


# ---------------------------------------------------------------------------------------------
# LLM multiple-choice harness
# ---------------------------------------------------------------------------------------------
#: the four answer options (letter -> (wording, score)), the scale of the paper's Section 2.2
OPTIONS = {
    "A": ("it cannot be inferred", 0.0),
    "B": ("it can be inferred, but only with low probability", 0.3),
    "C": ("it can be inferred with high probability", 0.7),
    "D": ("it can be inferred", 1.0),
}


def choice_prompt(premise: str, hypothesis: str) -> str:
    """The project's wording of the four-option question for one ordered pair."""
    opts = "\n".join(f"{k}. {v[0]}" for k, v in OPTIONS.items())
    return ("Read two sentences and decide whether the second follows from the first.\n"
            f"First sentence: {premise}\nSecond sentence: {hypothesis}\n"
            f"Options:\n{opts}\nAnswer with a single letter (A, B, C or D).\nAnswer:")


_LETTER = re.compile(r"\b([ABCD])\b")


def parse_choice(answer: str) -> float:
    """Score of the first stand-alone option letter in a generated answer; NaN if none."""
    m = _LETTER.search(answer or "")
    return OPTIONS[m.group(1)][1] if m else float("nan")


@dataclass
class LLMChoice:
    """Ask ``generator`` (a callable: list of prompts -> list of answers) the four-option
    question for every ordered pair. Unparseable answers become NaN and are counted."""

    generator: Callable[[list[str]], list[str]]
    model_name: str = "generator"
    batch_size: int = 16
    symmetric: bool = False

    @property
    def name(self) -> str:
        return f"llm:{self.model_name}"

    @property
    def identity(self) -> str:
        h = hashlib.sha256(choice_prompt("{p}", "{h}").encode()).hexdigest()[:8]
        return f"llm:{self.model_name}:prompt={h}"

    def score(self, texts: Sequence[str], *, progress: bool = True) -> np.ndarray:
        from tqdm import tqdm

        texts = _check_texts(texts)
        uniq, inv = _unique(texts)
        n = len(uniq)
        I, J = np.divmod(np.arange(n * n), n)
        prompts = [choice_prompt(uniq[i], uniq[j]) for i, j in zip(I, J)]
        answers: list[str] = []
        for s in tqdm(range(0, len(prompts), self.batch_size), desc=f"LLM pairs ({self.model_name})",
                      disable=not progress):
            batch = prompts[s:s + self.batch_size]
            got = list(self.generator(batch))
            if len(got) != len(batch):
                raise ValueError(f"generator returned {len(got)} answers for {len(batch)} prompts")
            answers.extend(got)
        R = np.array([parse_choice(a) for a in answers]).reshape(n, n)
        n_bad = int(np.isnan(R).sum())
        if n_bad:
            warnings.warn(f"{n_bad} of {R.size} answers named no option A-D: NaN", RuntimeWarning, stacklevel=2)
        return R[np.ix_(inv, inv)]


def hf_generator(name: str, *, max_new_tokens: int = 4) -> Callable[[list[str]], list[str]]:
    """A greedy text generator from a Hugging Face causal LM (for ``llm:<name>`` specs)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tok = AutoTokenizer.from_pretrained(name)
        model = AutoModelForCausalLM.from_pretrained(name).eval()
    except OSError as exc:
        raise _hub_error(name, exc) from exc
    tok.padding_side = "left"
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token

    def generate(prompts: list[str]) -> list[str]:
        enc = tok(prompts, return_tensors="pt", padding=True)
        with torch.inference_mode():
            out = model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=tok.pad_token_id)
        return tok.batch_decode(out[:, enc["input_ids"].shape[1]:], skip_special_tokens=True)

    return generate


# ---------------------------------------------------------------------------------------------
# specs, cache
# ---------------------------------------------------------------------------------------------
def get_scorer(spec):
    """A scorer from a spec: ``"lexical"``, ``"nli:<hf name or path>"``, ``"llm:<hf name>"``,
    ``"emb:<encoder>"`` or a bare encoder spec of the panel (``"sbert-mini"``, ...).
    Scorer objects pass through unchanged."""
    if not isinstance(spec, str):
        return spec
    if spec == "lexical":
        return LexicalCoverage()
    if spec.startswith("nli:"):
        return NLICrossEncoder(spec[4:])
    if spec.startswith("llm:"):
        return LLMChoice(hf_generator(spec[4:]), model_name=spec[4:])
    model = spec[4:] if spec.startswith("emb:") else spec
    from compsem import get_encoder
    from compsem.errors import UnknownModelError
    try:
        get_encoder(model)
    except UnknownModelError as exc:  # name the scorer specs too
        raise UnknownModelError(spec, ["lexical", "nli:<HF NLI model or path>", "llm:<HF causal LM or path>",
                                       *exc.available]) from None
    return EmbeddingCosine(model)


def expand_scorers(specs) -> list[str]:
    """Expand a scorer list: ``"panel"`` (alone or inside a list) becomes the panel encoders."""
    if isinstance(specs, str):
        specs = [specs]
    out: list[str] = []
    for s in specs:
        if s == "panel":
            from compsem import resolve_models
            out.extend(resolve_models("panel"))
        else:
            out.append(s)
    return list(dict.fromkeys(out))


def _cache_paths(identity: str, checksum: str, cache_dir: Path) -> tuple[Path, Path]:
    key = hashlib.sha256(f"{identity}|{checksum}".encode()).hexdigest()[:24]
    return cache_dir / f"{key}.npy", cache_dir / f"{key}.json"


def score_matrix(scorer, texts: Sequence[str], *, cache: bool = True, cache_dir: str | Path | None = None,
                 progress: bool = True) -> np.ndarray:
    """R (N, N) for ``texts`` under ``scorer`` (a spec or scorer object), cached on disk.

    The cache stores ``<key>.npy`` (float64) and ``<key>.json`` (scorer identity, text checksum,
    N, seconds it took); the key hashes the scorer identity and the checksum of the texts.
    """
    scorer = get_scorer(scorer)
    texts = _check_texts(texts)
    checksum = hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()[:16]
    cache_dir = Path(cache_dir) if cache_dir is not None else cache_root("ssm_scores")
    npy, meta = _cache_paths(scorer.identity, checksum, cache_dir)
    if cache and npy.exists() and meta.exists():
        try:
            info = json.loads(meta.read_text())
        except (json.JSONDecodeError, OSError):  # a half-written entry: recompute
            info = {}
        if info.get("identity") == scorer.identity and info.get("checksum") == checksum:
            R = np.load(npy, allow_pickle=False)
            if R.shape == (len(texts), len(texts)):
                return R
    t0 = time.perf_counter()
    R = np.asarray(scorer.score(texts, progress=progress), dtype=float)
    elapsed = time.perf_counter() - t0
    if cache:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = npy.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, R, allow_pickle=False)
        os.replace(tmp, npy)
        tmp_meta = meta.with_suffix(f".{os.getpid()}.tmp")
        tmp_meta.write_text(json.dumps({"identity": scorer.identity, "checksum": checksum, "n": len(texts),
                                        "symmetric": bool(scorer.symmetric), "seconds": round(elapsed, 3),
                                        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, indent=1))
        os.replace(tmp_meta, meta)
    return R
