"""The one place where the study's ``COMPSEM_*`` environment variables are read and checked.

Each variable is declared once in :data:`SETTINGS` with its form and bounds, and read with
:func:`setting`; a value outside them is a :class:`SettingError` that names the variable, the
value (shortened) and the accepted form, instead of a raw ``ValueError`` deep in a run. The
model-spec grammar has its own single check, :func:`compsem.encoders.check_spec`, which uses
:func:`check_text` and :func:`whole_number` from here for its lengths and bounds.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .errors import SettingError

__all__ = [
    "SETTINGS",
    "Setting",
    "setting",
    "check_text",
    "whole_number",
    "user_path",
    "MAX_SPEC_CHARS",
    "MAX_PATH_CHARS",
    "redact_url",
    "scrub",
    "environment",
]


@contextmanager
def environment(values: Mapping[str, str | None]) -> Iterator[None]:
    """Set (a string) or remove (``None``) environment variables for the ``with`` block, and put
    back what was there before when it ends, also on an error (a kernel started inside inherits
    them; the caller's process is left as it was)."""

    def apply(mapping):
        for k, v in mapping.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    saved = {k: os.environ.get(k) for k in values}
    try:
        apply(values)
        yield
    finally:
        apply(saved)


#: The longest model spec accepted (a local path and its options fit easily).
MAX_SPEC_CHARS = 1024
#: The longest path a variable may hold (Linux's PATH_MAX).
MAX_PATH_CHARS = 4096


@dataclass(frozen=True)
class Setting:
    """One variable: ``kind`` is ``"number"``, ``"integer"``, ``"folder"``, ``"file"``, ``"url"``,
    ``"flag"`` or ``"choice"`` (one of ``choices``); numbers have bounds; ``default`` is returned
    when the variable is unset or empty."""

    kind: str
    default: object = None
    low: float | None = None
    high: float | None = None
    what: str = ""
    choices: tuple[str, ...] = ()


SETTINGS: dict[str, Setting] = {
    "COMPSEM_ROOT": Setting("folder", what="the repository root"),
    "COMPSEM_DATA": Setting("folder", what="the data folder"),
    "COMPSEM_CACHE": Setting("folder", what="the cache folder"),
    "COMPSEM_RESULTS": Setting("folder", what="the results folder"),
    "COMPSEM_CACHE_OVERLAY": Setting("folder", what="the private folder for a read-only cache's new entries"),
    "COMPSEM_VECTORS": Setting("folder", what="the folder of word-vector files"),
    "COMPSEM_MODELS_EXTRA": Setting("folder", what="the folder of the optional models"),
    "COMPSEM_EMBED_LOG": Setting("file", what="a file that gets one JSON line per embed() call"),
    "COMPSEM_CACHE_TIMEOUT": Setting("number", 300.0, 0, 86400, "seconds to wait for a cache lock"),
    "COMPSEM_HUB_TIMEOUT": Setting("number", 3.0, 0, 600, "seconds to wait for the hub's answer"),
    "COMPSEM_OA_BATCH": Setting("integer", 128, 1, 4096, "texts per embeddings request"),
    "COMPSEM_OA_RATE": Setting("number", 5.0, 0, 10000, "requests per second (0: no limit)"),
    "COMPSEM_OA_BASE_URL": Setting("url", what="the base URL of an OpenAI-compatible server"),
    "COMPSEM_OA_ALLOW_HTTP": Setting("flag", False, what="1 to allow plain http to a host that is not loopback"),
    "COMPSEM_PRECISION": Setting(
        "choice", "auto", what='what precision="auto" means for a whole build', choices=("auto", "fp32", "bf16")
    ),
    "COMPSEM_ENCODE_BACKEND": Setting(
        "choice",
        "auto",
        what="the encode backend of sbert-mini and sbert-l",
        choices=("auto", "torch", "onnx", "onnx-int8"),
    ),
    "COMPSEM_DEBUG": Setting("flag", False, what="1 to print a full traceback with an error"),
}

_FLAGS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def _accepted(name: str, s: Setting) -> str:
    if s.kind in ("number", "integer"):
        kind = "a whole number" if s.kind == "integer" else "a number"
        return f"{kind} from {s.low:g} to {s.high:g} ({s.what})"
    if s.kind == "flag":
        return f"1 or 0 ({s.what})"
    if s.kind == "url":
        return f"an http(s) URL ({s.what})"
    if s.kind == "choice":
        return f"one of {', '.join(s.choices)} ({s.what})"
    return f"a path of at most {MAX_PATH_CHARS} characters to {s.what}" + (
        ", a folder, not a file" if s.kind == "folder" else ""
    )


def redact_url(url: str) -> str:
    """``url`` with any user, password, query and fragment replaced by ``***`` (for messages)."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "<an unreadable URL>"
    netloc = ("***@" if "@" in parts.netloc else "") + (f"[{host}]" if ":" in host else host) + port
    return urlunsplit((parts.scheme, netloc, parts.path, "***" if parts.query else "", "***" if parts.fragment else ""))


_USERINFO = re.compile(r"(?<=://)[^/@\s]*@")
_QUERY_VALUE = re.compile(r"(?<=[?&])([^=&#|\s]*)(=[^&#|\s]*)?")
_QUERY = re.compile(r"\?[^#|\s]*")


def scrub(text: str) -> str:
    """``text`` with anything that may be a credential replaced by ``***``: ``user:password@`` in
    a URL, and the value of every query parameter (``?access_token=***&X-Amz-Signature=***``;
    which names hold secrets is not a list anyone can keep): what a cache's identity column and
    ``cache info`` show."""
    text = _USERINFO.sub("***", text)

    def mask(v: re.Match) -> str:  # key=*** ; a bare ?TOKEN is all value
        return f"{v.group(1)}=***" if v.group(2) is not None else ("***" if v.group(1) else "")

    return _QUERY.sub(lambda m: _QUERY_VALUE.sub(mask, m.group(0)), text)


def _bad(name: str, raw: str, why: str = "") -> SettingError:
    if SETTINGS[name].kind == "url":
        raw = redact_url(raw)
    shown = raw if len(raw) <= 80 else raw[:77] + "..."
    s = SETTINGS[name]
    return SettingError(f"{name}={shown!r} is not valid{f' ({why})' if why else ''}: it takes {_accepted(name, s)}")


def check_text(value: str, *, what: str, limit: int, form: str) -> str:
    """``value`` when it is at most ``limit`` characters without a NUL or a line break; else a
    :class:`SettingError` naming ``what`` and the accepted ``form``."""
    shown = value if len(value) <= 80 else value[:77] + "..."
    if len(value) > limit:
        raise SettingError(
            f"{what} {shown!r} is {len(value):,} characters long; at most {limit:,} are accepted ({form})"
        )
    if any(c in value for c in "\x00\n\r"):
        raise SettingError(f"{what} {shown!r} holds a NUL or line-break character ({form})")
    if not _encodable(value):
        raise SettingError(f"{what} {ascii(shown)} holds text that is not valid Unicode (a lone surrogate) ({form})")
    return value


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def user_path(text: str, *, what: str) -> Path:
    """``Path(text)`` with a leading ``~`` or ``~user`` expanded; a :class:`SettingError` naming
    ``what`` when the text is not valid Unicode or names a home that does not exist (Python's
    own ``RuntimeError``/``UnicodeEncodeError`` never escape)."""
    if not _encodable(text) or "\x00" in text:
        raise SettingError(f"{what} {ascii(text[:80])} holds a lone surrogate or a NUL: give a path in UTF-8")
    try:
        return Path(text).expanduser()
    except RuntimeError:  # "~nosuchuser/..." or no HOME at all
        user = text[1:].split("/", 1)[0]
        raise SettingError(
            f"{what} {text[:80]!r} starts with '~{user}', and "
            f"{'user ' + repr(user) + ' has no' if user else 'this process has no'} home folder "
            "here: give the path in full"
        ) from None


def whole_number(text: str, *, what: str, low: int, high: int, form: str) -> int:
    """``int(text)`` for a plain decimal ``text`` between ``low`` and ``high``; else a
    :class:`SettingError` naming ``what`` and ``form``."""
    t = text.strip()
    if not (t.isascii() and t.isdigit()) or len(t) > 12 or not low <= int(t) <= high:
        raise SettingError(f"{what} is not valid: {form} takes a whole number from {low:,} to {high:,}, got {text!r}")
    return int(t)


def setting(name: str, environ=None):
    """The checked value of ``name`` (see :data:`SETTINGS`), read from ``environ`` (default:
    this process's environment): its default when unset or empty, a float, an int, a ``Path``,
    a URL string, a bool or one of its choices; a :class:`SettingError` when malformed."""
    s = SETTINGS[name]
    raw = (os.environ if environ is None else environ).get(name, "")
    if not raw.strip():
        return s.default
    if len(raw) > MAX_PATH_CHARS or "\x00" in raw:
        raise _bad(name, raw, f"{len(raw):,} characters" if len(raw) > MAX_PATH_CHARS else "a NUL character")
    if s.kind in ("number", "integer"):
        try:
            value = float(raw) if s.kind == "number" else int(raw.strip())
        except ValueError:
            raise _bad(name, raw) from None
        if not math.isfinite(value) or not s.low <= value <= s.high:
            raise _bad(name, raw, "out of bounds")
        return value
    if s.kind == "flag":
        if raw.strip().lower() not in _FLAGS:
            raise _bad(name, raw)
        return _FLAGS[raw.strip().lower()]
    if s.kind == "choice":
        if raw.strip() not in s.choices:
            raise _bad(name, raw)
        return raw.strip()
    if s.kind == "url":
        if not raw.strip().lower().startswith(("http://", "https://")):
            raise _bad(name, raw)
        return raw.strip()
    try:
        path = user_path(raw, what=name)
    except SettingError:
        raise _bad(
            name,
            ascii(raw)[1:-1] if not _encodable(raw) else raw,
            "not valid Unicode" if not _encodable(raw) else "its '~' names no home folder here",
        ) from None
    if s.kind == "folder" and path.exists() and not path.is_dir():
        raise _bad(name, raw, "it is a file")
    if s.kind == "file" and path.is_dir():
        raise _bad(name, raw, "it is a folder")
    return path
