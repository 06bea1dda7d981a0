"""One device/dtype helper, and the measured choice of precision="auto" on a CPU."""

import pytest
import torch

from compsem.device import DTYPES, resolve_device, torch_dtype
from compsem.errors import CacheWarning


def test_explicit_device_is_kept_and_default_follows_torch():
    assert resolve_device("cuda:1") == "cuda:1"
    assert resolve_device(None) == ("cuda" if torch.cuda.is_available() else "cpu")


def test_dtype_defaults_and_names():
    assert torch_dtype("cpu") is torch.float32
    for name in DTYPES:
        assert torch_dtype("cpu", name) is getattr(torch, name)
    assert torch_dtype("cpu", "torch.float16") is torch.float16
    with pytest.raises(ValueError, match="float32, bfloat16, float16"):
        torch_dtype("cpu", "int8")


def test_cpu_bf16_native_reads_the_flags():
    from compsem.device import cpu_bf16_native

    assert cpu_bf16_native("processor: 0\nflags\t\t: fpu sse avx512f avx512_bf16 amx_tile\n")
    assert cpu_bf16_native("flags : fpu amx_bf16\n")
    assert not cpu_bf16_native("flags : fpu sse avx2 avx512f\n") and not cpu_bf16_native("")


def _choose(monkeypatch, choice):
    """Make this process's measured CPU choice ``choice`` (no probe runs)."""
    from compsem import device as D

    monkeypatch.setattr(D, "cpu_precision", lambda: {"choice": choice, "why": f"{choice} measured faster here"})


def test_autocast_dtype_honours_or_refuses_never_ignores(monkeypatch):
    import pytest
    import torch

    monkeypatch.delenv("COMPSEM_PRECISION", raising=False)

    from compsem.device import autocast_dtype, precision_note

    _choose(monkeypatch, "bf16")
    assert autocast_dtype("cpu", "auto") is torch.bfloat16
    _choose(monkeypatch, "fp32")
    assert autocast_dtype("cpu", "auto") is None
    assert autocast_dtype("cpu", "bf16") is torch.bfloat16  # asked for: honoured even without native bf16
    assert autocast_dtype("cpu", "fp32") is None
    with pytest.raises(ValueError, match="fp16"):
        autocast_dtype("cpu", "fp16")
    with pytest.raises(ValueError, match="precision"):
        autocast_dtype("cpu", "half")
    assert (
        precision_note("cpu", "bf16") == "bf16 autocast (asked for)"
        and precision_note("cpu", "fp32") == "fp32 (asked for)"
    )
    # a GPU trains in fp32 unless asked: bf16 autocast was measured slower there (benchmarks/gpu.json)
    assert autocast_dtype("cuda", "auto") is None and autocast_dtype("cuda:1", "auto") is None
    assert autocast_dtype("cuda", "bf16") is torch.bfloat16 and autocast_dtype("cuda", "fp16") is torch.float16
    assert precision_note("cuda", "auto") == (
        "fp32 (the default on a GPU: bf16 autocast fine-tuned more slowly on the one GPU measured, benchmarks/gpu.json)"
    )


def test_precision_environment_switch_forces_auto_only(monkeypatch):
    """COMPSEM_PRECISION=fp32 turns every precision="auto" into fp32 even on a CPU (or GPU) with
    native bf16; an explicit precision is kept; a wrong value is an error, never ignored."""
    import pytest
    import torch

    from compsem.device import autocast_dtype, forced_precision, precision_note
    from compsem.errors import CompsemError

    monkeypatch.setenv("COMPSEM_PRECISION", "fp32")
    assert forced_precision() == "fp32"
    _choose(monkeypatch, "bf16")
    assert autocast_dtype("cpu", "auto") is None
    assert autocast_dtype("cpu", "bf16") is torch.bfloat16
    assert precision_note("cpu", "auto") == "fp32 (forced by COMPSEM_PRECISION=fp32)"
    monkeypatch.setenv("COMPSEM_PRECISION", "bf16")
    _choose(monkeypatch, "fp32")
    assert autocast_dtype("cpu", "auto") is torch.bfloat16
    assert autocast_dtype("cpu", "fp32") is None
    assert precision_note("cpu", "auto") == "bf16 autocast (forced by COMPSEM_PRECISION=bf16)"
    for unset in ("", "auto", " auto "):
        monkeypatch.setenv("COMPSEM_PRECISION", unset)
        assert forced_precision() is None
        _choose(monkeypatch, "bf16")
        assert autocast_dtype("cpu", "auto") is torch.bfloat16
    for bad in ("FP32", "float32", "fp16", "yes"):
        monkeypatch.setenv("COMPSEM_PRECISION", bad)
        with pytest.raises(CompsemError, match="COMPSEM_PRECISION.*fp32, bf16"):
            autocast_dtype("cpu", "auto")
    assert forced_precision({}) is None and forced_precision({"COMPSEM_PRECISION": "fp32"}) == "fp32"


