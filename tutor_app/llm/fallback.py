"""Cloud first, local when the cloud cannot answer a turn at all. The same wrapper puts
a local model server (Ollama, LM Studio...) first and the bundled GGUF second.

`FallbackChatModel(primary, make_local)` behaves like `primary` except:

- When `primary` fails with `LLMUnavailableError` (connection error, timeout, 5xx or
  429 after the SDK's retries) *before any text was yielded*, the same turn is
  answered by the local model (built by `make_local()` on first need, then reused)
  and `last_fallback_reason` holds the cloud error's message. The engine reads it
  after the turn to tell the learner ("offline: using the local tutor").
- After some text was yielded, nothing is replayed: the error (usually
  `LLMStreamCutError` with `partial_text`) goes to the caller, who has already spoken
  that text.
- `LLMAuthError` (missing or rejected key) never falls back: the learner must fix the
  key, so silently switching models would hide the problem.
- When the local model is unusable too (not installed, fails), the *cloud* error is
  raised, since that is what the learner can act on; the local failure is logged.

`last_fallback_reason` is None after a turn the primary answered, and `last_backend`
names whichever model answered; both are per thread (the engine's turns and the
background extraction do not overwrite each other's). The same applies to
`complete_json`. `last_switched` is True when this very call gave up on the primary (the
learner is told once; the turns that follow while the primary rests are not news).

A voice turn has a budget (`first_token_s`): a primary that has sent nothing by then is
abandoned as unavailable (llm/first_token.py), so a stalled server costs seconds, not
minutes. After the primary failed, it rests for `rest_s` seconds: turns go straight to
the local model instead of paying the budget again every turn.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tutor_app.core.cancel import Cancellable
from tutor_app.core.protocols import ChatModel
from tutor_app.core.types import ChatMessage
from tutor_app.errors import TutorError
from tutor_app.llm.errors import LLMUnavailableError
from tutor_app.llm.system import SystemPrompt

log = logging.getLogger(__name__)


class FallbackChatModel:
    def __init__(self, primary: ChatModel, make_local: Callable[[], ChatModel] | None, first_token_s: float = 0.0,
                 rest_s: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.primary = primary
        self.name = primary.name
        self.first_token_s = float(first_token_s)  # 0 = no budget (the client's own timeouts)
        self.rest_s = float(rest_s)
        self._make_local = make_local
        self._local: ChatModel | None = None
        self._lock = threading.Lock()
        self._last = threading.local()  # per thread: the engine and extraction run in parallel
        self._clock = clock
        self._resting: tuple[float, str] | None = None  # (until, why) after the primary failed

    @property
    def last_fallback_reason(self) -> str | None:
        """Why this thread's last call was answered locally; None when the cloud answered."""
        return getattr(self._last, "reason", None)

    @property
    def last_backend(self) -> str:
        """The name of the model that answered this thread's last call."""
        return getattr(self._last, "backend", self.primary.name)

    @property
    def last_switched(self) -> bool:
        """True when this thread's last call abandoned the primary mid-call."""
        return bool(getattr(self._last, "switched", False))

    def _start(self) -> None:
        self._last.reason = None
        self._last.backend = self.primary.name
        self._last.switched = False

    def _rest_reason(self) -> str | None:
        with self._lock:
            if self._resting is None:
                return None
            until, why = self._resting
            if self._clock() >= until:
                self._resting = None
                return None
            return why

    def local(self) -> ChatModel:
        if self._make_local is None:
            raise TutorError("no local fallback model (turned off in settings)")
        with self._lock:
            if self._local is None:
                self._local = self._make_local()
            return self._local

    def stream(
        self, system: SystemPrompt, messages: Sequence[ChatMessage], cancel: Cancellable | None = None
    ) -> Iterator[str]:
        self._start()
        resting = self._rest_reason()
        if resting is not None:
            local = self._local_or_raise(LLMUnavailableError(resting))
            self._note(LLMUnavailableError(resting), local, quiet=True)
            yield from local.stream(system, messages, cancel)
            return
        yielded = False
        try:
            for delta in self._primary_stream(system, messages, cancel):
                yielded = True
                yield delta
            return
        except LLMUnavailableError as exc:
            if yielded or (cancel is not None and cancel.cancelled):
                raise
            cloud_error = exc
        local = self._local_or_raise(cloud_error)
        with self._lock:  # rest only with a local model to answer meanwhile
            self._resting = (self._clock() + self.rest_s, str(cloud_error))
        self._note(cloud_error, local)
        self._last.switched = True
        yield from local.stream(system, messages, cancel)

    @property
    def compact_prompt(self) -> bool:
        """While the primary rests the local model answers: it gets the short prompt too."""
        local = self._local
        return local is not None and self._rest_reason() is not None and bool(getattr(local, "compact_prompt", False))

    def sample(self, system: SystemPrompt, messages: Sequence[ChatMessage], cancel: Cancellable | None,
               attempt: int) -> Iterator[str]:
        """Another sample: from the local model when it answered this thread's last call
        (the same prompt again would give the same words), else a new call as usual."""
        local = self._local
        local_sample = getattr(local, "sample", None) if self.last_fallback_reason is not None else None
        if local is None or local_sample is None:
            yield from self.stream(system, messages, cancel)
            return
        yield from local_sample(system, messages, cancel, attempt)

    def _primary_stream(self, system: SystemPrompt, messages: Sequence[ChatMessage],
                        cancel: Cancellable | None) -> Iterator[str]:
        if self.first_token_s <= 0:
            return self.primary.stream(system, messages, cancel)
        from tutor_app.llm.first_token import within_deadline

        warm = getattr(self.primary, "warm_up", None)
        if warm is not None:
            warm()  # the SDK import and client (seconds, once) are not the server's delay

        return within_deadline(lambda token: self.primary.stream(system, messages, token),
                               self.first_token_s, cancel, name=self.primary.name)

    def complete_json(self, system: SystemPrompt, messages: Sequence[ChatMessage],
                      schema: dict[str, Any] | None = None) -> dict[str, Any]:
        self._start()
        extra = {"schema": schema} if schema is not None else {}
        try:
            return self.primary.complete_json(system, messages, **extra)
        except LLMUnavailableError as exc:
            cloud_error = exc
        local = self._local_or_raise(cloud_error)
        self._note(cloud_error, local)
        return local.complete_json(system, messages, **extra)

    def _local_or_raise(self, cloud_error: LLMUnavailableError) -> ChatModel:
        try:
            return self.local()
        except TutorError as exc:
            if self._make_local is not None:
                log.warning("no local fallback model: %s", exc)
            raise cloud_error from None

    def _note(self, cloud_error: Exception, local: ChatModel, quiet: bool = False) -> None:
        self._last.reason = str(cloud_error)
        self._last.backend = local.name
        if not quiet:
            log.warning("tutor model %s unavailable (%s); answering with %s", self.primary.name, cloud_error, local.name)

    def warm_up(self) -> None:
        """Warm the cloud client only; the local model loads when first needed."""
        warm = getattr(self.primary, "warm_up", None)
        if warm is not None:
            warm()

    def close(self) -> None:
        for model in (self.primary, self._local):
            closer = getattr(model, "close", None)
            if closer is not None:
                closer()
