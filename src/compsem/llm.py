"""Text generators behind one interface, for every study that asks a language model to write.

A generator maps a list of prompts to a list of answers::

    gen = make_generator("gen:hf:google/flan-t5-small", max_new_tokens=20)
    gen(["Rate the similarity from 1 to 5: ..."])          # -> ["4"]

A prompt is either a plain string (sent as one user turn) or a list of chat messages
(``[{"role": "system", "content": ...}, {"role": "user", "content": ...}]``).

Specs
-----
========================  ===================================================================
spec                      what
========================  ===================================================================
``gen:hf:NAME``           a Hugging Face seq2seq (T5-like) or causal (GPT-like) model, hub id
                          or local folder, batched, greedy unless ``do_sample=True``
``gen:openai:NAME``       an OpenAI-compatible ``/chat/completions`` endpoint (OpenAI, vLLM,
                          llama.cpp, ...): base URL from ``$COMPSEM_OA_BASE_URL``, else
                          ``$OPENAI_BASE_URL`` (default ``https://api.openai.com/v1``), key
                          from ``$OPENAI_API_KEY``; rate-limited, retried on 429/5xx
========================  ===================================================================

Used by the set-operator pipeline (Part I fusions), the C-STS prompting harness (Part II) and
the SSM multiple-choice scorer (Part IV). No generative model ships offline: offline, a hub
name raises :class:`~compsem.errors.HubUnavailableError`; a local folder works.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, Union


from .device import resolve_device, torch_dtype
from .encoders.base import looks_like_hub_failure, quiet_transformers
from .errors import HubUnavailableError, UnknownModelError, check_trust_remote_code
from .progress import bar
from .webapi import RateLimiter, post_json
from .webapi import base_url as checked_base_url

__all__ = [
    "Generator",
    "Prompt",
    "HFGenerator",
    "OpenAIChatGenerator",
    "RateLimiter",
    "make_generator",
    "is_generator_spec",
    "GENERATOR_FORMS",
    "as_messages",
    "generator_name",
]

#: A plain prompt or a list of chat messages.
Prompt = Union[str, Sequence[dict]]

#: The spec forms :func:`make_generator` understands (listed in errors).
GENERATOR_FORMS: tuple[str, ...] = ("gen:hf:<Hugging Face name or local path>", "gen:openai:<model name>")

#: What an unreachable hub suggests instead.
_OFFLINE_HINT = (
    "a local folder with a generation model (gen:hf:/path/to/model)",
    "an OpenAI-compatible server on this machine (gen:openai:NAME with OPENAI_BASE_URL)",
)


class Generator(Protocol):
    """Anything that answers a batch of prompts; ``name`` identifies it in checkpoints and caches."""

    name: str

    def __call__(self, prompts: Sequence[Prompt]) -> list[str]: ...


def as_messages(prompt: Prompt) -> list[dict]:
    """A prompt as chat messages (a plain string becomes one user turn)."""
    if isinstance(prompt, str):
        return [{"role": "user", "content": prompt}]
    msgs = list(prompt)
    for i, m in enumerate(msgs):
        if not isinstance(m, dict) or "role" not in m or "content" not in m:
            raise TypeError(f"message {i} of a chat prompt must be a dict with 'role' and 'content', got {m!r}")
    return msgs


class HFGenerator:
    """A local or hub Hugging Face generation model, batched.

    Seq2seq models (``config.is_encoder_decoder``, e.g. Flan-T5) and causal LMs (GPT-2, LLaMA,
    Mistral, Qwen, ...) both work; only the newly generated text is returned. Causal models pad
    on the left (a missing pad token is set to EOS). Chat-message prompts go through the
    tokenizer's chat template when it has one, else ``system\\n\\nuser\\n``.

    Parameters
    ----------
    name_or_path : str
        Hub id or local folder.
    max_new_tokens : int
        Tokens generated per prompt.
    batch_size : int
        Prompts per ``generate`` call.
    do_sample, temperature : bool, float
        Greedy decoding by default; sampling at ``temperature`` when ``do_sample``.
    seed : int
        Seeds torch before each batch, so sampled answers repeat from run to run.
    device, dtype : str, optional
        See :mod:`compsem.device`.
    trust_remote_code : bool
        Only when the reader asks for it.
    """

    def __init__(
        self,
        name_or_path: str,
        *,
        max_new_tokens: int = 20,
        batch_size: int = 8,
        do_sample: bool = False,
        temperature: float = 1.0,
        seed: int = 0,
        device: str | None = None,
        dtype: str | None = None,
        trust_remote_code: bool = False,
        show_progress: bool = False,
    ):
        from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

        quiet_transformers()
        self.path = str(name_or_path)
        is_local = Path(self.path).exists()
        self.device = resolve_device(device)
        kw: dict[str, Any] = {"trust_remote_code": check_trust_remote_code(trust_remote_code, where=self.path)}
        try:
            cfg = AutoConfig.from_pretrained(self.path, **kw)
            self.seq2seq = bool(getattr(cfg, "is_encoder_decoder", False))
            self.tokenizer = AutoTokenizer.from_pretrained(self.path, **kw)
            cls = AutoModelForSeq2SeqLM if self.seq2seq else AutoModelForCausalLM
            self.model = cls.from_pretrained(self.path, dtype=torch_dtype(self.device, dtype), **kw)
        except Exception as exc:  # noqa: BLE001 - rewrapped with advice
            if is_local or not looks_like_hub_failure(exc):
                raise
            raise HubUnavailableError(f"gen:hf:{self.path}", exc, _OFFLINE_HINT) from exc
        self.model = self.model.to(self.device).eval()
        if not self.seq2seq:
            self.tokenizer.padding_side = "left"
            if self.tokenizer.pad_token is None:
                self.tokenizer.pad_token = self.tokenizer.eos_token or self.tokenizer.unk_token
        self.max_new_tokens, self.batch_size = int(max_new_tokens), int(batch_size)
        self.do_sample, self.temperature, self.seed = bool(do_sample), float(temperature), int(seed)
        self.show_progress = show_progress
        self.name = self.name_for(
            self.path, max_new_tokens=max_new_tokens, do_sample=do_sample, temperature=temperature, seed=seed
        )

    @staticmethod
    def name_for(path: str, *, max_new_tokens: int, do_sample: bool, temperature: float, seed: int) -> str:
        """The ``name`` of a generator of ``path`` with these settings (nothing loaded)."""
        mode = f"sample|T={float(temperature)}|seed={int(seed)}" if do_sample else "greedy"
        return f"gen:hf:{path}|{mode}|max_new={int(max_new_tokens)}"

    def render(self, prompt: Prompt) -> str:
        """The text the model sees for one prompt."""
        if isinstance(prompt, str):
            return prompt
        msgs = as_messages(prompt)
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
        return "\n\n".join(m["content"] for m in msgs) + "\n"

    def __call__(self, prompts: Sequence[Prompt]) -> list[str]:
        import torch

        texts = [self.render(p) for p in prompts]
        out: list[str] = []
        starts = range(0, len(texts), self.batch_size)
        for i in bar(starts, show=self.show_progress, desc=self.name.split("|")[0]):
            batch = self.tokenizer(texts[i : i + self.batch_size], return_tensors="pt", padding=True).to(self.device)
            kw: dict[str, Any] = {
                "max_new_tokens": self.max_new_tokens,
                "do_sample": self.do_sample,
                "pad_token_id": self.tokenizer.pad_token_id,
            }
            if self.do_sample:
                torch.manual_seed(self.seed + i)
                kw["temperature"] = self.temperature
            with torch.inference_mode():
                gen = self.model.generate(**batch, **kw)
            if not self.seq2seq:
                gen = gen[:, batch["input_ids"].shape[1] :]
            out.extend(self.tokenizer.batch_decode(gen, skip_special_tokens=True))
        return out


class OpenAIChatGenerator:
    """An OpenAI-compatible ``POST {base_url}/chat/completions`` endpoint, standard library only.

    One request per prompt, spaced by ``rate_limit`` requests per second.

    Parameters
    ----------
    model : str
        The model name sent to the endpoint.
    base_url : str, optional
        Default ``$OPENAI_BASE_URL``, else ``https://api.openai.com/v1``.
    api_key : str, optional
        Default ``$OPENAI_API_KEY``; may be empty for local servers.
    temperature : float
    max_tokens : int, optional
        Sent only when given.
    rate_limit : float, optional
        Requests per second at most.
    retries : int
        Retries of a request that failed for a passing reason (see :func:`compsem.webapi.post_json`).
    opener : callable, optional
        Replaces ``urllib.request.urlopen`` (tests).
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        timeout: float = 60.0,
        rate_limit: float | None = None,
        opener: Callable | None = None,
        retries: int = 5,
    ):
        self.model = model
        self.retries = int(retries)
        self.base_url = self.base_url_for(base_url)
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.temperature, self.max_tokens, self.timeout = float(temperature), max_tokens, float(timeout)
        self.limiter = RateLimiter(rate_limit)
        self._opener = opener
        self.name = self.name_for(model, base_url=self.base_url, temperature=temperature, max_tokens=max_tokens)

    @staticmethod
    def base_url_for(base_url: str | None = None) -> str:
        """``base_url``, else ``$COMPSEM_OA_BASE_URL``, else ``$OPENAI_BASE_URL``, else OpenAI's."""
        return checked_base_url(base_url)

    @staticmethod
    def name_for(model: str, *, base_url: str | None, temperature: float, max_tokens: int | None) -> str:
        """The ``name`` of a generator of ``model`` with these settings (no request sent)."""
        url = OpenAIChatGenerator.base_url_for(base_url)
        return f"gen:openai:{model}@{url}|T={float(temperature)}|max_tokens={max_tokens}"

    def request_body(self, prompt: Prompt) -> dict:
        """The JSON body of one request."""
        body: dict[str, Any] = {"model": self.model, "messages": as_messages(prompt), "temperature": self.temperature}
        if self.max_tokens is not None:
            body["max_tokens"] = int(self.max_tokens)
        return body

    def _post(self, body: dict) -> dict:
        return post_json(
            f"{self.base_url}/chat/completions",
            body,
            api_key=self.api_key,
            timeout=self.timeout,
            retries=self.retries,
            limiter=self.limiter,
            opener=self._opener,
        )

    def __call__(self, prompts: Sequence[Prompt]) -> list[str]:
        out = []
        for p in prompts:
            payload = self._post(self.request_body(p))
            try:
                text = payload["choices"][0]["message"]["content"]
            except (KeyError, IndexError, TypeError) as exc:
                raise RuntimeError(f"unexpected response from {self.base_url}: {str(payload)[:300]}") from exc
            out.append((text or "").strip())
        return out


