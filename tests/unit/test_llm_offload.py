"""Where llama.cpp runs a GGUF: GPU layers from the CUDA probe and the free GPU memory,
CPU threads, and the clear refusal of a model too big for this machine (hardware faked)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tutor_app.llm.gguf_info import GGUFInfo
from tutor_app.llm.hardware import cpu_threads, prompt_threads
from tutor_app.llm.offload import Hardware, LLMTooBigError, OffloadPlan, check_memory, plan_offload

MB = 1 << 20


def model(size_mb: int = 4000, layers: int = 28) -> GGUFInfo:
    return GGUFInfo(path=Path("/m/qwen2.5-7b.gguf"), size_bytes=size_mb * MB, architecture="qwen2", name="q",
                    block_count=layers, context_length=32768, embedding_length=3584, head_count=28,
                    head_count_kv=4, chat_template="{{ x }}")


def hw(cuda=(True, "1 CUDA device(s)"), build=(True, "llama.cpp built with GPU offload"),
       vram: int | None = 24000, ram: int | None = 16000, threads: int = 3) -> Hardware:
    return Hardware(cuda_probe=lambda: cuda, gpu_build=lambda: build, free_vram_mb=lambda: vram,
                    available_ram_mb=lambda: ram, cpu_threads=lambda: threads)


def test_a_big_enough_gpu_takes_every_layer():
    plan = plan_offload(model(), 4096, hw(vram=24000))
    assert plan.n_gpu_layers == -1 and plan.device == "cuda" and plan.n_threads == 3
    assert "24000 MB free on the GPU" in plan.reason


def test_a_small_gpu_takes_the_layers_that_fit():
    info = model(size_mb=4000, layers=28)
    plan = plan_offload(info, 4096, hw(vram=2500))
    assert 0 < plan.n_gpu_layers < 28 and plan.device == "cuda+cpu"
    kv_mb = info.kv_cache_bytes(4096) // MB
    layer_mb = info.layer_bytes() / MB
    assert plan.n_gpu_layers == int((2500 - 512 - kv_mb) / layer_mb)
    assert f"{plan.n_gpu_layers} of 28 layers on the GPU" in plan.reason
    assert "GPU (" in plan.describe() and "layers) + CPU" in plan.describe()


def test_a_nearly_full_gpu_means_the_cpu():
    plan = plan_offload(model(), 4096, hw(vram=600))
    assert plan.n_gpu_layers == 0 and "only 600 MB free on the GPU" in plan.reason


@pytest.mark.parametrize("kwargs, why", [
    (dict(build=(False, "llama.cpp built for the CPU only (README: the CUDA build line)")), "CPU only"),
    (dict(cuda=(False, "no CUDA device found")), "CUDA not usable (no CUDA device found)"),
    (dict(cuda=(False, "CUDA device listed but unusable: driver too old")), "driver too old"),
])
def test_no_usable_gpu_means_the_cpu_with_the_reason(kwargs, why):
    plan = plan_offload(model(), 4096, hw(**kwargs))
    assert plan.n_gpu_layers == 0 and plan.device == "cpu" and why in plan.reason
    assert plan.describe().startswith("CPU, 3 CPU thread(s): ")


def test_unknown_free_memory_tries_every_layer():
    plan = plan_offload(model(), 4096, hw(vram=None))
    assert plan.n_gpu_layers == -1 and "unknown" in plan.reason


def test_settings_override_device_and_threads():
    assert plan_offload(model(), 4096, hw(), device="cpu").n_gpu_layers == 0
    assert plan_offload(model(), 4096, hw(), threads=7).n_threads == 7
    forced = plan_offload(model(), 4096, hw(cuda=(False, "no CUDA device found")), device="cuda")
    assert forced.n_gpu_layers == 0 and forced.reason.startswith("GPU requested but not used")
    assert plan_offload(model(), 4096, hw(), device="tpu").n_gpu_layers == -1  # unknown: auto


def test_a_model_too_big_for_the_ram_is_one_clear_line():
    with pytest.raises(LLMTooBigError) as caught:
        check_memory(model(size_mb=4000), 4096, OffloadPlan(0, 2, "cpu"), hw(ram=3000), "qwen2.5-1.5b-instruct")
    message = str(caught.value)
    assert "needs about" in message and "only 3000 MB is free" in message
    assert "choose a smaller model (e.g. qwen2.5-1.5b-instruct)" in message and "\n" not in message


def test_memory_that_fits_or_is_unknown_or_on_the_gpu_passes():
    check_memory(model(size_mb=4000), 4096, OffloadPlan(0, 2, "cpu"), hw(ram=16000))
    check_memory(model(size_mb=4000), 4096, OffloadPlan(0, 2, "cpu"), hw(ram=None))
    check_memory(model(size_mb=4000), 4096, OffloadPlan(-1, 2, "gpu"), hw(ram=500))
    # Partly offloaded: only the layers left on the CPU need RAM.
    check_memory(model(size_mb=4000, layers=28), 4096, OffloadPlan(26, 2, "gpu"), hw(ram=1200))
    with pytest.raises(LLMTooBigError):
        check_memory(model(size_mb=4000, layers=28), 4096, OffloadPlan(4, 2, "gpu"), hw(ram=1200))


def test_cpu_threads_leave_a_core_for_the_call():
    import os

    assert 1 <= cpu_threads() <= max(1, (os.cpu_count() or 1) - 1)


@pytest.mark.parametrize("load, cores, threads", [
    (0.4, 2, 2),  # quiet: the call's own audio only
    (1.49, 2, 2),
    (1.5, 2, 1),  # a core's worth of other work: the plan's one
    (3.0, 4, 4), (3.6, 4, 3),
    (0.0, 1, 1),  # one core: one thread whatever the load
])
def test_a_prompt_is_read_on_every_core_while_the_machine_is_quiet(load, cores, threads):
    assert prompt_threads(load, cores) == threads
