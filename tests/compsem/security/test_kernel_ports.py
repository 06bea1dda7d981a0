"""Issue 27, finding 11 (kernels): what a chapter kernel listens on matches what the README says.
Its channels are IPC sockets; ipykernel 7 also opens one TCP port, on 127.0.0.1 only, for output
of forked subprocesses, which takes only messages carrying a random per-kernel token. The README
names that port instead of claiming there is none."""

import json
import re

import pytest

from compsem.book.running.runner import run_notebook
from tests.helpers import ROOT
from tests.helpers.notebooks import probe_notebook

PROBE = """
import json, os, psutil
socks = [c for c in psutil.Process(os.getpid()).net_connections(kind="inet") if c.status == psutil.CONN_LISTEN]
json.dump([[c.laddr.ip, c.laddr.port] for c in socks], open(out_file, "w"))
"""


def test_the_kernels_only_tcp_port_is_the_loopback_output_pipe_and_the_readme_says_so(tmp_path):
    pytest.importorskip("psutil")
    path = probe_notebook(tmp_path / "probe.ipynb", 'out_file = "ports.json"', PROBE)
    out = tmp_path / "ports.json"
    run_notebook(path, {"out_file": str(out)}, out=tmp_path / "run", progress=False)
    listening = json.loads(out.read_text())
    assert all(ip == "127.0.0.1" for ip, _ in listening), listening  # nothing on another interface
    assert len(listening) <= 1  # at most ipykernel's output pipe
    readme = re.sub(r"\s+", " ", (ROOT / "README.md").read_text())
    assert "never over a TCP port" not in readme and "no TCP port" not in readme
    if listening:
        assert "one TCP port on 127.0.0.1" in readme and "subprocess output" in readme
