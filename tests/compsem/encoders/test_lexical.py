"""vec:PATH - the mean of word vectors read from a word2vec or GloVe file."""

import numpy as np
import pytest

from compsem.encoders import WordVectorEncoder, check_spec, get_encoder
from compsem.errors import UnknownModelError
from compsem.measures import DegenerateGeometryWarning

VOCAB = {
    "the": [1.0, 0.0, 0.0],
    "red": [0.0, 2.0, 0.0],
    "car": [0.0, 0.0, 4.0],
    "Paris": [3.0, 3.0, 3.0],
    "so": [1.0, 1.0, 0.0],
    "called": [0.0, 1.0, 1.0],
    "king": [2.0, 0.0, 2.0],
    "'s": [0.0, 0.0, 6.0],
}


def write_text(path, header: bool):
    lines = [f"{len(VOCAB)} 3"] if header else []
    lines += [w + " " + " ".join(str(x) for x in v) for w, v in VOCAB.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def write_bin(path):
    with open(path, "wb") as f:
        f.write(f"{len(VOCAB)} 3\n".encode())
        for w, v in VOCAB.items():
            f.write(w.encode() + b" " + np.asarray(v, dtype="<f4").tobytes() + b"\n")
    return path


@pytest.mark.parametrize("fmt", ["glove", "w2v-text", "w2v-bin"])
def test_three_formats_give_the_same_hand_computed_means(tmp_path, fmt):
    path = {
        "glove": lambda: write_text(tmp_path / "g.txt", False),
        "w2v-text": lambda: write_text(tmp_path / "w.txt", True),
        "w2v-bin": lambda: write_bin(tmp_path / "w.bin"),
    }[fmt]()
    enc = WordVectorEncoder(str(path))
    assert enc.dim == 3 and not enc.cacheable
    X = enc.encode(["The red car.", "the qwxz car", "Paris", "the so-called king's car"])
    assert np.allclose(X[0], [1 / 3, 2 / 3, 4 / 3])  # (the + red + car) / 3, case folded
    assert np.allclose(X[1], [0.5, 0.0, 2.0])  # unknown word skipped, not zero-filled
    assert np.allclose(X[2], [3.0, 3.0, 3.0])  # case kept when the file has it
    # so-called -> so + called; king's -> king + 's; the; car: 6 vectors
    assert np.allclose(X[3], (np.array([1, 0, 0]) + [1, 1, 0] + [0, 1, 1] + [2, 0, 2] + [0, 0, 6] + [0, 0, 4]) / 6)
    assert enc.last_oov == {"qwxz": 1}


def test_relative_name_found_in_compsem_vectors(tmp_path, monkeypatch):
    write_text(tmp_path / "g.txt", False)
    monkeypatch.setenv("COMPSEM_VECTORS", str(tmp_path))
    enc = get_encoder("vec:g.txt")
    assert enc.spec == "vec:g.txt" and enc.path == tmp_path / "g.txt"


def test_missing_file_and_oov_only_text(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPSEM_VECTORS", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"vec:nope.txt: no word-vector file \(looked at nope.txt, "):
        WordVectorEncoder("nope.txt")
    enc = WordVectorEncoder(str(write_text(tmp_path / "g.txt", False)))
    with pytest.warns(DegenerateGeometryWarning, match="1 of 2 texts have no in-vocabulary token"):
        X = enc.encode(["qwxz blorf", "car"])
    assert np.isnan(X[0]).all() and np.allclose(X[1], [0, 0, 4])


def test_bad_file_names_the_line(tmp_path):
    (tmp_path / "bad.txt").write_text("a 1 2 3\nb 1 2\n")
    with pytest.raises(ValueError, match="line 2: 2 numbers, expected 3"):
        WordVectorEncoder(str(tmp_path / "bad.txt"))


def test_spec_options_are_checked():
    assert check_spec("hf:x/y#pool=cls#max_length=64") == "hf:x/y#pool=cls#max_length=64"
    with pytest.raises(UnknownModelError, match="'max' is not one of mean, cls, last, pooler"):
        check_spec("hf:x/y#pool=max")
    with pytest.raises(UnknownModelError, match="only hf: specs take options"):
        check_spec("st:x/y#pool=cls")
    with pytest.raises(UnknownModelError, match=r"unknown option \['layer'\]"):
        check_spec("hf:x/y#layer=3")
    with pytest.raises(UnknownModelError):
        check_spec("vec:")


# ------------------------------------------------------------------ what bow drops, said where models are listed


def test_bow_drops_the_negations_so_a_sentence_and_its_negation_can_coincide():
    from compsem.encoders.lexical import bow_stop_words, dropped_negations, stop_words_note

    enc = get_encoder("bow")
    a, b = enc.encode(["The shop is open.", "The shop is not open."])
    assert np.allclose(a, b)  # "not" is dropped: the same vector
    assert {"not", "no", "never", "nobody", "cannot"} <= set(dropped_negations())
    assert "red" not in bow_stop_words() and "the" in bow_stop_words()
    assert stop_words_note().startswith(f"drops {len(bow_stop_words())} English stop words")
    assert dropped_negations(None) == [] and stop_words_note().count(" and ") == 1


def test_the_stop_words_note_follows_the_stop_list(monkeypatch):
    from compsem.encoders import lexical

    # contradicting data: a stop list without negations -> the note names none; with two -> both
    monkeypatch.setattr(lexical, "bow_stop_words", lambda stop_words="english": frozenset({"the", "a", "of"}))
    assert lexical.stop_words_note() == "drops 3 English stop words (scikit-learn's list), no negation among them"
    monkeypatch.setattr(lexical, "bow_stop_words", lambda stop_words="english": frozenset({"the", "nor", "not"}))
    assert (
        lexical.stop_words_note()
        == "drops 3 English stop words (scikit-learn's list), the negations not and nor among them"
    )


def test_the_model_tables_say_what_bow_drops():
    """README and CONTRIBUTING name only negations the encoder really drops; the book's
    introduction and chapter 00 name none by hand: both show chapter 00's glued
    ``stop_words_note()`` (one source, the stop list), and the computed table
    (``models_table``) says it too."""
    import json
    import re

    from compsem.encoders import models_table
    from compsem.encoders.lexical import bow_stop_words, dropped_negations
    from tests.helpers import ROOT

    dropped = set(dropped_negations())
    nb = json.loads((ROOT / "notebooks/00_toolkit.ipynb").read_text())
    pages = {
        "README.md": (ROOT / "README.md").read_text(),
        "CONTRIBUTING.md": (ROOT / "CONTRIBUTING.md").read_text(),
    }
    toolkit = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    intro = (ROOT / "book/intro.md").read_text()
    assert '"bow_stop_note": compsem.results.PlainText(stop_words_note())' in code
    assert "`bow_stop_note`" in toolkit and "00_toolkit.ipynb::bow_stop_note:s`" in intro
    for text in (toolkit, intro):  # no negation typed beside the glued list
        said = re.search(r"`bow`[^\n]*(?:\n  [^\n]*)*", text[text.index("bow_stop_note") - 400 :]).group(0)
        assert not set(re.findall(r"\*(\w+)\*", said)) & dropped
    for page, text in pages.items():
        said = re.search(r"`bow`[^\n]*(?:\n  [^\n]*)*", text[text.index("stop words") - 400 :]).group(0)
        named = set(re.findall(r"\*(\w+)\*", said))
        assert {"not", "no", "never", "nobody", "cannot"} <= named <= dropped, (page, named)
    count = re.search(r"drops scikit-learn's (\d+) English stop words", pages["README.md"])
    assert count and int(count.group(1)) == len(bow_stop_words())
    bow = models_table().set_index("spec").loc["bow", "description"]
    assert all(w in bow for w in dropped) and f"drops {len(bow_stop_words())} English stop words" in bow
