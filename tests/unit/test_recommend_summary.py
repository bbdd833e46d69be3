"""The one-line suggestion the Models page shows: the machine, the model with its size and
why, for faked hardware over the real manifest."""
from __future__ import annotations

import pytest

from tutor_app.llm.offload import Hardware
from tutor_app.llm.recommend import recommend_llm
from tutor_app.paths import source_root
from tutor_app.registry.manifest import ModelRegistry


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    return ModelRegistry.load(tmp_path_factory.mktemp("models"), manifest=source_root() / "models" / "models.toml")


def machine(cores=2, ram=16384, vram=None, gpu=False) -> Hardware:
    return Hardware(cuda_probe=lambda: (gpu, "1 CUDA device(s)" if gpu else "no CUDA device found"),
                    gpu_build=lambda: (True, "llama.cpp built with GPU offload"),
                    free_vram_mb=lambda: vram, available_ram_mb=lambda: ram,
                    cpu_threads=lambda: max(1, cores - 1), cpu_cores=lambda: cores)


@pytest.mark.parametrize("hw, summary", [
    (machine(cores=2, ram=8192),
     "8 GB RAM free, no usable GPU, 2 CPU cores: qwen2.5-0.5b-instruct (491 MB) runs at a usable speed on the CPU"),
    (machine(cores=8, ram=16384),
     "16 GB RAM free, no usable GPU, 8 CPU cores: gemma-3-4b-it (2.5 GB) runs at a usable speed on the CPU"),
    (machine(cores=4, gpu=True, vram=8192),
     "8 GB free on the GPU: qwen2.5-7b-instruct (4.7 GB) runs on the GPU and replies quickly"),
    (machine(cores=4, gpu=True, vram=900),
     "16 GB RAM free, only 0.9 GB free on the GPU, 4 CPU cores: qwen2.5-1.5b-instruct (1.1 GB) runs at a "
     "usable speed on the CPU"),
    (machine(cores=1, ram=3000),
     "2.9 GB RAM free, no usable GPU, 1 CPU core: the bundled smollm2-135m-instruct (94 MB) runs at a usable "
     "speed on the CPU"),
    (machine(cores=1, ram=400),
     "0.4 GB RAM free, no usable GPU, 1 CPU core: the bundled smollm2-135m-instruct (94 MB) is the one this "
     "machine runs well"),
    (machine(cores=2, ram=None),
     "free RAM unknown, no usable GPU, 2 CPU cores: qwen2.5-0.5b-instruct (491 MB) runs at a usable speed on the CPU"),
])
def test_the_summary_names_the_machine_and_the_model(registry, hw, summary):
    assert recommend_llm(registry, hw).summary == summary


def test_a_gpu_without_a_memory_reading_is_said_so(registry):
    pick = recommend_llm(registry, machine(cores=2, gpu=True, vram=None))
    assert "GPU free memory unknown" in pick.summary and "None" not in pick.reason
