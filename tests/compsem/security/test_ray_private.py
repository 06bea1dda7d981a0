"""Issue 27, finding 11 (Ray): a local Ray instance started by ``prefetch --engine ray`` is
guarded by a token no other user can read. Ray 2.60's ``gcs_server`` and ``raylet`` listen on
every interface, so the token is the guard; left to itself Ray writes it to
``~/.ray/auth_token`` with mode 0644. Here the instance is started, and an "other user" who can
read exactly what the file modes let any user read (a world-readable token file is copied into
their own home) tries to join it."""

import json
import os
import stat
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("ray")

START = textwrap.dedent("""
    import json, os, sys, time
    from compsem.book.prefetch import start_ray
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


def test_another_user_cannot_join_a_local_instance(tmp_path):
    home, other = tmp_path / "home", tmp_path / "other"
    home.mkdir(), other.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")} | {"HOME": str(home)}
    owner = subprocess.Popen([sys.executable, "-c", START], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = owner.stdout.readline()
        assert line, owner.stderr.read()[-3000:]
        gcs = json.loads(line)["gcs"]
        leaked = []
        for p in (home / ".ray").rglob("*") if (home / ".ray").exists() else []:
            if p.is_file() and p.stat().st_mode & (stat.S_IRGRP | stat.S_IROTH):
                if "token" in p.name:
                    leaked.append(p)
                    (other / ".ray").mkdir(exist_ok=True)
                    (other / ".ray" / p.name).write_bytes(p.read_bytes())     # what another user could read
        joined = subprocess.run([sys.executable, "-c", JOIN, gcs], capture_output=True, text=True, timeout=240,
                                env={k: v for k, v in env.items()} | {"HOME": str(other)})
        assert not leaked, f"token files readable by other users: {leaked}"
        assert "REFUSED" in joined.stdout and "JOINED" not in joined.stdout, joined.stdout + joined.stderr[-2000:]
    finally:
        owner.communicate("\n", timeout=120)
