"""Where speech models run: CUDA + float16 when a GPU is really usable, else CPU + int8.

"Usable" is core/cuda.py's probe (a trial allocation, not just a listed device); a probe
is a plain callable, so tests can fake a GPU (or its absence) both ways.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from tutor_app.core.cuda import CudaProbe, ctranslate2_cuda_probe, torch_cuda_probe

log = logging.getLogger(__name__)

DEVICES = ("auto", "cpu", "cuda")
# CTranslate2 compute types that only make sense on a GPU.
GPU_ONLY_TYPES = ("float16", "int8_float16", "bfloat16", "int8_bfloat16")
DEFAULT_TYPE = {"cuda": "float16", "cpu": "int8"}


@dataclass(frozen=True)
class ComputeChoice:
    device: str  # "cuda" | "cpu"
    compute_type: str  # a CTranslate2 compute type
    reason: str  # one line for `doctor` and the log
    warning: str = ""  # non-empty when the request could not be honoured

    def to_dict(self) -> dict[str, str]:
        return {"device": self.device, "compute_type": self.compute_type,
                "reason": self.reason, "warning": self.warning}


def select_compute(device: str = "auto", compute_type: str = "auto",
                   probe: CudaProbe | None = None) -> ComputeChoice:
    """Pick device and compute type for faster-whisper; never fails, warns instead."""
    device = (device or "auto").lower()
    compute_type = (compute_type or "auto").lower()
    if device not in DEVICES:
        warning = f"unknown device '{device}' (use auto, cpu or cuda): using auto"
        log.warning(warning)
        choice = select_compute("auto", compute_type, probe)
        return ComputeChoice(choice.device, choice.compute_type, choice.reason,
                             _join(warning, choice.warning))
    if device == "cpu":
        return _cpu(compute_type, "CPU requested", "")
    usable, detail = (probe or ctranslate2_cuda_probe)()
    if usable:
        ctype = DEFAULT_TYPE["cuda"] if compute_type == "auto" else compute_type
        return ComputeChoice("cuda", ctype, f"CUDA usable ({detail})")
    if device == "cuda":
        warning = f"CUDA requested but not usable ({detail}): running on the CPU"
        log.warning(warning)
        return _cpu(compute_type, f"CUDA not usable ({detail})", warning)
    return _cpu(compute_type, f"CUDA not usable ({detail})", "")


def _cpu(compute_type: str, reason: str, warning: str) -> ComputeChoice:
    if compute_type == "auto":
        return ComputeChoice("cpu", DEFAULT_TYPE["cpu"], reason, warning)
    if compute_type in GPU_ONLY_TYPES:
        extra = f"compute type {compute_type} needs a GPU: using int8"
        log.warning(extra)
        return ComputeChoice("cpu", "int8", reason, _join(warning, extra))
    return ComputeChoice("cpu", compute_type, reason, warning)


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def torch_device(probe: CudaProbe | None = None) -> str:
    """'cuda' when torch can really use the GPU, else 'cpu'."""
    usable, _ = (probe or torch_cuda_probe)()
    return "cuda" if usable else "cpu"
