"""Finding 2: the API key never follows a redirect to another host.

Two servers on 127.0.0.1 (two ports: two origins). The first answers every POST with a redirect
to the second, which records what it received and answers with valid JSON: under the old client
(urllib's default redirect handling) the key and the request reached the second server.
"""

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from compsem.errors import WebAPIError
from compsem.webapi import post_json


@contextmanager
def server(answer):
    """A server whose handler calls ``answer(handler, method)``; yields (base URL, requests seen)."""
    seen = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _any(self, method):
            n = int(self.headers.get("Content-Length") or 0)
            seen.append(
                {
                    "method": method,
                    "path": self.path,
                    "auth": self.headers.get("Authorization"),
                    "body": self.rfile.read(n),
                }
            )
            answer(self, method)

        def do_POST(self):
            self._any("POST")

        def do_GET(self):
            self._any("GET")

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}", seen
    finally:
        srv.shutdown()
        srv.server_close()


def _json(handler, payload):
    raw = json.dumps(payload).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(raw)))
    handler.end_headers()
    handler.wfile.write(raw)


def _redirect(status, location):
    def answer(handler, method):
        handler.send_response(status)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return answer


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirect_to_another_host_is_refused_and_the_key_stays(status):
    with server(lambda h, m: _json(h, {"data": "from the other host"})) as (other, seen_other):
        target = f"{other}/v1/embeddings"
        with server(_redirect(status, target)) as (first, seen_first):
            url = f"{first}/v1/embeddings"
            with pytest.raises(WebAPIError) as err:
                post_json(url, {"input": ["a"]}, api_key="sk-secret", retries=0, sleep=lambda s: None)
    msg = str(err.value)
    assert url in msg and target in msg and "refused" in msg
    assert err.value.status == status
    assert seen_first[0]["auth"] == "Bearer sk-secret"
    assert seen_other == []  # nothing, key or not, reached the second host


def test_same_host_307_308_are_followed_with_method_body_and_key():
    def answer(handler, method):
        if handler.path == "/old":
            return _redirect(307, "/new")(handler, method)
        if handler.path == "/new":
            return _redirect(308, "/v1/final")(handler, method)
        return _json(handler, {"ok": True})

    with server(answer) as (base, seen):
        assert post_json(f"{base}/old", {"x": 1}, api_key="k", retries=0) == {"ok": True}
    assert [(r["method"], r["path"], r["auth"], json.loads(r["body"])) for r in seen] == [
        ("POST", "/old", "Bearer k", {"x": 1}),
        ("POST", "/new", "Bearer k", {"x": 1}),
        ("POST", "/v1/final", "Bearer k", {"x": 1}),
    ]


@pytest.mark.parametrize("status", [301, 302, 303])
def test_same_host_redirect_that_would_drop_the_body_is_refused(status):
    with server(_redirect(status, "/elsewhere")) as (base, seen):
        with pytest.raises(WebAPIError, match=rf"{base}/a redirected \(HTTP {status}\) to {base}/elsewhere"):
            post_json(f"{base}/a", {}, api_key="k", retries=0)
    assert [r["path"] for r in seen] == ["/a"]


def test_redirect_loop_stops():
    with server(_redirect(307, "/a")) as (base, seen):
        with pytest.raises(WebAPIError, match="more than 5 redirects"):
            post_json(f"{base}/a", {}, retries=0)
    assert len(seen) == 6
