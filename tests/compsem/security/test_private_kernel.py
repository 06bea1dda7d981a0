"""Finding 8: chapter kernels talk over IPC sockets in a private folder, never over TCP."""

import json
import subprocess
import sys

from compsem.book.running.runner import run_notebook
from tests.helpers.notebooks import probe_notebook

PROBE = """
import json, os, stat
from ipykernel import get_connection_info
info = json.loads(get_connection_info())
folder = os.path.dirname(info["ip"])
json.dump({"transport": info["transport"], "ip": info["ip"], "folder_mode": oct(os.stat(folder).st_mode & 0o777),
           "owner_is_me": os.stat(folder).st_uid == os.getuid(), "ports": [info[k] for k in sorted(info) if k.endswith("_port")]},
          open(out_file, "w"))
"""


def _probe_notebook(tmp_path):
    return probe_notebook(tmp_path / "probe.ipynb", 'out_file = "info.json"', PROBE)


def test_kernel_connection_is_ipc_in_a_private_folder(tmp_path):
    nb = _probe_notebook(tmp_path)
    info_file = tmp_path / "info.json"
    run_notebook(nb, {"out_file": str(info_file)}, out=tmp_path / "run", progress=False)
    info = json.loads(info_file.read_text())
    print(info)
    assert info["transport"] == "ipc"
    assert info["folder_mode"] == "0o700" and info["owner_is_me"]
    assert not info["ip"].startswith("127.") and info["ip"].endswith("-ipc")


def test_command_line_run_prints_no_tcp_warning(tmp_path):
    nb = _probe_notebook(tmp_path)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "compsem",
            "run",
            str(nb),
            "--out",
            str(tmp_path / "run"),
            "--quiet",
            "-p",
            "out_file",
            str(tmp_path / "i.json"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "without encryption" not in proc.stderr + proc.stdout
    assert json.loads((tmp_path / "i.json").read_text())["transport"] == "ipc"
