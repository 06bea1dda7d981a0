"""Rebuild ``csts_embedded.csv`` from ``authored_pairs.psv`` (by-pair 60/15/25 split, seed 2023).

Run from the repository root:  PYTHONPATH=src python data/csts/build_embedded.py
"""

from pathlib import Path

from compsem.csts.splitting import build_embedded

here = Path(__file__).resolve().parent
df = build_embedded(here / "authored_pairs.psv")
df.to_csv(here / "csts_embedded.csv", index=False)
print(df["split"].value_counts().to_dict(), len(df), "rows")
