"""The reproducibility appendix as a record of one build (chapter 99).

Each function returns a table (or a figure) the appendix shows:

* :func:`build_record` — when, from which commit and on which machine (CPU model, cores,
  torch threads, bfloat16 support) this build ran;
* :func:`run_times` — every chapter's wall-clock time from the build's ``*.runtime.json`` files,
  each dated (a chapter not re-executed keeps the time and date of the run that made it);
* :func:`dependencies` — every direct dependency of ``pyproject.toml`` with its installed
  version, and :func:`lock_digest` the SHA-256 of ``requirements-lock.txt``;
* :func:`data_digests` — the full SHA-256 of every shipped data file;
* :func:`bench_tables` and :func:`throughput_figure` — the committed ``make bench`` results
  as tables (one per benchmark, readable headers, one format per column) and one figure;
* :func:`machines` — the benchmark's machine beside this build's (:mod:`compsem.book.appendices.machine`),
  and :func:`rates_beside` this build's own training rates beside the benchmark's;
* :func:`backend_table` — torch against ONNX Runtime, side by side in one benchmark run;
* :func:`claims_table` — every checked claim of the book, with its numbers and outcome, and the
  appendix's own sentences produced from the benchmark records (:func:`uncached_sentence`, :func:`gpu_glue`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import re
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from compsem import device as D
from compsem import claims, figures
from compsem import precisionrecords as P
from compsem.data import file_sha256
from compsem import labels as _labels
from compsem.fmt import number, plural
from compsem.results import Prose
from compsem.book.appendices import machine as _machine
from compsem.book.appendices.bench import study_gpu_words
from compsem.book.checks.claimlist import claims_table
from compsem.cpu import cpu_model, this_machine
from compsem.encoders import get_encoder

__all__ = [
    "build_record",
    "cpu_model",
    "bf16_support",
    "gpu_fp32_vs_cpu_text",
    "run_times",
    "dependencies",
    "lock_digest",
    "data_digests",
    "bench_tables",
    "throughput_figure",
    "machines",
    "rates_beside",
    "backend_table",
    "gpu_tables",
    "claims_table",
    "gpu_glue",
    "gpu_words",
    "encode_glue",
    "precision_table",
]


def gpu_glue(gpu: dict | None) -> dict[str, str]:
    """What the appendix's GPU section glues: how bf16 weights encode against fp32
    (``gpu_bf16_speed``: "about 29 % slower", :func:`compsem.claims.comparative`) and ``gpu_name``,
    the GPU the record was measured on (``benchmarks/gpu.json``'s ``machine.gpu``), so that a
    sentence about its speed names that GPU and no other; "no GPU" without a record."""
    name = str(((gpu or {}).get("machine") or {}).get("gpu") or "no GPU")
    if gpu is None:
        return {
            "gpu_bf16_speed": "not measured (no GPU check recorded)",
            "gpu_name": name,
            "gpu_fp32_vs_cpu_text": gpu_fp32_vs_cpu_text(None),
            "gpu_stack_text": gpu_stack_text(None),
        } | gpu_words(None)
    e = gpu["encode"]
    speed = claims.comparative(e["gpu_bf16"]["texts_per_s"], e["gpu_default"]["texts_per_s"])
    return {
        "gpu_bf16_speed": speed,
        "gpu_name": name,
        "gpu_fp32_vs_cpu_text": gpu_fp32_vs_cpu_text(gpu),
        "gpu_stack_text": gpu_stack_text(gpu),
    } | gpu_words(gpu)


#: The GPU record's version fields and the distributions they name (``benchmarks/gpu.json``'s ``machine``).
GPU_STACK = {
    "python": "Python",
    "torch": "torch",
    "transformers": "transformers",
    "sentence_transformers": "sentence-transformers",
    "numpy": "numpy",
}


def _installed(dist: str) -> str | None:
    if dist == "Python":
        return platform.python_version()
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def gpu_stack_text(gpu: dict | None, here: dict[str, str | None] | None = None) -> str:
    """Whether the GPU record was measured under this build's versions (``here``: ``{name:
    version}`` of :data:`GPU_STACK`'s names, default the installed ones), naming each that
    differs: "under other versions than this build's (torch 2.11.0+cu130 against 2.13.0, ...), so
    the defaults set from it were set under other versions than those they now govern". A local
    build tag (``+cu130``, ``+cpu``) alone is no difference."""
    m = (gpu or {}).get("machine") or {}
    if not gpu:
        return "not recorded (no GPU check)"
    here = here if here is not None else {name: _installed(name) for name in GPU_STACK.values()}
    diff, unknown = [], []
    for key, name in GPU_STACK.items():
        theirs, ours = m.get(key), here.get(name)
        if not theirs or not ours:
            unknown.append(name)
        elif str(theirs).split("+")[0] != str(ours).split("+")[0]:
            diff.append(f"{name} {theirs} against {ours}")
    if diff:
        text = (
            f"under other versions than this build's ({'; '.join(diff)}), so the defaults set from it were set under "
            "other versions than those they now govern"
        )
    else:
        text = "under this build's versions"
    return text + (f" ({', '.join(unknown)} not recorded)" if unknown else "")


def gpu_fp32_vs_cpu_text(gpu: dict | None) -> str:
    """How far the GPU's fp32 vectors lay from the CPU's in the GPU check (``benchmarks/gpu.json``),
    for the one model the check encodes (named from its identity), measured, never called the same:
    the largest absolute difference of a coordinate over every fp32 record (``encode.gpu_default``
    and each study's ``encoding.gpu_default``), over the texts they encoded: "sbert-mini's vectors,
    on the one GPU measured (NVIDIA H200), lay within 3.0e-07 of the CPU's in every coordinate (the
    largest absolute difference over the 30,000 texts measured: 10,000 sentences, 20,000 montague
    phrases), not equal to them"; equal only where the difference is 0."""
    gpu = gpu or {}
    enc = gpu.get("encode") or {}
    first = enc.get("gpu_default") or {}
    if first.get("max_abs_diff") is None:
        return "not compared with the CPU's on any GPU (no GPU check recorded)"
    model = str(first.get("identity") or "").split("|")[0] or "the model checked"
    name = str((gpu.get("machine") or {}).get("gpu") or "a GPU")
    diffs = [float(first["max_abs_diff"])]
    counts = [(enc.get("sentences"), "sentences")]
    for study, rec in (gpu.get("studies") or {}).items():
        one = ((rec or {}).get("encoding") or {}).get("gpu_default") or {}
        if one.get("max_abs_diff") is not None:
            diffs.append(float(one["max_abs_diff"]))
            kind = "phrases" if "phrases" in rec else "texts"
            counts.append((rec.get(kind), f"{study} {kind}"))
    known = [(n, what) for n, what in counts if isinstance(n, int)]
    total = sum(n for n, _ in known)
    over = ""
    if known and len(known) == len(counts):
        parts = ", ".join(f"{n:,} {what}" for n, what in known)
        over = f" over {parts}" if len(known) == 1 else f" over the {total:,} texts measured: {parts}"
    diff = max(diffs)
    if diff == 0.0:
        return f"`{model}`'s vectors, on the one GPU measured ({name}), equal the CPU's in every coordinate{over}"
    return (
        f"`{model}`'s vectors, on the one GPU measured ({name}), lay within {diff:.1e} of the CPU's in every "
        f"coordinate (the largest absolute difference{over}), not equal to them"
    )


