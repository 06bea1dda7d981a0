"""check_available: one clear error, before anything loads, naming what a run would download."""

import json

import pytest

from compsem.encoders import availability, check_available, resolve_models
from compsem.errors import ModelsUnavailableError


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    """An empty Hugging Face cache, and a helper that puts a model's config.json in it."""
    import huggingface_hub.constants as C

    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setattr(C, "HF_HUB_CACHE", str(cache))

    def add(repo_id: str, config: dict) -> None:
        folder = cache / ("models--" + repo_id.replace("/", "--"))
        (folder / "refs").mkdir(parents=True)
        (folder / "refs" / "main").write_text("abc123")
        snap = folder / "snapshots" / "abc123"
        snap.mkdir(parents=True)
        (snap / "config.json").write_text(json.dumps(config))

    return add


@pytest.fixture
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture
def online(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://fake-hub.invalid")
    monkeypatch.setitem(availability._HUB_PROBE, "http://fake-hub.invalid", True)


def test_offline_panel_and_local_models_pass(offline, hub_cache, tiny_bert):
    specs = ["sbert-mini", "use", "glove-50d", "bow", "random", f"hf:{tiny_bert}", str(tiny_bert)]
    assert check_available(specs) == specs


def test_offline_paper_panel_fails_naming_every_download(offline, hub_cache):
    specs = resolve_models("paper", study="montague")
    with pytest.raises(ModelsUnavailableError) as err:
        check_available(specs, study="montague")
    msg = str(err.value)
    assert msg.startswith("7 of 8 models of this run cannot be loaded here (offline")
    assert "sbert-mini" not in msg.split("What to do")[0]  # the offline one is fine
    assert "would download sentence-transformers/LaBSE from the Hugging Face hub (about 1.9 GB)" in msg
    assert "vec:GoogleNews-vectors-negative300.bin: word-vector file not found (about 3.6 GB" in msg
    assert "models='panel'" in msg
    assert [p[0] for p in err.value.problems] == specs[:5] + specs[6:]


def test_cached_hub_model_passes_offline(offline, hub_cache):
    with pytest.raises(ModelsUnavailableError, match="would download FacebookAI/roberta-base"):
        check_available(["hf:FacebookAI/roberta-base#pool=cls"])
    hub_cache("FacebookAI/roberta-base", {"model_type": "roberta"})
    assert check_available(["hf:FacebookAI/roberta-base#pool=cls", "nli:FacebookAI/roberta-base"])


def test_online_a_download_is_fine(online, hub_cache):
    assert check_available(["hf:meta-llama/Llama-2-7b-hf", "gen:hf:google/flan-t5-xl"])


def test_remote_code_needs_the_parameter(online, hub_cache):
    openelm = resolve_models("paper", study="setcomp")[10]
    assert openelm.startswith("hf:apple/OpenELM-3B")
    with pytest.raises(ModelsUnavailableError, match=r"OpenELM-3B.*needs trust_remote_code=True"):
        check_available([openelm])
    assert check_available([openelm], trust_remote_code=True)
    # a cached model whose config maps to code transformers does not have
    hub_cache("someone/custom", {"model_type": "my_own_arch", "auto_map": {"AutoModel": "modeling.MyModel"}})
    with pytest.raises(ModelsUnavailableError, match="someone/custom: needs trust_remote_code"):
        check_available(["hf:someone/custom"])
    hub_cache("someone/native", {"model_type": "bert", "auto_map": {"AutoModel": "x.Y"}})
    assert check_available(["hf:someone/native"])


def test_word_vector_files(offline, tmp_path, monkeypatch):
    monkeypatch.setenv("COMPSEM_VECTORS", str(tmp_path))
    with pytest.raises(ModelsUnavailableError, match=str(tmp_path / "w.txt")):
        check_available(["vec:w.txt"])
    (tmp_path / "w.txt").write_text("a 1 0\n")
    assert check_available(["vec:w.txt", f"vec:{tmp_path / 'w.txt'}"])


def test_openai_endpoints_need_a_key_or_a_server(monkeypatch):
    for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "COMPSEM_OA_BASE_URL"):
        monkeypatch.delenv(k, raising=False)
    with pytest.raises(ModelsUnavailableError, match="OPENAI_API_KEY is not set") as err:
        check_available(["oa:text-embedding-ada-002", "gen:openai:gpt-4-0314"])
    assert len(err.value.problems) == 2
    monkeypatch.setenv("COMPSEM_OA_BASE_URL", "http://127.0.0.1:9/v1")
    assert check_available(["oa:text-embedding-ada-002"])


def test_sbert_l_not_installed_says_how(offline, tmp_path, monkeypatch):
    monkeypatch.setenv("COMPSEM_MODELS_EXTRA", str(tmp_path))
    with pytest.raises(ModelsUnavailableError, match="make models-extra"):
        check_available("sbert-l")


def test_resolve_models_by_kind():
    from compsem.errors import UnknownModelError

    assert resolve_models(["gen:openai:m", "paper"], study="ssm", kind="generator") == [
        "gen:openai:m",
        "gen:openai:gpt-3.5-turbo",
    ]
    assert resolve_models(["nli:a/b#entailment=1", "sbert-mini"], kind="nli") == ["nli:a/b#entailment=1", "sbert-mini"]
    with pytest.raises(UnknownModelError, match="gen:hf:"):
        resolve_models(["sbert-mini"], kind="generator")
    with pytest.raises(UnknownModelError, match="key=value"):
        resolve_models(["nli:a/b#entailment"], kind="nli")
    with pytest.raises(ValueError, match="kind must be"):
        resolve_models("panel", kind="scorer")
