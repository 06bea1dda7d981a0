"""Run a function as another user of this machine, for the multi-user tests (root only).

``setpriv --reuid=U --regid=U --clear-groups`` would start a fresh interpreter, but where Python
lives in root's home (``/root`` is ``0700``) another uid cannot start it. So :func:`as_user` does
what setpriv does inside a forked child of this interpreter (already loaded): drop the groups,
then set the real, effective and saved gid and uid to ``uid``, and set ``HOME``; then it calls
``fn(*args)`` and sends back its result or its exception (type name and message). Import what
the function needs before calling (a module under ``/root`` cannot be imported after the drop).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import traceback

import pytest

#: Skip marker for tests that need to act as several users.
needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="acting as other users needs root"
)


def _child(conn, uid, home, fn, args, env):
    try:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        os.environ["HOME"] = home
        os.environ.update(env)
        os.chdir(home)
        conn.send(("ok", fn(*args)))
    except BaseException as exc:  # noqa: BLE001 - sent back to the test, which judges it
        conn.send(("error", (type(exc).__name__, str(exc), traceback.format_exc()[-3000:])))
    finally:
        conn.close()


def as_user(uid: int, home: str, fn, *args, env: dict[str, str] | None = None, timeout: float = 300):
    """``("ok", result)`` or ``("error", (type name, message, traceback))`` of ``fn(*args)`` run as ``uid``."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(child, uid, str(home), fn, args, env or {}))
    p.start()
    child.close()
    if not parent.poll(timeout):
        p.kill()
        raise TimeoutError(f"{fn.__name__} as uid {uid} took more than {timeout} s")
    got = parent.recv()
    p.join(30)
    return got


def home_of(base, uid: int):
    """A home folder for ``uid`` under ``base`` (owned by it, 0700)."""
    home = base / f"home-{uid}"
    home.mkdir(mode=0o700, exist_ok=True)
    os.chown(home, uid, uid)
    return home


def give(path, uid: int) -> None:
    """``path`` and everything under it owned by ``uid``."""
    for root, dirs, files in os.walk(path):
        for name in [root, *(os.path.join(root, n) for n in dirs + files)]:
            os.lchown(name, uid, uid)
