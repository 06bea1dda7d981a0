"""Property-based tests over the parsers of short outside text: model specs (encoders, Part IV's
scorers, generators), ``-p`` values and their typing, ``COMPSEM_*`` variables, and the URLs given
to ``oa:`` and ``webapi`` (see :mod:`.harness` for the property and the two profiles)."""

from __future__ import annotations

import json
import math

from hypothesis import strategies as st

from compsem.book.running.params import check_parameters, parse_value
from compsem.encoders import check_spec
from compsem.encoders.registry import resolve_models
from compsem.llm import generator_name
from compsem.settings import SETTINGS, setting
from compsem.ssm.scorers import check_scorer_spec
from compsem.webapi import check_url
from tests.compsem.fuzz.harness import fuzz, holds, shown

#: Pieces that the grammars give a meaning to, mixed into generated text.
SPEC_PARTS = [
    "bow:",
    "random:",
    "vec:",
    "oa:",
    "st:",
    "hf:",
    "gen:hf:",
    "gen:openai:",
    "nli:",
    "lexical",
    "~",
    "~v",
    "~nosuchuser/x",
    "#pool=",
    "#max_length=",
    "#entailment=",
    "#",
    "=",
    ":",
    "/",
    "..",
    "sbert-mini",
    "\ud800",
    "\x00",
    "\n",
    " ",
    "9" * 30,
    "-1",
    "0",
    "1e9",
    "bow",
]
spec_text = st.one_of(
    st.text(max_size=40), st.lists(st.one_of(st.sampled_from(SPEC_PARTS), st.text(max_size=6)), max_size=6).map("".join)
)


def _spec_names(spec: str) -> list[str]:
    return shown(spec.strip()) + ["model spec"]


@fuzz(spec_text, examples=[("~v",), ("~\ud800",), ("~nosuchuser/x",), ("bow:" + "9" * 5000,), ("random:1:",)])
def test_encoder_specs(spec):
    """An encoder spec is checked (nothing loaded) and stays what it was; or a compsem error."""
    ok, got = holds(lambda: check_spec(spec), names=_spec_names(spec))
    if ok:
        assert got == spec.strip() and check_spec(got) == got


@fuzz(spec_text, examples=[("~v",), ("nli:~v",), ("gen:hf:",), ("nli:x#entailment=9999999999999",)])
def test_scorer_specs(spec):
    """Part IV's scorer grammar: encoders, ``lexical``, ``nli:`` and ``gen:`` specs."""
    ok, got = holds(lambda: check_scorer_spec(spec), names=_spec_names(spec) + ["scorer"])
    if ok:
        assert check_scorer_spec(got) == got


@fuzz(spec_text, examples=[("gen:openai:",), ("gen:hf:~v",)])
def test_generator_specs(spec):
    """A ``gen:`` spec names a generator without loading it."""
    ok, _ = holds(lambda: resolve_models(spec, kind="generator"), names=_spec_names(spec) + ["gen:"])
    if ok and spec.strip().startswith("gen:hf:") or spec.strip().startswith("gen:openai:"):
        holds(lambda: generator_name(spec.strip()), names=_spec_names(spec))


JSONISH = [
    "true",
    "false",
    "null",
    "[",
    "]",
    "{",
    "}",
    '"',
    ",",
    ":",
    "1",
    "-",
    "e9",
    "NaN",
    "Infinity",
    "9" * 5000,
    "\\ud800",
    "[" * 40,
    "\ud800",
]
value_text = st.one_of(
    st.text(max_size=30),
    st.lists(st.sampled_from(JSONISH), max_size=12).map("".join),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c, max_size=3),
        max_leaves=8,
    ).map(lambda v: json.dumps(v, allow_nan=True)),
)
#: A chapter's defaults, one of each kind (and a typed ``None``).
DEFAULTS = {
    "flag": False,
    "count": 3,
    "rate": 0.5,
    "models": "panel",
    "specs": ["bow"],
    "data": {"a": 1},
    "anything": None,
    "typed": None,
}
TYPES = {"typed": ("string", "null")}


