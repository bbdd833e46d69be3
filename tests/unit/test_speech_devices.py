"""Device selection with the CUDA probe faked both ways (no GPU is ever required)."""
from tutor_app.speech.devices import select_compute, torch_device


def gpu():
    return True, "1 CUDA device(s)"


def no_gpu():
    return False, "no CUDA device found"


def test_auto_uses_cuda_float16_when_usable():
    choice = select_compute("auto", "auto", probe=gpu)
    assert (choice.device, choice.compute_type, choice.warning) == ("cuda", "float16", "")


def test_auto_falls_back_to_cpu_int8_without_warning():
    choice = select_compute("auto", "auto", probe=no_gpu)
    assert (choice.device, choice.compute_type, choice.warning) == ("cpu", "int8", "")
    assert "no CUDA device" in choice.reason


def test_cuda_requested_but_absent_gives_cpu_and_warning(caplog):
    choice = select_compute("cuda", "auto", probe=no_gpu)
    assert (choice.device, choice.compute_type) == ("cpu", "int8")
    assert "CUDA requested" in choice.warning
    assert "CUDA requested" in caplog.text  # logged too, not only returned for doctor


def test_cuda_requested_with_gpu_only_type_falls_back_to_int8():
    choice = select_compute("cuda", "float16", probe=no_gpu)
    assert (choice.device, choice.compute_type) == ("cpu", "int8")
    assert "float16" in choice.warning


def test_explicit_overrides_are_honoured():
    assert select_compute("cuda", "int8_float16", probe=gpu).compute_type == "int8_float16"
    assert select_compute("cpu", "float32", probe=gpu).device == "cpu"
    assert select_compute("cpu", "float32", probe=gpu).compute_type == "float32"


def test_cpu_requested_never_probes():
    def probe():
        raise AssertionError("probe must not run for device=cpu")

    assert select_compute("cpu", "auto", probe=probe).compute_type == "int8"


def test_unknown_device_warns_and_uses_auto():
    choice = select_compute("tpu", "auto", probe=gpu)
    assert choice.device == "cuda" and "unknown device" in choice.warning


def test_real_probe_on_this_machine_is_safe():
    # No GPU here: the real probe must say so without raising.
    choice = select_compute("auto", "auto")
    assert choice.device in ("cpu", "cuda")


def test_torch_device_follows_probe():
    assert torch_device(probe=gpu) == "cuda"
    assert torch_device(probe=no_gpu) == "cpu"
