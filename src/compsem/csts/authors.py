"""The authors' fine-tuning code run beside the book's ``official`` preset (torch-free).

The comparison has two sides on the same rows — the book's split written in the authors' CSV
format (:func:`write_split`) — with the same settings (:data:`SETTINGS`): the authors'
``run_sts.py`` (``princeton-nlp/c-sts`` at :data:`AUTHORS_COMMIT`, never part of this
repository: its folder is given at run time) and :func:`compsem.csts.study.run` with
``preset="official"``. Their code needs three edits to run under transformers 5 and datasets 5
(:data:`EDITS`), applied to a temporary copy by :func:`patched_copy`, never to the folder given.

:func:`compare` sets the two sides' test Spearman means against the pooled seed spread; the
record (``benchmarks/csts_authors.json``, :func:`load_record`) is what chapter 22 and Part II's
table of differences state through :func:`authors_values` (and its speed, :func:`speed_values`). :func:`run_check` runs both sides, then the book's ``cpu`` preset on the same rows for its speed;
``python -m compsem.csts.authors`` (``make authors-check``) runs it and rewrites the record. It
needs the authors' code (``princeton-nlp/c-sts`` at ``3bacafa``, fetched by the reader outside
this repository; its folder in ``CSTS_AUTHORS_CODE``) and a Python that runs it
(``CSTS_AUTHORS_PYTHON``, default this one, with ``transformers``, ``datasets`` and
``accelerate``); seeds in ``CSTS_AUTHORS_SEEDS`` (default ``42,43``); it exits 2 with a one-line
error when it cannot run or fails (saying why) and 1 when the sides disagree. The code folder is
read only as regular files below :data:`MAX_FILE` bytes (:data:`MAX_TOTAL` in all; a link, a FIFO
or a device in it is refused), and a folder or file in it that others may write is refused. Each run takes minutes (about 200 s a seed and
side on two Zen 4 cores).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from compsem.cpu import cpu_kind_words, this_machine
from compsem.git import commit_of
from compsem.errors import DataError
from compsem.paths import repo_root
from compsem.results import PlainText, Prose

from . import study as S
from .config import resolve_backbone
from .metrics import correlations, pair_bootstrap_replicates, seed_agreement

__all__ = [
    "AUTHORS_COMMIT",
    "SETTINGS",
    "EDITS",
    "patched_copy",
    "write_split",
    "authors_args",
    "read_predictions",
    "compare",
    "paired_difference",
    "record_path",
    "load_record",
    "authors_values",
    "speed_values",
    "train_runtime",
    "missing_reason",
    "run_check",
    "main",
    "checked_files",
    "parse_seeds",
    "MAX_FILE",
    "MAX_TOTAL",
]

#: the authors' commit both sides were compared at (their HEAD)
AUTHORS_COMMIT = "3bacafa"

#: the settings of both sides: the book's ``official`` preset with one epoch in fp32 (the
#: authors' ``run_sts.sh`` defaults otherwise), the bi-encoder with MSE
SETTINGS = {
    "config": "bi/mse",
    "preset": "official",
    "overrides": {"epochs": 1, "precision": "fp32"},
    "encoder": "sbert-mini",
    "data": "reannotated",
    "split": "pair",
    "split_seed": 0,
}

#: The edits that let the authors' code run under transformers 5 and datasets 5, as
#: ``(file, pattern, replacement, what)``: every line passing ``use_auth_token=`` is dropped
#: (the keyword is gone), and ``Trainer`` takes ``processing_class=`` where it took ``tokenizer=``.
EDITS = (
    ("run_sts.py", r"(?m)^[ \t]*use_auth_token=[^\n]*,[ \t]*\n", "", "drop use_auth_token="),
    ("utils/sts/modeling_encoders.py", r"(?m)^[ \t]*use_auth_token=[^\n]*,[ \t]*\n", "", "drop use_auth_token="),
    (
        "run_sts.py",
        r"(?m)^([ \t]*)tokenizer=tokenizer,",
        r"\1processing_class=tokenizer,",
        "Trainer(tokenizer=) -> Trainer(processing_class=)",
    ),
)


#: The largest file of the authors' folder that is copied, and all of them together (bytes).
MAX_FILE, MAX_TOTAL = 16 * 2**20, 256 * 2**20


def checked_files(code: str | Path) -> list[str]:
    """The files of the authors' folder ``code`` (``.git`` left out), relative to it, after
    checking every entry: folders and regular files only (a link, a FIFO, a socket or a device
    is a :class:`DataError` naming it), none that its group or others may write (someone else
    could change the code between this check and its run), each at most :data:`MAX_FILE` bytes
    and :data:`MAX_TOTAL` in all. Nothing is opened here."""
    code = Path(code)
    files, total = [], 0
    for top, dirs, names in os.walk(code, onerror=_raise):
        dirs[:] = sorted(d for d in dirs if not (Path(top) == code and d == ".git"))
        for name in [".", *dirs, *sorted(names)]:
            path = Path(top) / name
            st = os.lstat(path)
            rel = path.relative_to(code).as_posix()
            if stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode):
                if st.st_mode & 0o022:
                    raise DataError(
                        f"{path}: others may write it (mode {stat.S_IMODE(st.st_mode):o}), so the code "
                        "run could be someone else's: use a copy of the authors' code that only you can write"
                    )
            else:
                raise DataError(
                    f"{path} is not a regular file or a folder (a link, a FIFO or a device): the authors' "
                    "folder is read only as regular files"
                )
            if stat.S_ISREG(st.st_mode):
                total += st.st_size
                if st.st_size > MAX_FILE or total > MAX_TOTAL:
                    raise DataError(
                        f"{path}: the authors' folder holds more than {MAX_FILE // 2**20} MiB in one file "
                        f"or {MAX_TOTAL // 2**20} MiB in all: not a checkout of their code"
                    )
                files.append(rel)
    return files


def _raise(exc: OSError) -> None:
    raise DataError(f"{exc.filename}: cannot be read ({exc.strerror})") from None


def patched_copy(code: str | Path, dest: str | Path) -> dict:
    """Copy the authors' folder ``code`` to ``dest`` (a new folder) and apply :data:`EDITS` to the
    copy; returns ``{"<file>: <what>": count}``. Only what :func:`checked_files` accepts is
    copied (each file opened without following a link, read up to its checked size). An edit
    that matches nothing is an error naming the file (another commit of their code), so the
    check never runs unedited code by mistake."""
    code, dest = Path(code), Path(dest)
    st = os.lstat(code / "run_sts.py") if os.path.lexists(code / "run_sts.py") else None
    if st is None or not stat.S_ISREG(st.st_mode):
        raise DataError(f"{code} is not a checkout of the authors' code: it has no run_sts.py")
    dest.mkdir(parents=True)
    for rel in checked_files(code):
        fd = os.open(code / rel, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            blob = f.read(MAX_FILE + 1)
        if len(blob) > MAX_FILE:
            raise DataError(f"{code / rel}: grew past {MAX_FILE // 2**20} MiB while it was copied")
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_bytes(blob)
    counts = {}
    for rel, pattern, repl, what in EDITS:
        path = dest / rel
        text, n = re.subn(pattern, repl, path.read_text(encoding="utf-8"))
        if n == 0:
            raise DataError(
                f"{path}: the edit '{what}' matches nothing; is this {AUTHORS_COMMIT} of princeton-nlp/c-sts?"
            )
        path.write_text(text, encoding="utf-8")
        counts[f"{rel}: {what}"] = counts.get(f"{rel}: {what}", 0) + n
    return counts


#: the columns of the authors' CSV files, in their order
CSV_COLUMNS = ("sentence1", "sentence2", "condition", "label")


def write_split(parts: dict[str, pd.DataFrame], folder: str | Path) -> dict[str, Path]:
    """Write the ``train``, ``validation`` and ``test`` frames of ``parts`` as the authors' code
    reads them (``csts_<split>.csv``, columns :data:`CSV_COLUMNS`, rows in the frame's order, so
    row ``i`` of the file is row ``i`` of ``parts[split]``); returns the paths by split."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for split in ("train", "validation", "test"):
        df = parts[split]
        missing = [c for c in CSV_COLUMNS if c not in df.columns]
        if missing:
            raise DataError(f"the {split} rows lack the column(s) {missing}")
        out[split] = folder / f"csts_{split}.csv"
        df[list(CSV_COLUMNS)].to_csv(out[split], index=False)
    return out


