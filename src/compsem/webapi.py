"""Calls to web APIs (OpenAI-compatible endpoints), standard library only.

One JSON ``POST`` with retries (:func:`post_json`) and one rate limiter (:class:`RateLimiter`),
shared by the ``oa:`` embeddings encoder and the ``gen:openai:`` generator. A request that
fails for a passing reason (HTTP 429, 5xx, a dropped connection, a timeout) is retried with
exponential backoff, honouring ``Retry-After``; any other failure raises :class:`WebAPIError`
with the status and the start of the server's answer.
"""

from __future__ import annotations

import json
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from .errors import WebAPIError

__all__ = ["RateLimiter", "post_json", "WebAPIError", "RETRY_STATUS"]

#: HTTP statuses worth retrying.
RETRY_STATUS: frozenset[int] = frozenset({408, 409, 429, 500, 502, 503, 504})


class RateLimiter:
    """At most ``per_second`` calls per second (even spacing); ``None`` or 0 disables it.

    Thread-safe: several threads sharing one limiter are spaced together.
    """

    def __init__(self, per_second: float | None, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
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


def _retry_after(exc: urllib.error.HTTPError) -> float | None:
    value = exc.headers.get("Retry-After") if exc.headers else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def post_json(url: str, body: dict, *, api_key: str = "", timeout: float = 60.0, retries: int = 5,
              backoff: float = 1.0, limiter: RateLimiter | None = None, opener: Callable | None = None,
              sleep: Callable[[float], None] = time.sleep) -> Any:
    """``POST`` ``body`` as JSON to ``url`` and return the decoded JSON answer.

    Parameters
    ----------
    url : str
    body : dict
    api_key : str
        Sent as ``Authorization: Bearer ...`` when not empty.
    timeout : float
        Seconds per attempt.
    retries : int
        Further attempts after a retryable failure (HTTP 408/409/429/5xx, connection error,
        timeout); waits ``backoff * 2**k`` seconds (with jitter), or the server's
        ``Retry-After``.
    limiter : RateLimiter, optional
        Waited on before every attempt.
    opener : callable, optional
        Replaces ``urllib.request.urlopen`` (tests).

    Raises
    ------
    WebAPIError
        A non-retryable HTTP status, an answer that is not JSON, or retries exhausted.
    """
    data = json.dumps(body).encode("utf-8")
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {api_key}"} if api_key else {})}
    open_ = opener or urllib.request.urlopen
    last = ""
    for attempt in range(retries + 1):
        if limiter is not None:
            limiter.wait()
        wait = backoff * (2 ** attempt) * (0.5 + random.random())
        try:
            with open_(urllib.request.Request(url, data=data, method="POST", headers=headers), timeout=timeout) as resp:
                raw = resp.read().decode("utf-8", errors="replace")
            try:
                return json.loads(raw)
            except ValueError as exc:
                raise WebAPIError(f"{url} answered with something that is not JSON: {raw[:200]!r}") from exc
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", errors="replace")[:300] if exc.fp else ""
            last = f"HTTP {exc.code}: {detail}"
            if exc.code not in RETRY_STATUS:
                raise WebAPIError(f"{url} refused the request ({last})", status=exc.code) from exc
            after = _retry_after(exc)
            wait = wait if after is None else after
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            last = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
        if attempt < retries:
            sleep(wait)
    raise WebAPIError(f"{url} failed {retries + 1} times; last: {last}")
