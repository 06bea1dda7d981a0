"""``python -m compsem profile``: every study's headlines for a model, as files other tools read.

:func:`run` computes, for each model and each study of the registry, the study's headline rows
through the synthesis' own code (:func:`compsem.crossstudy.synthesis.profile` on that model and
study), with the synthesis chapter's controls (its ``controls`` parameter) computed beside it,
and writes one JSON file per model and study, ``OUT/<model>/<revision or identity>/<study>.json``
(the format: ``book/profile_format.md``, the schema ``data/profile/study.schema.json``), then
``OUT/profile.json`` and ``OUT/profile.md``: one row per model and headline beside the controls
(and the panel's models where the book's ``results/profile/`` holds them), with the words of the
separation test (:func:`compsem.crossstudy.synthesis.separation`). :func:`read` turns the files
back into the synthesis' profile table (replicates included), which is how chapter 90 reads them.

A study file is computed again only when its key changes (the commit, the model's identity, the
data's checksums, the seed, the bootstrap draws, the limit, the controls, the package versions):
a second identical run reads the files it wrote, embeds nothing and leaves them as they were;
only ``profile.json``'s date changes.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import os
import platform
import re
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd

from .. import notebooks
from ..cache import embed
from ..device import resolve_device
from ..encoders import check_available, get_encoder, installed_panel, resolve_models
from ..errors import CompsemError, check_trust_remote_code
from ..fmt import estimate
from ..git import commit_of
from ..paths import data_dir, notebooks_dir, results_dir
from ..reference import paper_match
from ..results import check_run_folder, provenance
from ..store import write_below
from ..studies import STUDIES, get as get_study
from . import synthesis

__all__ = [
    "FORMAT",
    "ProfileError",
    "Profile",
    "panel_controls",
    "model_folder",
    "data_checksums",
    "run",
    "read",
    "summary_rows",
    "markdown",
    "check",
    "validate",
    "schema",
]

#: The format's name and version, in every file.
FORMAT = "compsem-profile/1"

#: The synthesis chapter, whose ``controls`` parameter names the panel's controls.
CHAPTER = "90_synthesis.ipynb"

#: The fields a study file adds to a synthesis row in a finding (left out by :func:`read`).
_ADDED = ("higher", "comparisons", "paper_value", "verdict")

#: The columns of a synthesis row (:func:`compsem.results.headline_row`), in its order.
_COLUMNS = ("model", "part", "criterion", "label", "value", "low", "high", "n", "unit", "reference", "ties")
_COLUMNS += ("replicates", "control_of")

#: Row fields that hold numbers (null in a file where the number is NaN).
_FLOATS = ("value", "low", "high", "reference", "ties")

_WORDS = {
    "higher": "above",
    "lower": "below",
    "no evidence of a difference": "no evidence of a difference from",
    "undefined": "no paired interval with",
}


class ProfileError(CompsemError):
    """A profile that could not be made: an unknown study, a folder not the caller's, a study
    that failed for a model (the message names it), a file that does not fit the schema."""


@dataclass
class Profile:
    """What :func:`run` did: the profile read back from the files (``prof``, as
    :func:`compsem.crossstudy.synthesis.profile` gives it), the models and controls, the files
    written and those reused, the summary rows, and the (model, study, error) of each failure."""

    prof: pd.DataFrame
    models: list[str]
    controls: list[str]
    written: list[Path] = field(default_factory=list)
    reused: list[Path] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)
    failed: list[tuple[str, str, str]] = field(default_factory=list)


def panel_controls() -> list[str]:
    """The panel's controls: the synthesis chapter's ``controls`` parameter (its one source)."""
    return list(notebooks.defaults(notebooks_dir() / CHAPTER)["controls"])


def _safe(name: str) -> str:
    """A spec as one folder name (``st:org/model`` → ``st_org__model``), as mteb names its folders."""
    return re.sub(r"[^A-Za-z0-9._=+-]", "_", name.replace("/", "__")).lstrip(".") or "_"


def model_folder(spec: str, *, trust_remote_code: bool = False) -> dict:
    """The model's identity (:attr:`compsem.encoders.Encoder.identity`, the embedding cache's key),
    its hub revision or file digest where the identity holds one (``weights=``), and the folder
    ``<model>/<revision or identity digest>`` its files go to."""
    identity = get_encoder(spec, trust_remote_code=trust_remote_code).identity
    m = re.search(r"\|weights=([^|]+)", identity)
    revision = m.group(1) if m else None
    digest = hashlib.sha256(identity.encode()).hexdigest()[:12]
    return {
        "spec": spec,
        "identity": identity,
        "revision": revision,
        "digest": digest,
        "folder": f"{_safe(spec)}/{_safe(revision or digest)}",
    }


def data_checksums(study: str) -> dict[str, str]:
    """SHA-256 of every file the study ships (``data/<study>/``) and of its transcribed numbers
    (``data/reference/<study>_*.csv``, ``data/reference/paper_models/<study>.csv``), by path
    relative to the data folder."""
    s, root = get_study(study), data_dir()
    files = [p for p in sorted((root / s.data_folder).rglob("*")) if p.is_file()]
    files += sorted((root / "reference").glob(f"{s.reference_prefix}*.csv"))
    files += [p for p in [root / "reference" / "paper_models" / f"{s.name}.csv"] if p.is_file()]
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def _machine() -> dict:
    """The CPU's model name and family (``/proc/cpuinfo``) and the core count."""
    try:
        info = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        info = ""
    name = re.search(r"^model name\s*:\s*(.+)$", info, re.M)
    fam = re.search(r"^cpu family\s*:\s*(\S+)", info, re.M)
    return {
        "cpu_model": name.group(1).strip() if name else (platform.processor() or platform.machine()),
        "cpu_family": fam.group(1) if fam else None,
        "cores": os.cpu_count(),
    }


