"""Execute a chapter notebook with other parameters (papermill underneath).

``python -m compsem run notebooks/11_setcomp_overlap.ipynb -p models '["sbert-mini"]'`` writes
the executed notebook to ``runs/<name>-<hash of the parameters>/`` and that run's result
tables under the same folder, so the default book is never touched. The book build uses
``--book``: outputs go to ``_build/executed/notebooks`` and tables to ``results/``.

Every parameter is checked against the kind of its default (:mod:`compsem.book.running.params`); a run
folder holds one run and its manifest (:mod:`compsem.book.running.runfolder`). The kernel runs over
local IPC sockets whose connection file lies in a folder only this user can open (``0700``), so
no other user of a shared machine can attach to it. (ipykernel itself opens one TCP port, on
127.0.0.1, for output of forked subprocesses; it accepts only messages carrying a random token.)
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from compsem.paths import repo_root
from compsem.results import RunMixError
from compsem.settings import environment
from compsem.store import write_below
from compsem.book.running.params import (
    check_parameters,
    find_notebook,
    parameter_defaults,
    parameter_types,
    parameters_of,
    parse_value,
)
from compsem.book.running.plan import check_models
from compsem.book.running.runfolder import claim_output, prepare_out, run_id, write_manifest
from compsem.git import commit_of

__all__ = ["parse_value", "parameters_of", "run_notebook", "private_kernel_manager"]


def private_kernel_manager(folder: str | Path) -> type:
    """A kernel-manager class for nbclient whose kernels talk over IPC sockets, with their
    connection files (and the sockets beside them) in ``folder``."""
    from jupyter_client.manager import AsyncKernelManager

    folder = Path(folder)

    class PrivateKernelManager(AsyncKernelManager):
        def __init__(self, **kw):
            kw.setdefault("transport", "ipc")
            kw.setdefault("connection_file", str(folder / f"k-{uuid.uuid4().hex[:12]}.json"))
            super().__init__(**kw)

    return PrivateKernelManager


def run_notebook(
    notebook: str | Path,
    parameters: dict[str, Any] | None = None,
    *,
    out: str | Path | None = None,
    book: bool = False,
    kernel: str = "python3",
    progress: bool = True,
    timeout: int | None = None,
    force: bool = False,
    removed: list[str] | None = None,
) -> Path:
    """Run ``notebook`` with ``parameters``; return the path of the executed copy.

    Unknown parameter names, and values that do not fit their default (a string for a bool),
    are rejected before anything runs. Outside the book build, ``out`` must be empty, new, or an
    earlier run of this notebook with these parameters; ``force=True`` clears a run folder first
    (what it removes is printed before, and appended to ``removed``; see
    :mod:`compsem.book.running.runfolder`). The kernel runs with the notebook's folder as
    working directory.
    """
    import papermill as pm

    nb = find_notebook(notebook)
    parameters = dict(parameters or {})
    check_parameters(parameter_defaults(nb), parameters, notebook=nb.name, types=parameter_types(nb))
    check_models(nb, {**parameter_defaults(nb), **parameters})  # the wrong kind of model: refused now
    run = run_id(nb.name, parameters)
    explicit = out is not None
    if out is None:
        tag = hashlib.sha256(json.dumps(parameters, sort_keys=True).encode()).hexdigest()[:8]
        out = repo_root() / "runs" / f"{nb.stem}-{tag}"
    out = Path(out).resolve()
    commit = None if book else commit_of()
    if book:  # a folder of executed notebooks of the caller's own (its manifest says so), never the sources
        if out == nb.parent.resolve() or (out / nb.name).resolve() == nb.resolve():
            raise RunMixError(
                f"--book --out {out} is the folder of the source notebook {nb}: the book build "
                "writes executed copies elsewhere (_build/executed/notebooks)"
            )
        claim_output(out, kind="book")
        gone = []
    else:  # the default folder runs/<notebook>-<hash of the parameters> replaces an older run of the caller's
        gone = prepare_out(
            out, run=run, notebook=nb.name, parameters=parameters, commit=commit, force=force or not explicit
        )
    if removed is not None:
        removed.extend(gone)
    target = out / nb.name
    # The kernel inherits this process's environment. A rerun writes its tables beside the
    # executed notebook; figures need the inline backend (an inherited MPLBACKEND=Agg would
    # leave only "<Figure size ...>" text in the outputs).
    env = {"MPLBACKEND": "module://matplotlib_inline.backend_inline", "COMPSEM_ROOT": str(repo_root())}
    if not book:
        env["COMPSEM_RESULTS"] = str(out / "results")
        env["COMPSEM_RUN"] = run
    else:  # a page of the book never shows progress bars (compsem.progress reads the first;
        # the hub client's downloads for a reader with internet read the second)
        env["TQDM_DISABLE"] = "1"
        env["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    private = Path(tempfile.mkdtemp(prefix="compsem-k-"))  # mode 0700: only this user
    # papermill writes the executed copy in the private folder; it is moved into the run folder
    # without following a link there (compsem.store.write_below)
    draft = private / "executed" / nb.name
    draft.parent.mkdir()
    if not os.environ.get("TORCHINDUCTOR_CACHE_DIR"):  # torch's compile cache: private, removed with the run,
        env["TORCHINDUCTOR_CACHE_DIR"] = str(private / "torchinductor")  # never /tmp/torchinductor_<user>
    t0 = time.perf_counter()
    state = "failed"
    try:
        with environment({"COMPSEM_RUN": None, **env}):
            pm.execute_notebook(
                str(nb),
                str(draft),
                parameters=parameters,
                cwd=str(nb.parent),
                kernel_name=kernel,
                progress_bar=progress,
                execution_timeout=timeout,
                kernel_manager_class=private_kernel_manager(private),
            )
        state = "done"
    finally:
        try:
            if draft.is_file():
                write_below(out, nb.name, draft.read_bytes())
        finally:
            shutil.rmtree(private, ignore_errors=True)
            if not book and state != "done":
                write_manifest(out, run=run, notebook=nb.name, parameters=parameters, state=state, commit=commit)
    write_below(
        out,
        f"{nb.stem}.runtime.json",
        json.dumps(
            {"notebook": nb.name, "seconds": round(time.perf_counter() - t0, 2), "parameters": parameters}, indent=1
        ),
    )
    if not book:
        write_manifest(out, run=run, notebook=nb.name, parameters=parameters, state=state, commit=commit)
    return target