# ---------------------------------------------------------------------------------------------
# precision="auto" on a CPU: measured by a probe, never read from a flag
# ---------------------------------------------------------------------------------------------
def _fake_step(seconds: dict, calls: list | None = None):
    """A probe step that takes ``seconds[precision]`` (what a machine would measure)."""

    def step(p):
        if calls is not None:
            calls.append(p)
        return seconds[p]

    return step


@pytest.mark.parametrize(
    "seconds, flags, choice, why",
    [
        # an fp32 machine: bf16 at half the fp32 rate (the Xeon of issue 46)
        ({"fp32": 0.010, "bf16": 0.020}, {"avx512_bf16"}, "fp32", "bf16 measured 0.50× fp32 here"),
        # a bf16 machine: bf16 four times as fast
        ({"fp32": 0.040, "bf16": 0.010}, {"avx512_bf16"}, "bf16", "bf16 measured 4.00× fp32 here"),
        # bf16 faster, but by less than MIN_GAIN (1.10): fp32 stays
        ({"fp32": 0.0105, "bf16": 0.010}, set(), "fp32", "bf16 measured 1.05× fp32 here"),
        # fp16 the fastest where the CPU has avx512_fp16: timed, shown, never chosen (scores unmeasured)
        (
            {"fp32": 0.030, "bf16": 0.020, "fp16": 0.010},
            {"avx512_fp16"},
            "bf16",
            "bf16 measured 1.50× fp32 here; fp16 3.00×, never chosen: its scores against fp32 are not measured",
        ),
        (
            {"fp32": 0.010, "bf16": 0.020, "fp16": 0.005},
            {"avx512_fp16"},
            "fp32",
            "bf16 measured 0.50× fp32 here; fp16 2.00×, never chosen: its scores against fp32 are not measured",
        ),
    ],
)
def test_the_probe_chooses_the_faster_precision(seconds, flags, choice, why):
    from compsem import device as D

    calls = []
    got = D.probe_precisions(step=_fake_step(seconds, calls), flags=flags, shape=(2, 3, 5), rounds=4, budget_s=1e9)
    flop = 3 * 2 * (2 * 2 * 3 * 5)  # by hand: two products of 2x3 by 3x5, forward and twice backward
    assert got["rates"] == {p: round(flop / t / 1e9, 1) for p, t in seconds.items()}
    # one unmeasured step each, then four rounds, the order reversed every other round
    order = list(seconds)
    assert calls == order + order + order[::-1] + order + order[::-1]
    assert D.choose_precision({p: 1 / t for p, t in seconds.items()}) == (choice, why)


def test_fp16_is_never_timed_without_avx512_fp16_and_chosen_only_once_checked():
    from compsem import device as D

    calls = []
    D.probe_precisions(step=_fake_step({"fp32": 1.0, "bf16": 1.0}, calls), flags={"avx512_bf16", "amx_bf16"})
    assert "fp16" not in calls
    assert D.choose_precision({"fp32": 1.0, "bf16": 1.5, "fp16": 3.0}, fp16_checked=True)[0] == "fp16"
    for bad in (
        {"fp32": 1.0},
        {"fp32": 0.0, "bf16": 1.0},
        {"fp32": float("nan"), "bf16": 1.0},
        {"fp32": "1", "bf16": 1.0},
        {"fp32": True, "bf16": 1.0},
    ):
        with pytest.raises(D.ChoiceError, match="rate"):
            D.choose_precision(bad)


def test_the_probe_stops_at_its_budget():
    from compsem import device as D

    ticks = iter(range(1000))  # a clock that advances one second per reading
    got = D.probe_precisions(
        step=_fake_step({"fp32": 1.0, "bf16": 1.0}), flags=set(), rounds=20, budget_s=0.5, clock=lambda: next(ticks)
    )
    assert got["steps"] == D.PROBE_MIN_ROUNDS