def _precision(identity: str) -> str:
    """The precision of the model's vectors: the ``dtype=`` its identity names, else float32
    (the encoders' default: any other precision is part of the identity)."""
    m = re.search(r"\|dtype=([^|]+)", identity)
    return m.group(1) if m else "float32"


def _num(x):
    """A JSON value: NaN and infinities as null, numpy scalars and arrays as Python ones."""
    if isinstance(x, dict):
        return {k: _num(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return [_num(v) for v in x.tolist()]
    if isinstance(x, (list, tuple)):
        return [_num(v) for v in x]
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x) if math.isfinite(x) else None
    return x


def _row(row: dict) -> dict:
    return {k: _num(v) for k, v in row.items() if not (isinstance(v, float) and math.isnan(v) and k == "degenerate")}


def _verdict(f: dict, role: str) -> str:
    """The words of a finding: a control's row is not ranked; a degenerate row says why; else
    the outcome of each paired comparison with a control (the synthesis' separation test)."""
    if role == "control":
        return "control: not ranked"
    if f.get("degenerate_reason"):
        return f"n/a: {f['degenerate_reason']}"
    words = [f"{_WORDS[c['outcome']]} `{c['control']}`" for c in f["comparisons"]]
    lead = "" if f["higher"] is not None else "no direction argued; "
    return lead + ("; ".join(words) if words else "no control to compare with")


def _file(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _dump(obj: dict) -> str:
    return json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


def _check_folder(out: Path) -> None:
    """``out`` may be written: a folder of the caller's that others cannot write (or a new one)."""
    if not out.exists():
        return
    st = out.lstat()
    if not stat.S_ISDIR(st.st_mode):
        raise ProfileError(f"{out} is not a folder (or is a link): name a folder of your own for --out")
    if st.st_uid != os.geteuid() or st.st_mode & 0o022:
        raise ProfileError(
            f"{out} belongs to uid {st.st_uid} or others may write it (mode {stat.S_IMODE(st.st_mode):o}): "
            "profile writes only into a folder of your own"
        )


def _write(out: Path, rel: str, text: str) -> Path:
    target = out / rel
    if target.exists() and target.lstat().st_uid != os.geteuid():
        raise ProfileError(f"{target} belongs to another user: not overwritten")
    return write_below(out, rel, text)


def _rows_of(doc: dict) -> list[dict]:
    """The synthesis rows a study file holds (its findings and the study's own controls)."""
    out = []
    for r in doc["findings"] + doc["own_controls"]:
        row = {k: v for k, v in r.items() if k not in _ADDED and k != "degenerate_reason"}
        for k in _FLOATS:
            row[k] = np.nan if row.get(k) is None else row[k]
        row["replicates"] = None if row.get("replicates") is None else np.asarray(row["replicates"], dtype=float)
        out.append(row)
    return out


def _sorted(rows: list[dict]) -> pd.DataFrame:
    """The rows as :func:`compsem.crossstudy.synthesis.profile` orders them."""
    prof = pd.DataFrame(rows)
    prof = prof.assign(control_of=prof["control_of"].fillna("").astype(str))
    prof = prof[[c for c in _COLUMNS if c in prof] + [c for c in prof if c not in _COLUMNS]]
    order = {c.key: i for i, c in enumerate(synthesis.CRITERIA)}
    return prof.sort_values(
        ["model", "criterion"], key=lambda s: s.map(order) if s.name == "criterion" else s, kind="stable"
    ).reset_index(drop=True)


def read(out: str | Path, models: Sequence[str], *, studies: Sequence[str] | None = None) -> pd.DataFrame:
    """The profile of ``models`` from the study files in ``out``, as
    :func:`compsem.crossstudy.synthesis.profile` gives it (replicates included)."""
    out, names = Path(out), _studies(studies)
    rows = []
    for m in models:
        folder = model_folder(m)["folder"]
        for s in names:
            doc = _file(out / folder / f"{s}.json")
            if doc is None:
                raise ProfileError(f"{out / folder / s}.json is missing or unreadable: run the profile first")
            rows += _rows_of(doc)
    return _sorted(rows)


def _studies(studies: Sequence[str] | None) -> list[str]:
    if not studies:
        return [s.name for s in STUDIES]
    return [get_study(s).name for s in studies]  # an unknown name: CompsemError listing the studies


def _key(doc: dict) -> dict:
    keep = ("format", "study", "commit", "seed", "n_boot", "limit", "controls", "python", "packages")
    return {k: doc.get(k) for k in keep} | {
        "identity": doc.get("model", {}).get("identity"),
        "data": doc.get("data"),
        "role": doc.get("role"),
    }


def _compute(todo, study, result, *, n_boot, seed, trc, limit) -> tuple[dict[str, list[dict]], float]:
    """``{model: its synthesis rows (the study's own controls of it among them)}`` for ``todo``
    on ``study``, in one call of :func:`compsem.crossstudy.synthesis.profile`, and its seconds.
    When that call fails, each model alone, so that the failure names the model (recorded in
    ``result.failed``; the others go on)."""
    t0 = time.perf_counter()
    try:
        prof = synthesis.profile(todo, n_boot=n_boot, seed=seed, trust_remote_code=trc, studies=[study], limit=limit)
        groups = [(todo, prof)]
    except Exception:  # noqa: BLE001 - retried model by model below, to name the one that fails
        groups = []
        for m in todo:
            try:
                one = synthesis.profile(
                    [m], n_boot=n_boot, seed=seed, trust_remote_code=trc, studies=[study], limit=limit
                )
                groups.append(([m], one))
            except Exception as exc:  # noqa: BLE001 - recorded, named, and the run goes on
                result.failed.append((m, study, f"{type(exc).__name__}: {exc}"))
    seconds = time.perf_counter() - t0
    rows = {}
    for models, prof in groups:
        records = prof.to_dict("records")
        for m in models:
            rows[m] = [r for r in records if r["model"] == m or r["control_of"] == m]
    return rows, seconds


def _document(study, model, role, rows, ctrl_rows, ctrl, head, seconds) -> dict:
    """One study file: ``head`` (the key's fields) and the findings of ``rows``."""
    prof = pd.DataFrame(rows + ctrl_rows)
    prof = prof.assign(degenerate_reason=synthesis.degenerate(prof))
    sep = synthesis.separation(prof, [model["spec"]], [] if role == "control" else ctrl)
    paper = None
    try:
        hit = paper_match(study, model["spec"])
        paper = None if hit is None else {"row": str(hit["paper_name"]), "same_model": bool(hit["same_model"])}
    except CompsemError:
        paper = None
    findings, own = [], []
    for r, why in zip(rows, prof["degenerate_reason"][: len(rows)]):
        if r.get("control_of"):
            own.append(_row(r) | {"degenerate_reason": why})
            continue
        higher = next(c.higher for c in synthesis.CRITERIA if c.key == r["criterion"])
        comps = [
            _num(
                {
                    "control": c.control,
                    "value": float(prof[(prof.model == c.control) & (prof.criterion == r["criterion"])].value.iloc[0]),
                    "difference": c.difference,
                    "low": c.low,
                    "high": c.high,
                    "outcome": c.outcome,
                }
            )
            for c in sep[sep.criterion == r["criterion"]].itertuples()
        ]
        f = _row(r) | {"higher": higher, "comparisons": comps, "paper_value": None, "degenerate_reason": why}
        findings.append(f | {"verdict": _verdict(f, role)})
    main = findings[0] if findings else None
    return head | {
        "title": get_study(study).title,
        "part": get_study(study).roman,
        "paper": paper,
        "seconds": round(seconds, 3),
        "date": _now(),
        "main_score": None if main is None else main["value"],
        "main_criterion": None if main is None else main["criterion"],
        "findings": findings,
        "own_controls": own,
    }


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def run(
    models: Sequence[str] | str,
    *,
    out: str | Path | None = None,
    studies: Sequence[str] | None = None,
    controls: Sequence[str] | None = None,
    limit: int | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    trust_remote_code: bool = False,
    panel: bool = True,
    strict: bool = False,
) -> Profile:
    """Profile ``models`` (specs, or ``"panel"``) on ``studies`` (default every study), beside
    ``controls`` (default :func:`panel_controls`), into ``out`` (default the book's ``results/profile``).

    Every spec is checked before anything is written (an unknown one is an
    :class:`~compsem.errors.UnknownModelError` listing the specs there are). A study that fails
    for a model is recorded in ``Profile.failed`` and the others go on. ``panel``: put the panel's
    models beside them in the summary where the book's ``results/profile`` holds their files.
    ``strict``: raise :class:`ProfileError` naming every failed study and model (after the
    summary is written), as chapter 90 does."""
    trc = check_trust_remote_code(trust_remote_code, where="profile")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ProfileError(f"limit must be a whole number of at least 1; got {limit!r}")
    names = _studies(studies)
    specs = resolve_models(models, trust_remote_code=trc)
    ctrl = list(panel_controls() if controls is None else controls)
    ctrl = resolve_models(ctrl) if ctrl else []
    runs = list(dict.fromkeys(ctrl + specs))
    check_available(runs, trust_remote_code=trc)
    book = out is None
    out = results_dir("profile") if book else Path(out)
    if book:
        check_run_folder(out.parent)
    _check_folder(out)
    out.mkdir(parents=True, exist_ok=True)
    ids = {m: model_folder(m, trust_remote_code=trc) for m in runs}
    commit, ver = commit_of(), provenance()
    common = {
        "format": FORMAT,
        "commit": commit,
        "seed": seed,
        "n_boot": n_boot,
        "limit": limit,
        "controls": ctrl,
        "python": ver["python"],
        "packages": ver["packages"],
        "machine": _machine(),
    }
    result = Profile(prof=pd.DataFrame(), models=[m for m in specs if m not in ctrl], controls=ctrl)
    docs: dict[tuple[str, str], dict] = {}
    for s in names:
        heads, todo, checks = {}, [], data_checksums(s)
        for m in runs:
            heads[m] = common | {
                "study": s,
                "model": ids[m],
                "role": "control" if m in ctrl else "model",
                "data": checks,
                "limited": bool(limit is not None and synthesis.takes_limit(s)),
            }
            old = _file(out / ids[m]["folder"] / f"{s}.json")
            if old is not None and _key(old) == _key(heads[m]):
                docs[m, s] = old
                result.reused.append(out / ids[m]["folder"] / f"{s}.json")
            else:
                todo.append(m)
        if not todo:
            continue
        rows, seconds = _compute(todo, s, result, n_boot=n_boot, seed=seed, trc=trc, limit=limit)
        for m in [m for m in runs if m in rows]:  # the controls first: a model's file compares it with them
            ctrl_rows = [r for c in ctrl if c != m and (c, s) in docs for r in _rows_of(docs[c, s])]
            head = heads[m] | {
                "precision": _precision(ids[m]["identity"]),
                "device": resolve_device(),
                "computed_with": todo,
            }
            doc = _document(s, ids[m], heads[m]["role"], rows[m], ctrl_rows, ctrl, head, seconds)
            validate(doc, "study")
            result.written.append(_write(out, f"{ids[m]['folder']}/{s}.json", _dump(doc)))
            docs[m, s] = doc
    ok = [m for m in runs if all((m, s) in docs for s in names)]
    result.prof = _sorted([r for m in ok for s in names for r in _rows_of(docs[m, s])]) if ok else pd.DataFrame()
    beside = _panel_docs(names, exclude=runs) if panel else {}
    result.rows = summary_rows({**docs, **beside}, runs, names, ctrl, panel=[m for m, _ in beside])
    summary = {
        "format": FORMAT,
        "commit": commit,
        "date": _now(),
        "models": result.models,
        "controls": ctrl,
        "panel": list(dict.fromkeys(m for m, _ in beside)),
        "studies": names,
        "limit": limit,
        "limited": any(d.get("limited") for d in docs.values()),
        "files": sorted(f"{ids[m]['folder']}/{s}.json" for m, s in docs),
        "failed": [{"model": m, "study": s, "error": e} for m, s, e in result.failed],
        "rows": result.rows,
    }
    validate(summary, "summary")
    result.written.append(_write(out, "profile.json", _dump(summary)))
    result.written.append(_write(out, "profile.md", markdown(result.rows)))
    if strict and result.failed:
        raise ProfileError(
            "; ".join(f"study {s} failed for model {m}: {e}" for m, s, e in result.failed)
            + f" (the summary is in {out / 'profile.json'})"
        )
    return result


def _panel_docs(names: Sequence[str], *, exclude: Sequence[str]) -> dict[tuple[str, str], dict]:
    """The book's own study files (``results/profile``) of the panel's models not in this run:
    for each, the newest file of every study."""
    root = results_dir() / "profile"
    found: dict[tuple[str, str], dict] = {}
    for m in installed_panel():
        if m in exclude:
            continue
        for s in names:
            docs = [d for p in sorted((root / _safe(m)).glob(f"*/{s}.json")) if (d := _file(p)) is not None]
            docs = [d for d in docs if d.get("format") == FORMAT and d.get("role") == "model"]
            if docs:
                found[m, s] = max(docs, key=lambda d: d.get("date") or "")
    return found


def summary_rows(
    docs: dict[tuple[str, str], dict],
    runs: Sequence[str],
    names: Sequence[str],
    ctrl: Sequence[str],
    *,
    panel: Sequence[str] = (),
) -> list[dict]:
    """One row per headline and model, in the book's order of headlines: the run's models, the
    panel's (from the book's files), then the controls; each with its value, interval and the
    words of its finding."""
    models = [m for m in runs if m not in ctrl] + [m for m in dict.fromkeys(panel)] + list(ctrl)
    role = {m: "control" if m in ctrl else ("panel" if m in panel and m not in runs else "model") for m in models}
    rows = []
    for s in names:
        for c in synthesis.STUDY_REPORTS[s].HEADLINES:
            for m in models:
                doc = docs.get((m, s))
                f = next((x for x in (doc or {}).get("findings", []) if x["criterion"] == c.key), None)
                if f is None:
                    continue
                rows.append(
                    {
                        "study": s,
                        "part": c.part,
                        "criterion": c.key,
                        "headline": c.label,
                        "model": m,
                        "role": role[m],
                        "unit": c.unit,
                        "value": f["value"],
                        "low": f["low"],
                        "high": f["high"],
                        "verdict": f["verdict"] if role[m] != "control" else "control: not ranked",
                        "limited": bool(doc.get("limited")),
                        "commit": doc.get("commit"),
                    }
                )
    return rows


def _cell(r: dict) -> str:
    pct = r["unit"] == "%"
    nan = float("nan")
    value, low, high = (nan if r[k] is None else r[k] for k in ("value", "low", "high"))
    return estimate(value, low, high, 1 if pct else 2, unit=" %" if pct else "")


def markdown(rows: list[dict]) -> str:
    """The summary as a Markdown table (what ``profile.md`` holds and the command prints)."""
    head = (
        "| Part | headline | model | role | value [95 % interval] | against the controls |\n|---|---|---|---|---|---|\n"
    )
    body = "".join(
        f"| {r['part']} | {r['headline']} | `{r['model']}` | {r['role']}{' (limited)' if r['limited'] else ''} "
        f"| {_cell(r)} | {r['verdict'].replace('|', '/')} |\n"
        for r in rows
    )
    return head + body


# ----------------------------------------------------------------------------- schema, check


def schema(kind: str) -> dict:
    """The JSON Schema of a study file (``"study"``) or of ``profile.json`` (``"summary"``)."""
    return json.loads((data_dir("profile") / f"{kind}.schema.json").read_text(encoding="utf-8"))


def validate(doc: dict, kind: str) -> None:
    """Raise :class:`ProfileError` when ``doc`` does not fit :func:`schema` ``(kind)``."""
    errors = sorted(jsonschema.Draft202012Validator(schema(kind)).iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.path) or "(top)"
        raise ProfileError(f"a profile {kind} file does not fit its schema at {where}: {e.message}")


def _book_sentences(n: int = 6) -> list[str]:
    """A handful of the book's own sentences: the studies' try-it inputs, in the registry's order."""
    out: list[str] = []
    for s in STUDIES:
        t = getattr(s.module("report"), "TRY_IT", None)
        for v in t.inputs.values() if t is not None else ():
            out += [v] if isinstance(v, str) else [x for x in v if isinstance(x, str)] if isinstance(v, list) else []
    return list(dict.fromkeys(x for x in out if x.strip()))[:n]


def check(models: Sequence[str] | str, *, out: str | Path | None = None, trust_remote_code: bool = False) -> list[str]:
    """The dry check: every model loads (or :func:`compsem.encoders.check_available` names what to
    install) and embeds a handful of the book's sentences, and every file already in ``out``
    fits the schema; no study runs. Returns one line per thing checked."""
    trc = check_trust_remote_code(trust_remote_code, where="profile --check")
    specs = resolve_models(models, trust_remote_code=trc)
    check_available(specs, trust_remote_code=trc)
    texts, lines = _book_sentences(), []
    for m in specs:
        v = embed(texts, m, trust_remote_code=trc)
        ident = model_folder(m, trust_remote_code=trc)
        lines.append(
            f"{m}: loads, embeds {len(texts)} of the book's sentences into {v.shape[1]} dimensions ({ident['folder']})"
        )
    if out is not None and Path(out).is_dir():
        n = 0
        for p in sorted(Path(out).rglob("*.json")):
            doc = _file(p)
            if doc is None:
                raise ProfileError(f"{p} is not a JSON file")
            validate(doc, "summary" if p.name == "profile.json" else "study")
            n += 1
        lines.append(f"{out}: {n} files fit the schema")
    return lines
