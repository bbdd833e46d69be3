"""GGUF -> transformers folder, done once at install (dequantising takes ~20 s on CPU,
too slow for every start)."""
from __future__ import annotations

from pathlib import Path

from tutor_app.errors import TutorError


def gguf_to_transformers(gguf: Path, dest: Path) -> None:
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:
        raise TutorError(f"converting {gguf.name} needs transformers, torch and gguf: {exc}") from None
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # our own progress line says what is happening
    folder, name = str(gguf.parent), gguf.name
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
        model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    except Exception as exc:  # noqa: BLE001 - a bad GGUF is one clear line
        raise TutorError(f"cannot convert {name}: {type(exc).__name__}: {exc}") from None
    # transformers refuses to save a model loaded from GGUF: rebuild a plain one from the
    # dequantised weights. float16 on disk halves the size; the loader upcasts on CPU.
    config = model.config
    for attr in ("quantization_config", "_pre_quantization_dtype"):
        if hasattr(config, attr):
            delattr(config, attr)
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    plain.load_state_dict(model.state_dict(), strict=False)
    plain.to(torch.float16).save_pretrained(str(dest), safe_serialization=True)
    if getattr(model, "generation_config", None) is not None:
        model.generation_config.save_pretrained(str(dest))
    tokenizer.save_pretrained(str(dest))
