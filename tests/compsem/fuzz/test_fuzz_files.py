"""Property-based tests over the parsers of files from outside: a notebook's parameters cell, the
C-STS and ``vec:`` loaders, run manifests (``--out``), encoder records, stored ONNX choices and
embedding-cache files (see :mod:`.harness` for the property and the two profiles). Each example
writes its file into a fresh temporary folder, never into the repository."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

from compsem.book.running.params import find_notebook, parameter_defaults, parameter_types, parse_parameters
from compsem.book.running.runfolder import prepare_out, read_manifest
from compsem.cachestore import EmbeddingCache
from compsem.csts.data import read_split_file
from compsem.encoders import facts
from compsem.encoders.vectorfile import read_word_vectors
from compsem.results import RUN_MANIFEST
from tests.compsem.fuzz.harness import fuzz, holds

scalar = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
#: Any JSON value (the top level of a file), and a flat one (inside a generated structure: a
#: recursive strategy nested in others makes hypothesis's own validation take many seconds).
json_value = st.recursive(
    scalar, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=4), max_leaves=10
)
junk = scalar | st.lists(scalar, max_size=3) | st.dictionaries(st.text(max_size=6), scalar, max_size=3)
source = st.one_of(
    st.text(max_size=40),
    st.lists(st.text(max_size=10), max_size=3),
    junk,
    st.sampled_from(
        [
            "x = (",
            "models = 'panel'\nn = 3  # type: int|None",
            "%time x = 1",
            "a = 1  # type: nosuch",
            "x = '\ud800'",
            "import os",
            "x = [" * 50,
        ]
    ),
)
cell = st.one_of(
    junk,
    st.fixed_dictionaries(
        {"cell_type": st.sampled_from(["code", "markdown", 3]), "source": source},
        optional={
            "metadata": st.one_of(junk, st.fixed_dictionaries({"tags": st.one_of(st.just(["parameters"]), junk)}))
        },
    ),
)
notebook = st.one_of(json_value, st.fixed_dictionaries({"cells": st.one_of(st.lists(cell, max_size=3), junk)}))

PARAMS_CELL = {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": "n = 3\n"}


#: One folder for this process's examples, removed at exit.
_BASE = Path(tempfile.mkdtemp(prefix="compsem-fuzz-"))
atexit.register(shutil.rmtree, _BASE, ignore_errors=True)


def _tmp() -> Path:
    return Path(tempfile.mkdtemp(dir=_BASE))


@fuzz(
    notebook,
    examples=[
        ({"cells": [None]},),
        ({"cells": [{"cell_type": "code", "metadata": {"tags": 3}}]},),
        ({"cells": [{**PARAMS_CELL, "source": 5}]},),
        ({"cells": [{**PARAMS_CELL, "source": "x = ("}]},),
        ({"cells": [{**PARAMS_CELL, "source": "x = '\ud800'"}]},),
    ],
)
def test_notebook_parameters_cell(nb):
    """A chapter's parameters cell gives names, defaults and types, or a compsem error naming the notebook."""
    path = _tmp() / "nb.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8", errors="surrogatepass")

    def read():
        find_notebook(path)
        return parameter_defaults(path), parameter_types(path), parse_parameters([], path)

    ok, got = holds(read, names=["nb.ipynb"], watch=path.parent)
    if ok:
        defaults, types, params = got
        assert params == {} and all(isinstance(k, str) for k in defaults) and set(types) <= set(defaults) | set(types)


csv_cell = st.one_of(
    st.text(max_size=8),
    st.sampled_from(["", "-1", "1", "5", "5.5", "nan", "inf", '"', "\n", ",", "\ud800", "1e308", " "]),
)
csv_text = st.lists(st.lists(csv_cell, min_size=1, max_size=5), max_size=5).map(
    lambda rows: "sentence1,sentence2,condition,label\n" + "\n".join(",".join(r) for r in rows)
)


@fuzz(
    st.one_of(csv_text, st.text(max_size=60)),
    st.sampled_from([".csv", ".jsonl", ".tsv", ".json"]),
    examples=[("sentence1,sentence2,condition,label\na,b,c,\ud800", ".csv")],
)
def test_csts_loader(text, suffix):
    """A C-STS file gives validated rows (labels -1 or in [1, 5], no empty text), or a DataError naming it."""
    path = _tmp() / f"split{suffix}"
    path.write_bytes(text.encode("utf-8", errors="replace"))
    ok, df = holds(lambda: read_split_file(path), names=[str(path)])
    if ok:
        lab = df["label"].to_numpy()
        assert ((lab == -1) | ((lab >= 1) & (lab <= 5))).all()
        assert (df["sentence1"].str.len() > 0).all() and (df["sentence2"].str.len() > 0).all()


vec_line = st.lists(
    st.one_of(st.text(max_size=5), st.sampled_from(["0.5", "-1", "nan", "inf", "1e40", "3", "2"])), max_size=5
).map(" ".join)


@fuzz(
    st.one_of(st.lists(vec_line, max_size=5).map("\n".join), st.binary(max_size=80)),
    st.sampled_from([".txt", ".bin"]),
    examples=[(b"1 1000000\n", ".bin"), ("2 2\nx 1 2\n", ".txt"), (b"9999999999 9\n", ".bin")],
)
def test_vec_loader(content, suffix):
    """A ``vec:`` file gives finite float32 vectors of one dimension, or a DataError naming it."""
    path = _tmp() / f"v{suffix}"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "replace"))
    ok, got = holds(lambda: read_word_vectors(path), names=[str(path)])
    if ok:
        words, X = got
        assert X.dtype == np.float32 and X.ndim == 2 and np.isfinite(X).all() and max(words.values()) < len(X)


