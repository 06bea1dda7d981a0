"""post_json and the rate limiter against a fake server on 127.0.0.1."""

import pytest

from compsem.errors import WebAPIError
from compsem.webapi import RateLimiter, post_json
from tests.helpers.fake_server import fake_openai_server


def test_post_json_sends_key_and_returns_json():
    with fake_openai_server() as srv:
        out = post_json(
            srv["url"] + "/chat/completions", {"messages": [{"role": "user", "content": "hi"}]}, api_key="sk-test"
        )
        assert out["choices"][0]["message"]["content"] == "echo: hi"
        assert srv["requests"][0]["auth"] == "Bearer sk-test"


def test_retries_429_and_5xx_then_succeeds():
    slept = []
    with fake_openai_server() as srv:
        srv["fail_next"] = [429, 503]
        out = post_json(srv["url"] + "/embeddings", {"model": "m", "input": ["a"]}, sleep=slept.append)
        assert len(out["data"]) == 1 and len(srv["requests"]) == 3
    assert slept == [0.0, 0.0]  # the server's Retry-After: 0


def test_client_errors_are_not_retried_and_retries_run_out():
    with fake_openai_server() as srv:
        srv["fail_next"] = [401]
        with pytest.raises(WebAPIError, match="refused the request.*HTTP 401") as err:
            post_json(srv["url"] + "/embeddings", {}, sleep=lambda s: None)
        assert err.value.status == 401 and len(srv["requests"]) == 1
        srv["fail_next"] = [500] * 3
        with pytest.raises(WebAPIError, match="failed 3 times; last: HTTP 500"):
            post_json(srv["url"] + "/embeddings", {}, retries=2, sleep=lambda s: None)


def test_unreachable_server_is_retried_then_named():
    with pytest.raises(WebAPIError, match=r"http://127.0.0.1:9/x failed 2 times; last: ConnectError"):
        post_json("http://127.0.0.1:9/x", {}, retries=1, timeout=2, sleep=lambda s: None)


def test_rate_limiter_spaces_calls_evenly():
    t, slept = [0.0], []
    lim = RateLimiter(4.0, clock=lambda: t[0], sleep=lambda s: (slept.append(s), t.__setitem__(0, t[0] + s)))
    for _ in range(3):
        lim.wait()
    assert slept == [0.25, 0.25]
    RateLimiter(None).wait()
    with pytest.raises(ValueError):
        RateLimiter(-1)


def test_llm_uses_the_same_limiter():
    from compsem import llm, webapi

    assert llm.RateLimiter is webapi.RateLimiter
