"""One way to open an ONNX model on the CPU (emotion scorer, memory embedder, VAD, turn
detector), and onnxruntime imported with its telemetry off."""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

# onnxruntime (1.32 here) sends usage events and keeps a device id and an event queue in
# ~/.cache/Microsoft/DeveloperTools; this switch stops all of it, but only when set before
# the library initialises: app start-up sets it too, before anything imports onnxruntime.
TELEMETRY_OFF = {"ORT_DISABLE_TELEMETRY": "1"}
_lock = threading.Lock()
_quieted = False


def import_onnxruntime() -> Any:  # the module; untyped, so its attributes are Any anyway
    """`import onnxruntime`, with telemetry disabled (env before, API call after)."""
    global _quieted
    for key, value in TELEMETRY_OFF.items():
        os.environ.setdefault(key, value)
    import onnxruntime as ort

    with _lock:
        if not _quieted:
            off = getattr(ort, "disable_telemetry_events", None)
            if off is not None:
                off()
            _quieted = True
    return ort


def load_onnx(path: Path, threads: int = 1) -> Any:  # onnxruntime has no type information
    """One intra-op thread by default: an utterance is ~20 tokens, and during a call the
    CPU is shared with Whisper, Piper and the LLM, where extra threads mostly spin
    waiting for a core."""
    ort = import_onnxruntime()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