def gpu_words(gpu: dict | None) -> dict[str, str]:
    """The words of the GPU section's sentences (and of the Parts' pages that quote them), from the
    record: ``gpu_words(section)`` of every study's benchmark that has one, each reading its own
    section of ``benchmarks/gpu.json`` (None where the record has none: "(not measured)" words)."""
    return study_gpu_words((gpu or {}).get("studies", {}))


def encode_glue(bench: dict | None, dims: dict[str, int] | None = None) -> dict[str, str]:
    """The sizes of the encode benchmark's input that the appendix states: ``bench_encode_texts``
    (texts given) and ``bench_encode_unique`` (distinct ones), read from ``benchmarks/results.json``
    (its first model's ``encode`` record), and :func:`uncached_sentence`; "not recorded" without one."""
    first = next(iter(((bench or {}).get("encode") or {}).values()), None)
    if not first:
        return {k: "not recorded" for k in ("bench_encode_texts", "bench_encode_unique", "bench_uncached_sentence")}
    return {
        "bench_encode_texts": f"{first['texts']:,}",
        "bench_encode_unique": f"{first['unique']:,}",
        "bench_uncached_sentence": Prose(uncached_sentence(bench, dims)),
    }


def uncached_sentence(bench: dict, dims: dict[str, int] | None = None) -> str:
    """Which of `glove-50d` and `bow` the benchmark record says are never cached, and whether reading
    vectors of their size back from the cache (the read rate at the smallest size measured not below
    theirs; ``dims``: their vector sizes, default from the encoders) is faster than recomputing them."""
    enc, sizes = bench["encode"], sorted(int(k) for k in bench["cache"])
    models = [m for m in ("glove-50d", "bow") if m in enc and not enc[m]["cached"]]
    if not models:
        return "Every model of the benchmark is cached."
    dims = dims or {m: int(get_encoder(m).dim) for m in models}
    read = {m: bench["cache"][str(next((s for s in sizes if s >= dims[m]), sizes[-1]))]["read_per_s"] for m in models}
    faster = [m for m in models if read[m] > enc[m]["cold_texts_per_s"]]
    names = " and ".join(f"`{m}`" for m in models)
    verb, them = ("is", "it") if len(models) == 1 else ("are", "them")
    if len(faster) == len(models):
        return f"{names} {verb} never cached, although reading vectors back from the cache is faster than recomputing {them}"
    if not faster:
        return f"{names} {verb} never cached, and recomputing {them} is faster than reading vectors back from the cache"
    return (
        f"{names} are never cached; reading vectors back from the cache is faster than recomputing them for "
        f"`{faster[0]}` only"
    )


