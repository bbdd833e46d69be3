"""The stable start of a local model's prompt, kept evaluated (llama.cpp's KV cache).

Every tutor prompt begins with the same text for a whole call and across calls with the
same settings: the system prompt's leading cacheable parts (persona, rules, level,
accent, topic; llm/system.py). llama-cpp-python already keeps the previous request's
tokens in its context and re-evaluates only what follows the longest common token prefix;
this module makes sure that prefix is the stable start even after another prompt used
the context in between (the call-end extraction, a JSON review):

- `prepare()` renders the chat with the model's own template, finds where the stable
  start ends in tokens, and before the request either finds it still in the context,
  restores it from a saved snapshot (a copy of llama.cpp's per-sequence KV state, a few
  MB for the bundled model), or evaluates it and saves a snapshot;
- the request then evaluates only what follows (memories, emotion, history, the line).

Correctness never depends on this: llama-cpp-python compares the tokens in the context
with the prompt itself before reusing any of them, so a wrong guess here only costs time.
A template that cannot be rendered here (a GGUF without one, run with a named llama.cpp
chat format) just skips the snapshots. Snapshots live in memory only, never on disk (the
stable start holds the learner's name). Used under the model's run lock only.
"""
from __future__ import annotations

import ctypes
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tutor_app.llm.system import PART_SEPARATOR, SystemPrompt, system_parts

log = logging.getLogger(__name__)

SENTINELS = ("A", "B")  # two different openings after the stable start: it ends where they differ
MAX_SNAPSHOTS = 4  # settings that change between calls (accent, level, topic) each get one
MAX_SNAPSHOT_BYTES = 256 << 20  # a 7B model's full-prompt start is ~80 MB; the bundled one's ~4 MB
SEQ = 0  # llama-cpp-python runs one sequence per context


@dataclass
class PromptStats:
    """What one request cost in prompt evaluation (read from llama.cpp's own counters)."""

    prompt_tokens: int = 0  # the rendered prompt
    stable_tokens: int = 0  # its stable start (the leading cacheable system parts)
    evaluated: int = 0  # prompt tokens llama.cpp evaluated for this request (its n_p_eval counter)
    restored: bool = False  # the stable start came back from a snapshot instead of being evaluated

    @property
    def reused(self) -> int:
        return max(0, self.prompt_tokens - self.evaluated)


@dataclass
class _Snapshot:
    tokens: tuple[int, ...]
    data: bytes


def stable_text(system: SystemPrompt) -> tuple[str, bool]:
    """(the leading cacheable parts joined, whether they are the whole system prompt)."""
    parts = system_parts(system)
    lead = []
    for part in parts:
        if not part.cacheable:
            break
        lead.append(part.text)
    return PART_SEPARATOR.join(lead), len(lead) == len(parts)


def probe_chat(system: SystemPrompt, sentinel: str) -> list[dict[str, str]] | None:
    """A chat that starts like every request with this system prompt and then differs
    (None: nothing in it is stable)."""
    text, whole = stable_text(system)
    if not text:
        return None
    if whole:
        return [{"role": "system", "content": text}, {"role": "user", "content": sentinel}]
    return [{"role": "system", "content": text + PART_SEPARATOR + sentinel}]


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def eval_counter(llama: Any) -> int:
    """llama.cpp's count of prompt tokens evaluated in this context so far (it reports at
    least 1, so a fresh context's first request reads one token short)."""
    import llama_cpp

    try:
        return int(llama_cpp.llama_perf_context(llama.ctx).n_p_eval)
    except Exception:  # noqa: BLE001 - counters are diagnostics: a build without them reads 0
        return 0


