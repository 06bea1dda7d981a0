"""Finding 4: the API key never crosses the network in clear, and credentials in a URL are
never sent, stored in a cache identity or printed.

Every refusal happens before any connection: the non-loopback address below (TEST-NET-1,
192.0.2.0/24, reserved for documentation) is never contacted; a loopback fake server is.
"""

import io
import sqlite3

import numpy as np
import pytest

from compsem.book.cli import main
from compsem.cache import EmbeddingCache, embed
from compsem.encoders.neural import OpenAIEmbeddingEncoder
from compsem.errors import CompsemError
from compsem.llm import OpenAIChatGenerator
from compsem.webapi import post_json
from tests.helpers.fake_encoders import hash_vector
from tests.helpers.fake_server import fake_openai_server

FAR = "http://192.0.2.2:8080/v1"


def _no_connection(*args, **kw):
    raise AssertionError("a connection was attempted")


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch):
    """Even if a refusal failed, nothing here may reach (or look up) a host that is not loopback."""
    import socket

    connect, lookup = socket.create_connection, socket.getaddrinfo

    def guarded_connect(address, *a, **kw):
        if address[0] not in ("127.0.0.1", "localhost", "::1"):
            raise AssertionError(f"a connection to {address[0]} was attempted")
        return connect(address, *a, **kw)

    def guarded_lookup(host, *a, **kw):
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise AssertionError(f"a look-up of {host} was attempted")
        return lookup(host, *a, **kw)

    monkeypatch.setattr(socket, "create_connection", guarded_connect)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_lookup)


@pytest.mark.parametrize(
    "make",
    [
        lambda: OpenAIEmbeddingEncoder("m", api_key="sk-secret"),
        lambda: OpenAIChatGenerator("m", api_key="sk-secret"),
        lambda: post_json(f"{FAR}/embeddings", {"input": ["x"]}, api_key="sk-secret", retries=0),
    ],
)
def test_plain_http_to_another_host_is_refused_before_connecting(monkeypatch, make):
    monkeypatch.setenv("COMPSEM_OA_BASE_URL", FAR)
    monkeypatch.setattr("httpx.Client.post", _no_connection)
    with pytest.raises(
        CompsemError,
        match=r"http://192\.0\.2\.2:8080/v1.* is plain http to 192\.0\.2\.2, which is "
        r"not this machine: refused before connecting.*COMPSEM_OA_ALLOW_HTTP=1",
    ):
        make()


def test_loopback_http_works_and_the_opt_in_is_typed(monkeypatch):
    with fake_openai_server(dim=4) as srv:
        monkeypatch.setenv("COMPSEM_OA_BASE_URL", srv["url"])
        X = embed(["one", "two"], OpenAIEmbeddingEncoder("m", api_key="k"), cache=False)
        assert np.array_equal(X, np.stack([hash_vector("one", 4), hash_vector("two", 4)]))
    monkeypatch.setenv("COMPSEM_OA_BASE_URL", FAR)
    monkeypatch.setenv("COMPSEM_OA_ALLOW_HTTP", "perhaps")
    with pytest.raises(CompsemError, match=r"COMPSEM_OA_ALLOW_HTTP='perhaps' is not valid: it takes 1 or 0"):
        OpenAIEmbeddingEncoder("text-embedding-3-small", api_key="k")
    monkeypatch.setenv("COMPSEM_OA_ALLOW_HTTP", "1")  # opted in: sent (to the test hook, never to the network)
    sent = []
    opener = lambda req, timeout: sent.append(req.full_url) or io.BytesIO(b'{"ok": 1}')  # noqa: E731
    assert post_json(f"{FAR}/embeddings", {"input": ["x"]}, api_key="k", opener=opener) == {"ok": 1}
    assert sent == [f"{FAR}/embeddings"]


@pytest.mark.parametrize(
    "url",
    [
        "http://alice:hunter2@127.0.0.1:{port}/v1",
        "http://127.0.0.1:{port}/v1?api-key=hunter2",
        "https://alice:hunter2@api.example.invalid/v1",
    ],
)
def test_credentials_in_a_url_are_refused_never_sent_stored_or_printed(monkeypatch, tmp_path, capsys, url):
    with fake_openai_server(dim=4) as srv:
        port = srv["url"].split(":")[2].split("/")[0]
        monkeypatch.setenv("COMPSEM_OA_BASE_URL", url.format(port=port))
        monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
        with pytest.raises(CompsemError, match=r"carries credentials or a query .*refused, nothing was sent") as err:
            embed(["one"], OpenAIEmbeddingEncoder("m", api_key="k"), cache=EmbeddingCache())
        assert srv["requests"] == []
    assert "hunter2" not in str(err.value) and "alice" not in str(err.value)
    main(["cache", "info"])
    assert "hunter2" not in capsys.readouterr().out
    db = tmp_path / "embeddings" / "embeddings.sqlite"
    if db.exists():
        with sqlite3.connect(db) as con:
            assert not any("hunter2" in r[0] for r in con.execute("SELECT identity FROM models"))


def test_a_stored_identity_never_holds_a_secret(tmp_path, capsys, monkeypatch):
    """Whatever an encoder puts in its identity, the column and ``cache info`` show no credential."""
    from tests.helpers.fake_encoders import HashEncoder

    class Leaky(HashEncoder):
        @property
        def identity(self):
            return "oa:m|openai-embeddings|server=https://alice:hunter2@h.invalid/v1?api-key=hunter2|dim=8"

    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
    embed(["one"], Leaky(), cache=EmbeddingCache())
    assert main(["cache", "info"]) == 0
    assert "hunter2" not in capsys.readouterr().out
    with sqlite3.connect(tmp_path / "embeddings" / "embeddings.sqlite") as con:
        (identity,) = con.execute("SELECT identity FROM models").fetchone()
    assert "hunter2" not in identity and "alice" not in identity
