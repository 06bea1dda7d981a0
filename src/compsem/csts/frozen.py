"""The frozen-layer cache of C-STS fine-tuning, in memory and on disk.

When only the top layers of an encoder train, the hidden states after the frozen lower layers
depend on the input text alone. :class:`FrozenStore` keeps them per input (a text, or a text
pair for the bi-encoder), trimmed to the input's real tokens, and — with a folder — writes each
batch of new entries to disk as one ``.npy`` array of stacked token states plus a JSON index
(``compsem.store``: atomic, never unpickled), so a later run, chapter or build reads them back
instead of recomputing. A later process reads every chunk's index first and a chunk's array only
when one of its entries is asked for (chapter 23 reads the inputs it needs, not all of chapter 22's). Entries are only valid for one (encoder, max length, frozen layers,
precision): :func:`store_folder` puts each such combination in a folder of its own.

Float32 states are stored as float32; states computed under bf16 autocast as float16 (the
bf16 values fit float16's range and precision for hidden states; half the disk of float32).
A broken chunk (truncated by a kill) is named in a warning and skipped: its entries are
recomputed. On a read-only shared cache, chunks are read from the cache and from the private
overlay, and new ones written to the overlay (:func:`compsem.store.save_to_cache`); when neither
can be written they stay in memory.

:func:`fill_batches` cuts the inputs of a fill into padded batches: it tokenises them all once,
orders them by token count (``order="tokens"``, the default; ``"chars"`` orders by characters,
``"none"`` keeps the given order) and pads each batch only to its own longest input, so a
length-sorted fill spends little work on padding. With ``max_tokens`` a batch also stops before
its padded size (rows × longest input) would pass that budget: long inputs go in small batches,
short ones in large, so each batch's activations stay about the size of the CPU's cache
(:data:`FILL_TOKENS`, measured in ``benchmarks/bench_csts.py``). A text's states depend on the batch it was
computed in only through float rounding (a batch's padded length changes the order of the sums:
up to about 5e-6 apart; tests/compsem/csts/test_frozen.py checks every order against each
text's own unpadded pass within 1e-5).
"""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path

import numpy as np

from compsem import paths, store

__all__ = ["FrozenStore", "store_folder", "fill_batches", "FILL_ORDERS", "FILL_TOKENS"]

#: the orders :func:`fill_batches` offers
FILL_ORDERS = ("tokens", "chars", "none")
#: padded tokens per batch of a fill (rows × longest input): on a 2-core Zen 4 at fp32, ``make
#: bench`` measured 1.09× (cross inputs) and 1.11× (bi inputs) over 256 rows a batch
#: (``fill_budget`` in benchmarks/results.json); budgets of 2,048 and 8,192 did no better
FILL_TOKENS = 4096

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
        self._pending: dict = {}  # key -> the chunks on disk that hold it, not read yet
        self._loaded = False
        self.n_read = 0  # entries read back from disk
        self.n_written = 0  # entries computed here and written

    def __len__(self) -> int:
        self._load()
        self._fetch(list(self._pending))
        return len(self._mem)

    def __contains__(self, key) -> bool:
        return self.get(key) is not None

    def get(self, key):
        self._load()
        if key not in self._mem:
            self._fetch([key])
        return self._mem.get(key)

    def missing(self, keys) -> list:
        """The distinct keys of ``keys`` that are not stored yet, in first-seen order (reading
        from disk the chunks that hold any of them, and only those)."""
        self._load()
        keys = list(dict.fromkeys(keys))
        self._fetch([k for k in keys if k not in self._mem])
        return [k for k in keys if k not in self._mem]

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
        where = store.save_to_cache(
            self.folder / f"{name}.npy", store.npy_writer(arr), what=f"frozen-layer states in {self.folder}"
        )
        if where is not None:  # the index beside its array, in the same layer
            try:
                store.write_atomic(
                    where.with_suffix(".json"),
                    store.json_writer({"format": FORMAT, "index": index}),
                    private=where.parent != self.folder,
                )
            except OSError as exc:
                warnings.warn(
                    f"could not store the index of {where} ({exc}); its entries are recomputed next time", stacklevel=2
                )

    def _load(self) -> None:
        """Read the folder's chunk indexes (not their arrays): which chunk holds which key."""
        if self._loaded:
            return
        self._loaded = True
        if self.folder is None:
            return
        metas = [m for layer in store.layers(self.folder) if layer.is_dir() for m in sorted(layer.glob("*.json"))]
        for meta in metas:
            try:
                index = store.read_json(meta)["index"]
                keys = [(a, b) for a, b, _ in index]
            except (store.BrokenStoreError, FileNotFoundError, KeyError, TypeError, ValueError) as exc:
                warnings.warn(
                    f"frozen-layer cache chunk {meta.stem} skipped ({exc}); its entries are recomputed", stacklevel=3
                )
                continue
            for k in keys:
                if k not in self._mem:
                    self._pending.setdefault(k, []).append((meta, index))

    def _fetch(self, keys) -> None:
        """Read the chunks that hold any of ``keys`` and are not read yet (the first chunk that
        holds a key wins, as it always did); a broken chunk is named in a warning and skipped, and
        a key it held is looked for in the next chunk that holds it, else left missing."""
        import torch

        while True:
            todo = {id(c[1]): c for k in keys for c in self._pending.get(k, [])[:1]}
            if not todo:
                return
            for meta, index in todo.values():
                try:
                    arr = store.load_npy(meta.with_suffix(".npy"))
                    if arr.shape[0] != sum(n for _, _, n in index):
                        raise store.BrokenStoreError(meta.with_suffix(".npy"), "its rows do not match its index")
                except (store.BrokenStoreError, FileNotFoundError) as exc:
                    warnings.warn(
                        f"frozen-layer cache chunk {meta.stem} skipped ({exc}); its entries are recomputed",
                        stacklevel=3,
                    )
                    arr = None
                t = None if arr is None else torch.from_numpy(np.ascontiguousarray(arr, dtype=np.float32))
                pos = 0
                for a, b, n in index:
                    chunks = self._pending.get((a, b), [])
                    if chunks and chunks[0][1] is index:
                        chunks.pop(0)
                        if t is not None:
                            self._mem.setdefault((a, b), t[pos : pos + n])
                        if not chunks or (a, b) in self._mem:
                            self._pending.pop((a, b), None)
                    pos += n
                if t is not None:
                    self.n_read += len(index)