def authors_args(files: dict[str, Path], model_path: str | Path, out: str | Path, *, seed: int) -> list[str]:
    """The arguments of ``run_sts.py`` for :data:`SETTINGS` (``run_sts.sh``'s values at
    :data:`AUTHORS_COMMIT` but one epoch, fp32, no evaluation during training and no checkpoints):
    the bi-encoder, MSE, [CLS] pooling, the full network, 8 rows × 4 accumulation steps, lr 1e-5,
    weight decay 0.1, 10 % warm-up (transformers 5 reads ``--warmup_steps 0.1`` as a ratio),
    length 512 with dynamic padding."""
    return [
        "--output_dir",
        str(out),
        "--model_name_or_path",
        str(model_path),
        "--objective",
        "mse",
        "--encoding_type",
        "bi_encoder",
        "--pooler_type",
        "cls",
        "--freeze_encoder",
        "False",
        "--transform",
        "False",
        "--triencoder_head",
        "None",
        "--max_seq_length",
        "512",
        "--train_file",
        str(files["train"]),
        "--validation_file",
        str(files["validation"]),
        "--test_file",
        str(files["test"]),
        "--condition_only",
        "False",
        "--sentences_only",
        "False",
        "--do_train",
        "--do_predict",
        "--eval_strategy",
        "no",
        "--per_device_train_batch_size",
        "8",
        "--gradient_accumulation_steps",
        "4",
        "--learning_rate",
        "1e-5",
        "--weight_decay",
        "0.1",
        "--max_grad_norm",
        "0.0",
        "--num_train_epochs",
        "1",
        "--lr_scheduler_type",
        "linear",
        "--warmup_steps",
        "0.1",
        "--save_strategy",
        "no",
        "--seed",
        str(seed),
        "--data_seed",
        str(seed),
        "--fp16",
        "False",
        "--disable_tqdm",
        "True",
        "--report_to",
        "none",
    ]


