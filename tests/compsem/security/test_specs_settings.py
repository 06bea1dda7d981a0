"""Finding 10: every spec form and every COMPSEM_* variable goes through one check with bounds;
bad values are a CompsemError naming the spec or variable and the accepted form (never a
floating-point exception, a MemoryError or a raw ValueError); ``vec:`` errors never print
the file's text; an ``oa:`` answer with non-finite numbers or bad indices is refused.

Specs run in a child process: ``bow:0`` killed the interpreter itself (SIGFPE) before.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from compsem.errors import CompsemError
from tests.helpers import ROOT

CHILD = textwrap.dedent("""
    import json, sys
    from compsem.cache import embed
    from compsem.errors import CompsemError
    try:
        embed(["a red cat"], sys.argv[1], cache=False)
        print(json.dumps({"ok": True}))
    except CompsemError as exc:
        print(json.dumps({"error": type(exc).__name__, "message": str(exc)}))
""")


def _child(spec, **env):
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, spec], capture_output=True, text=True, timeout=120, env={**os.environ, **env}
    )
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-1500:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "spec, message",
    [
        (
            "bow:0",
            r"model spec 'bow:0' is not valid: 'bow:N' \(hashed dimensions\) takes a whole number from 1 to 1,048,576",
        ),
        ("bow:abc", r"model spec 'bow:abc' is not valid: 'bow:N'"),
        (
            "random:-3",
            r"model spec 'random:-3' is not valid: 'random:N\[:SEED\]' \(N dimensions\) takes a whole number "
            r"from 1 to 65,536",
        ),
        ("random:99999999999", r"'random:99999999999' is not valid"),
        ("random:8:-1", r"'random:N:SEED' \(the seed\) takes a whole number from 0"),
        ("hf:x#max_length=0", r"'#max_length=N' takes a whole number from 1 to 1,000,000"),
        ("x" * 5000, r"model spec 'x{77}\.\.\.' is 5,000 characters long; at most 1,024 are accepted"),
        ("st:" + "y" * 400, r"longer than 255 characters"),
    ],
)
def test_bad_specs_are_a_compsem_error_naming_the_spec_and_form(spec, message):
    import re

    out = _child(spec)
    assert "error" in out, out
    assert re.search(message, out["message"]), out["message"]


def test_good_sized_specs_still_work():
    assert _child("bow:16") == {"ok": True} and _child("random:4:7") == {"ok": True}


@pytest.mark.parametrize(
    "name, value, message",
    [
        (
            "COMPSEM_CACHE_TIMEOUT",
            "abc",
            r"COMPSEM_CACHE_TIMEOUT='abc' is not valid: it takes a number from 0 to 86400",
        ),
        ("COMPSEM_CACHE_TIMEOUT", "nan", r"COMPSEM_CACHE_TIMEOUT='nan' is not valid \(out of bounds\)"),
        (
            "COMPSEM_OA_BATCH",
            "0",
            r"COMPSEM_OA_BATCH='0' is not valid \(out of bounds\): it takes a whole number from 1",
        ),
        ("COMPSEM_OA_RATE", "-1", r"COMPSEM_OA_RATE='-1' is not valid"),
    ],
)
def test_bad_numeric_settings_name_the_variable(monkeypatch, name, value, message):
    from compsem.settings import setting

    monkeypatch.setenv(name, value)
    with pytest.raises(CompsemError, match=message):
        setting(name)


def test_a_cache_timeout_that_is_not_a_number_fails_cleanly_in_embed(monkeypatch, tmp_path):
    from compsem.cache import EmbeddingCache
    from compsem.encoders.lexical import BowEncoder

    monkeypatch.setenv("COMPSEM_CACHE_TIMEOUT", "abc")
    with pytest.raises(CompsemError, match="COMPSEM_CACHE_TIMEOUT='abc'"):
        EmbeddingCache(tmp_path / "e.sqlite")
    assert BowEncoder(16).dim == 16


def test_compsem_cache_pointing_at_a_file_is_named(monkeypatch, tmp_path):
    from compsem.paths import cache_dir

    (tmp_path / "f").write_text("a file")
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "f"))
    with pytest.raises(
        CompsemError,
        match=r"COMPSEM_CACHE='.*/f' is not valid \(it is a file\): it takes a path .* "
        "a folder, not a file",
    ):
        cache_dir("embeddings")


def test_vec_errors_never_print_the_file(tmp_path):
    from compsem.encoders.vectorfile import read_word_vectors

    secret = tmp_path / "shadow"
    secret.write_text("root:$6$hunter2salt:19000:0:99999:7:::\nalice hunter2 hunter3\n")
    with pytest.raises(CompsemError) as err:
        read_word_vectors(secret)
    text = str(err.value).replace(str(secret), "<file>")
    assert text.startswith("file <file>: line 1:") and "hunter2" not in text and "root" not in text
    spaced = tmp_path / "config"
    spaced.write_text("password = hunter2\n")
    with pytest.raises(CompsemError) as err:
        read_word_vectors(spaced)
    text = str(err.value).replace(str(spaced), "<file>")
    assert "hunter2" not in text and "password" not in text and "line 1: field 2 is not a number" in text


def test_vec_binary_header_beyond_the_file_is_a_clear_error(tmp_path):
    from compsem.encoders.vectorfile import read_word_vectors

    path = tmp_path / "huge.bin"
    path.write_bytes(b"99999999999 99999999\nred \x00\x00\x80?")
    with pytest.raises(
        CompsemError,
        match=r"line 1: the header announces 99,999,999,999 vectors of 99,999,999 "
        r"numbers, more than the 8 bytes after it can hold",
    ):
        read_word_vectors(path)


@pytest.mark.parametrize(
    "data, message",
    [
        ([{"index": 0, "embedding": [1.0, float("nan")]}, {"index": 1, "embedding": [1.0, 2.0]}], "non-finite"),
        ([{"index": 0, "embedding": [1.0, 1e39]}, {"index": 1, "embedding": [1.0, 2.0]}], "non-finite"),
        ([{"index": 0, "embedding": [1.0, 2.0]}, {"index": 0, "embedding": [3.0, 4.0]}], "'index' values"),
        ([{"embedding": [1.0, 2.0]}, {"embedding": [3.0, 4.0]}], "needs an 'index'"),
        ([{"index": 0, "embedding": [1.0, 2.0]}, {"index": 5, "embedding": [3.0, 4.0]}], "'index' values"),
    ],
)
def test_oa_answers_with_bad_numbers_or_indices_are_refused(data, message):
    import io

    from compsem.encoders.neural import OpenAIEmbeddingEncoder

    body = json.dumps({"data": data}, allow_nan=True).encode()
    opener = lambda req, timeout: io.BytesIO(body)  # noqa: E731 - the test hook of compsem.webapi
    enc = OpenAIEmbeddingEncoder("text-embedding-3-small", api_key="k", opener=opener, retries=0)
    enc.dim = 2
    with pytest.raises(CompsemError, match=message):
        enc.encode(["one", "two"])
