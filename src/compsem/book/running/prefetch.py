"""``python -m compsem prefetch NOTEBOOK -p name value ...``: a chapter's heavy work ahead of its run.

The study declares the work of a chapter with these parameters as independent units
(``study.planned_work(params)``, :class:`compsem.work.WorkUnit`): one model's embeddings of a
chunk of texts, one block of a Part IV score matrix, one C-STS fine-tuning run, one batch of
Part I fusions (chapter 10 building a set from a reader's documents). This module
runs every unit that is not stored yet, with one of two engines:

* ``local`` (default): in this process, one unit after another;
* ``ray``: one Ray task per unit, on a local Ray instance (``address=None``) or on a cluster
  (``"auto"``, ``"ray://host:port"``). Ray is imported only here, only when asked for.

Workers never write to the caches: a task returns its vectors, block, run record or fusions,
and the driver (this process) commits each as it arrives. A killed sweep keeps every finished unit; a
rerun does only the rest; a chapter run afterwards with the same parameters finds everything in
the cache. A unit that fails is retried ``retries`` times, then reported by name with its
error while the others go on.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import secrets
import shutil
import stat
import tempfile
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


from compsem import studies, work
from compsem.errors import UnsafeFolderError
from compsem.paths import cache_dir, overlay_dir
from compsem.store import can_write
from compsem.fmt import noun
from compsem.progress import bar as progress_bar
from compsem.reference import paper_match
from compsem.work import WorkUnit
from compsem.book.running.plan import REFERENCE_MODEL, check_models, notebook_parameters, throughputs, train_rate

__all__ = [
    "ENGINES",
    "Outcome",
    "Rates",
    "planned_work",
    "run_unit",
    "commit_unit",
    "unit_done",
    "run_units",
    "prefetch",
    "prefetch_warnings",
    "PrefetchWarning",
    "start_ray",
]

ENGINES = ("local", "ray")


class Rates(Mapping):
    """Throughput per spec on the benchmark machine (``benchmarks/results.json``): texts per
    second for an encoder, ordered pairs per second for an NLI model (a pair read as one text of
    an encoder of the same size), training examples per second with ``train=True``. A spec
    not benchmarked is scaled from ``sbert-mini`` by its ``paper_models/<study>.csv`` size (rough)."""

    def __init__(self, study: str, *, train: bool = False, bench: str | Path | None = None):
        self.study, self.train = study, train
        self.measured = throughputs(bench)
        self._train_rate = _train_rate(bench) if train else None

    def _size(self, spec: str) -> float | None:
        row = paper_match(self.study, spec)
        size = None if row is None else row.get("size_gb")
        try:
            size = float(size)
        except (TypeError, ValueError):
            return None
        return size if size > 0 else None

    def __getitem__(self, spec: str) -> float:
        ref, ref_gb = REFERENCE_MODEL
        size = self._size(spec)
        if self.train:
            if self._train_rate and (spec == ref or size):
                return self._train_rate * (1.0 if spec == ref else ref_gb / size)
            raise KeyError(spec)
        if spec in self.measured and not spec.startswith("nli:"):
            return self.measured[spec]
        if ref in self.measured and size and not spec.startswith(("oa:", "gen:")):
            rate = self.measured[ref] * ref_gb / size
            return rate / 2 if spec.startswith("nli:") else rate
        raise KeyError(spec)

    def __iter__(self):
        return iter(self.measured)

    def __len__(self) -> int:
        return len(self.measured)


def _train_rate(bench: str | Path | None) -> float | None:
    """The benchmark's fine-tuning rate (:func:`compsem.book.running.plan.train_rate`)."""
    return train_rate(bench)