def read_predictions(path: str | Path, n: int) -> np.ndarray:
    """The authors' ``test_predictions.json`` (``{"<row>": prediction}``) as an array of ``n``
    rows in file order; a row missing, extra or not finite is an error naming the file."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: not a readable predictions file ({exc})") from None
    if not isinstance(raw, dict) or sorted(int(k) for k in raw) != list(range(n)):
        raise DataError(f"{path}: expected predictions keyed by the rows 0..{n - 1}, got {len(raw)} entries")
    pred = np.array([float(raw[str(i)]) for i in range(n)])
    if not np.isfinite(pred).all():
        raise DataError(f"{path}: {int((~np.isfinite(pred)).sum())} predictions are not finite")
    return pred


def compare(authors, book, *, k: float = 2.0) -> dict:
    """The two sides' test Spearman (one value per seed each, at least two per side) set
    against the pooled seed spread: means, standard deviations (ddof 1), the pooled standard
    deviation ``sqrt((sd_a² + sd_b²) / 2)``, the difference of the means (authors − book) and
    ``agree``: whether that difference lies within ``k`` pooled standard deviations."""
    r = seed_agreement(authors, book, k=k)
    return {
        "authors_mean": r["a_mean"],
        "authors_std": r["a_std"],
        "book_mean": r["b_mean"],
        "book_std": r["b_std"],
        "pooled_std": r["pooled_std"],
        "difference": r["difference"],
        "k": k,
        "agree": r["agree"],
    }


def paired_difference(authors: list, book: list, gold, pair_ids, *, n_boot: int = 1000, seed: int = 0) -> dict:
    """The mean over seeds of the test Spearman difference (authors − book), each seed's two
    prediction arrays (``authors[i]``, ``book[i]``, aligned with ``gold``) scored on the same
    pair-bootstrap replicates (:func:`~compsem.csts.metrics.pair_bootstrap_replicates` with one
    ``seed``: the draws are shared, so the difference is paired); its 95 % percentile interval."""
    if len(authors) != len(book) or not authors:
        raise ValueError(f"one prediction array per seed on each side, got {len(authors)} and {len(book)}")
    corr = [correlations(a, gold)["spearman"] - correlations(b, gold)["spearman"] for a, b in zip(authors, book)]
    reps = np.mean(
        [
            pair_bootstrap_replicates(a, gold, pair_ids, n_boot=n_boot, seed=seed)
            - pair_bootstrap_replicates(b, gold, pair_ids, n_boot=n_boot, seed=seed)
            for a, b in zip(authors, book)
        ],
        axis=0,
    )
    reps = reps[np.isfinite(reps)]
    return {
        "of": "authors - book",
        "mean": float(np.mean(corr)),
        "ci_low": float(np.quantile(reps, 0.025)),
        "ci_high": float(np.quantile(reps, 0.975)),
    }


def record_path() -> Path:
    """``benchmarks/csts_authors.json``: the comparison the book states."""
    return repo_root() / "benchmarks" / "csts_authors.json"


def load_record(path=None) -> dict | None:
    """The committed comparison (:func:`record_path`), or None when there is none."""
    path = Path(path) if path else record_path()
    if not path.is_file():
        return None
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
        rec["sides"]["authors"]["spearman_mean"], rec["sides"]["book"]["spearman_mean"]
    except (ValueError, KeyError, TypeError) as exc:
        raise DataError(f"{path}: not a comparison record ({exc!r})") from None
    return rec


def authors_values(cpu_score: float, cpu_config: str, path=None) -> dict:
    """Glue values of the comparison: both sides' test Spearman (mean ± std over seeds), the
    paired difference with its interval, the setting in words and a sentence setting one epoch
    of the authors' settings against ``cpu_score`` (the book's ``cpu`` preset, ``cpu_config``);
    ``auth_cell_plain`` is the cell of Part II's table of differences (plain text: another page).
    Without a record, the sentences say that it was not measured."""
    rec = load_record(path)
    if rec is None:
        none = Prose(
            "the authors' code has not been run beside the `official` preset for this book "
            "(`make authors-check` runs it)"
        )
        return {"auth_text": none, "auth_cell_plain": PlainText(none.replace("`", "")), "auth_ft_text": none}
    a, b, d = rec["sides"]["authors"], rec["sides"]["book"], rec["paired_difference"]
    n = len(rec["seeds"])
    sides = (
        f"the authors' `run_sts.py` at `{rec['authors_commit']}` {a['spearman_mean']:.2f} ± {a['spearman_std']:.2f}, "
        f"the book's `official` preset {b['spearman_mean']:.2f} ± {b['spearman_std']:.2f} (test Spearman, mean ± std "
        f"over {n} seeds)"
    )
    pair = (
        f"paired difference (authors − book) {d['mean']:+.2f}, 95 % bootstrap interval "
        f"[{d['ci_low']:.2f}, {d['ci_high']:.2f}]"
    )
    where = f"{rec['setting']}; measured {rec['when']} on {rec['machine']}"
    cell = f"run on the same rows with the same settings: {sides}; {pair} ({where})"
    about = round(float(np.mean([a["spearman_mean"], b["spearman_mean"]])))
    ft = (
        f"With the authors' settings ({rec['setting']}), their code and the `official` preset both score about "
        f"{about} on the test rows of the book's default split ({sides}; {pair}), against {cpu_score:.1f} for the `cpu` preset's "
        f"{cpu_config} in this run. The paper's numbers rest on three epochs and larger models"
    )
    return {
        "auth_text": Prose(sides + "; " + pair),
        "auth_cell_plain": PlainText(cell.replace("`", "")),
        "auth_ft_text": Prose(ft),
        "auth_about": about,
        "auth_authors_mean": float(a["spearman_mean"]),
        "auth_book_mean": float(b["spearman_mean"]),
    }


#: what each side's seconds in the record cover, by (side, cover): the authors' whole script or
#: their Trainer's loop; the book's presets are timed by ``compsem.csts.training.fit`` (its
#: ``seconds``, the run's ``train_seconds``), which starts after the model is loaded and ends
#: before any row is scored
_COVERS = {
    ("authors", "script"): "whole run_sts.py (loading, tokenising, training, evaluation, prediction)",
    ("authors", "loop"): "the Trainer's training loop (its train_runtime)",
    ("book", "loop"): "the training loop of fit (tokenising each batch, the steps; no model loading, no scoring)",
}

#: what a side's seconds cover where its record does not say (``seconds_cover``): the authors'
#: seconds of a record written before their Trainer's loop was read time the whole
#: ``run_sts.py`` process; the book's (the official and the cpu preset) were always the run's
#: ``train_seconds``, the training loop of ``fit``
_DEFAULT_COVER = {"authors": "script", "book": "loop"}

#: how much each cover holds beyond the training loop (for the bound of a ratio of two rates)
_BEYOND_LOOP = {"script": "loading and scoring", "loop": ""}


def train_runtime(out: str | Path) -> float | None:
    """The seconds the authors' Trainer spent in its training loop, from the ``train_runtime`` of
    ``train_results.json`` that ``trainer.save_metrics("train", ...)`` writes in the output folder;
    None where the run wrote no such file or no positive finite number."""
    try:
        v = json.loads((Path(out) / "train_results.json").read_text(encoding="utf-8")).get("train_runtime")
    except (OSError, ValueError, AttributeError):
        return None
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v) and v > 0
    return float(v) if ok else None


def _rate(side: dict, rows: int, who: str) -> tuple[float, str]:
    """``(examples per second, what the seconds cover)`` of one side of the record (``who``:
    ``"authors"`` or ``"book"``): its training loop where the record has it (``loop_seconds``),
    else its ``train_seconds``, covering what the record's ``seconds_cover`` says or, in a record
    written before that was kept, :data:`_DEFAULT_COVER`."""
    if side.get("loop_seconds"):
        return rows / float(side["loop_seconds"]), "loop"
    cover = side.get("seconds_cover", _DEFAULT_COVER[who])
    if (who, cover) not in _COVERS:
        raise DataError(f"the authors' record says the {who} side's seconds cover {cover!r}, which is not known")
    return rows / float(side["train_seconds"]), cover


def _bound(authors: str, book: str) -> str:
    """How a ratio book rate / authors' rate reads, from what each side's seconds cover
    (:data:`_BEYOND_LOOP`): an upper bound of the book's lead where the authors' seconds cover more
    than the training loop and the book's do not; nothing where both cover the same."""
    extra = _BEYOND_LOOP[authors]
    if not extra or _BEYOND_LOOP[book]:
        return ""
    return f" (an upper bound of the book's lead: the authors' seconds also cover {extra}, the book's only its training loop)"


