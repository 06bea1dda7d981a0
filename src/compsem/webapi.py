"""Calls to web APIs (OpenAI-compatible endpoints) through httpx.

One JSON ``POST`` with retries (:func:`post_json`) and one rate limiter (:class:`RateLimiter`),
shared by the ``oa:`` embeddings encoder and the ``gen:openai:`` generator. A request that
fails for a passing reason (HTTP 429, 5xx, a dropped connection, a timeout) is retried with
exponential backoff, honouring ``Retry-After``; any other failure raises :class:`WebAPIError`
with the status and the start of the server's answer.

Redirects are never followed blindly: the request carries the API key, and a redirect to
another scheme, host or port would hand it to a server the reader did not name. Such a redirect
is refused with a :class:`WebAPIError` naming both addresses; a 307/308 to another path on the
same scheme, host and port is followed (at most five hops, same method, body and headers), and
a 301/302/303 (which would turn the ``POST`` into a ``GET`` and drop the body) is refused too.

Nor is the key sent in clear: :func:`base_url` (the one reader of ``$COMPSEM_OA_BASE_URL`` and
``$OPENAI_BASE_URL``) and :func:`check_url` (run by :func:`post_json` before any connection)
refuse plain ``http://`` to a host that is not loopback (``COMPSEM_OA_ALLOW_HTTP=1`` allows it),
and refuse a URL that carries credentials (``user:password@``, a ``?query`` such as
``?api-key=...``), naming the URL with those parts masked: nothing of them is sent, stored in a
cache identity or printed.
"""

from __future__ import annotations

import ipaddress
import json
import os
import random
import threading
import time
import urllib.request
from collections.abc import Callable
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from .errors import SettingError, WebAPIError
from .settings import redact_url, setting

__all__ = [
    "RateLimiter",
    "post_json",
    "WebAPIError",
    "RETRY_STATUS",
    "MAX_REDIRECTS",
    "check_url",
    "base_url",
    "OPENAI_DEFAULT_URL",
]

#: Where ``oa:`` and ``gen:openai:`` go when no base URL is set.
OPENAI_DEFAULT_URL = "https://api.openai.com/v1"


def _loopback(host: str) -> bool:
    """Only the literal ``localhost``, 127.0.0.0/8 and ::1: a name such as ``evil.localhost``
    is whatever a resolver makes of it, and is not trusted with a key over plain http."""
    host = host.lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(url: str, *, what: str = "the URL") -> str:
    """``url`` when it is fit to receive an API key: ``https://``, or ``http://`` to a loopback
    host (or any host with ``COMPSEM_OA_ALLOW_HTTP=1``), with no ``user:password@``, query or
    fragment; else a :class:`~compsem.errors.SettingError` naming it with those parts masked."""
    shown = redact_url(url)
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        user, password = parts.username, parts.password
        parts.port
    except ValueError:
        raise SettingError(f"{what} {shown} is not a valid URL (https://HOST[:PORT]/PATH)") from None
    if parts.scheme.lower() not in ("http", "https") or not host:
        raise SettingError(f"{what} {shown} is not an http(s) URL with a host (https://HOST[:PORT]/PATH)")
    if user is not None or password is not None or "@" in parts.netloc or parts.query or parts.fragment:
        raise SettingError(
            f"{what} {shown} carries credentials or a query (user:password@, ?api-key=...): refused, "
            "nothing was sent; give the URL without them and the key in OPENAI_API_KEY"
        )
    if parts.scheme.lower() == "http" and not _loopback(host) and not setting("COMPSEM_OA_ALLOW_HTTP"):
        raise SettingError(
            f"{what} {shown} is plain http to {host}, which is not this machine: refused before "
            "connecting, the API key would cross the network in clear; use https, or set "
            "COMPSEM_OA_ALLOW_HTTP=1 to allow it"
        )
    return url


def base_url(given: str | None = None) -> str:
    """The base URL of OpenAI-compatible endpoints: ``given``, else ``$COMPSEM_OA_BASE_URL``,
    else ``$OPENAI_BASE_URL``, else OpenAI's; checked by :func:`check_url`, without a final ``/``."""
    if given:
        where, url = "the base URL", given
    elif setting("COMPSEM_OA_BASE_URL"):
        where, url = "COMPSEM_OA_BASE_URL", setting("COMPSEM_OA_BASE_URL")
    elif os.environ.get("OPENAI_BASE_URL", "").strip():
        where, url = "OPENAI_BASE_URL", os.environ["OPENAI_BASE_URL"].strip()
    else:
        where, url = "the default URL", OPENAI_DEFAULT_URL
    return check_url(url, what=where).rstrip("/")


#: HTTP statuses worth retrying.
RETRY_STATUS: frozenset[int] = frozenset({408, 409, 429, 500, 502, 503, 504})
#: Same-origin 307/308 redirects followed per attempt.
MAX_REDIRECTS = 5


