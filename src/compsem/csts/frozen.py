"""The frozen-layer cache of C-STS fine-tuning, in memory and on disk.

When only the top layers of an encoder train, the hidden states after the frozen lower layers
depend on the input text alone. :class:`FrozenStore` keeps them per input (a text, or a text
pair for the bi-encoder), trimmed to the input's real tokens, and — with a folder — writes each
batch of new entries to disk as one ``.npy`` array of stacked token states plus a JSON index
(``compsem.store``: atomic, never unpickled), so a later run, chapter or build reads them back
instead of recomputing. Entries are only valid for one (encoder, max length, frozen layers,
precision): :func:`store_folder` puts each such combination in a folder of its own.

Float32 states are stored as float32; states computed under bf16 autocast as float16 (the
bf16 values fit float16's range and precision for hidden states; half the disk of float32).
A broken chunk (truncated by a kill) is named in a warning and skipped: its entries are
recomputed. On a read-only shared cache, chunks are read from the cache and from the private
overlay, and new ones written to the overlay (:func:`compsem.store.save_to_cache`); when neither
can be written they stay in memory.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path

import numpy as np

from compsem import paths, store

__all__ = ["FrozenStore", "store_folder"]

#: bump when the stored states change meaning (invalidates every folder)
FORMAT = "frozen-1"


def store_folder(encoder_identity: str, max_length: int, n_frozen: int, precision: str) -> Path:
    """``<cache>/csts_frozen/<digest>``: one folder per (encoder identity, max length, number of
    frozen layers, precision)."""
    key = json.dumps([FORMAT, encoder_identity, int(max_length), int(n_frozen), str(precision)])
    return paths.cache_dir("csts_frozen", create=False) / hashlib.sha1(key.encode()).hexdigest()[:20]


class FrozenStore:
    """Hidden states after the frozen layers, keyed by ``(text_a, text_b or None)``.

    ``folder=None`` keeps them in memory only. ``get(key)`` returns a torch tensor of shape
    ``(tokens, dim)`` or None; ``add(keys, states)`` stores new ones (and writes them to the
    folder as one chunk).
    """

    def __init__(self, folder: str | Path | None = None, *, disk_dtype: str = "float32"):
        self.folder = None if folder is None else Path(folder)
        self.disk_dtype = disk_dtype
        self._mem: dict = {}
        self._loaded = False
        self.n_read = 0  # entries read back from disk
        self.n_written = 0  # entries computed here and written

    def __len__(self) -> int:
        self._load()
        return len(self._mem)

    def __contains__(self, key) -> bool:
        self._load()
        return key in self._mem

    def get(self, key):
        self._load()
        return self._mem.get(key)

    def missing(self, keys) -> list:
        """The distinct keys of ``keys`` that are not stored yet, in first-seen order."""
        self._load()
        return [k for k in dict.fromkeys(keys) if k not in self._mem]

    def add(self, keys: list, states: list) -> None:
        """Store ``states[i]`` (a tensor ``(tokens_i, dim)``) for ``keys[i]``; on disk too.

        States are rounded to the disk dtype and kept as float32 in memory as well, so a run
        that computes them and a later run that reads them back see the same numbers."""
        import torch

        states = [h.to(getattr(torch, self.disk_dtype)).float() for h in states]
        for k, h in zip(keys, states):
            self._mem[k] = h
        if self.folder is None or not keys:
            return
        arr = np.concatenate([h.cpu().numpy() for h in states]).astype(self.disk_dtype)
        index = [[k[0], k[1], int(h.shape[0])] for k, h in zip(keys, states)]
        name = hashlib.sha1(json.dumps(index).encode()).hexdigest()[:20]
        self.n_written += len(keys)
        where = store.save_to_cache(self.folder / f"{name}.npy", store.npy_writer(arr),
                                    what=f"frozen-layer states in {self.folder}")
        if where is not None:   # the index beside its array, in the same layer
            try:
                store.write_atomic(where.with_suffix(".json"), store.json_writer({"format": FORMAT, "index": index}),
                                   private=where.parent != self.folder)
            except OSError as exc:
                warnings.warn(f"could not store the index of {where} ({exc}); its entries are recomputed next time",
                              stacklevel=2)

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if self.folder is None:
            return
        metas = [m for layer in store.layers(self.folder) if layer.is_dir() for m in sorted(layer.glob("*.json"))]
        if not metas:
            return
        import torch

        for meta in metas:
            try:
                index = store.read_json(meta)["index"]
                arr = store.load_npy(meta.with_suffix(".npy"))
                if arr.shape[0] != sum(n for _, _, n in index):
                    raise store.BrokenStoreError(meta.with_suffix(".npy"), "its rows do not match its index")
            except (store.BrokenStoreError, FileNotFoundError, KeyError, TypeError) as exc:
                warnings.warn(f"frozen-layer cache chunk {meta.stem} skipped ({exc}); its entries are recomputed",
                              stacklevel=2)
                continue
            t = torch.from_numpy(np.ascontiguousarray(arr, dtype=np.float32))
            pos = 0
            for a, b, n in index:
                self._mem.setdefault((a, b), t[pos:pos + n])
                pos += n
            self.n_read += len(index)