def speed_values(path=None) -> dict:
    """How fast each side of the record trained one epoch of the same rows on the same machine:
    ``auth_speed_text`` and ``auth_speed_table`` (the authors' ``run_sts.py``, the book's
    ``official`` preset and, where the record has it, its ``cpu`` preset on the same rows). A rate
    whose seconds cover more than the training loop says so, and the ratio against it is then
    called an upper bound of the book's advantage."""
    rec = load_record(path)
    if rec is None:
        none = Prose("the authors' code has not been run beside the book's presets (`make authors-check` runs it)")
        return {"auth_speed_text": none, "auth_speed_table": None}
    rows = int(re.search(r"([\d,]+) training", rec["setting"]).group(1).replace(",", ""))
    sides = {
        "the authors' training script": rec["sides"]["authors"],
        "the book's official preset": rec["sides"]["book"],
    }
    if rec.get("cpu_preset"):
        sides["the book's cpu preset"] = rec["cpu_preset"]
    rates = {k: _rate(v, rows, "authors" if k.startswith("the authors'") else "book") for k, v in sides.items()}
    table = pd.DataFrame(
        [
            {
                "side": k,
                "seconds (mean over seeds)": f"{rows / r:.0f}",
                "seconds cover": _COVERS[("authors" if k.startswith("the authors'") else "book", cover)],
                "training rows per second": f"{r:.1f}",
            }
            for k, (r, cover) in rates.items()
        ]
    ).set_index("side")
    a, a_cover = rates["the authors' training script"]
    b, b_cover = rates["the book's official preset"]
    bound = _bound(a_cover, b_cover)
    text = (
        f"On {rec['machine']} ({rec['when']}), one epoch of the same {rows:,} training rows at the same settings ran "
        f"at {a:.1f} rows/s in the authors' `run_sts.py` and {b:.1f} in the book's `official` preset, "
        f"{b / a:.2f}× the authors' rate{bound}"
    )
    if "the book's cpu preset" in rates:
        c, c_cover = rates["the book's cpu preset"]
        text += (
            f"; the book's `cpu` preset trained the same rows at {c:.1f} rows/s there, {c / a:.2f}× the authors' "
            f"rate{_bound(a_cover, c_cover)}"
        )
    else:
        text += (
            "; the `cpu` preset was not run when this record was written (`make authors-check` now runs it beside them)"
        )
    return {"auth_speed_text": Prose(text), "auth_speed_table": table}