@fuzz(
    st.sampled_from(sorted(DEFAULTS)),
    value_text,
    examples=[("count", "9" * 5000), ("rate", "NaN"), ("models", '"\\ud800"'), ("anything", "[" * 5000)],
)
def test_parameter_values(name, text):
    """``-p NAME VALUE``: read as JSON or text, then typed by the chapter's default; an accepted
    value survives JSON (what papermill writes into the notebook) unchanged."""

    def parse():
        value = parse_value(text, name)
        check_parameters(DEFAULTS, {name: value}, notebook="t.ipynb", types=TYPES)
        return value

    ok, value = holds(parse, names=[repr(name)])
    if ok:
        assert json.loads(json.dumps(value, allow_nan=False)) == value


VARIABLE_PARTS = [
    "~",
    "~nosuchuser/x",
    "~root",
    "/",
    ".",
    "..",
    "\x00",
    "\ud800",
    " ",
    "1",
    "0",
    "-1",
    "1e309",
    "nan",
    "inf",
    "0x10",
    "1_000",
    "http://",
    "https://",
    "yes",
    "auto",
    "fp32",
    "onnx",
    "9" * 5000,
]
variable_text = st.one_of(st.text(max_size=20), st.lists(st.sampled_from(VARIABLE_PARTS), max_size=5).map("".join))


@fuzz(
    st.sampled_from(sorted(SETTINGS)),
    variable_text,
    examples=[
        ("COMPSEM_CACHE", "~nosuchuser/x"),
        ("COMPSEM_OA_BATCH", "9" * 5000),
        ("COMPSEM_ROOT", "\ud800"),
        ("COMPSEM_EMBED_LOG", "~nosuchuser"),
        ("COMPSEM_OA_RATE", "1e309"),
    ],
)
def test_settings(name, raw):
    """A ``COMPSEM_*`` variable gives a value of its kind within its bounds, or a SettingError naming it."""
    ok, value = holds(lambda: setting(name, {name: raw}), names=[name])
    if not ok:
        return
    s = SETTINGS[name]
    if not raw.strip():
        assert value == s.default
    elif s.kind in ("number", "integer"):
        assert math.isfinite(value) and s.low <= value <= s.high
    elif s.kind == "choice":
        assert value in s.choices
    elif s.kind == "flag":
        assert isinstance(value, bool)
    elif s.kind == "url":
        assert value.lower().startswith(("http://", "https://"))
    else:
        assert str(value).encode("utf-8")


URL_PARTS = [
    "http://",
    "https://",
    "HTTP://",
    "localhost",
    "127.0.0.1",
    "[::1]",
    "evil.localhost",
    "evil.com\\.localhost",
    "@",
    ":",
    "/",
    "?",
    "#",
    "%",
    "[",
    "]",
    "user:pw@",
    ".",
    "0",
    "65536",
    "\ud800",
    "\x00",
    " ",
    "-",
    "api",
]
url_text = st.one_of(st.text(max_size=30), st.lists(st.sampled_from(URL_PARTS), max_size=8).map("".join))


@fuzz(
    url_text,
    examples=[
        ("http://evil.localhost/",),
        ("http://evil.com\\.localhost/",),
        ("http://[::1/",),
        ("https://h:99999/",),
        ("http://\ud800/",),
    ],
)
def test_urls(url):
    """A URL fit to receive an API key (https, or http to this machine), or a SettingError."""
    ok, got = holds(lambda: check_url(url, what="the base URL"), names=["the base URL"])
    if ok:
        from urllib.parse import urlsplit

        parts = urlsplit(got)
        assert parts.scheme.lower() in ("http", "https") and parts.hostname
        assert not (parts.query or parts.fragment or parts.username or parts.password)
        if parts.scheme.lower() == "http":
            assert parts.hostname in ("localhost", "::1") or parts.hostname.startswith("127.")
