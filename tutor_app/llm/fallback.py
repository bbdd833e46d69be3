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
`complete_json`.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tutor_app.core.cancel import CancelToken
from tutor_app.core.types import ChatMessage
from tutor_app.errors import TutorError
from tutor_app.llm.errors import LLMUnavailableError
from tutor_app.llm.system import SystemPrompt

log = logging.getLogger(__name__)


class FallbackChatModel:
    def __init__(self, primary: Any, make_local: Callable[[], Any]) -> None:
        self.primary = primary
        self.name = primary.name
        self._make_local = make_local
        self._local: Any = None
        self._lock = threading.Lock()
        self._last = threading.local()  # per thread: the engine and extraction run in parallel

    @property
    def last_fallback_reason(self) -> str | None:
        """Why this thread's last call was answered locally; None when the cloud answered."""
        return getattr(self._last, "reason", None)

    @property
    def last_backend(self) -> str:
        """The name of the model that answered this thread's last call."""
        return getattr(self._last, "backend", self.primary.name)

    def _start(self) -> None:
        self._last.reason = None
        self._last.backend = self.primary.name

    def local(self) -> Any:
        with self._lock:
            if self._local is None:
                self._local = self._make_local()
            return self._local

    def stream(
        self, system: SystemPrompt, messages: Sequence[ChatMessage], cancel: CancelToken | None = None
    ) -> Iterator[str]:
        self._start()
        yielded = False
        try:
            for delta in self.primary.stream(system, messages, cancel):
                yielded = True
                yield delta
            return
        except LLMUnavailableError as exc:
            if yielded or (cancel is not None and cancel.cancelled):
                raise
            cloud_error = exc
        local = self._local_or_raise(cloud_error)
        self._note(cloud_error, local)
        yield from local.stream(system, messages, cancel)

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

    def _local_or_raise(self, cloud_error: LLMUnavailableError) -> Any:
        try:
            return self.local()
        except TutorError as exc:
            log.warning("no local fallback model: %s", exc)
            raise cloud_error from None

    def _note(self, cloud_error: Exception, local: Any) -> None:
        self._last.reason = str(cloud_error)
        self._last.backend = local.name
        log.warning("cloud LLM unavailable (%s); answering with %s", cloud_error, local.name)

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