def bf16_support() -> str:
    """Whether this CPU has bfloat16 instructions (AVX-512 BF16 or AMX), or whether torch would
    emulate it; on a GPU machine, what the GPU says. Instructions are no speed: the precision
    probe measures that (:func:`precision_table`)."""
    import torch  # the appendix reports torch's own view

    if torch.cuda.is_available():
        return f"GPU {torch.cuda.get_device_name(0)}: " + ("yes" if torch.cuda.is_bf16_supported() else "no")
    flags = Path("/proc/cpuinfo").read_text(errors="replace") if Path("/proc/cpuinfo").is_file() else ""
    native = [f for f in ("avx512_bf16", "amx_bf16") if re.search(rf"\b{f}\b", flags)]
    return (
        (
            "instructions present (" + ", ".join(native) + "); whether they train faster than fp32 is measured "
            "by the precision probe (the table of machines)"
        )
        if native
        else "emulated (no AVX-512 BF16 / AMX on this CPU)"
    )


def _git(root: Path, *args: str) -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def build_record(root: Path, now: dt.datetime | None = None) -> pd.DataFrame:
    """One row per fact of this build: date (UTC), commit (with a note when the tree had
    uncommitted changes), CPU model, cores, torch threads, bfloat16, Python, platform."""
    import torch  # the appendix reports torch's own view

    now = now or dt.datetime.now(dt.UTC)
    commit = _git(root, "rev-parse", "HEAD") or "unknown (not a git checkout)"
    if commit[:1] != "u" and _git(root, "status", "--porcelain", "--untracked-files=no"):
        commit += " (with uncommitted changes)"
    rows = {
        "date (UTC)": now.strftime("%Y-%m-%d %H:%M"),
        "commit": commit,
        "CPU": cpu_model(),
        "cores": str(os.cpu_count()),
        "torch threads": str(torch.get_num_threads()),
        "bfloat16": bf16_support(),
        "Python": platform.python_version(),
        "platform": platform.platform(),
    }
    return pd.DataFrame({"": list(rows), "this build": list(rows.values())}).set_index("")


def run_times(executed_dir: Path) -> pd.DataFrame:
    """Each chapter's time from its ``<notebook>.runtime.json`` (written by ``compsem run``), with
    the time the file was written (UTC); empty when the build recorded none."""
    rows = []
    for p in sorted(Path(executed_dir).glob("*.runtime.json")):
        r = json.loads(p.read_text())
        when = dt.datetime.fromtimestamp(p.stat().st_mtime, dt.UTC).strftime("%Y-%m-%d %H:%M")
        rows.append(
            {
                "chapter": r["notebook"],
                "seconds": number(r["seconds"], 0),
                "minutes": number(r["seconds"] / 60, 1),
                "finished (UTC)": when,
            }
        )
    return pd.DataFrame(rows, columns=["chapter", "seconds", "minutes", "finished (UTC)"])


