"""Where speech models run: CUDA + float16 when a GPU is really usable, else CPU + int8.

"Usable" means more than "a device is listed": a driver that is too old lists the GPU
but fails on the first allocation, so the probe makes a tiny trial allocation too.
The probe is a plain callable so tests can fake a GPU (or its absence) both ways.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)

DEVICES = ("auto", "cpu", "cuda")
# CTranslate2 compute types that only make sense on a GPU.
GPU_ONLY_TYPES = ("float16", "int8_float16", "bfloat16", "int8_bfloat16")
DEFAULT_TYPE = {"cuda": "float16", "cpu": "int8"}

# A probe answers (usable, detail): detail says why not, or which device was found.
CudaProbe = Callable[[], "tuple[bool, str]"]


@dataclass(frozen=True)
class ComputeChoice:
    device: str  # "cuda" | "cpu"
    compute_type: str  # a CTranslate2 compute type
    reason: str  # one line for `doctor` and the log
    warning: str = ""  # non-empty when the request could not be honoured

    def to_dict(self) -> dict[str, str]:
        return {"device": self.device, "compute_type": self.compute_type,
                "reason": self.reason, "warning": self.warning}


def ctranslate2_cuda_probe() -> tuple[bool, str]:
    """CUDA usable by CTranslate2 (what faster-whisper runs on)?"""
    try:
        import ctranslate2
        import numpy as np

        count = ctranslate2.get_cuda_device_count()
    except Exception as exc:  # noqa: BLE001 - a broken install means "no GPU", not a crash
        return False, f"CTranslate2 cannot query CUDA: {exc}"
    if count <= 0:
        return False, "no CUDA device found"
    try:
        # Both raise when the driver/runtime pair is unusable even though a device is listed.
        ctranslate2.get_supported_compute_types("cuda")
        ctranslate2.StorageView.from_array(np.zeros(4, dtype=np.float32)).to_device(
            ctranslate2.Device.cuda)
    except Exception as exc:  # noqa: BLE001
        return False, f"CUDA device listed but unusable: {exc}"
    return True, f"{count} CUDA device(s)"


def torch_cuda_probe() -> tuple[bool, str]:
    """CUDA usable by torch (transformers users)? The CPU torch build says no."""
    try:
        import torch

        if not torch.cuda.is_available():
            return False, "torch sees no CUDA device"
        torch.zeros(1, device="cuda").add_(1)
    except Exception as exc:  # noqa: BLE001
        return False, f"torch CUDA unusable: {exc}"
    return True, "torch CUDA ok"


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