def is_generator_spec(spec: object) -> bool:
    """True for a ``gen:`` spec string."""
    return isinstance(spec, str) and spec.startswith("gen:")


def _backend(spec: str, **options) -> tuple[type, str, dict]:
    """(generator class, model name, constructor options) of a ``gen:`` spec."""
    if not is_generator_spec(spec):
        raise UnknownModelError(repr(spec), GENERATOR_FORMS, forms=())
    from .encoders.registry import check_spec_text  # the one length check of every spec form

    spec = check_spec_text(spec)
    backend, _, name = str(spec)[4:].partition(":")
    if not name or backend not in ("hf", "openai"):
        raise UnknownModelError(str(spec), GENERATOR_FORMS, forms=())
    if backend == "hf":
        return HFGenerator, name, options
    if "max_new_tokens" in options:
        options["max_tokens"] = options.pop("max_new_tokens")
    for k in ("batch_size", "do_sample", "seed", "device", "dtype", "show_progress", "trust_remote_code"):
        options.pop(k, None)
    return OpenAIChatGenerator, name, options


def generator_name(spec: str, **options) -> str:
    """The ``name`` that ``make_generator(spec, **options)`` would carry (what checkpoints and
    caches key by), found without loading a model or sending a request."""
    cls, name, options = _backend(spec, **options)
    init = inspect.signature(cls.__init__).parameters
    settings = list(inspect.signature(cls.name_for).parameters)[1:]  # after the model's name
    return cls.name_for(name, **{k: options.get(k, init[k].default) for k in settings})


def make_generator(spec: str | Generator | Callable, **options) -> Generator:
    """A generator from a spec (see the module docstring); generator objects pass through.

    ``options`` go to the generator's constructor (``max_new_tokens``, ``batch_size``,
    ``temperature``, ``device``, ...; for ``gen:openai:`` ``max_new_tokens`` is sent as
    ``max_tokens``).

    Raises
    ------
    UnknownModelError
        The spec is not of a known form (the message lists the forms).
    HubUnavailableError
        A hub model that cannot be fetched offline.
    """
    if callable(spec) and not isinstance(spec, str):
        return spec  # type: ignore[return-value]
    cls, name, options = _backend(spec, **options)
    return cls(name, **options)
