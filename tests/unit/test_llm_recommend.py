"""The local model suggested for a machine's RAM, GPU memory and cores (hardware faked),
over the real manifest."""
from __future__ import annotations

import pytest

from tutor_app.llm.offload import Hardware
from tutor_app.llm.recommend import recommend_llm
from tutor_app.paths import source_root
from tutor_app.registry.manifest import ModelRegistry


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    return ModelRegistry.load(tmp_path_factory.mktemp("models"), manifest=source_root() / "models" / "models.toml")


def machine(cores=2, ram=16000, vram=None, gpu=False, build=True) -> Hardware:
    return Hardware(cuda_probe=lambda: (gpu, "1 CUDA device(s)" if gpu else "no CUDA device found"),
                    gpu_build=lambda: (build, "llama.cpp built with GPU offload" if build else "CPU only"),
                    free_vram_mb=lambda: vram, available_ram_mb=lambda: ram,
                    cpu_threads=lambda: max(1, cores - 1), cpu_cores=lambda: cores)


@pytest.mark.parametrize("hw, name, why", [
    (machine(cores=2), "qwen2.5-0.5b-instruct", "2 CPU core(s)"),
    (machine(cores=4), "qwen2.5-1.5b-instruct", "4 CPU core(s)"),
    (machine(cores=8), "gemma-3-4b-it", "8 CPU core(s)"),
    (machine(cores=1, ram=3000), "smollm2-135m-instruct", "1 CPU core(s)"),
    (machine(cores=1, ram=400), "smollm2-135m-instruct", "the bundled model"),
    (machine(cores=8, ram=2000), "qwen2.5-1.5b-instruct", "2000 MB RAM free"),
    (machine(gpu=True, vram=8000), "qwen2.5-7b-instruct", "8000 MB of free memory"),
    (machine(gpu=True, vram=4000), "gemma-3-4b-it", "4000 MB"),
    (machine(cores=4, gpu=True, vram=900), "qwen2.5-1.5b-instruct", "GPU memory too small (900 MB free)"),
    (machine(cores=4, gpu=True, vram=8000, build=False), "qwen2.5-1.5b-instruct", "CPU only"),
])
def test_the_suggestion_follows_the_hardware(registry, hw, name, why):
    pick = recommend_llm(registry, hw)
    assert pick.name == name and why in pick.reason
    assert registry.get(pick.name).role == "llm-local"


def test_every_local_model_is_a_gguf_with_size_and_licence(registry):
    for spec in registry.for_role("llm-local"):
        files = [*spec.files, *spec.hub_files]
        assert files and all(f.endswith(".gguf") for f in files), spec.name
        assert spec.size_mb > 0 and spec.license, spec.name
    assert registry.default("llm-local").name == "smollm2-135m-instruct"