@pytest.fixture
def private_overlay(tmp_path, monkeypatch):
    """A fresh private overlay and no choice remembered in this process."""
    from compsem import device as D

    monkeypatch.setenv("COMPSEM_CACHE_OVERLAY", str(tmp_path / "overlay"))
    monkeypatch.delenv("COMPSEM_PRECISION", raising=False)
    monkeypatch.setattr(D, "_MEMO", {})
    monkeypatch.setattr(D, "_load", lambda: [0.0, 0.0, 0.0])  # a quiet machine: the choice is kept
    return tmp_path / "overlay"


def _probe(rates, calls):
    def probe():
        calls.append(1)
        return {"rates": dict(rates), "steps": 3, "shape": [1, 1, 1], "seconds": 0.1}

    return probe


def test_the_choice_is_kept_per_machine_in_the_private_overlay(private_overlay, monkeypatch):
    import json
    import stat

    from compsem import device as D

    calls = []
    got = D.cpu_precision(probe=_probe({"fp32": 100.0, "bf16": 55.0}, calls))
    assert (got["choice"], got["why"], got["source"]) == ("fp32", "bf16 measured 0.55× fp32 here", "probe")
    path = private_overlay / "precision" / f"choice-{D.machine_key()}.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["choice"] == "fp32"
    monkeypatch.setattr(D, "_MEMO", {})  # a new process: read back, not measured again
    again = D.cpu_precision(probe=_probe({"fp32": 1.0, "bf16": 9.0}, calls))
    assert (again["choice"], again["source"], len(calls)) == ("fp32", "stored", 1)
    # another machine (another key) never reads it
    monkeypatch.setattr(D, "_MEMO", {})
    monkeypatch.setattr(D, "machine_key", lambda: "another")
    assert D.cpu_precision(probe=_probe({"fp32": 1.0, "bf16": 9.0}, calls))["choice"] == "bf16" and len(calls) == 2


def test_a_probe_on_a_busy_machine_is_not_kept(private_overlay, monkeypatch):
    import os

    from compsem import device as D

    monkeypatch.setattr(D, "_load", lambda: [float((os.cpu_count() or 1) + 1), 0.0, 0.0])
    calls = []
    assert D.cpu_precision(probe=_probe({"fp32": 100.0, "bf16": 50.0}, calls))["choice"] == "fp32"
    assert not D.choice_file().exists()
    monkeypatch.setattr(D, "_MEMO", {})
    monkeypatch.setattr(D, "_load", lambda: [0.0, 0.0, 0.0])
    assert D.cpu_precision(probe=_probe({"fp32": 50.0, "bf16": 100.0}, calls))["choice"] == "bf16"
    assert len(calls) == 2 and D.choice_file().exists()


def test_another_users_or_writable_choice_is_never_read(private_overlay, monkeypatch):
    import os

    from compsem import device as D

    calls = []
    D.cpu_precision(probe=_probe({"fp32": 100.0, "bf16": 50.0}, calls))
    path = D.choice_file()
    # a file that is not this user's: refused (seen as user uid + 1)
    with pytest.raises(D.ChoiceError, match="another user"):
        D.read_choice(path, D.machine_key(), uid=os.geteuid() + 1)
    # a file others may write: refused with a warning, measured again and replaced
    os.chmod(path, 0o664)
    monkeypatch.setattr(D, "_MEMO", {})
    with pytest.warns(CacheWarning, match="may be written by others"):
        got = D.cpu_precision(probe=_probe({"fp32": 50.0, "bf16": 100.0}, calls))
    assert (got["choice"], got["source"], len(calls)) == ("bf16", "probe", 2)
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    # an overlay folder others may write is refused: the probe's outcome holds for this process only
    os.chmod(private_overlay, 0o777)
    monkeypatch.setattr(D, "_MEMO", {})
    try:
        with pytest.warns(CacheWarning, match="this process only"):
            assert D.cpu_precision(probe=_probe({"fp32": 100.0, "bf16": 50.0}, calls))["choice"] == "fp32"
    finally:
        os.chmod(private_overlay, 0o700)