def planned_work(
    notebook: str | Path,
    overrides: Mapping[str, Any] | None = None,
    *,
    chunk: int | None = None,
    bench: str | Path | None = None,
) -> tuple[str | None, list[WorkUnit]]:
    """``(study, units)`` for a chapter with these parameters (the notebook's ``parameters``
    cell, read not executed, then ``overrides``); no units for a chapter of no study or a study
    without ``planned_work``."""
    defaults = notebook_parameters(notebook)
    unknown = sorted(set(overrides or {}) - set(defaults))
    if unknown:
        raise ValueError(
            f"{Path(notebook).name} has no {noun(len(unknown), 'parameter')} {unknown}; its parameters are: "
            f"{', '.join(defaults)}"
        )
    params = {**defaults, **(overrides or {})}
    check_models(notebook, params)  # a model of the wrong kind is refused before any unit
    entry = studies.of_notebook(notebook)
    if entry is None:
        return None, []
    study = entry.name
    mod = importlib.import_module(f"{entry.package}.study")
    fn = getattr(mod, "planned_work", None)
    if fn is None:
        return study, []
    rates = Rates(study, train="configs" in params, bench=bench)  # configurations to train
    units = fn(params, rates=rates, chunk=chunk)
    return study, [u if u.size_gb is not None else dataclasses.replace(u, size_gb=rates._size(u.spec)) for u in units]


def _study(unit: WorkUnit):
    return importlib.import_module(f"compsem.{unit.study}.study")


def run_unit(unit: WorkUnit) -> Any:
    """Compute a unit (on a worker or here); writes nothing, returns what :func:`commit_unit` stores."""
    if unit.kind == "embed":
        p = unit.payload
        return work.encode_chunk(
            unit.spec, p["texts"], trust_remote_code=p.get("trust_remote_code", False), device=p.get("device")
        )
    return _study(unit).run_unit(unit)


def commit_unit(unit: WorkUnit, result: Any) -> None:
    """Store a unit's result where the chapter reads it (the driver only)."""
    if unit.kind == "embed":
        work.store_vectors(result, unit.payload["texts"])
    else:
        _study(unit).store_unit(unit, result)


def unit_done(unit: WorkUnit) -> bool:
    """Whether a unit's result is already stored."""
    return work.embed_done(unit) if unit.kind == "embed" else _study(unit).unit_done(unit)


@dataclass
class Outcome:
    """What a sweep did: units planned, already stored, computed here, failed (name -> error)."""

    planned: int = 0
    stored_before: int = 0
    computed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    estimate_s: float | None = None

    def summary(self) -> str:
        est = "" if self.estimate_s is None else f" (plan: ~{_duration(self.estimate_s)} on one worker)"
        lines = [
            f"{self.planned} units planned{est}: {self.stored_before} already stored, {len(self.computed)} "
            f"computed and stored, {len(self.failed)} failed; {self.seconds:.1f} s"
        ]
        lines += [f"FAILED {name}: {err}" for name, err in self.failed.items()]
        return "\n".join(lines)


def _duration(seconds: float) -> str:
    return (
        f"{seconds:.0f} s"
        if seconds < 90
        else (f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h")
    )


def _error(exc: BaseException) -> str:
    cause = getattr(exc, "cause", None)  # a Ray task error carries the worker's exception
    exc = cause if isinstance(cause, BaseException) else exc
    return f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1] if str(exc).strip() else ''}"


def _run_local(units, execute, on_result, on_failure, *, retries: int) -> None:
    for unit in units:
        for attempt in range(retries + 1):
            try:
                result = execute(unit)
            except Exception as exc:  # noqa: BLE001 - reported by unit, the sweep goes on
                if attempt == retries:
                    on_failure(unit, exc)
                continue
            on_result(unit, result)
            break


def private_ray_token() -> dict[str, str | None]:
    """Make the next local Ray instance use token authentication with a fresh random token held
    only in this process's environment (``RAY_AUTH_MODE=token``, ``RAY_AUTH_TOKEN``), which Ray's
    own processes inherit and other users cannot read; return the variables' earlier values (for
    :func:`restore_env`).

    Without this, Ray 2.60 writes its token to ``~/.ray/auth_token`` with the default umask
    (world-readable, 0644), and another user of a shared machine who reads it can join the
    instance, whose ``gcs_server`` and ``raylet`` listen on every interface (measured: even with
    ``_node_ip_address="127.0.0.1"``), so the token is the guard. A token the user gave
    (``RAY_AUTH_TOKEN`` or ``RAY_AUTH_TOKEN_PATH``) and an explicit ``RAY_AUTH_MODE`` are kept.
    """
    names = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN")
    saved = {k: os.environ.get(k) for k in names}
    os.environ.setdefault("RAY_AUTH_MODE", "token")
    if os.environ["RAY_AUTH_MODE"] == "token" and not (
        os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH")
    ):
        os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    _reload_ray_auth()
    return saved


