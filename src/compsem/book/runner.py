"""Execute a chapter notebook with other parameters (papermill underneath).

``python -m compsem run notebooks/11_setcomp_overlap.ipynb -p models '["sbert-mini"]'`` writes
the executed notebook to ``runs/<name>-<hash of the parameters>/`` and that run's result
tables under the same folder, so the default book is never touched. The book build uses
``--book``: outputs go to ``_build/executed/notebooks`` and tables to ``results/``.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from ..paths import repo_root

__all__ = ["parse_value", "parameters_of", "run_notebook"]


def parse_value(text: str) -> Any:
    """A command-line parameter value: JSON when it parses (``3``, ``true``, ``["a", "b"]``,
    ``'"text"'``), else the plain string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parameters_of(notebook: str | Path) -> dict[str, Any]:
    """The names and default values of a notebook's ``parameters`` cell (papermill's inspection)."""
    import papermill as pm

    params = pm.inspect_notebook(str(notebook))
    return {k: v.get("default") for k, v in params.items()}


def run_notebook(notebook: str | Path, parameters: dict[str, Any] | None = None, *, out: str | Path | None = None,
                 book: bool = False, kernel: str = "python3", progress: bool = True, timeout: int | None = None) -> Path:
    """Run ``notebook`` with ``parameters``; return the path of the executed copy.

    Unknown parameter names are rejected with the list of the notebook's parameters (papermill
    would otherwise inject them silently). The kernel runs with the notebook's folder as
    working directory.
    """
    import papermill as pm

    nb = Path(notebook).resolve()
    if not nb.is_file():
        avail = sorted(p.name for p in (repo_root() / "notebooks").glob("*.ipynb"))
        raise FileNotFoundError(f"no notebook {notebook}; available: {', '.join(avail)}")
    parameters = dict(parameters or {})
    known = parameters_of(nb)
    unknown = sorted(set(parameters) - set(known))
    if unknown:
        raise ValueError(f"{nb.name} has no parameter(s) {unknown}; its parameters are: {', '.join(known)}")
    if out is None:
        tag = hashlib.sha256(json.dumps(parameters, sort_keys=True).encode()).hexdigest()[:8]
        out = repo_root() / "runs" / f"{nb.stem}-{tag}"
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    target = out / nb.name
    # The kernel inherits this process's environment. A rerun writes its tables beside the
    # executed notebook; figures need the inline backend (an inherited MPLBACKEND=Agg would
    # leave only "<Figure size ...>" text in the outputs).
    env = {"MPLBACKEND": "module://matplotlib_inline.backend_inline", "COMPSEM_ROOT": str(repo_root())}
    if not book:
        env["COMPSEM_RESULTS"] = str(out / "results")
    else:   # a page of the book never shows progress bars (compsem.progress reads this)
        env["TQDM_DISABLE"] = "1"
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    t0 = time.perf_counter()
    try:
        pm.execute_notebook(str(nb), str(target), parameters=parameters, cwd=str(nb.parent), kernel_name=kernel,
                            progress_bar=progress, execution_timeout=timeout)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    (out / f"{nb.stem}.runtime.json").write_text(json.dumps(
        {"notebook": nb.name, "seconds": round(time.perf_counter() - t0, 2), "parameters": parameters}, indent=1))
    return target