manifest = st.one_of(
    json_value,
    st.fixed_dictionaries(
        {
            "run": st.one_of(st.just("r1"), junk),
            "notebook": st.one_of(st.just("00_x.ipynb"), junk),
            "state": st.one_of(st.just("done"), junk),
            "files": st.one_of(
                st.lists(st.sampled_from(["notes.txt", "project", "../x", "/etc", "results/a.csv", ""])), junk
            ),
        }
    ),
)


@fuzz(
    manifest,
    st.booleans(),
    examples=[({"run": "r1", "notebook": "00_x.ipynb", "state": "done", "files": ["notes.txt"]}, True)],
)
def test_run_manifests(man, force):
    """``--out`` with a planted manifest: claimed (and then only the run's own files were removed),
    or a RunMixError naming the folder, with everything left in place."""
    out = _tmp()
    (out / RUN_MANIFEST).write_text(json.dumps(man))
    (out / "notes.txt").write_text("mine")
    ok, _ = holds(
        lambda: prepare_out(out, run="r2", notebook="00_x.ipynb", force=force, announce=lambda t: None),
        names=[str(out)],
        watch=out,
    )
    if ok:  # only a manifest of this user's naming notes.txt as the run's own lets it go
        assert read_manifest(out)["run"] == "r2"
        assert force and isinstance(man, dict) and "notes.txt" in man.get("files", [])


record = st.one_of(
    json_value,
    st.fixed_dictionaries(
        {
            "key": st.one_of(st.just("K"), junk),
            "identity": st.one_of(
                st.just("sp|st||weights=w|modules=Transformer+Pooling|max_len=128"),
                st.just("sp|st||weights=w|modules=Transformer|max_len=128|backend=onnxruntime-int8-dynamic"),
                junk,
            ),
            "dim": st.one_of(st.integers(), st.just(10**12), junk),
        }
    ),
)


@fuzz(record, examples=[({"key": "K", "identity": "sp|st||weights=w|modules=T|max_len=1", "dim": 10**12},), ([1],)])
def test_encoder_records(rec):
    """An encoder record gives exactly the identity its spec and files produce and a sane dim, or
    a RecordError naming the file."""
    ok, got = holds(lambda: facts.validate(rec, "K", prefix="sp|st||weights=w|", where="R.json"), names=["R.json"])
    if ok:
        ident, dim = got
        assert ident.startswith("sp|st||weights=w|modules=") and "backend" not in ident and 1 <= dim <= facts.MAX_DIM


choice = st.one_of(
    json_value,
    st.fixed_dictionaries(
        {
            "backend": st.one_of(st.sampled_from(["torch", "onnxruntime fp32", "onnxruntime int8 (dynamic)"]), junk),
            "identity": st.one_of(st.just("ID"), junk),
        },
        optional={"max_abs": st.one_of(st.floats(), junk), "speedup": st.one_of(st.floats(), junk)},
    ),
)


@fuzz(choice, examples=[([1],), ({"backend": "onnxruntime fp32", "identity": "ID", "max_abs": 0.002},)])
def test_onnx_choices(rec):
    """A stored ONNX choice is one this project writes for this identity, or a RecordError naming its file."""
    from compsem.encoders.onnxtrust import read_decision  # here: the other targets run on 467c50a too

    path = _tmp() / "decision-m.json"
    path.write_text(json.dumps(rec, allow_nan=True))
    ok, got = holds(lambda: read_decision(path, "ID"), names=[str(path)])
    if ok:
        assert got["identity"] == "ID" and got["backend"] in ("torch", "onnxruntime fp32")


@fuzz(
    st.one_of(st.binary(max_size=200), st.sampled_from([b"SQLite format 3\x00" + bytes(84), b"SQLite format 3\x00"])),
    examples=[(b"",), (b"SQLite format 3\x00" + b"\xff" * 200,)],
)
def test_cache_files(blob):
    """Whatever bytes sit at the cache's path: a usable cache, or a CacheError naming the file."""
    path = _tmp() / "embeddings.sqlite"
    if blob:
        path.write_bytes(blob)
    ok, store = holds(lambda: EmbeddingCache(path).verify(), names=[str(path)])
    if ok:
        assert store[0] >= store[1] >= store[2] >= 0


@fuzz(st.text(max_size=30), examples=[("~nosuchuser/x",), ("\udcff",)])
def test_cache_paths(raw):
    """``COMPSEM_CACHE`` names the cache folder (created only when accepted), or a SettingError naming it."""
    from compsem.paths import cache_dir

    try:
        if b"\x00" in os.fsencode(raw):
            return  # no environment can hold a NUL
    except UnicodeEncodeError:  # nor this (an undecodable byte arrives as \udcXX)
        return
    base = _tmp()
    old = os.environ.get("COMPSEM_CACHE"), os.getcwd()
    os.environ["COMPSEM_CACHE"] = raw
    try:
        os.chdir(base)
        ok, got = holds(lambda: cache_dir("embeddings", create=False), names=["COMPSEM_CACHE"], watch=base)
    finally:
        os.chdir(old[1])
        os.environ["COMPSEM_CACHE"] = old[0]
    if ok:
        assert got.name == "embeddings" and got.is_absolute()