def _reload_ray_auth() -> None:
    """Make an already imported Ray read ``RAY_AUTH_*`` again (it caches them at import; Ray's
    own ``ray.init`` refreshes them the same way)."""
    try:
        from ray._raylet import AuthenticationTokenLoader, Config  # only the ray engine (pip install -e .[cluster])
    except ImportError:  # pragma: no cover - a Ray without token authentication
        return
    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()


def restore_env(saved: dict[str, str | None]) -> None:
    """Put back environment variables saved by :func:`private_ray_token`."""
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    if saved:
        _reload_ray_auth()


#: The private roots of the local Ray instances this process started (removed after shutdown).
RAY_ROOTS: list[Path] = []


def private_ray_root() -> Path:
    """A fresh root folder of this user's, mode ``0700``, made before Ray starts; returns the
    folder below it that Ray is given as its ``_temp_dir`` (also ``0700``). Ray makes its temp
    folder and some folders in it world-writable (``0777``, for a ``/tmp/ray`` shared by many
    users); below a root that only this user may enter, nobody else reaches them."""
    root = Path(tempfile.mkdtemp(prefix="compsem-ray-"))
    RAY_ROOTS.append(root)
    session = root / "session"
    session.mkdir(mode=0o700)
    return session


def check_ray_root(root: Path) -> None:
    """After Ray started: ``root`` must still be a folder of this user's with mode ``0700``, and
    everything below it this user's; what Ray made group- or world-writable is made writable by
    this user only, and anything that stays so is an :class:`~compsem.errors.UnsafeFolderError`
    naming it (the caller shuts Ray down)."""
    me = os.geteuid()
    st = os.lstat(root)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != me or stat.S_IMODE(st.st_mode) != 0o700:
        raise UnsafeFolderError(
            f"Ray's private root {root} is no longer a 0700 folder of yours (mode "
            f"{stat.S_IMODE(st.st_mode):o}, uid {st.st_uid}): refused, Ray shut down"
        )
    for top, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = os.path.join(top, name)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                continue  # a link's own mode means nothing; its target is judged where it lies
            if st.st_mode & 0o022 and st.st_uid == me:
                os.chmod(path, stat.S_IMODE(st.st_mode) & ~0o022)
                st = os.lstat(path)
            why = [w for w, bad in (("not yours", st.st_uid != me), ("writable by others", st.st_mode & 0o022)) if bad]
            if why:
                raise UnsafeFolderError(
                    f"{path} in Ray's private root is {' and '.join(why)} (mode "
                    f"{stat.S_IMODE(st.st_mode):o}, uid {st.st_uid}): refused, Ray shut down"
                )


def remove_ray_roots() -> None:
    """Remove the private roots of the local Ray instances this process started (after shutdown)."""
    while RAY_ROOTS:
        shutil.rmtree(RAY_ROOTS.pop(), ignore_errors=True)


