"""Issue 27, finding 11 (Ray): a local Ray instance started by ``prefetch --engine ray`` is
guarded by a token no other user can read. Ray 2.60's ``gcs_server`` and ``raylet`` listen on
every interface, so the token is the guard; left to itself Ray writes it to
``~/.ray/auth_token`` with mode 0644.

The instance is started with its home in a world-traversable folder (as homes on many shared
machines are). Where the tests run as root, a second uid (``setpriv``) tries to read every file
Ray put there; elsewhere the file modes are checked instead. Then an intruder holding copies of
whatever the other user could read tries to join the instance and must be refused."""

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("ray")

START = textwrap.dedent("""
    import json, sys
    from compsem.book.running.prefetch import start_ray
    import ray
    start_ray(None, num_cpus=1)
    print(json.dumps({"gcs": ray.get_runtime_context().gcs_address}), flush=True)
    sys.stdin.readline()          # keep the instance up until the test is done
    ray.shutdown()
""")

JOIN = textwrap.dedent("""
    import ray, sys
    try:
        ray.init(address=sys.argv[1], log_to_driver=False)
        print("JOINED")
    except Exception as exc:
        print("REFUSED", type(exc).__name__, str(exc)[:300])
""")

OTHER_UID = 65534


def _readable_by_another_user(path: Path) -> bool:
    if os.geteuid() == 0 and shutil.which("setpriv"):
        r = subprocess.run(
            ["setpriv", f"--reuid={OTHER_UID}", f"--regid={OTHER_UID}", "--clear-groups", "cat", str(path)],
            capture_output=True,
            timeout=30,
        )
        return r.returncode == 0
    mode = path.stat().st_mode  # not root: the modes say what another user could read
    return bool(mode & stat.S_IROTH)


def test_another_user_cannot_join_a_local_instance():
    base = Path(tempfile.mkdtemp(prefix="compsem-ray-"))
    try:
        base.chmod(0o755)
        home, other = base / "home", base / "other"
        home.mkdir(mode=0o755), other.mkdir()
        home.chmod(0o755)
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")} | {"HOME": str(home)}
        owner = subprocess.Popen(
            [sys.executable, "-c", START],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            line = owner.stdout.readline()
            if not line:
                err = owner.stderr.read()
                if "timed out during startup" in err:
                    pytest.skip("Ray did not start within its 30 s on this (busy) machine")
                raise AssertionError(err[-3000:])
            gcs = json.loads(line)["gcs"]
            leaked = [p for p in home.rglob("*") if p.is_file() and "token" in p.name and _readable_by_another_user(p)]
            for p in leaked:  # what the other user could copy
                (other / p.relative_to(home)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(p, other / p.relative_to(home))
            joined = subprocess.run(
                [sys.executable, "-c", JOIN, gcs],
                capture_output=True,
                text=True,
                timeout=240,
                env=env | {"HOME": str(other)},
            )
            assert not leaked, f"token files another user can read: {leaked}"
            assert "REFUSED" in joined.stdout and "JOINED" not in joined.stdout, joined.stdout + joined.stderr[-2000:]
            assert "InvalidAuthToken" in joined.stdout + joined.stderr, joined.stdout + joined.stderr[-2000:]
        finally:
            owner.communicate("\n", timeout=120)
    finally:
        shutil.rmtree(base, ignore_errors=True)
