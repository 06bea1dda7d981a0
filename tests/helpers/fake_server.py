"""A fake OpenAI-compatible server on 127.0.0.1, run in a thread (standard library only).

``/v1/embeddings`` answers each input text with :func:`tests.helpers.fake_encoders.hash_vector`
(``dim`` numbers, in shuffled ``data`` order with ``index`` fields, as real servers may);
``/v1/chat/completions`` echoes the last message. ``fail_next`` queues HTTP statuses to answer
before the real answer (e.g. ``[429, 503]``); every request is recorded in ``requests``.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.helpers.fake_encoders import hash_vector

__all__ = ["fake_openai_server"]


@contextmanager
def fake_openai_server(dim: int = 4):
    state = {"requests": [], "fail_next": [], "dim": dim}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def _send(self, status: int, payload, headers=None):
            raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state["requests"].append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
            if state["fail_next"]:
                status = state["fail_next"].pop(0)
                return self._send(status, {"error": {"message": f"fake {status}"}}, {"Retry-After": "0"})
            if self.path == "/v1/embeddings":
                texts = body["input"]
                data = [{"index": i, "embedding": hash_vector(t, state["dim"]).tolist()} for i, t in enumerate(texts)]
                return self._send(200, {"data": data[::-1], "model": body["model"]})
            if self.path == "/v1/chat/completions":
                text = body["messages"][-1]["content"]
                return self._send(200, {"choices": [{"message": {"content": f"echo: {text}"}}]})
            return self._send(404, {"error": "no such path"})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state["url"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