#: the modules the authors' side imports beyond the book's environment
NEEDS = ("transformers", "datasets", "accelerate")


def missing_reason(code: str | None, python: str) -> str | None:
    """Why the check cannot run here (no code folder, or a Python without what it needs), or None."""
    if not code:
        return "CSTS_AUTHORS_CODE is not set (the folder of princeton-nlp/c-sts at 3bacafa, fetched outside this repository)"
    if not (Path(code) / "run_sts.py").is_file():
        return f"CSTS_AUTHORS_CODE={code} has no run_sts.py (not a checkout of princeton-nlp/c-sts)"
    # exit status 0 when every module is there (sys.exit("") would exit 1), else the missing names
    probe = (
        "import importlib.util as u, sys; missing = [m for m in sys.argv[1:] if u.find_spec(m) is None]; "
        "sys.exit(', '.join(missing) if missing else 0)"
    )
    out = subprocess.run([python, "-c", probe, *NEEDS], capture_output=True, text=True)
    if out.returncode:
        return f"{python} lacks {out.stderr.strip() or 'a module'} that the authors' code imports (set CSTS_AUTHORS_PYTHON)"
    return None


def _machine() -> str:
    """The machine in words: its CPU kind (:func:`compsem.cpu.cpu_kind`) and model, cores, flags, load."""
    m = this_machine()
    shown = [f for f in ("avx2", "avx512f", "avx512_bf16", "amx") if m["cpu_flags"].get(f)]
    load = " / ".join(f"{x:.2f}" for x in m["load"])
    return (
        f"{cpu_kind_words(m['cpu_kind'])} ({m['cpu_model']}), {m['cores']} cores, "
        f"flags {', '.join(shown) or 'none of avx2/avx512'}, load {load}, fp32"
    )


