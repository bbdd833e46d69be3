"""A local instruct model through llama.cpp (`llama-cpp-python`): the GGUF file is loaded
as it is (no conversion, no torch), on the CPU with one thread per core, with as many
layers on the GPU as its free memory takes (llm/offload.py decides, and says why).

Replies stream token by token in the caller's thread: cancelling (barge-in) stops at the
next token, and closing the stream ends generation. JSON answers are constrained by a
grammar built from a JSON schema, so even the 135M model returns a parseable object of
the right shape. One model context serves one request at a time (a lock): the call-end
extraction waits while a turn is generating, never corrupts it.

The stable start of the tutor prompt stays evaluated across turns and calls
(llm/prefix_cache.py): a turn evaluates only what changed since the last one, and after
another prompt used the context (the call-end extraction) the start comes back from a
saved snapshot; `prefill()` evaluates it ahead, when a call starts; `read_ahead()`
evaluates the next turn's prompt up to the learner's line in the background, between
requests (llm/read_ahead.py). `last_prompt` says what the last request on this thread
evaluated (llama.cpp's own counters).
"""
from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tutor_app.core.cancel import Cancellable
from tutor_app.core.types import ChatMessage
from tutor_app.errors import ModelMissingError
from tutor_app.llm.errors import LLMBadJSONError, LLMError
from tutor_app.llm.gguf_info import GGUFInfo, read_gguf_info
from tutor_app.llm.jsonparse import JSONExtractError, extract_json_object
from tutor_app.llm.offload import Hardware, OffloadPlan, check_memory, plan_offload
from tutor_app.llm.prefix_cache import PrefixCache, PromptStats, eval_counter
from tutor_app.llm.read_ahead import ReadAhead
from tutor_app.llm.system import SystemPrompt, system_text

log = logging.getLogger(__name__)

JSON_INSTRUCTION = "Answer with one JSON object only, no other text."
INSTALL_HINT = "run `tutor-app models install smollm2-135m-instruct`"
_PER_MESSAGE_TOKENS = 8  # role markers around each message in a chat template
COMPACT_BELOW_BYTES = 1 << 30  # a GGUF under 1 GB (up to ~1.5B parameters at Q4) gets the short prompt
SAMPLE_TEMPERATURE = 0.7  # a second sample: another seed, some randomness
READ_AHEAD_TOKENS = 16  # a read ahead's chunk: a request waits at most this many tokens' reading


@dataclass
class LlamaOptions:
    max_tokens: int = 300
    json_max_tokens: int = 512  # the schemas bound every string and list; this is a backstop
    n_ctx: int = 4096
    temperature: float = 0.0  # 0 = greedy: the same prompt gives the same reply
    top_p: float = 0.9
    repeat_penalty: float = 1.15  # small models loop without it
    seed: int = 1234
    device: str = "auto"  # auto | cpu | cuda
    threads: int = 0  # 0 = one per physical core
    smaller_model: str = ""  # named in the "too big" line
    chat_format: str = ""  # a llama.cpp chat format ("gemma") for a GGUF without a chat template


