"""The table of contents numbers every part, so that every figure reads "Fig. N.k"."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]


def test_every_part_is_numbered():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    unnumbered = [p["caption"] for p in toc["parts"] if not p.get("numbered")]
    assert unnumbered == [], f"parts without numbered: true (their figures would read 'Fig. 1'): {unnumbered}"
