"""A local instruct model with transformers: offline replies, streamed.

Any Hugging Face causal-LM folder with a chat template works (the bundled
SmolLM2-135M-Instruct by default; `settings.llm.local_model` may name another
registry model, a folder in the models dir, or a path holding config.json).
The model loads once, on first use, on CUDA when a trial allocation there works, else
on the CPU in float32. Generation runs in a background thread feeding a
`TextIteratorStreamer`; cancelling stops it at the next token through a
`StoppingCriteria` that reads the `CancelToken`.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tutor_app.core.cancel import CancelToken
from tutor_app.core.types import ChatMessage
from tutor_app.errors import ModelMissingError, UsageError
from tutor_app.llm.errors import LLMBadJSONError, LLMError
from tutor_app.llm.jsonparse import JSONExtractError, extract_json_object
from tutor_app.llm.system import SystemPrompt, system_text

log = logging.getLogger(__name__)

DEFAULT_LOCAL_MODEL = "smollm2-135m-instruct"
INSTALL_HINT = f"run `tutor-app models install {DEFAULT_LOCAL_MODEL}`"
JSON_INSTRUCTION = "Answer with one JSON object only, no other text."
_POLL_S = 0.1  # how often the consumer re-checks the cancel token while waiting for text


@dataclass
class LocalOptions:
    max_new_tokens: int = 300
    json_max_new_tokens: int = 256  # the 135M model rambles; a real object fits easily
    temperature: float = 0.0  # 0 = greedy (deterministic)
    top_p: float = 0.9
    repetition_penalty: float = 1.1  # small models loop without it
    no_repeat_ngram_size: int = 4  # ... and still repeat phrases ("Mwadenda Mwadenda ...")
    seed: int = 1234
    device: str = "auto"  # auto | cpu | cuda


class LocalChatModel:
    """`ChatModel` over a transformers causal LM (thread-safe: inference keeps no state)."""

    def __init__(self, model_dir: Path, options: LocalOptions | None = None) -> None:
        self.model_dir = Path(model_dir)
        self.options = options or LocalOptions()
        self.name = f"local:{self.model_dir.name}"
        self._loaded: tuple[Any, Any, str] | None = None
        self._load_lock = threading.Lock()

    # -- loading ----------------------------------------------------------------------
    def load(self) -> tuple[Any, Any, str]:
        """(model, tokenizer, device); loads on first call, then reuses."""
        with self._load_lock:
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded

    def _load(self) -> tuple[Any, Any, str]:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        device = pick_device(self.options.device)
        dtype = torch.float16 if device == "cuda" else torch.float32
        try:
            tokenizer = AutoTokenizer.from_pretrained(str(self.model_dir), local_files_only=True)
            model = AutoModelForCausalLM.from_pretrained(str(self.model_dir), dtype=dtype, local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ModelMissingError(
                f"cannot load the local model from {self.model_dir} ({type(exc).__name__}): {INSTALL_HINT}"
            ) from None
        if not getattr(tokenizer, "chat_template", None):
            raise LLMError(f"the local model {self.model_dir.name} has no chat template (not an instruct model?)")
        model.to(device)
        model.eval()
        log.info("local LLM %s loaded on %s (%s)", self.model_dir.name, device, dtype)
        return model, tokenizer, device

    def warm_up(self) -> None:
        """Load the weights now (seconds), e.g. in the background when a call starts."""
        self.load()

    # -- ChatModel --------------------------------------------------------------------
    def stream(
        self, system: SystemPrompt, messages: Sequence[ChatMessage], cancel: CancelToken | None = None
    ) -> Iterator[str]:
        yield from self._generate(system, messages, cancel, self.options.max_new_tokens)

    def complete_json(self, system: SystemPrompt, messages: Sequence[ChatMessage]) -> dict[str, Any]:
        """Greedy JSON attempt, one retry; a small model often cannot: LLMBadJSONError."""
        prompt = f"{system_text(system)}\n\n{JSON_INSTRUCTION}".strip()
        convo = list(messages)
        raw = ""
        for attempt in range(2):
            raw = "".join(self._generate(prompt, convo, None, self.options.json_max_new_tokens))
            try:
                return extract_json_object(raw)
            except JSONExtractError as exc:
                log.info("malformed JSON from %s (attempt %d): %s", self.name, attempt + 1, exc)
                convo = [*convo, ChatMessage("assistant", raw or "(empty)"),
                         ChatMessage("user", "That was not valid JSON. Reply with only the JSON object.")]
        raise LLMBadJSONError(f"{self.name} did not return a valid JSON object", raw=raw)

    def _generate(
        self, system: SystemPrompt, messages: Sequence[ChatMessage], cancel: CancelToken | None, max_new: int
    ) -> Iterator[str]:
        if cancel is not None and cancel.cancelled:
            return
        model, tokenizer, device = self.load()
        import torch
        from transformers import StoppingCriteria, StoppingCriteriaList, TextIteratorStreamer

        stop = threading.Event()  # set by the cancel token or by a consumer that goes away

        class _Stop(StoppingCriteria):
            def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> bool:  # type: ignore[override]
                return stop.is_set() or (cancel is not None and cancel.cancelled)

        room = _context_size(model) - int(max_new)
        prompt = chat_prompt(tokenizer, system, messages, max_prompt_tokens=room if room > 0 else None)
        inputs = tokenizer(prompt, return_tensors="pt", add_special_tokens=False).to(device)
        streamer = TextIteratorStreamer(tokenizer, skip_prompt=True, skip_special_tokens=True, timeout=_POLL_S)
        opts = self.options
        kwargs: dict[str, Any] = dict(
            **inputs,
            max_new_tokens=max(1, int(max_new)),
            streamer=streamer,
            stopping_criteria=StoppingCriteriaList([_Stop()]),
            repetition_penalty=opts.repetition_penalty,
            no_repeat_ngram_size=opts.no_repeat_ngram_size,
            pad_token_id=tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id,
        )
        if opts.temperature > 0:
            kwargs.update(do_sample=True, temperature=opts.temperature, top_p=opts.top_p)
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        failure: list[BaseException] = []

        def run() -> None:
            try:
                with torch.inference_mode():
                    if opts.temperature > 0:
                        torch.manual_seed(opts.seed)  # same prompt, same reply
                    model.generate(**kwargs)
            except BaseException as exc:  # noqa: BLE001 - re-raised in the consumer's thread
                failure.append(exc)
                streamer.end()

        worker = threading.Thread(target=run, name="local-llm-generate", daemon=True)
        worker.start()
        try:
            yield from _drain(streamer, worker, stop, cancel)
        finally:
            stop.set()  # the consumer stopped early or we are done: end generation
            worker.join()
        if failure and not isinstance(failure[0], Exception):
            raise failure[0]
        if failure:
            detail = " ".join(str(failure[0]).split())[:200]  # one line for the CLI
            raise LLMError(f"local model failed: {type(failure[0]).__name__}: {detail}") from None


def _drain(streamer: Any, worker: threading.Thread, stop: threading.Event,
           cancel: CancelToken | None) -> Iterator[str]:
    import queue

    while True:
        if cancel is not None and cancel.cancelled:
            return
        try:
            text = next(streamer)
        except StopIteration:
            return
        except queue.Empty:
            if not worker.is_alive() and streamer.text_queue.empty():
                return
            continue
        if text:
            yield text


def chat_prompt(tokenizer: Any, system: SystemPrompt, messages: Sequence[ChatMessage],
                max_prompt_tokens: int | None = None) -> str:
    """The model's own chat template over system + messages; the oldest turns are dropped
    while the prompt is longer than `max_prompt_tokens` (the last turn always stays)."""
    text = system_text(system)
    turns = [{"role": m.role, "content": m.content} for m in messages if m.content]
    while True:
        prompt = _render(tokenizer, text, turns)
        if max_prompt_tokens is None or len(turns) <= 1:
            return prompt
        if len(tokenizer(prompt, add_special_tokens=False)["input_ids"]) <= max_prompt_tokens:
            return prompt
        turns = turns[1:]


def _render(tokenizer: Any, system: str, turns: list[dict[str, str]]) -> str:
    head = [{"role": "system", "content": system}] if system else []
    try:
        return tokenizer.apply_chat_template(head + turns, tokenize=False, add_generation_prompt=True)
    except Exception:  # noqa: BLE001 - templates without a system role (Gemma...) raise
        if not system or not turns:
            raise
        merged = [{"role": turns[0]["role"], "content": f"{system}\n\n{turns[0]['content']}"}] + turns[1:]
        return tokenizer.apply_chat_template(merged, tokenize=False, add_generation_prompt=True)


def _context_size(model: Any) -> int:
    return int(getattr(model.config, "max_position_embeddings", 0) or 2048)


def pick_device(requested: str = "auto") -> str:
    """'cuda' when asked for (or auto) and a trial allocation there works, else 'cpu'."""
    if requested == "cpu":
        return "cpu"
    import torch

    try:
        if torch.cuda.is_available():
            torch.zeros(1, device="cuda")  # is_available() can be true on a broken driver
            return "cuda"
    except Exception as exc:  # noqa: BLE001 - any CUDA failure means: use the CPU
        log.warning("CUDA present but unusable (%s); using the CPU", type(exc).__name__)
    if requested == "cuda":
        log.warning("CUDA requested but not usable; using the CPU")
    return "cpu"


def resolve_model_dir(name: str, registry: Any) -> Path:
    """The folder for `settings.llm.local_model`: a registry name, a models-dir folder or a path."""
    name = (name or DEFAULT_LOCAL_MODEL).strip()
    try:
        spec = registry.get(name)
    except UsageError:
        spec = None
    if spec is not None:
        if spec.role != "llm-local":
            raise UsageError(f"model '{name}' is a {spec.role} model, not a local LLM")
        return Path(registry.path(name))  # ModelMissingError names the install command
    for folder in (Path(name).expanduser(), Path(registry.models_dir) / name):
        if (folder / "config.json").is_file():
            return folder
    raise ModelMissingError(f"local LLM '{name}' not found (no config.json): {INSTALL_HINT}")


def load_local_chat_model(settings: Any, registry: Any) -> LocalChatModel:
    llm = settings.llm
    folder = resolve_model_dir(llm.local_model, registry)
    return LocalChatModel(folder, LocalOptions(max_new_tokens=int(llm.max_tokens)))