class PrefixCache:
    """The saved stable starts of one llama.cpp context."""

    def __init__(self, llama: Any, max_snapshots: int = MAX_SNAPSHOTS, max_bytes: int = MAX_SNAPSHOT_BYTES) -> None:
        self._llama = llama
        self._max_snapshots = max_snapshots
        self._max_bytes = max_bytes
        self._snapshots: list[_Snapshot] = []  # least recently used first
        self._formatter = _template_formatter(llama)
        self._rendered: list[int] = []  # the last prepared prompt, until `verify`
        self.enabled = self._formatter is not None and _has_internals(llama)

    def clear(self) -> None:
        self._snapshots.clear()

    def render(self, chat: list[dict[str, str]]) -> list[int]:
        """The prompt tokens llama-cpp-python builds for `chat` (same template, same tokenizer call)."""
        assert self._formatter is not None
        result = self._formatter(messages=chat)
        return list(self._llama.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special,
                                         special=True))

    def prepare(self, system: SystemPrompt, chat: list[dict[str, str]]) -> PromptStats:
        """Put the stable start of this request's prompt in the context (see the module
        doc); the request's own evaluation then starts after it."""
        stats = PromptStats()
        if not self.enabled:
            return stats
        try:
            tokens = self.render(chat)
            stats.prompt_tokens = len(tokens)
            self._rendered = tokens
            probe = probe_chat(system, SENTINELS[0])
            if probe is None:
                return stats
            stable = min(common_prefix(tokens, self.render(probe)), len(tokens) - 1)
            stats.stable_tokens = max(0, stable)
            stats.restored = self._ensure(tokens[:stable])
        except Exception as exc:  # noqa: BLE001 - an optimisation only: the request still runs whole
            log.warning("prompt cache skipped (%s: %s)", type(exc).__name__, exc)
            self._llama.reset()
        return stats

    def prefill(self, system: SystemPrompt) -> PromptStats:
        """Evaluate (or restore) the stable start of `system` now, e.g. when a call starts."""
        stats = PromptStats()
        first, second = probe_chat(system, SENTINELS[0]), probe_chat(system, SENTINELS[1])
        if not self.enabled or first is None or second is None:
            return stats
        try:
            a = self.render(first)
            stable = common_prefix(a, self.render(second))
            stats.prompt_tokens = stats.stable_tokens = stable
            stats.restored = self._ensure(a[:stable])
        except Exception as exc:  # noqa: BLE001
            log.warning("prompt prefill skipped (%s: %s)", type(exc).__name__, exc)
            self._llama.reset()
        return stats

    def predicted(self, chat: list[dict[str, str]]) -> list[int]:
        """The tokens of `chat` up to where its last message's text begins: what every
        request shares that is `chat` with another last message (the next turn with the
        learner's line in it). Empty when the template cannot be rendered here."""
        if not self.enabled or not chat:
            return []
        first, second = ([*chat[:-1], {**chat[-1], "content": sentinel}] for sentinel in SENTINELS)
        a = self.render(first)
        return a[:common_prefix(a, self.render(second))]

    def advance(self, target: list[int], most: int) -> bool:
        """Evaluate up to `most` more tokens of `target` after what the context already
        shares with it (llm/read_ahead.py); True once the context starts with all of it."""
        llama = self._llama
        live = common_prefix(llama.input_ids[:llama.n_tokens].tolist(), target)
        if live >= len(target):
            return True
        snap, shared = self._best(target)
        if snap is not None and shared > live:  # another prompt pushed the stable start out
            self._restore(snap)
            live = shared
        import llama_cpp

        llama.n_tokens = live  # eval() drops the rest of the sequence from the KV cache first
        llama.eval(target[live:live + most])
        # llama.cpp counts evaluated tokens when it next waits for the work (a request's
        # first logits): waited for here, they are the read ahead's, not the request's.
        llama_cpp.llama_synchronize(llama.ctx)
        return live + most >= len(target)

    def verify(self) -> None:
        """After the request's prompt was evaluated: the context must start with what
        `render` built. Otherwise llama-cpp-python renders this model's chats differently
        (another chat format): stop saving snapshots, they would never match."""
        tokens, self._rendered = self._rendered, []
        if tokens and self._llama.input_ids[:len(tokens)].tolist() != tokens:
            log.info("prompt cache off: llama.cpp renders this model's chat template differently")
            self.enabled = False
            self._snapshots.clear()

    # -- the context -----------------------------------------------------------------------
    def _ensure(self, stable: list[int]) -> bool:
        """Make the context start with `stable`; True when a snapshot supplied it."""
        llama = self._llama
        if not stable:
            return False
        live = common_prefix(llama.input_ids[:llama.n_tokens].tolist(), stable)
        if live >= len(stable):
            return False
        snap, shared = self._best(stable)
        restored = False
        if snap is not None and shared > live:
            self._restore(snap)
            live, restored = shared, True
            self._snapshots.remove(snap)
            self._snapshots.append(snap)  # most recently used last
            if live >= len(stable):
                return True
        # Evaluate what is missing after the part already in the context, then keep it.
        llama.n_tokens = live  # eval() drops the rest of the sequence from the KV cache first
        llama.eval(stable[live:])
        self._save(tuple(stable))
        return restored

    def _best(self, tokens: list[int]) -> tuple[_Snapshot | None, int]:
        best, shared = None, 0
        for snap in self._snapshots:
            n = common_prefix(snap.tokens, tokens)
            if n > shared:
                best, shared = snap, n
        return best, shared

    def _save(self, tokens: tuple[int, ...]) -> None:
        import llama_cpp

        ctx = self._llama.ctx
        size = llama_cpp.llama_state_seq_get_size(ctx, SEQ)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(ctx, buffer, size, SEQ)
        if not written:
            return
        self._snapshots = [s for s in self._snapshots if s.tokens != tokens]
        self._snapshots.append(_Snapshot(tokens, bytes(buffer)[:written]))
        while self._snapshots and (len(self._snapshots) > self._max_snapshots
                                   or sum(len(s.data) for s in self._snapshots) > self._max_bytes):
            self._snapshots.pop(0)

    def _restore(self, snap: _Snapshot) -> None:
        import llama_cpp

        llama = self._llama
        size = len(snap.data)
        buffer = (ctypes.c_uint8 * size).from_buffer_copy(snap.data)
        llama.n_tokens = 0
        llama_cpp.llama_memory_seq_rm(llama_cpp.llama_get_memory(llama.ctx), SEQ, 0, -1)
        if not llama_cpp.llama_state_seq_set_data(llama.ctx, buffer, size, SEQ):
            raise RuntimeError("llama.cpp refused the saved state")
        n = len(snap.tokens)
        llama.input_ids[:n] = snap.tokens
        llama.n_tokens = n
        llama._requires_eval = True  # the logits are not restored: the next token is evaluated


def _has_internals(llama: Any) -> bool:
    """The llama-cpp-python attributes this module sets (checked, not assumed: 0.3.x)."""
    return all(hasattr(llama, name) for name in ("input_ids", "n_tokens", "ctx", "eval", "_requires_eval"))


def _template_formatter(llama: Any) -> Any:
    """A formatter for the GGUF's own chat template, built as llama-cpp-python builds its
    own; None for a GGUF without one (run with a named chat format) or a custom handler.
    Where llama-cpp-python picked a built-in format for the same template, `verify` checks
    the two agree."""
    if getattr(llama, "chat_handler", None) is not None:
        return None
    template = (getattr(llama, "metadata", None) or {}).get("tokenizer.chat_template")
    if not template:
        return None
    from llama_cpp import llama_chat_format

    model = llama._model
    eos, bos = llama.token_eos(), llama.token_bos()
    return llama_chat_format.Jinja2ChatFormatter(
        template=template, eos_token=model.token_get_text(eos) if eos != -1 else "",
        bos_token=model.token_get_text(bos) if bos != -1 else "", stop_token_ids=[eos])