def run_time_values(executed_dir: Path) -> dict[str, float]:
    """``{"runtime_min_<notebook stem>": minutes}`` for every chapter with a run-time record in
    ``executed_dir``: what chapter 99 glues, so that a prose page (the course guide) states a
    chapter's time from this build's records
    (``{glue:text}`../notebooks/99_reproducibility.ipynb::runtime_min_21_csts_zeroshot:.1f```)."""
    out = {}
    for p in sorted(Path(executed_dir).glob("*.runtime.json")):
        r = json.loads(p.read_text())
        out[f"runtime_min_{Path(r['notebook']).stem}"] = float(r["seconds"]) / 60
    return out


def _name(req: str) -> str:
    return re.split(r"[=<>!~\[; ]", req.strip(), maxsplit=1)[0]


def dependencies(root: Path) -> pd.DataFrame:
    """Every direct dependency of ``pyproject.toml``: the pin and the installed version."""
    project = tomllib.loads((Path(root) / "pyproject.toml").read_text())["project"]
    rows = []
    for req in project.get("dependencies", []):
        name = _name(req)
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = "not installed"
        rows.append(
            {
                "package": name,
                "pinned": req.split("==", 1)[1] if "==" in req else req[len(name) :].strip(),
                "installed": installed,
            }
        )
    rows.insert(
        0, {"package": "python", "pinned": project.get("requires-python", ""), "installed": platform.python_version()}
    )
    return pd.DataFrame(rows).set_index("package")


def lock_digest(root: Path) -> str:
    """SHA-256 of ``requirements-lock.txt`` (every transitive pin)."""
    return file_sha256(Path(root) / "requirements-lock.txt")


def data_digests(data_dir: Path) -> pd.DataFrame:
    """The full SHA-256 and size of every file under ``data_dir``."""
    root = Path(data_dir)
    files = sorted(p for p in root.rglob("*") if p.is_file())
    return pd.DataFrame(
        [{"file": str(p.relative_to(root)), "bytes": p.stat().st_size, "SHA-256": file_sha256(p)} for p in files]
    )


# ---------------------------------------------------------------------------------------------
# the committed benchmark results
# ---------------------------------------------------------------------------------------------
def _header(key: str) -> str:
    text = re.sub(r"_per_s(?=_|$)", " per second", key).replace("_s_", " seconds ").replace("_", " ")
    text = re.sub(r" s$", " (s)", re.sub(r" seconds$", " (s)", text))
    return text


