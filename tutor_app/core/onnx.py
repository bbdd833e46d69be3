"""One way to open an ONNX model on the CPU, shared by the emotion scorer and the
memory embedder."""
from __future__ import annotations

from pathlib import Path


def open_session(path: Path):
    """One intra-op thread: an utterance is ~20 tokens, and during a call the CPU is shared
    with Whisper, Piper and the LLM, where extra threads mostly spin waiting for a core."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
