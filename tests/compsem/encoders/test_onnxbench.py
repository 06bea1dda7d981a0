"""compare_backends (compsem.encoders.onnxbench): torch against ONNX Runtime fp32, interleaved, on
a tiny sentence-transformers model: the counts it reports are the ones asked for, the two
backends' vectors agree within the tolerance, and the rates follow from the timings."""

from compsem.encoders import SentenceTransformerEncoder
from compsem.encoders.onnx import TOLERANCE
from compsem.encoders.onnxbench import compare_backends


def test_compare_backends_reports_what_it_measured(tiny_st):
    enc = SentenceTransformerEncoder(str(tiny_st), spec="st:tiny", device="cpu", backend="torch")
    texts = ["a red car", "the dog runs fast", "a big blue man plays guitar"] * 4
    got = compare_backends(enc, texts, rounds=2, batch_size=4)
    assert (got["texts"], got["rounds"], got["batch_size"]) == (12, 2, 4)
    assert got["max_abs_diff"] <= TOLERANCE
    assert got["torch_texts_per_s"] > 0 and got["onnx_texts_per_s"] > 0 and 0 < got["ratio_min"] <= got["ratio_median"]
    assert len(got["load_before"]) == len(got["load_after"]) == 3