def start_ray(address: str | None, *, num_cpus: int | None = None, attempts: int = 3) -> dict[str, str | None]:
    """``ray.init`` without the dashboard: a local instance (``address=None``, ``num_cpus``
    CPUs, default all; token authentication with a private token, see :func:`private_ray_token`)
    or a running cluster. A local instance keeps its session tree (sockets, logs) below a root
    folder of this user's made ``0700`` before Ray starts (:func:`private_ray_root`), never in
    the shared ``/tmp/ray``; once it runs, the modes under the root are checked
    (:func:`check_ray_root`) and Ray is shut down if anything there is another user's or stays
    writable by others. A local raylet that does not register within Ray's 30 s (a busy
    machine) is shut down and started again, up to ``attempts`` times. Returns the environment
    to restore (:func:`restore_env`) after ``ray.shutdown()``."""
    import ray  # only the ray engine needs it (pip install -e .[cluster])

    saved = private_ray_token() if address is None else {}
    kw = {"num_cpus": num_cpus} if address is None and num_cpus else {}
    if address is None:
        kw["_temp_dir"] = str(private_ray_root())
    for attempt in range(attempts):
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, **kw)
            if address is None:
                check_ray_root(Path(kw["_temp_dir"]).parent)
            return saved
        except UnsafeFolderError:
            ray.shutdown()
            restore_env(saved)
            remove_ray_roots()
            raise
        except Exception as exc:  # noqa: BLE001 - Ray raises a bare Exception for this
            if "timed out during startup" not in str(exc) or attempt == attempts - 1:
                restore_env(saved)
                raise
            ray.shutdown()
    return saved


def _in_task(execute: Callable[[WorkUnit], Any], threads: int, unit: WorkUnit) -> Any:
    """A Ray task: torch on the task's CPUs (as many threads, whatever the worker's environment
    says: a product may round differently on another number of threads), then the unit."""
    try:
        import torch  # heavy: only in the worker, when the unit needs it anyway
    except ImportError:  # pragma: no cover - torch is a dependency of the project
        torch = None
    if torch is not None and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    return execute(unit)


def driver_threads() -> int:
    """Torch's thread count in this process (the one a chapter run here would use)."""
    import torch  # heavy: only the ray engine asks

    return int(torch.get_num_threads())


def _run_ray(
    units,
    execute,
    on_result,
    on_failure,
    *,
    retries: int,
    address: str | None,
    gpus_per_task: float | None,
    cpus_per_task: float,
    num_cpus: int | None,
    threads_per_task: int | None = None,
) -> None:
    import ray  # only the ray engine needs it (pip install -e .[cluster])

    started = not ray.is_initialized()
    saved = start_ray(address, num_cpus=num_cpus) if started else {}
    try:
        gpus = gpus_per_task if gpus_per_task is not None else (1 if ray.cluster_resources().get("GPU") else 0)
        task = ray.remote(_in_task)
        threads = int(threads_per_task) if threads_per_task else driver_threads()
        pending = {}
        for unit in units:
            opts = {
                "num_cpus": cpus_per_task,
                "num_gpus": gpus,
                "max_retries": retries,
                "retry_exceptions": True,
                "name": unit.name,
            }
            if unit.size_gb:  # host memory to load the model's weights
                opts["memory"] = int(unit.size_gb * 1.5 * 2**30)
            pending[task.options(**opts).remote(execute, threads, unit)] = unit
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                unit = pending.pop(ref)
                try:
                    result = ray.get(ref)
                except Exception as exc:  # noqa: BLE001 - a failed task, a lost worker
                    on_failure(unit, exc)
                    continue
                on_result(unit, result)
    finally:
        if started:
            ray.shutdown()
            restore_env(saved)
            remove_ray_roots()


