"""Which local tutor model suits this machine: the largest GGUF in the manifest that fits
the GPU's free memory when llama.cpp can use the GPU, else one the CPU runs quickly
enough for a spoken conversation and the RAM holds. Shown by `models status` and the
Models page (its `summary`: one line naming the machine, the model and its size)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tutor_app.llm.offload import GPU_MARGIN_MB, Hardware

if TYPE_CHECKING:
    from tutor_app.registry.manifest import ModelRegistry, ModelSpec

CPU_MB_PER_CORE = 350  # on the CPU, speed limits size: about this much model per core keeps
# replies at conversational speed (the bundled 94 MB model: ~50 tokens/s on one core here)
RAM_FACTOR = 1.25  # weights plus the context cache and the rest of the app


@dataclass(frozen=True)
class Recommendation:
    name: str
    reason: str  # the technical why (`models status`)
    summary: str = ""  # for the learner, e.g. "16 GB RAM free, no usable GPU, 8 CPU cores: ..."


def recommend_llm(registry: ModelRegistry, hw: Hardware | None = None) -> Recommendation:
    hw = hw or Hardware.this_machine()
    models = sorted((s for s in registry.for_role("llm-local")), key=lambda s: s.size_mb)
    fallback = next((s for s in models if s.default), models[0])
    ram = hw.available_ram_mb()
    fits_ram = [s for s in models if ram is None or s.size_mb * RAM_FACTOR + 500 <= ram]
    built, _ = hw.gpu_build()
    usable, why = hw.cuda_probe() if built else (False, "llama.cpp built for the CPU only")
    vram = hw.free_vram_mb() if usable else None
    on_gpu = [s for s in models if usable and vram and s.size_mb * 1.15 + GPU_MARGIN_MB <= vram]
    cores = hw.cpu_cores()
    budget = cores * CPU_MB_PER_CORE
    on_cpu = [s for s in fits_ram if s.size_mb <= budget]
    if on_gpu and vram and (not on_cpu or on_gpu[-1].size_mb >= on_cpu[-1].size_mb):
        best = on_gpu[-1]
        return Recommendation(best.name, f"fits the GPU's {vram} MB of free memory (~{best.size_mb:.0f} MB)",
                              f"{_gb(vram)} free on the GPU: {_model(best)} runs on the GPU and replies quickly")
    gpu_note = (f"GPU: {why}" if not usable else "GPU free memory unknown (no nvidia-smi)" if vram is None
                else f"GPU memory too small ({vram} MB free)")
    gpu_text = ("no usable GPU" if not usable else "GPU free memory unknown" if vram is None
                else f"only {_gb(vram)} free on the GPU")
    machine = ", ".join((f"{_gb(ram)} RAM free" if ram is not None else "free RAM unknown", gpu_text,
                         f"{cores} CPU core{'s' if cores != 1 else ''}"))
    if not on_cpu:
        return Recommendation(fallback.name, f"{gpu_note}; the bundled model is the one this machine runs well",
                              f"{machine}: {_model(fallback)} is the one this machine runs well")
    best = on_cpu[-1]
    ram_note = f", {ram} MB RAM free" if ram is not None else ""
    return Recommendation(best.name, f"{gpu_note}; {cores} CPU core(s){ram_note}: up to ~{budget} MB "
                                     f"keeps replies quick on the CPU",
                          f"{machine}: {_model(best)} runs at a usable speed on the CPU")


def _model(spec: ModelSpec) -> str:
    size = f"{spec.size_mb:.0f} MB" if spec.size_mb < 1000 else f"{spec.size_mb / 1000:.1f} GB"
    return f"{'the bundled ' if spec.default else ''}{spec.name} ({size})"


def _gb(mb: int) -> str:
    return f"{mb / 1024:.1f}".removesuffix(".0") + " GB"