def trained_seconds(runs: pd.DataFrame) -> pd.Series:
    """The training seconds per seed of runs that trained in this process; a run read back from
    the run cache carries another run's seconds, so it is refused, never timed."""
    reused = runs.get("reused", pd.Series(False, index=runs.index)).fillna(False).astype(bool)
    if reused.any():
        raise RuntimeError(
            f"{int(reused.sum())} of {len(runs)} book runs came from the run cache: their seconds are "
            "another run's, so they cannot be compared (train them with reuse=False)"
        )
    return runs.set_index("seed")["train_seconds"].astype(float)


def run_check(code: str, *, seeds=(42, 43), python: str = sys.executable, log=print) -> dict:
    """Run both sides for every seed and return the record (see ``benchmarks/csts_authors.json``)."""
    st = SETTINGS
    parts, _ = S.book_data(st["data"], split=st["split"], split_seed=st["split_seed"])
    test = parts["test"]
    gold = test["label"].to_numpy(dtype=float)
    model_path = resolve_backbone(st["encoder"])
    with tempfile.TemporaryDirectory(prefix="csts-authors-") as tmp:
        tmp = Path(tmp)
        edits = patched_copy(code, tmp / "code")
        files = write_split(parts, tmp / "data")
        sides = {"authors": [], "book": []}
        seconds = {"authors": [], "book": []}
        loop = {"authors": [], "book": []}
        for seed in seeds:
            log(f"authors' run_sts.py, seed {seed} ...")
            t0 = time.perf_counter()
            out = tmp / f"out-{seed}"
            proc = subprocess.run(
                [python, "run_sts.py", *authors_args(files, model_path, out, seed=seed)],
                cwd=tmp / "code",
                capture_output=True,
                text=True,
                env={**os.environ, "HF_HUB_OFFLINE": "1", "WANDB_DISABLED": "true"},
            )
            if proc.returncode:
                last = next((ln for ln in reversed(proc.stderr.splitlines()) if ln.strip()), "no message")
                raise RuntimeError(
                    f"the authors' run_sts.py failed (seed {seed}, exit {proc.returncode}): {last[:300]}"
                )
            seconds["authors"].append(time.perf_counter() - t0)
            loop["authors"].append(train_runtime(out))
            sides["authors"].append(read_predictions(out / "test_predictions.json", len(test)))
        log("the book's official preset ...")
        res = S.run(
            [st["encoder"]],
            configs=[st["config"]],
            preset=st["preset"],
            overrides=st["overrides"],
            seeds=list(seeds),
            data=st["data"],
            split=st["split"],
            split_seed=st["split_seed"],
            reuse=False,
        )
        model = res.models[0]
        book_seconds = trained_seconds(res.runs)
        for seed in seeds:
            sides["book"].append(res.predictions[(model, res.configs[0].label, int(seed), "test")])
            seconds["book"].append(float(book_seconds.loc[seed]))
            loop["book"].append(seconds["book"][-1])
        log("the book's cpu preset on the same rows (its speed beside the authors') ...")
        fast = S.run(
            [st["encoder"]],
            configs=[st["config"]],
            preset="cpu",
            seeds=list(seeds),
            data=st["data"],
            split=st["split"],
            split_seed=st["split_seed"],
            reuse=False,
        )
        trained_seconds(fast.runs)
        fast_runs = fast.runs.set_index("seed")
    scores = {k: [correlations(p, gold) for p in v] for k, v in sides.items()}
    cmp = compare([s["spearman"] for s in scores["authors"]], [s["spearman"] for s in scores["book"]])
    rec = {
        "what": "the authors' run_sts.py beside the book's official preset on the same rows and settings (test split)",
        "source": "make authors-check (python -m compsem.csts.authors)",
        "when": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": _machine(),
        "cpu_kind": this_machine()["cpu_kind"],
        "authors_commit": AUTHORS_COMMIT,
        "book_commit": commit_of(),
        "setting": (
            f"book_data({st['data']!r}, split={st['split']!r}, split_seed={st['split_seed']}): "
            f"{len(parts['train']):,} training, {len(parts['validation']):,} validation and {len(test):,} test "
            "rows; sbert-mini's transformer, bi-encoder, MSE, [CLS] pooling, the full network trained, lr 1e-5, "
            "weight decay 0.1, 8 rows x 4 accumulation steps, 10 % warm-up, length 512 with dynamic padding, "
            "1 epoch, fp32"
        ),
        "seeds": [int(s) for s in seeds],
        "book_runs": "trained in this check (the run cache is not read for a timed side)",
        "edits": edits,
        "comparison": cmp,
        "sides": {
            k: {
                "spearman_mean": cmp[f"{k}_mean"],
                "spearman_std": cmp[f"{k}_std"],
                "spearman_per_seed": [s["spearman"] for s in scores[k]],
                "pearson_per_seed": [s["pearson"] for s in scores[k]],
                "train_seconds": float(sum(seconds[k]) / len(seconds[k])),
                "seconds_cover": "loop" if k == "book" else "script",
                "loop_seconds": float(np.mean(loop[k])) if all(loop[k]) else None,
            }
            for k in sides
        },
        "cpu_preset": {
            "train_seconds": float(fast_runs["train_seconds"].mean()),
            "seconds_cover": "loop",
            "loop_seconds": float(fast_runs["train_seconds"].mean()),
            "spearman_per_seed": [float(fast_runs.loc[int(x), "test_spearman"]) for x in seeds],
            "precision": str(fast_runs["precision_used"].iloc[0]) if "precision_used" in fast_runs else None,
        },
        "paired_difference": paired_difference(sides["authors"], sides["book"], gold, test["pair_id"]),
    }
    return rec


