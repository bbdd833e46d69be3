"""Is CUDA really usable? More than "a device is listed": a driver that is too old lists
the GPU but fails on the first allocation, so each probe makes a tiny trial allocation
too. Speech recognition (speech/devices.py) and the local model's GPU offload
(llm/offload.py) read the same CTranslate2 probe; torch users read the torch one."""
from __future__ import annotations

from collections.abc import Callable

# A probe answers (usable, detail): detail says why not, or which device was found.
CudaProbe = Callable[[], "tuple[bool, str]"]


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