class LlamaChatModel:
    """`ChatModel` over one GGUF file."""

    def __init__(self, path: Path, options: LlamaOptions | None = None, hardware: Hardware | None = None) -> None:
        self.path = Path(path)
        self.options = options or LlamaOptions()
        self.name = f"llama.cpp:{self.path.stem}"
        self._hardware = hardware
        self._llama: Any = None
        self.plan: OffloadPlan | None = None
        self.info: GGUFInfo | None = None
        self.load_seconds = 0.0
        self._load_lock = threading.Lock()
        self._run_lock = threading.Lock()
        self._ahead = ReadAhead(self._run_lock)  # requests take the run lock through it
        self._prefix: PrefixCache | None = None
        self._hw: Hardware | None = None  # the machine the loaded model runs on
        self._last = threading.local()  # per thread: a turn and the call-end extraction run in parallel

    # -- loading ----------------------------------------------------------------------
    def inspect(self) -> tuple[GGUFInfo, OffloadPlan]:
        """Header and offload plan without loading (for `doctor`): raises the same clear
        errors a load would for a missing/corrupt file or a missing chat template."""
        info = read_gguf_info(self.path)
        if not info.has_chat_template and not self.options.chat_format:
            raise LLMError(f"the local model {self.path.name} has no chat template (a base model, not an "
                           "instruct one?): choose an instruct GGUF")
        hw = self._hardware or Hardware.this_machine()
        n_ctx = self.n_ctx_for(info)
        return info, plan_offload(info, n_ctx, hw, self.options.device, self.options.threads)

    def load(self) -> Any:
        with self._load_lock:
            if self._llama is None:
                started = time.perf_counter()
                self._llama = self._load()
                self.load_seconds = time.perf_counter() - started
            return self._llama

    def _load(self) -> Any:
        info, plan = self.inspect()
        hw = self._hardware or Hardware.this_machine()
        n_ctx = self.n_ctx_for(info)
        check_memory(info, n_ctx, plan, hw, self.options.smaller_model)
        try:
            import llama_cpp
        except Exception as exc:  # noqa: BLE001 - a missing or broken build is one line
            raise LLMError(f"llama.cpp is not usable ({type(exc).__name__}: {exc}): reinstall "
                           "llama-cpp-python (README, offline model)") from None
        _quiet_llama_logs(llama_cpp)
        try:
            llama = self._open(llama_cpp, plan, n_ctx)
        except ValueError as exc:
            if plan.n_gpu_layers == 0:
                raise ModelMissingError(f"llama.cpp cannot load {self.path.name} (corrupt or unsupported "
                                        f"file: {exc}): {INSTALL_HINT}") from None
            log.warning("loading %s on the GPU failed (%s); using the CPU", self.path.name, exc)
            plan = OffloadPlan(0, plan.n_threads, f"the GPU refused the model ({exc}): running on the CPU")
            llama = self._open(llama_cpp, plan, n_ctx)
        self.info, self.plan, self._hw = info, plan, hw
        self._prefix = PrefixCache(llama)
        log.info("local LLM %s loaded: %s", self.path.name, plan.describe())
        return llama

    def _open(self, llama_cpp: Any, plan: OffloadPlan, n_ctx: int) -> Any:
        # Opened with the plan's threads for both; a request then reads its prompt with
        # the threads the machine has free at that moment (`_threads`).
        return llama_cpp.Llama(
            model_path=str(self.path), n_ctx=n_ctx, n_threads=plan.n_threads,
            n_threads_batch=plan.n_threads, n_gpu_layers=plan.n_gpu_layers,
            seed=self.options.seed, verbose=False, chat_format=self.options.chat_format or None,
        )

    def n_ctx_for(self, info: GGUFInfo) -> int:
        trained = info.context_length or self.options.n_ctx
        return max(512, min(self.options.n_ctx, trained))

    def warm_up(self) -> None:
        """Load the weights now (under a second for the bundled model), e.g. when a call starts."""
        self.load()

    def prefill(self, system: SystemPrompt) -> PromptStats:
        """Evaluate the stable start of `system` (its leading cacheable parts) now, so the
        first turn of a call evaluates only its own part: a call's warm-up. Restored from
        a snapshot when this start was evaluated before."""
        llama = self.load()
        with self._ahead.request():
            self._threads(llama, request=False)
            counted = eval_counter(llama)
            stats = self._prefix.prefill(system) if self._prefix is not None else PromptStats()
            stats.evaluated = eval_counter(llama) - counted
        return stats

    @property
    def last_prompt(self) -> PromptStats | None:
        """What this thread's last request evaluated of its prompt (None before any)."""
        stats: PromptStats | None = getattr(self._last, "prompt", None)
        return stats

    def read_ahead(self, system: SystemPrompt, messages: Sequence[ChatMessage]) -> None:
        """Start reading, in the background, the prompt of a request that is `system` and
        `messages` up to where the last message's text begins (the next turn, its last
        message a placeholder for the learner's line not said yet). Nothing when the model
        is not loaded or its template cannot be rendered here; a request stops it."""
        llama, prefix = self._llama, self._prefix
        if llama is None or prefix is None or not prefix.enabled or not messages:
            return
        target: list[int] | None = None

        def step() -> bool:
            nonlocal target
            if self._llama is not llama:  # closed meanwhile
                return True
            self._threads(llama, request=False)
            if target is None:
                target = prefix.predicted(self._fit(llama, system_text(system), messages, self.options.max_tokens))
            return prefix.advance(target, READ_AHEAD_TOKENS)

        self._ahead.start(step)

    def wait_read_ahead(self, timeout: float | None = None) -> bool:
        """Wait for a read ahead to end (tests, benches); True when none is running."""
        return self._ahead.join(timeout)

    def _threads(self, llama: Any, request: bool) -> None:
        """llama.cpp's threads for what comes next on the CPU: a request reads its prompt with
        `Hardware.prompt_threads()` (every core while the machine is quiet: a turn's line is
        read while the call's other threads wait for it) and writes with the plan's; a read
        ahead or a call-start prefill reads with the plan's (they run beside the call's
        audio and voice). A thread count set in the options is kept for everything."""
        plan, hw = self.plan, self._hw
        if plan is None or hw is None or plan.n_gpu_layers != 0 or self.options.threads > 0:
            return
        import llama_cpp

        batch = max(plan.n_threads, hw.prompt_threads()) if request else plan.n_threads
        llama_cpp.llama_set_n_threads(llama.ctx, plan.n_threads, batch)

    def close(self) -> None:
        """Free the model; a read ahead has ended when this returns (it finishes its chunk)."""
        self._ahead.stop()
        self._ahead.join()
        with self._run_lock, self._load_lock:
            llama, self._llama = self._llama, None
            if self._prefix is not None:
                self._prefix.clear()
            self._prefix = None
        if llama is not None:
            closer = getattr(llama, "close", None)
            if closer is not None:
                closer()

    @property
    def compact_prompt(self) -> bool:
        """A small model follows a short prompt better than the full one (tutor/prompts.py)."""
        try:
            return self.path.stat().st_size < COMPACT_BELOW_BYTES
        except OSError:
            return False

    # -- ChatModel --------------------------------------------------------------------
    def stream(self, system: SystemPrompt, messages: Sequence[ChatMessage],
               cancel: Cancellable | None = None) -> Iterator[str]:
        return self._stream(system, messages, cancel, 0)

    def sample(self, system: SystemPrompt, messages: Sequence[ChatMessage],
               cancel: Cancellable | None, attempt: int) -> Iterator[str]:
        """Another sample of a reply (greedy decoding would say the same words again)."""
        return self._stream(system, messages, cancel, attempt)

    def _stream(self, system: SystemPrompt, messages: Sequence[ChatMessage],
                cancel: Cancellable | None, attempt: int) -> Iterator[str]:
        if cancel is not None and cancel.cancelled:
            return
        llama = self.load()
        opts = self.options
        with self._ahead.request():
            self._threads(llama, request=True)
            chat = self._fit(llama, system_text(system), messages, opts.max_tokens)
            counted, stats = self._prepare(llama, system, chat)
            chunks = self._call(llama, chat, opts.max_tokens, stream=True, attempt=attempt)
            first = True
            try:
                for chunk in chunks:
                    if first:  # the prompt is evaluated by now: count what it cost
                        self._evaluated(llama, counted, stats)
                        first = False
                    if cancel is not None and cancel.cancelled:
                        return
                    delta = chunk["choices"][0].get("delta", {}).get("content")
                    if delta:
                        yield delta
            finally:
                chunks.close()  # ends generation at once when the consumer stops early

    def complete_json(self, system: SystemPrompt, messages: Sequence[ChatMessage],
                      schema: dict[str, Any] | None = None) -> dict[str, Any]:
        """One JSON object, its shape forced by `schema` (any object without one)."""
        llama = self.load()
        opts = self.options
        fmt: dict[str, Any] = {"type": "json_object"}
        if schema is not None:
            fmt["schema"] = schema
        prompt = f"{system_text(system)}\n\n{JSON_INSTRUCTION}".strip()
        with self._ahead.request():
            self._threads(llama, request=True)
            chat = self._fit(llama, prompt, messages, opts.json_max_tokens)
            counted, stats = self._prepare(llama, prompt, chat)
            result = self._call(llama, chat, opts.json_max_tokens, stream=False, response_format=fmt)
            self._evaluated(llama, counted, stats)
        raw = result["choices"][0]["message"].get("content") or ""
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            try:  # only when generation hit max_tokens inside the object
                value = extract_json_object(raw)
            except JSONExtractError:
                raise LLMBadJSONError(f"{self.name} stopped before finishing the JSON object", raw=raw) from None
        if not isinstance(value, dict):
            raise LLMBadJSONError(f"{self.name} did not return a JSON object", raw=raw)
        return value

    # -- helpers ----------------------------------------------------------------------
    def _prepare(self, llama: Any, system: SystemPrompt, chat: list[dict[str, str]]) -> tuple[int, PromptStats]:
        """The stable start of the prompt in the context (llm/prefix_cache.py); llama.cpp's
        evaluation counter before it."""
        counted = eval_counter(llama)
        stats = self._prefix.prepare(system, chat) if self._prefix is not None else PromptStats()
        return counted, stats

    def _evaluated(self, llama: Any, counted: int, stats: PromptStats) -> None:
        stats.evaluated = eval_counter(llama) - counted
        self._last.prompt = stats
        if self._prefix is not None:
            self._prefix.verify()

    def _call(self, llama: Any, chat: list[dict[str, str]], max_tokens: int, stream: bool,
              response_format: dict[str, Any] | None = None, attempt: int = 0) -> Any:
        opts = self.options
        temperature = max(opts.temperature, SAMPLE_TEMPERATURE) if attempt else opts.temperature
        try:
            return llama.create_chat_completion(
                messages=chat, max_tokens=max(1, int(max_tokens)), stream=stream,
                temperature=temperature, top_p=opts.top_p, repeat_penalty=opts.repeat_penalty,
                seed=opts.seed + attempt, response_format=response_format,
            )
        except ValueError as exc:  # a prompt longer than the context, a bad template...
            raise LLMError(f"local model failed: {' '.join(str(exc).split())[:200]}") from None

    def _fit(self, llama: Any, system: str, messages: Sequence[ChatMessage], max_tokens: int) -> list[dict[str, str]]:
        """System + turns, the oldest turns dropped until the prompt leaves room for the
        reply (the last turn always stays)."""
        turns = [{"role": m.role, "content": m.content} for m in messages if m.content]
        head = [{"role": "system", "content": system}] if system else []
        room = llama.n_ctx() - int(max_tokens)

        def count(text: str) -> int:
            return len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)) + _PER_MESSAGE_TOKENS

        sizes = [count(t["content"]) for t in turns]
        total = sum(count(h["content"]) for h in head) + sum(sizes)
        while len(turns) > 1 and total > room:
            total -= sizes.pop(0)
            turns.pop(0)
        return head + turns


_LOG_CALLBACK: Any = None


def _quiet_llama_logs(llama_cpp: Any) -> None:
    """llama.cpp prints every load detail to stderr; keep the terminal for our own lines."""
    global _LOG_CALLBACK
    if _LOG_CALLBACK is not None:
        return
    try:
        def _drop(level: int, text: bytes, user_data: Any) -> None:
            return None

        # Called, not used as a decorator: `llama_cpp` is passed in as Any, and an untyped
        # decorator would make `_drop` untyped too.
        callback = llama_cpp.llama_log_callback(_drop)
        llama_cpp.llama_log_set(callback, None)
        _LOG_CALLBACK = callback  # kept alive: C holds the pointer
    except Exception:  # noqa: BLE001 - cosmetic only
        _LOG_CALLBACK = False