def parse_seeds(text: str) -> list[int]:
    """``CSTS_AUTHORS_SEEDS`` (``"42,43"``) as distinct integers in 0..2**32-1, at least two; else a
    :class:`DataError` naming the value."""
    try:
        seeds = [int(s) for s in text.split(",")]
    except ValueError:
        seeds = []
    if len(seeds) < 2 or len(set(seeds)) != len(seeds) or not all(0 <= s < 2**32 for s in seeds):
        raise DataError(
            f"CSTS_AUTHORS_SEEDS={text[:60]!r} is not a comma-separated list of at least two distinct "
            "integers from 0 to 2**32-1 (e.g. 42,43)"
        )
    return seeds


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    code, python = os.environ.get("CSTS_AUTHORS_CODE"), os.environ.get("CSTS_AUTHORS_PYTHON", sys.executable)
    try:
        if "--out" in argv and argv.index("--out") == len(argv) - 1:
            raise DataError("--out needs a file name")
        out = Path(argv[argv.index("--out") + 1]) if "--out" in argv else record_path()
        reason = missing_reason(code, python)
        if reason:  # --if-available (make bench): the record stays as committed, and that is no failure
            print(f"authors-check not run: {reason}", file=sys.stderr)
            return 0 if "--if-available" in argv else 2
        seeds = parse_seeds(os.environ.get("CSTS_AUTHORS_SEEDS", "42,43"))
        checked_files(code)  # before anything runs
        rec = run_check(code, seeds=seeds, python=python)
        out.write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")
    except Exception as exc:  # noqa: BLE001 - every failure is exit 2 and one line, as documented
        text = " ".join(str(exc).split()) or "no message"
        print(f"authors-check failed: {type(exc).__name__}: {text[:500]}", file=sys.stderr)
        return 2
    c = rec["comparison"]
    print(
        f"authors {c['authors_mean']:.2f} ± {c['authors_std']:.2f}, book {c['book_mean']:.2f} ± {c['book_std']:.2f}; "
        f"difference {c['difference']:+.2f} against {c['k']:g} x pooled std {c['pooled_std']:.2f}: "
        f"{'agree' if c['agree'] else 'DISAGREE'} (written to {out})"
    )
    return 0 if c["agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