def run_units(
    units: Sequence[WorkUnit],
    *,
    engine: str = "local",
    address: str | None = None,
    gpus_per_task: float | None = None,
    cpus_per_task: float = 1,
    num_cpus: int | None = None,
    threads_per_task: int | None = None,
    retries: int = 2,
    progress: bool = True,
    execute: Callable[[WorkUnit], Any] = run_unit,
    commit: Callable[[WorkUnit, Any], None] = commit_unit,
    done: Callable[[WorkUnit], bool] = unit_done,
) -> Outcome:
    """Run the units not ``done`` yet with ``engine``; ``commit`` each result as it arrives.

    ``execute`` runs on the workers and writes nothing; ``commit`` and ``done`` run here.
    ``retries``: further attempts of a failed unit (with Ray also after a lost worker).
    ``num_cpus`` caps a local Ray instance (``address=None``); ``gpus_per_task`` defaults to
    one GPU when the cluster has any, else none. ``cpus_per_task`` is what Ray reserves for a
    task when it schedules; ``threads_per_task`` is how many threads torch runs in the task,
    by default as many as in this process: a product of floats can round its last bits
    differently on another number of threads (measured: up to 1.1e-6 in an NLI model's
    probabilities on 1 against 2 threads), so the default keeps a prefetched result the bits a
    chapter run here would compute. On a cluster whose nodes differ from this machine, pass the
    task's CPUs for speed.
    """
    if threads_per_task is not None and int(threads_per_task) < 1:
        raise ValueError(f"threads_per_task must be at least 1, got {threads_per_task}")
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    if retries < 0:
        raise ValueError(f"retries must be at least 0, got {retries}")
    t0 = time.perf_counter()
    out = Outcome(planned=len(units), estimate_s=work.total_cost(units))
    todo = [u for u in units if not done(u)]
    out.stored_before = len(units) - len(todo)
    postfix = {} if out.estimate_s is None else {"plan": _duration(work.total_cost(todo) or 0.0)}
    bar = progress_bar(total=len(todo), show=progress, desc=f"prefetch ({engine})", unit="unit", postfix=postfix)

    def on_result(unit, result):
        commit(unit, result)
        out.computed.append(unit.name)
        bar.update(1)

    def on_failure(unit, exc):
        out.failed[unit.name] = _error(exc)
        bar.update(1)

    try:
        if engine == "local":
            _run_local(todo, execute, on_result, on_failure, retries=retries)
        elif todo:
            _run_ray(
                todo,
                execute,
                on_result,
                on_failure,
                retries=retries,
                address=address,
                gpus_per_task=gpus_per_task,
                cpus_per_task=cpus_per_task,
                num_cpus=num_cpus,
                threads_per_task=threads_per_task,
            )
    finally:
        bar.close()
    out.seconds = time.perf_counter() - t0
    return out


def prefetch_warnings(notebook: str | Path, planned: int, cache: Path | None = None) -> list[str]:
    """What a prefetch says before it runs (issue 48): a chapter with nothing to prefetch, and a
    cache (``COMPSEM_CACHE``, or ``cache``) that this user cannot write, so that what it computes
    would land in the private overlay instead of the cache it was asked to fill."""
    name = Path(notebook).name
    out = []
    if planned == 0:
        out.append(
            f"{name}: nothing to prefetch (no study plans its work for these parameters); to ready it for "
            f"students, run its lab once with `compsem run notebooks/{name} ...`: the run fills the cache"
        )
    cache = cache_dir(create=False) if cache is None else Path(cache)
    held = [cache, *sorted(cache.glob("*")), *sorted(cache.glob("*/*"))] if cache.is_dir() else [cache]
    locked = next((p for p in held if not can_write(p)), None)
    if locked is not None:
        out.append(
            f"the cache {cache} cannot be written by you ({locked} is read-only): what this prefetch computes "
            f"lands in your private overlay {overlay_dir()}, not in that cache; make it writable first "
            f"(chmod -R u+w {cache}) and read-only again afterwards (chmod -R a+rX,a-w {cache})"
        )
    return out


def prefetch(
    notebook: str | Path,
    overrides: Mapping[str, Any] | None = None,
    *,
    chunk: int | None = None,
    warn: Callable[[str], None] | None = None,
    **engine,
) -> Outcome:
    """Plan a chapter's units (:func:`planned_work`) and run those not stored (:func:`run_units`);
    ``warn`` is called with each of :func:`prefetch_warnings` first."""
    _, units = planned_work(notebook, overrides, chunk=chunk)
    for message in prefetch_warnings(notebook, len(units)):
        (warn or (lambda m: warnings.warn(m, PrefetchWarning, stacklevel=3)))(message)
    return run_units(units, **engine)


class PrefetchWarning(UserWarning):
    """A prefetch that will not fill the cache it was asked to fill."""
