"""Where a GGUF model runs: how many layers go to the GPU, how many CPU threads, and
whether the machine has the memory for it at all.

The decision reads the same CUDA probe as speech recognition (a trial allocation, not
just "a device is listed"), then the GPU's free memory: every layer when the whole model
plus its context cache fits with a margin, else as many layers as fit, else none. Each
plan carries its reason, shown by `tutor-app doctor`. Every input is injectable, so tests
fake a GPU of any size.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from tutor_app.llm.errors import LLMError
from tutor_app.llm.gguf_info import GGUFInfo

log = logging.getLogger(__name__)

DEVICES = ("auto", "cpu", "cuda")
GPU_MARGIN_MB = 512  # CUDA context and compute buffers beside the weights and the cache
RAM_MARGIN_MB = 300  # the app itself, beside the model


class LLMTooBigError(LLMError):
    """The model cannot fit in this machine's memory: one line with a smaller suggestion."""


@dataclass(frozen=True)
class OffloadPlan:
    n_gpu_layers: int  # 0 = CPU only, -1 = every layer (and the output head)
    n_threads: int
    reason: str

    @property
    def device(self) -> str:
        if self.n_gpu_layers == 0:
            return "cpu"
        return "cuda" if self.n_gpu_layers < 0 else "cuda+cpu"

    def describe(self) -> str:
        where = {"cpu": "CPU", "cuda": "GPU (all layers)"}.get(
            self.device, f"GPU ({self.n_gpu_layers} layers) + CPU")
        return f"{where}, {self.n_threads} CPU thread(s): {self.reason}"


@dataclass
class Hardware:
    """Readings (each None when unknown) and probes, all replaceable in tests."""
    cuda_probe: Callable[[], "tuple[bool, str]"]
    gpu_build: Callable[[], "tuple[bool, str]"]
    free_vram_mb: Callable[[], "int | None"]
    available_ram_mb: Callable[[], "int | None"]
    cpu_threads: Callable[[], int]
    cpu_cores: Callable[[], int] = lambda: 2
    prompt_threads: Callable[[], int] = lambda: 1  # asked per request (hardware.prompt_threads)

    @classmethod
    def this_machine(cls) -> "Hardware":
        from tutor_app.core.cuda import ctranslate2_cuda_probe
        from tutor_app.llm import hardware

        return cls(ctranslate2_cuda_probe, hardware.llama_gpu_build, hardware.free_vram_mb,
                   hardware.available_ram_mb, hardware.cpu_threads, hardware.cpu_cores, hardware.prompt_threads)


def plan_offload(info: GGUFInfo, n_ctx: int, hw: Hardware, device: str = "auto",
                 threads: int = 0) -> OffloadPlan:
    """`device`: auto | cpu | cuda (cuda = auto, but say so when the GPU cannot be used)."""
    n_threads = threads if threads > 0 else hw.cpu_threads()
    device = (device or "auto").lower()
    if device not in DEVICES:
        log.warning("unknown local model device '%s' (use auto, cpu or cuda): using auto", device)
        device = "auto"
    if device == "cpu":
        return OffloadPlan(0, n_threads, "CPU requested in the settings")
    built, build_detail = hw.gpu_build()
    if not built:
        return OffloadPlan(0, n_threads, _requested(device, build_detail))
    usable, probe_detail = hw.cuda_probe()
    if not usable:
        return OffloadPlan(0, n_threads, _requested(device, f"CUDA not usable ({probe_detail})"))
    free = hw.free_vram_mb()
    need_mb = _mb(info.size_bytes + info.kv_cache_bytes(n_ctx)) + GPU_MARGIN_MB
    if free is None:
        # No reading (no nvidia-smi): try everything; the loader falls back to the CPU
        # if the GPU refuses the allocation.
        return OffloadPlan(-1, n_threads, f"CUDA usable ({probe_detail}); free GPU memory unknown: "
                                          "offloading every layer")
    if free >= need_mb:
        return OffloadPlan(-1, n_threads, f"CUDA usable, {free} MB free on the GPU >= {need_mb} MB needed")
    room = free - GPU_MARGIN_MB - _mb(info.kv_cache_bytes(n_ctx))
    layers = min(info.block_count, int(room * (1 << 20) // max(1, info.layer_bytes()))) if room > 0 else 0
    if layers <= 0:
        return OffloadPlan(0, n_threads, _requested(
            device, f"only {free} MB free on the GPU, {need_mb} MB needed: running on the CPU"))
    return OffloadPlan(layers, n_threads, f"{free} MB free on the GPU < {need_mb} MB for the whole model: "
                                          f"{layers} of {info.block_count} layers on the GPU")


def check_memory(info: GGUFInfo, n_ctx: int, plan: OffloadPlan, hw: Hardware, smaller: str = "") -> None:
    """Raise LLMTooBigError when the part of the model kept in RAM cannot fit: a clear
    line now instead of the machine swapping to a halt (or the loader dying) later."""
    available = hw.available_ram_mb()
    if available is None or plan.n_gpu_layers < 0:
        return
    on_cpu = info.size_bytes - plan.n_gpu_layers * info.layer_bytes()
    need = _mb(on_cpu + info.kv_cache_bytes(n_ctx)) + RAM_MARGIN_MB
    if need > available:
        hint = f"; choose a smaller model (e.g. {smaller})" if smaller else "; choose a smaller model"
        raise LLMTooBigError(f"the local model {info.path.name} needs about {need} MB of memory but only "
                             f"{available} MB is free{hint}")


def _requested(device: str, why: str) -> str:
    if device == "cuda":
        log.warning("GPU requested for the local model but not used: %s", why)
        return f"GPU requested but not used: {why}"
    return why


def _mb(n_bytes: int) -> int:
    return int(n_bytes // (1 << 20))