def _digits(values) -> int | None:
    """Decimals for numbers of this size: none from 100 up (and for whole numbers), 2 from 0.1,
    4 below; None (scientific) below 0.0001."""
    nums = [abs(float(v)) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    small = [v for v in nums if v and not (v.is_integer() and v >= 1)]
    if not small:
        return 0
    low = min(small)
    return 0 if low >= 100 else 2 if low >= 0.1 else 4 if low >= 1e-4 else None


#: a quantity one record of a table has and another lacks (e.g. packed against padded, measured
#: after the fp32 run only): the lacking row's cell reads "not measured", never pandas' NaN
NOT_MEASURED = object()


def _cell(v, digits: int | None | str = "auto") -> str:
    if v is NOT_MEASURED:
        return "not measured"
    if isinstance(v, bool):  # in words, never a Python literal on the page
        return "yes" if v else "no"
    if v is None:
        return "–"
    if isinstance(v, (list, tuple, set, dict)):  # a container as words, never its Python repr
        return _labels.cell(v if isinstance(v, dict) else [_cell(x, digits) for x in v])
    if not isinstance(v, (int, float)):
        return str(v)
    if v != v:  # a measured NaN is shown as one (check-book then asks the column to say why)
        return "nan"
    digits = _digits([v]) if digits == "auto" else digits
    if digits is None:
        return f"{v:.1e}" if v else "0"
    return f"{v:,.{digits}f}" if abs(v) >= 1000 or digits == 0 else number(v, digits)


def _measure(v) -> str:
    """One quantity of a measurements table: as :func:`_cell`, but scientific below 0.1 rather
    than with four decimals beside the others' two."""
    d = _digits([v]) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0
    return _cell(v, d if d in (0, 2) else None)


def _frame(rows: dict | list, index: str | None = None) -> pd.DataFrame:
    """A table with one number format per column (the finest its values need); a key some
    records lack reads "not measured" in theirs (:data:`NOT_MEASURED`)."""
    records = rows if isinstance(rows, list) else list(rows.values())
    keys = list(dict.fromkeys(k for r in records for k in r))
    full = [{k: r.get(k, NOT_MEASURED) for k in keys} for r in records]
    df = pd.DataFrame(full) if isinstance(rows, list) else pd.DataFrame(dict(zip(rows, full))).T
    df = df.apply(lambda col: col.map(lambda v, d=_digits(col): _cell(v, d)))  # noqa: B008 (binds the column's digits once)
    df.columns = [_header(str(c)) for c in df.columns]
    df.index = [_header(i) if isinstance(i, str) and _labels.is_identifier(i) else i for i in df.index]
    return df.rename_axis(index) if index else df


def bench_tables(bench: dict) -> dict[str, pd.DataFrame]:
    """The benchmark file as titled tables: the machine it ran on, encode throughput per model,
    the cache's own cost, and one table per study benchmark (scalars as quantity/value rows;
    lists and per-model mappings as tables of their own). One format per column of a table (the
    finest its values need: none from 100 up, 2 decimals from 0.1, 4 below, scientific below
    0.0001); a measurements table, whose rows are quantities of every size, prints whole
    numbers from 100 up, two decimals from 0.1 and scientific notation below, so that its one
    column still shows one fixed-point format (:func:`_measure`)."""
    shown = {"cpu_model", "cpu_flags", "cores", "load", "load_at_end"}  # in :func:`machines`
    machine = {k: v for k, v in bench.get("machine", {}).items() if k not in shown}
    out = {
        "software and platform of the benchmark run": pd.DataFrame(
            {"value": [_cell(v) for v in machine.values()]}, index=pd.Index([_header(k) for k in machine], name="")
        )
    }
    if "encode" in bench:
        out["encode throughput per model"] = _frame(bench["encode"], "model")
    if "cache" in bench:
        out["embedding cache, without a model (per vector dimension)"] = _frame(bench["cache"], "dimension")
    for study, numbers in bench.get("studies", {}).items():
        out.update(_study_frames(study, {k: v for k, v in numbers.items() if k != "encode_backends"}))  # backend_table
    return out


def _flatten(record: dict, prefix: str = "") -> tuple[dict, list[tuple[str, list]]]:
    """A record's scalars (and lists of scalars) under " · "-joined keys, and its lists of
    records apart, each with the key that names it; a mapping of records below the top (e.g.
    a benchmark's ``utilisation · configs``) becomes such a list too, one row per key under a
    column named by the mapping's key. A table cell holds one value, never a mapping or a list
    of mappings."""
    flat, lists = {}, []
    for k, v in record.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v and all(isinstance(x, dict) and x for x in v.values()) and prefix:
            # a mapping of records below the top (a benchmark's per-configuration rows): a table
            # of its own, one row per key, as a list of records
            rows = []
            for name, rec in v.items():
                f, sub = _flatten(rec)
                rows.append({k: name, **f})
                lists += [(f"{key} · {name} · {s}", recs) for s, recs in sub]
            lists.append((key, rows))
        elif isinstance(v, dict):
            f, sub = _flatten(v, f"{key} · ")
            flat.update(f)
            lists += sub
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            lists.append((key, v))
        else:
            flat[key] = v
    return flat, lists


def _study_frames(study: str, numbers: dict) -> dict[str, pd.DataFrame]:
    """One study's benchmark numbers as titled tables: its scalars (and flat mappings) as
    quantity/value rows, each mapping of records as a table of its own (a record's own
    mappings as " · "-joined columns) and each list of records as a table of its own."""
    out, lists = {}, []
    table_like = {
        k for k, v in numbers.items() if isinstance(v, dict) and v and all(isinstance(x, dict) for x in v.values())
    }
    flat, sub = _flatten({k: v for k, v in numbers.items() if k not in table_like})
    lists += sub
    if flat:
        out[f"{study}: measurements"] = pd.DataFrame(
            {"quantity": [_header(k) for k in flat], "value": [_measure(v) for v in flat.values()]}
        ).set_index("quantity")
    for key in table_like:
        rows = {}
        for name, record in numbers[key].items():
            rows[name], sub = _flatten(record)
            lists += [(f"{key} · {name} · {k}", recs) for k, recs in sub]
        out[f"{study}: {_header(key)}"] = _frame(rows, "model" if key == "models" else _header(key))
    for key, recs in lists:
        out[f"{study}: {_header(key)}"] = _frame(recs)
    return out


def gpu_tables(rec: dict | None) -> dict[str, pd.DataFrame]:
    """The GPU check (``benchmarks/gpu.json``, written by ``benchmarks/gpu_check.py`` where a GPU
    was lent) as titled tables: the GPU and versions, ``sbert-mini`` on the benchmark sentences
    (the CPU's fp32 against the GPU's default and bf16 weights: texts per second and distance
    from the CPU's vectors), then each study's part; empty without a record."""
    if not rec:
        return {}
    enc = rec.get("encode", {})
    paths = {
        "CPU, fp32 (torch)": {
            "weights": "float32",
            "texts_per_s": enc.get("cpu_fp32_texts_per_s"),
            "max_abs_diff": None,
            "max_one_minus_cos": None,
        },  # the reference: "–"
        **{
            f"GPU, {'default' if k == 'gpu_default' else 'bf16 asked for'}": {
                kk: vv for kk, vv in v.items() if kk != "identity"
            }
            for k, v in enc.items()
            if isinstance(v, dict)
        },
    }
    machine = rec.get("machine", {})
    out = {
        "GPU check: the machine": pd.DataFrame(
            {"value": [_cell(v) for v in machine.values()]}, index=pd.Index([_header(k) for k in machine], name="")
        ),
        f"GPU check: sbert-mini on {enc.get('sentences', 0):,} benchmark sentences": _frame(paths, "path"),
    }
    for study, numbers in rec.get("studies", {}).items():
        out.update({f"GPU check, {k}": v for k, v in _study_frames(study, numbers).items()})
    return out


def throughput_figure(bench: dict):
    """Texts per second per panel model, cold cache (every distinct text reaches the model) and
    warm (vectors read back), on a logarithmic axis. Returns the matplotlib Figure."""

    enc = pd.DataFrame(bench["encode"]).T
    speed = pd.DataFrame(
        {
            "model": list(enc.index) * 2,
            "cache": ["cold cache"] * len(enc) + ["warm cache"] * len(enc),
            "texts per second": list(enc["cold_texts_per_s"].astype(float))
            + list(enc["warm_texts_per_s"].astype(float)),
        }
    )
    figures.set_theme()
    fig, ax = plt.subplots(figsize=(6.4, 0.5 * len(enc) + 1.6))
    # points, not bars: seaborn 0.13's bars start at 0 and vanish on a log axis
    sns.pointplot(speed, x="texts per second", y="model", hue="cache", log_scale=True, linestyle="none", ax=ax)
    ax.set_ylabel("")
    fig.tight_layout()
    return fig


def precision_table(bench: dict | None) -> pd.DataFrame:
    """What each machine measured of training precision (:func:`compsem.precisionrecords.machines_table`):
    this build's probe (:func:`compsem.device.cpu_precision`, and what ``COMPSEM_PRECISION``
    forced), ``make bench``'s probe in ``bench``, the committed records and the studies' rows."""
    return P.machines_table(
        D.cpu_precision(), forced=D.forced_precision(), extra_rows=P.bench_row(bench) + P.study_rows()
    )


def machines(bench: dict | None) -> pd.DataFrame:
    """The benchmark's machine beside this build's: CPU model, AVX2 / AVX-512 / AVX-512 BF16 /
    AMX, cores and load ("not recorded" for a benchmark file written before they were)."""
    return _machine.machines_table(bench)


def _rows_text(n) -> str:
    try:
        return f"{int(n):,}" if n is not None and not pd.isna(n) else "not recorded"
    except (TypeError, ValueError):
        return "not recorded"


def _settings_text(r: dict) -> str:
    """What tells one run record from another of the same encoder, configuration and seed: its
    input, learning rate and epochs (those the record holds)."""
    parts = []
    if r.get("input_mode") and not pd.isna(r.get("input_mode")):
        parts.append(str(r["input_mode"]).replace("_", " "))
    if r.get("lr") is not None and not pd.isna(r.get("lr")):
        parts.append(f"lr {float(r['lr']):g}")
    if r.get("epochs") is not None and not pd.isna(r.get("epochs")):
        parts.append(plural(int(r["epochs"]), "epoch"))
    return " · ".join(parts)


def rates_beside(bench: dict | None, records: pd.DataFrame | None = None) -> pd.DataFrame:
    """Training examples per second, one row per run: the benchmark's own runs (each study
    benchmark's ``results`` rows that carry ``examples_per_s``) and this build's run records
    (:func:`compsem.book.appendices.machine.run_records`), with the machine each ran on, the
    training rows and the settings that tell runs of one configuration apart ("not recorded"
    where a record holds no row count)."""
    records = _machine.run_records() if records is None else records
    where_bench = _machine.machine_summary(_machine.bench_machine(bench))
    rows = []
    for study, numbers in (bench or {}).get("studies", {}).items():
        for r in numbers.get("results", []) if isinstance(numbers.get("results"), list) else []:
            if r.get("examples_per_s"):
                parts = (numbers.get("encoder"), numbers.get("config"), r.get("config"), r.get("path"))
                rows.append(
                    {
                        "source": "benchmark run",
                        "machine": where_bench,
                        "study": study,
                        "run": " · ".join(str(p) for p in parts if p),
                        "training rows": _rows_text(numbers.get("train_rows")),
                        "settings": str(numbers.get("preset") or ""),
                        "precision": r.get("precision", ""),
                        "examples per second": float(r["examples_per_s"]),
                    }
                )
    here = _machine.machine_summary(this_machine())
    for r in records.to_dict("records"):
        rows.append(
            {
                "source": "this build",
                "machine": here,
                "study": r["study"],
                "run": " · ".join(
                    f"{k} {r[k]}" if k == "seed" else str(r[k])
                    for k in ("encoder", "config", "seed")
                    if r.get(k) is not None
                ),
                "training rows": _rows_text(r.get("n_train_rows")),
                "settings": _settings_text(r),
                "precision": r.get("precision") or "",
                "examples per second": float(r["examples_per_s"]),
            }
        )
    cols = ["source", "machine", "study", "run", "training rows", "settings", "precision", "examples per second"]
    df = pd.DataFrame(rows, columns=cols)
    df["examples per second"] = df["examples per second"].map(lambda v: number(v, 1))
    return df


def backend_table(bench: dict | None) -> pd.DataFrame:
    """torch against ONNX Runtime fp32, measured side by side in one ``make bench`` run: one row
    per text set (the foundation's sentences, and any study's own, e.g. chapter 30's phrases)
    with texts per second of each, the ratio (min and median over interleaved rounds), the max
    abs difference of the vectors and the load; empty for a benchmark file without them."""
    sets = dict((bench or {}).get("encode_backends", {}))
    for numbers in (bench or {}).get("studies", {}).values():
        sets.update(numbers.get("encode_backends", {}) if isinstance(numbers, dict) else {})
    rows = [
        {
            "texts": name,
            "count": r["texts"],
            "rounds": r["rounds"],
            "torch (texts/s)": number(r["torch_texts_per_s"], 0),
            "ONNX (texts/s)": number(r["onnx_texts_per_s"], 0),
            "ONNX / torch, min": number(r["ratio_min"], 2),
            "ONNX / torch, median": number(r["ratio_median"], 2),
            "max abs difference": f"{r['max_abs_diff']:.1e}",
            "1-min load before → after": f"{r['load_before'][0]:.2f} → {r['load_after'][0]:.2f}",
        }
        for name, r in sets.items()
    ]
    return pd.DataFrame(rows)
