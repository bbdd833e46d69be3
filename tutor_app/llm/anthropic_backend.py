"""Claude through the official `anthropic` SDK: streamed replies, JSON completions.

The SDK reads ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL itself; when the environment has
no key, the key saved in the OS keyring is passed explicitly. Timeouts and retries
(429, 5xx, connection errors, with backoff and `retry-after`) are the SDK's own,
configured from `LLMSettings`. Every SDK failure is mapped to one `LLMError` subclass
with a one-line message (see `map_api_error`).

Cancellation is checked between stream events; leaving the `with` block closes the
HTTP response, so the server stops sending at once.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tutor_app.core.cancel import Cancellable
from tutor_app.core.types import ChatMessage
from tutor_app.llm import keys
from tutor_app.llm.errors import (
    LLMAuthError,
    LLMBadJSONError,
    LLMError,
    LLMRateLimitError,
    LLMRequestError,
    LLMStreamCutError,
    LLMUnavailableError,
)
from tutor_app.llm.jsonparse import JSONExtractError, extract_json_object
from tutor_app.llm.system import SystemPrompt, anthropic_system, system_parts
from tutor_app.logs import said

if TYPE_CHECKING:
    from tutor_app.settings import LLMSettings

log = logging.getLogger(__name__)

JSON_INSTRUCTION = (
    "Reply with exactly one JSON object and nothing else: no prose, no code fences."
)
CALL_OPENING = "(The call starts.)"
JSON_RETRY = "That was not a valid JSON object ({why}). Reply again with only the JSON object."


@dataclass
class AnthropicOptions:
    model: str = "claude-haiku-4-5"
    max_tokens: int = 300
    json_max_tokens: int = 1024  # extraction replies are longer than a spoken turn
    timeout_s: float = 30.0
    connect_timeout_s: float = 5.0
    max_retries: int = 2
    # A spoken turn: a read that stalls this long is a broken stream, and one quick retry
    # is all a learner waiting in a call can afford (the batch values are for extraction).
    stream_timeout_s: float = 10.0
    stream_max_retries: int = 1
    temperature: float | None = None  # None = the API default

    @classmethod
    def from_settings(cls, llm: LLMSettings) -> "AnthropicOptions":
        return cls(
            model=llm.anthropic_model,
            max_tokens=int(llm.max_tokens),
            timeout_s=float(llm.timeout_s),
            max_retries=int(llm.max_retries),
            stream_max_retries=min(int(llm.max_retries), 1),
        )


class AnthropicChatModel:
    """`ChatModel` over the Messages API. Thread-safe: the SDK client is shared."""

    def __init__(self, options: AnthropicOptions | None = None, api_key: str | None = None) -> None:
        self.options = options or AnthropicOptions()
        self.name = f"anthropic:{self.options.model}"
        self._api_key = api_key  # only for a key that did not come from the environment
        # An anthropic.Anthropic, kept Any: stream events are read by `.type`, which does
        # not narrow the SDK's union of event classes for mypy.
        self._client_obj: Any = None
        self._lock = threading.Lock()

    # -- client ---------------------------------------------------------------------
    def _client(self) -> Any:
        with self._lock:
            if self._client_obj is None:
                self._client_obj = self._make_client()
            return self._client_obj

    def _make_client(self) -> Any:
        import anthropic

        key = self._api_key
        if key is None and keys.env_api_key() is None:
            key = keys.get_api_key()
            if key is None:
                raise LLMAuthError(
                    "no Anthropic API key: set ANTHROPIC_API_KEY or save a key in the settings"
                )
        opts = self.options
        timeout = anthropic.Timeout(opts.timeout_s, connect=min(opts.connect_timeout_s, opts.timeout_s))
        kwargs: dict[str, Any] = {"timeout": timeout, "max_retries": opts.max_retries}
        if key is not None:
            kwargs["api_key"] = key  # explicit only when the SDK would not find one itself
        return anthropic.Anthropic(**kwargs)

    def warm_up(self) -> None:
        """Import the SDK and build the client now (no network): `import anthropic` takes
        seconds on a slow CPU, which the first turn should not pay. Call it in the background."""
        self._client()

    def close(self) -> None:
        with self._lock:
            client, self._client_obj = self._client_obj, None
        if client is not None:
            client.close()

    def _params(self, system: SystemPrompt, messages: Sequence[ChatMessage], max_tokens: int) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.options.model,
            "max_tokens": max_tokens,
            "messages": api_messages(messages),
        }
        if system_parts(system):
            params["system"] = anthropic_system(system)
        if self.options.temperature is not None:
            params["temperature"] = self.options.temperature
        return params

    # -- ChatModel --------------------------------------------------------------------
    def stream(
        self, system: SystemPrompt, messages: Sequence[ChatMessage], cancel: Cancellable | None = None
    ) -> Iterator[str]:
        """Yield text deltas. On a break after some text, raise LLMStreamCutError(partial_text)."""
        import anthropic

        if cancel is not None and cancel.cancelled:
            return
        params = self._params(system, messages, self.options.max_tokens)
        received: list[str] = []
        finished = opened = False
        opts = self.options
        timeout = anthropic.Timeout(opts.stream_timeout_s, connect=min(opts.connect_timeout_s, opts.stream_timeout_s))
        try:
            client = self._client().with_options(timeout=timeout, max_retries=opts.stream_max_retries)
            with client.messages.stream(**params) as events:
                opened = True  # the response has started: the SDK retries nothing from here
                for event in events:
                    if cancel is not None and cancel.cancelled:
                        return  # leaving the with-block closes the response
                    kind = event.type
                    if kind == "content_block_delta" and event.delta.type == "text_delta":
                        if event.delta.text:
                            received.append(event.delta.text)
                            yield event.delta.text
                    elif kind == "message_stop":
                        finished = True
        except anthropic.AnthropicError as exc:
            retried = None if opened else opts.stream_max_retries
            raise _during_stream(map_api_error(exc, self.options, retried=retried,
                                               timeout_s=opts.stream_timeout_s), received) from None
        except LLMError:
            raise
        except Exception as exc:  # noqa: BLE001 - transport errors raised while reading the body
            if not _is_transport_error(exc):
                raise
            raise _during_stream(
                LLMUnavailableError(f"connection to the Anthropic API broke ({type(exc).__name__})"), received
            ) from None
        if not finished and not (cancel is not None and cancel.cancelled):
            raise _during_stream(LLMUnavailableError("the Anthropic API ended the reply early"), received)

    def complete_json(self, system: SystemPrompt, messages: Sequence[ChatMessage],
                      schema: dict[str, Any] | None = None) -> dict[str, Any]:
        """One JSON object; one retry on a malformed reply, then LLMBadJSONError. `schema` is
        for constrained local decoding; Claude follows the shape given in the prompt."""
        full_system = with_json_instruction(system)
        convo = list(messages)
        raw = ""
        for attempt in range(2):
            raw = self._complete(full_system, convo)
            try:
                return extract_json_object(raw)
            except JSONExtractError as exc:
                # sizes only: the reply quotes the learner (TUTOR_APP_LOG_CONTENT=1 shows it)
                log.info("malformed JSON from %s (attempt %d): %s", self.name, attempt + 1, said(raw or ""))
                convo = [*convo, ChatMessage("assistant", raw or "(empty)"),
                         ChatMessage("user", JSON_RETRY.format(why=exc))]
        raise LLMBadJSONError(f"{self.name} did not return a valid JSON object", raw=raw)

    def _complete(self, system: SystemPrompt, messages: Sequence[ChatMessage]) -> str:
        import anthropic

        params = self._params(system, messages, self.options.json_max_tokens)
        try:
            message = self._client().messages.create(**params)
        except anthropic.AnthropicError as exc:
            raise map_api_error(exc, self.options) from None
        return "".join(block.text for block in message.content if getattr(block, "type", "") == "text")


# -- helpers -------------------------------------------------------------------------
def api_messages(messages: Sequence[ChatMessage]) -> list[dict[str, str]]:
    """Messages API turns: empty turns dropped (the API rejects them), user turn first."""
    out = []
    for m in messages:
        if m.role not in ("user", "assistant"):
            raise ValueError(f"unsupported chat role {m.role!r} (put system text in `system`)")
        if m.content and m.content.strip():
            out.append({"role": m.role, "content": m.content})
    if not out:
        raise LLMRequestError("nothing to send to the tutor model (no messages)")
    if out[0]["role"] != "user":
        # The API wants a user turn first; a call may open with the tutor's greeting.
        out.insert(0, {"role": "user", "content": CALL_OPENING})
    return out


def with_json_instruction(system: SystemPrompt) -> SystemPrompt:
    if isinstance(system, str):
        return f"{system}\n\n{JSON_INSTRUCTION}" if system else JSON_INSTRUCTION
    return [*system_parts(system), (JSON_INSTRUCTION, False)]


def map_api_error(exc: Exception, options: AnthropicOptions | None = None, retried: int | None = -1,
                  timeout_s: float | None = None) -> LLMError:
    """One clear LLMError for an SDK exception. `retried`: how many retries the SDK may have
    made (-1: the options' max_retries; None: none, the error came inside a started stream),
    so the message never claims retries that were not made."""
    import anthropic

    if retried == -1:
        retried = options.max_retries if options else 0
    if isinstance(exc, anthropic.APIStatusError) and exc.status_code == 200:
        retried = None  # an error event inside a 200 stream: nothing was retried
    retries = f" (retried up to {retried} times)" if retried else ""
    credentials_error = getattr(anthropic, "CredentialsError", None)
    if credentials_error is not None and isinstance(exc, credentials_error):
        return LLMAuthError("no usable Anthropic credentials: set ANTHROPIC_API_KEY or save a key in the settings")
    if isinstance(exc, anthropic.APITimeoutError):
        seconds = timeout_s if timeout_s is not None else (options.timeout_s if options else None)
        timeout = f" ({seconds:g} s)" if seconds is not None else ""
        return LLMUnavailableError(f"the Anthropic API timed out{timeout}{retries}")
    if isinstance(exc, anthropic.APIConnectionError):
        return LLMUnavailableError(f"cannot reach the Anthropic API (connection error{retries})")
    if isinstance(exc, anthropic.APIStatusError):
        # An error event inside a 200 stream carries only its type: map it to a status.
        status = exc.status_code if exc.status_code != 200 else _STATUS_OF_TYPE.get(_error_type(exc), 500)
        detail = _api_message(exc)
        if status == 401:
            return LLMAuthError("API key rejected by the Anthropic API (401): check the key in settings")
        if status == 403:
            return LLMAuthError(f"API key not allowed to do this (403){detail}")
        if status == 429:
            return LLMRateLimitError(f"rate limited by the Anthropic API (429){retries}: try again shortly")
        if status >= 500:
            return LLMUnavailableError(f"the Anthropic API is unavailable (HTTP {status}){retries}{detail}")
        return LLMRequestError(f"the Anthropic API refused the request (HTTP {status}){detail}")
    return LLMError(f"Anthropic API error: {type(exc).__name__}")


_STATUS_OF_TYPE = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}


def _error_type(exc: Any) -> str:
    kind = getattr(exc, "type", None)
    if not kind:
        body = getattr(exc, "body", None)
        error = body.get("error") if isinstance(body, dict) else None
        kind = error.get("type") if isinstance(error, dict) else None
    return str(kind or "")


def _api_message(exc: Any) -> str:
    message = getattr(exc, "api_message", None)
    if not message:
        body = getattr(exc, "body", None)
        if isinstance(body, dict):
            error = body.get("error")
            if isinstance(error, dict):
                message = error.get("message")
    return f": {' '.join(str(message).split())[:160]}" if message else ""


def _during_stream(error: LLMError, received: list[str]) -> LLMError:
    """After text has arrived, any failure becomes a cut reply carrying that text."""
    if not received:
        return error
    partial = "".join(received)
    return LLMStreamCutError(f"the reply was cut off: {error}", partial_text=partial)


def _is_transport_error(exc: Exception) -> bool:
    # httpx's transport errors (the SDK's HTTP layer); matched by module to avoid a hard
    # dependency on the HTTP library's name, which differs between SDK versions.
    module = type(exc).__module__.split(".")[0]
    return module in ("httpx", "httpx2", "httpcore", "h11") or isinstance(exc, (OSError, ConnectionError))