@pytest.mark.parametrize(
    "content, fault",
    [
        (b"\x80\x04K\x01.", "not valid JSON"),  # a pickle: never unpickled
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "not an object"),
        (
            b'{"version": 1, "machine_key": "KEY", "choice": "bf16", "rates": {"fp32": 100, "bf16": 50}}',
            "its own rates",
        ),
        (b'{"version": 1, "machine_key": "KEY", "choice": "fp32", "rates": {"fp32": NaN, "bf16": 50}}', "rate"),
        (b'{"version": 1, "machine_key": "KEY", "choice": "fp32", "rates": {"int8": 1}}', "no rates"),
        (
            b'{"version": 1, "machine_key": "other", "choice": "fp32", "rates": {"fp32": 1, "bf16": 1}}',
            "another machine",
        ),
    ],
)
def test_a_bad_stored_choice_is_measured_again_never_a_crash(private_overlay, monkeypatch, content, fault):
    from compsem import device as D

    path = D.choice_file()
    path.write_bytes(content.replace(b"KEY", D.machine_key().encode()))
    path.chmod(0o600)
    with pytest.raises(D.ChoiceError, match=fault):
        D.read_choice(path, D.machine_key())
    calls = []
    with pytest.warns(CacheWarning, match="ignored, measured again"):
        got = D.cpu_precision(probe=_probe({"fp32": 10.0, "bf16": 40.0}, calls))
    assert (got["choice"], len(calls)) == ("bf16", 1)
    assert D.read_choice(path, D.machine_key())["choice"] == "bf16"  # replaced by the new measurement


def test_compsem_precision_forces_auto_without_a_probe(private_overlay, monkeypatch):
    import torch

    from compsem import device as D

    def no_probe():
        raise AssertionError("forced: the probe must not run")

    monkeypatch.setattr(D, "probe_precisions", no_probe)
    monkeypatch.setenv("COMPSEM_PRECISION", "fp32")
    assert D.autocast_dtype("cpu", "auto") is None
    monkeypatch.setenv("COMPSEM_PRECISION", "bf16")
    assert D.autocast_dtype("cpu", "auto") is torch.bfloat16
    assert D.precision_note("cpu", "auto") == "bf16 autocast (forced by COMPSEM_PRECISION=bf16)"
    assert not (private_overlay / "precision").exists()


def test_auto_on_a_cpu_follows_the_measurement(private_overlay, monkeypatch):
    import torch

    from compsem import device as D

    for rates, dtype, note in (
        ({"fp32": 100.0, "bf16": 55.0}, None, "fp32 (bf16 measured 0.55× fp32 here)"),
        ({"fp32": 100.0, "bf16": 190.0}, torch.bfloat16, "bf16 autocast (bf16 measured 1.90× fp32 here)"),
    ):
        monkeypatch.setattr(D, "_MEMO", {})
        monkeypatch.setattr(D, "machine_key", lambda r=rates: f"fake-{r['bf16']}")
        monkeypatch.setattr(D, "probe_precisions", _probe(rates, []))
        assert D.autocast_dtype("cpu", "auto") is dtype
        assert D.precision_note("cpu", "auto") == note


def test_the_real_probe_times_each_candidate():
    from compsem import device as D

    got = D.probe_precisions()
    assert set(got["rates"]) == set(D.probe_candidates()) and all(v > 0 for v in got["rates"].values())
    assert got["steps"] >= D.PROBE_MIN_ROUNDS and got["shape"] == list(D.PROBE_SHAPE)


def test_compsem_device_names_the_device_when_none_is_given(monkeypatch):
    from compsem.errors import CompsemError

    monkeypatch.setenv("COMPSEM_DEVICE", "cpu")
    assert resolve_device(None) == "cpu" and resolve_device("cuda:1") == "cuda:1"
    monkeypatch.setenv("COMPSEM_DEVICE", "mps")
    assert resolve_device() == "mps"
    monkeypatch.setenv("COMPSEM_DEVICE", "auto")
    assert resolve_device() == ("cuda" if torch.cuda.is_available() else "cpu")
    monkeypatch.setenv("COMPSEM_DEVICE", "gpu")
    with pytest.raises(CompsemError, match="COMPSEM_DEVICE"):
        resolve_device()


def test_the_probe_leaves_torchs_global_random_stream_as_it_was():
    import torch

    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    from compsem.device import _block_step

    _block_step((8, 4, 16))("fp32")  # builds and times a tiny block
    assert torch.equal(torch.rand(3), expected)