class RateLimiter:
    """At most ``per_second`` calls per second (even spacing); ``None`` or 0 disables it.

    Thread-safe: several threads sharing one limiter are spaced together.
    """

    def __init__(
        self,
        per_second: float | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if per_second is not None and per_second < 0:
            raise ValueError(f"max requests per second must be positive, got {per_second}")
        self.interval = 1.0 / per_second if per_second else 0.0
        self.clock, self.sleep = clock, sleep
        self._next: float | None = None
        self._lock = threading.Lock()

    def wait(self) -> None:
        """Sleep until the next call is allowed."""
        if not self.interval:
            return
        with self._lock:
            now = self.clock()
            if self._next is not None and now < self._next:
                self.sleep(self._next - now)
                now = self._next
            self._next = now + self.interval


def _retry_after(headers) -> float | None:
    value = headers.get("Retry-After") if headers else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme.lower(), (parts.hostname or "").lower(), port


class _Answer:
    """What one attempt got back: a status, headers, the text."""

    def __init__(self, status: int, headers, text: str, url: str):
        self.status, self.headers, self.text, self.url = status, headers, text, url


def _send_httpx(client: httpx.Client, url: str, data: bytes, headers: dict) -> _Answer:
    """POST, following only same-origin 307/308 redirects; refuse every other redirect."""
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        resp = client.post(current, content=data, headers=headers)
        if not resp.is_redirect:
            return _Answer(resp.status_code, resp.headers, resp.text, current)
        target = urljoin(current, resp.headers.get("Location", ""))
        if _origin(target) != _origin(url):
            raise WebAPIError(
                f"{url} redirected (HTTP {resp.status_code}) to {target}, another scheme, host or "
                "port: refused, the API key is not sent there. If that is the service's new address, "
                "use it as the base URL",
                status=resp.status_code,
            )
        if resp.status_code not in (307, 308):
            raise WebAPIError(
                f"{url} redirected (HTTP {resp.status_code}) to {target}, which would turn the POST "
                "into a GET without its body: refused; use the new address as the base URL",
                status=resp.status_code,
            )
        current = target
    raise WebAPIError(f"{url}: more than {MAX_REDIRECTS} redirects (last to {current})")


def _send_opener(opener: Callable, url: str, data: bytes, headers: dict, timeout: float) -> _Answer:
    """The test hook: ``opener(urllib Request, timeout)`` returns a file-like answer (status 200)."""
    with opener(urllib.request.Request(url, data=data, method="POST", headers=headers), timeout=timeout) as resp:
        return _Answer(getattr(resp, "status", 200), {}, resp.read().decode("utf-8", errors="replace"), url)


def post_json(
    url: str,
    body: dict,
    *,
    api_key: str = "",
    timeout: float = 60.0,
    retries: int = 5,
    backoff: float = 1.0,
    limiter: RateLimiter | None = None,
    opener: Callable | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Any:
    """``POST`` ``body`` as JSON to ``url`` and return the decoded JSON answer.

    Parameters
    ----------
    url : str
    body : dict
    api_key : str
        Sent as ``Authorization: Bearer ...`` when not empty, only to ``url``'s own scheme, host
        and port (see the module docstring on redirects).
    timeout : float
        Seconds per attempt.
    retries : int
        Further attempts after a retryable failure (HTTP 408/409/429/5xx, connection error,
        timeout); waits ``backoff * 2**k`` seconds (with jitter), or the server's
        ``Retry-After``.
    limiter : RateLimiter, optional
        Waited on before every attempt.
    opener : callable, optional
        Replaces the HTTP client (tests): called as ``opener(urllib.request.Request, timeout)``
        and returns a file-like answer.

    Raises
    ------
    WebAPIError
        A non-retryable HTTP status, a redirect elsewhere, an answer that is not JSON, or
        retries exhausted.
    """
    check_url(url)  # before any connection: no key in clear, no credentials in the URL
    data = json.dumps(body).encode("utf-8")
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {api_key}"} if api_key else {})}
    last = ""
    with httpx.Client(follow_redirects=False, timeout=timeout) as client:
        for attempt in range(retries + 1):
            if limiter is not None:
                limiter.wait()
            wait = backoff * (2**attempt) * (0.5 + random.random())
            try:
                ans = (
                    _send_opener(opener, url, data, headers, timeout)
                    if opener is not None
                    else _send_httpx(client, url, data, headers)
                )
            except (httpx.TransportError, TimeoutError, ConnectionError) as exc:
                last = f"{type(exc).__name__}: {exc}"
            else:
                if 200 <= ans.status < 300:
                    try:
                        return json.loads(ans.text)
                    except ValueError as exc:
                        raise WebAPIError(
                            f"{url} answered with something that is not JSON: {ans.text[:200]!r}"
                        ) from exc
                last = f"HTTP {ans.status}: {ans.text[:300]}"
                if ans.status not in RETRY_STATUS:
                    raise WebAPIError(f"{url} refused the request ({last})", status=ans.status)
                after = _retry_after(ans.headers)
                wait = wait if after is None else after
            if attempt < retries:
                sleep(wait)
    raise WebAPIError(f"{url} failed {retries + 1} times; last: {last}")
