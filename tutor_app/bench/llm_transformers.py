"""The previous local runtime, kept for `tutor-app bench llm` only: SmolLM2 from its GGUF
dequantised by transformers into a float16 folder once, then loaded with torch and
streamed greedily through a `TextIteratorStreamer`. The app itself no longer uses it.
Needs the `bench` extra (transformers' GGUF reader needs the `gguf` package)."""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class TransformersBaseline:
    def __init__(self, gguf: Path, workdir: Path) -> None:
        self.gguf = gguf
        self.folder = workdir / "smollm2-hf"
        self.convert_seconds = 0.0
        self.load_seconds = 0.0
        self._model: Any = None
        self._tokenizer: Any = None

    def convert(self) -> None:
        """What `models install` used to do once: GGUF -> a transformers folder."""
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        started = time.perf_counter()
        folder, name = str(self.gguf.parent), self.gguf.name
        try:  # its GGUF reader wraps the tensor loop in a bare tqdm that ignores the switch above
            from transformers import modeling_gguf_pytorch_utils as reader
        except ImportError:
            reader = None
        saved = getattr(reader, "tqdm", None)
        if reader is not None:
            reader.tqdm = lambda items, *args, **kwargs: items
        try:
            tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
            model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
        finally:
            if reader is not None:
                reader.tqdm = saved
        config = model.config
        for attr in ("quantization_config", "_pre_quantization_dtype"):
            if hasattr(config, attr):
                delattr(config, attr)
        plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        plain.load_state_dict(model.state_dict(), strict=False)
        plain.to(torch.float16).save_pretrained(str(self.folder), safe_serialization=True)
        tokenizer.save_pretrained(str(self.folder))
        self.convert_seconds = time.perf_counter() - started

    def load(self) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        started = time.perf_counter()
        self._tokenizer = AutoTokenizer.from_pretrained(str(self.folder), local_files_only=True)
        self._model = AutoModelForCausalLM.from_pretrained(str(self.folder), dtype=torch.float32,
                                                           local_files_only=True).eval()
        self.load_seconds = time.perf_counter() - started

    def stream(self, system: str, user: str, max_new_tokens: int) -> Iterator[str]:
        import torch
        from transformers import TextIteratorStreamer

        chat = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        prompt = self._tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
        inputs = self._tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
        streamer = TextIteratorStreamer(self._tokenizer, skip_prompt=True, skip_special_tokens=True)
        kwargs = dict(**inputs, max_new_tokens=max_new_tokens, streamer=streamer, do_sample=False,
                      temperature=None, top_p=None, top_k=None, repetition_penalty=1.1, no_repeat_ngram_size=4,
                      pad_token_id=self._tokenizer.eos_token_id)

        def run() -> None:
            with torch.inference_mode():
                self._model.generate(**kwargs)

        worker = threading.Thread(target=run, name="bench-transformers", daemon=True)
        worker.start()
        try:
            for text in streamer:
                if text:
                    yield text
        finally:
            worker.join()

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])