def fill_batches(
    tokenizer,
    keys: list,
    *,
    max_length: int,
    batch_size: int = 256,
    order: str = "tokens",
    max_tokens: int | None = None,
):
    """Yield ``(keys of the batch, padded inputs)`` covering ``keys`` (``(text, pair or None)``).

    All texts are tokenised once (truncated to ``max_length``), put in ``order`` (see
    :data:`FILL_ORDERS`; a stable sort, ties keep the given order), cut into batches of at most
    ``batch_size`` rows — and, with ``max_tokens``, of at most ``max_tokens`` padded tokens (rows
    × the batch's longest input; a single longer input is a batch of its own) — and
    right-padded to each batch's longest input, as the tokenizer itself pads
    (``input_ids``, ``attention_mask`` and, where the tokenizer makes them, ``token_type_ids``,
    as int64 torch tensors)."""
    import torch

    if order not in FILL_ORDERS:
        raise ValueError(f"order must be one of {FILL_ORDERS}, got {order!r}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if max_tokens is not None and max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1 or None, got {max_tokens}")
    if not keys:
        return
    pairs = keys[0][1] is not None
    if any((k[1] is not None) != pairs for k in keys):
        raise ValueError("fill_batches needs all keys with a text pair or all without one")
    enc = tokenizer(
        [k[0] for k in keys], [k[1] for k in keys] if pairs else None, truncation=True, max_length=max_length
    )
    ids, types = enc["input_ids"], enc.get("token_type_ids")
    lens = np.array([len(x) for x in ids])
    if order == "tokens":
        idx = np.argsort(lens, kind="stable")
    elif order == "chars":
        idx = np.argsort([len(k[0]) + len(k[1] or "") for k in keys], kind="stable")
    else:
        idx = np.arange(len(keys))
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    pad_type = getattr(tokenizer, "pad_token_type_id", 0) or 0
    for part in _cut(lens[idx], batch_size, max_tokens):
        part = idx[part]
        t = int(lens[part].max())
        input_ids = np.full((len(part), t), pad_id, dtype=np.int64)
        mask = np.zeros((len(part), t), dtype=np.int64)
        tt = np.full((len(part), t), pad_type, dtype=np.int64)
        for r, i in enumerate(part):
            input_ids[r, : lens[i]] = ids[i]
            mask[r, : lens[i]] = 1
            if types is not None:
                tt[r, : lens[i]] = types[i]
        batch = {"input_ids": torch.from_numpy(input_ids), "attention_mask": torch.from_numpy(mask)}
        if types is not None:
            batch["token_type_ids"] = torch.from_numpy(tt)
        yield [keys[i] for i in part], batch


def _cut(lens: np.ndarray, batch_size: int, max_tokens: int | None) -> list[slice]:
    """Consecutive slices of ``lens`` (token counts in batch order): at most ``batch_size``
    long, and with ``max_tokens`` at most that many padded tokens (length × longest), never empty."""
    out, s, n = [], 0, len(lens)
    while s < n:
        e, longest = s + 1, int(lens[s])
        while e < n and e - s < batch_size:
            longest_next = max(longest, int(lens[e]))
            if max_tokens is not None and (e + 1 - s) * longest_next > max_tokens:
                break
            e, longest = e + 1, longest_next
        out.append(slice(s, e))
        s = e
    return out
