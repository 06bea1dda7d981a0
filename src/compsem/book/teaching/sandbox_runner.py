"""Runs one submitted notebook inside a grading sandbox (started by :mod:`.grading`; never imported).

``python sandbox_runner.py NOTEBOOK NAMES_JSON OUT_DIR``: executes the notebook's code cells in a
kernel (a cell's error does not stop the later cells; otter's ``grader`` lines do nothing here),
then writes the values of the answer names to ``OUT_DIR/answers.json`` (numbers, True/False,
None, strings and lists of them; anything else as its type's name) and the cells that raised to
``OUT_DIR/cells.json``. It scores nothing: the grader reads these files outside the sandbox and
compares them with the key. Standard library, nbformat and nbclient only, so that it runs
without importing the project.
"""

import json
import re
import sys

import nbformat
from nbclient import NotebookClient

#: otter's own lines (its set-up, checks and export) do nothing when a notebook is graded.
OTTER_LINE = re.compile(
    r"^([ \t]*)(import otter\b.*|grader\s*=\s*otter\.Notebook\(.*\)|grader\.\w+\(.*\))[ \t]*$", re.M
)

DUMP = """\
def _compsem_dump(names, path):
    import json as _json, math as _math
    def plain(v, depth=0):
        if v is None or isinstance(v, (bool, str)):
            return v
        if type(v).__name__ in ("bool_", "bool") and hasattr(v, "item"):
            return bool(v.item())
        if isinstance(v, int):
            return float(v)
        try:
            import numbers
            if isinstance(v, numbers.Real):
                f = float(v)
                return f if _math.isfinite(f) else {"type": "non-finite number"}
        except Exception:
            pass
        if depth < 2 and isinstance(v, (list, tuple)) and len(v) <= 1000:
            return [plain(x, depth + 1) for x in v]
        if depth < 2 and hasattr(v, "tolist") and getattr(v, "size", 10**9) <= 1000:
            return plain(v.tolist(), depth + 1)
        return {"type": type(v).__name__}
    g = globals()
    out = {n: plain(g[n]) if n in g else {"type": "missing"} for n in names}
    with open(path, "w", encoding="utf-8") as f:
        _json.dump(out, f)
_compsem_dump(NAMES, PATH)
"""


def main(argv: list[str]) -> int:
    nb_path, names_json, out_dir = argv
    names = json.loads(names_json)
    nb = nbformat.read(nb_path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    for cell in code:
        cell.source = OTTER_LINE.sub(r"\1pass", cell.source)  # indented as it was
        cell.outputs = []
    nb.cells = code + [
        nbformat.v4.new_code_cell(DUMP.replace("NAMES", repr(names)).replace("PATH", repr(f"{out_dir}/answers.json")))
    ]
    client = NotebookClient(
        nb, timeout=None, allow_errors=True, kernel_name="python3", resources={"metadata": {"path": out_dir}}
    )
    client.execute()
    raised = [
        {"cell": i + 1, "error": o.get("ename", "")}
        for i, c in enumerate(nb.cells[:-1])
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    with open(f"{out_dir}/cells.json", "w", encoding="utf-8") as f:
        json.dump(raised, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
