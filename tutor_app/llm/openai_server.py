"""A model served on this machine (or the LAN) behind an OpenAI-compatible API: Ollama,
LM Studio, llama.cpp's server, vLLM. Plain HTTP with the standard library: replies
stream as server-sent events, JSON answers ask the server for schema-constrained output.

Base URL: "http://127.0.0.1:11434" (Ollama), "http://127.0.0.1:1234/v1" (LM Studio),
"http://127.0.0.1:8080" (llama.cpp): "/v1" is added when the path names no version.
An empty model name means the first model the server lists.

Failures map to the same `LLMError` classes as the cloud backend: cannot connect,
timeout or 5xx -> `LLMUnavailableError` (the factory's fallback answers such a turn with
the bundled model); a break after some text -> `LLMStreamCutError` with that text;
4xx -> `LLMRequestError` with the server's own message; an event that is not JSON is a
failure like a break (unavailable before any text, a cut after).
"""
from __future__ import annotations

import http.client
import json
import logging
import re
import socket
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from tutor_app.core.cancel import Cancellable
from tutor_app.core.types import ChatMessage
from tutor_app.llm.errors import (
    LLMBadJSONError,
    LLMError,
    LLMRequestError,
    LLMStreamCutError,
    LLMUnavailableError,
)
from tutor_app.llm.jsonparse import JSONExtractError, extract_json_object
from tutor_app.llm.system import SystemPrompt, system_text

log = logging.getLogger(__name__)

JSON_INSTRUCTION = "Answer with one JSON object only, no other text."
_VERSIONED = re.compile(r"/v\d+$")


@dataclass
class ServerOptions:
    base_url: str
    model: str = ""
    max_tokens: int = 300
    json_max_tokens: int = 1024
    temperature: float = 0.0
    timeout_s: float = 60.0  # a slow local model may think this long before its first token
    api_key: str = ""  # most local servers need none; sent as a bearer token when set


class OpenAIServerChatModel:
    """`ChatModel` over /v1/chat/completions; one HTTP connection per request."""

    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        parts = urlsplit(options.base_url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise LLMRequestError(f"local server URL '{options.base_url}' is not an http(s) URL "
                                  "(e.g. http://127.0.0.1:11434)")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port or (443 if self._https else 80)
        path = parts.path.rstrip("/")
        self._prefix = path if _VERSIONED.search(path) else f"{path}/v1"
        self.url = f"{parts.scheme}://{parts.netloc}{self._prefix}"
        self._model = options.model.strip()
        self._json_mode: str | None = None  # which response_format the server accepted
        self._lock = threading.Lock()
        self.name = f"server:{self._model or 'default'}@{parts.netloc}"

    # -- ChatModel --------------------------------------------------------------------
    def stream(self, system: SystemPrompt, messages: Sequence[ChatMessage],
               cancel: Cancellable | None = None) -> Iterator[str]:
        if cancel is not None and cancel.cancelled:
            return
        body = self._body(system_text(system), messages, self.options.max_tokens)
        body["stream"] = True
        conn, response = self._post("/chat/completions", body)
        received: list[str] = []
        finished = False
        try:
            for event in _sse_events(response):
                if cancel is not None and cancel.cancelled:
                    return  # closing the connection below makes the server stop
                if event == "[DONE]":
                    finished = True
                    break
                if not event.strip():
                    continue
                data = _json_or_none(event)
                if data is None:
                    # A stream that cannot be parsed is a failed reply, not an empty one: the
                    # fallback answers (or, after some text, it is a cut). Its size, never its text.
                    raise _during(LLMUnavailableError(
                        f"the local server at {self.url} sent a reply that cannot be read "
                        f"(an event of {len(event)} chars is not a JSON object)"), received)
                if "error" in data:
                    raise _during(LLMUnavailableError(f"the local server failed mid-reply: {_message(data)}"),
                                  received)
                choice = (data.get("choices") or [{}])[0]
                delta = (choice.get("delta") or {}).get("content")
                if delta:
                    received.append(delta)
                    yield delta
                if choice.get("finish_reason"):
                    finished = True
        except (OSError, http.client.HTTPException) as exc:
            if cancel is not None and cancel.cancelled:
                return
            raise _during(self._unavailable(exc), received) from None
        finally:
            conn.close()
        if not finished and not (cancel is not None and cancel.cancelled):
            raise _during(LLMUnavailableError(f"the local server at {self.url} ended the reply early"), received)

    def complete_json(self, system: SystemPrompt, messages: Sequence[ChatMessage],
                      schema: dict[str, Any] | None = None) -> dict[str, Any]:
        prompt = f"{system_text(system)}\n\n{JSON_INSTRUCTION}".strip()
        body = self._body(prompt, messages, self.options.json_max_tokens)
        raw = ""
        for mode in self._json_modes(schema):
            if mode != "none":
                body["response_format"] = _response_format(mode, schema)
            else:
                body.pop("response_format", None)
            try:
                raw = self._complete(body)
            except (LLMRequestError, _StatusError):
                # Servers refuse an unknown response_format with 400, 422 or even 500
                # (llama-cpp-python's server); a connection failure is not retried here.
                if mode == "none":
                    raise
                log.info("local server refused response_format %s; trying the next form", mode)
                continue
            self._json_mode = mode
            break
        try:
            return extract_json_object(raw)
        except JSONExtractError:
            # the reply's size, not its text: this message reaches the log
            raise LLMBadJSONError(f"{self.name} did not return a JSON object ({len(raw)} chars)", raw=raw) from None

    def warm_up(self) -> None:
        """Nothing to load here; the server loads its model on the first request."""

    def close(self) -> None:
        pass

    # -- HTTP -------------------------------------------------------------------------
    def _json_modes(self, schema: dict[str, Any] | None) -> list[str]:
        # OpenAI's json_schema first (Ollama, LM Studio, vLLM, llama.cpp's C++ server);
        # json_object + schema is what llama-cpp-python's server takes; plain JSON mode last.
        modes = ["json_schema", "json_object_schema", "json_object", "none"] if schema else ["json_object", "none"]
        if self._json_mode in modes:
            modes.remove(self._json_mode)
            modes.insert(0, self._json_mode)
        return modes

    def _complete(self, body: dict[str, Any]) -> str:
        conn, response = self._post("/chat/completions", body)
        try:
            data = _json_or_none(response.read().decode("utf-8", errors="replace"))
        except (OSError, http.client.HTTPException) as exc:
            raise self._unavailable(exc) from None
        finally:
            conn.close()
        if data is None or not data.get("choices"):
            raise LLMUnavailableError(f"the local server at {self.url} sent no answer")
        return (data["choices"][0].get("message") or {}).get("content") or ""

    def _body(self, system: str, messages: Sequence[ChatMessage], max_tokens: int) -> dict[str, Any]:
        chat = [{"role": "system", "content": system}] if system else []
        chat += [{"role": m.role, "content": m.content} for m in messages if m.content]
        if len(chat) == (1 if system else 0):
            raise LLMRequestError("nothing to send to the local server (no messages)")
        body: dict[str, Any] = {"messages": chat, "max_tokens": int(max_tokens),
                                "temperature": self.options.temperature}
        model = self._model or self.model_name()
        if model:
            body["model"] = model
        return body

    def model_name(self) -> str:
        """The model to ask for: the configured one, else the first the server lists ("" if none)."""
        with self._lock:
            if not self._model:
                try:
                    models = self.list_models()
                except LLMError:
                    return ""  # the chat request itself will say what is wrong
                self._model = models[0] if models else ""
            return self._model

    def list_models(self) -> list[str]:
        """The server's model ids (GET /models); LLMUnavailableError when it does not answer."""
        conn, response = self._request("GET", "/models", None)
        try:
            listing = _json_or_none(response.read().decode("utf-8", errors="replace")) or {}
        except (OSError, http.client.HTTPException) as exc:
            raise self._unavailable(exc) from None
        finally:
            conn.close()
        return [str(m.get("id", "")) for m in listing.get("data") or [] if isinstance(m, dict)]

    def _post(self, path: str, body: dict[str, Any]) -> tuple[http.client.HTTPConnection, Any]:
        return self._request("POST", path, body)

    def _request(self, method: str, path: str, body: dict[str, Any] | None) -> tuple[http.client.HTTPConnection, Any]:
        cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        conn = cls(self._host, self._port, timeout=self.options.timeout_s)
        headers = {"Accept": "application/json, text/event-stream"}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self.options.api_key:
            headers["Authorization"] = f"Bearer {self.options.api_key}"
        try:
            conn.request(method, self._prefix + path, body=payload, headers=headers)
            response = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            raise self._unavailable(exc) from None
        if response.status >= 400:
            detail = _message(_json_or_none(response.read().decode("utf-8", errors="replace")) or {})
            conn.close()
            where = f"the local server at {self.url}"
            if response.status >= 500:
                raise _StatusError(f"{where} failed (HTTP {response.status}){detail}")
            raise LLMRequestError(f"{where} refused the request (HTTP {response.status}){detail}")
        return conn, response

    def _unavailable(self, exc: Exception) -> LLMUnavailableError:
        if isinstance(exc, (socket.timeout, TimeoutError)):
            return LLMUnavailableError(f"the local server at {self.url} timed out ({self.options.timeout_s:g} s)")
        if isinstance(exc, ConnectionRefusedError):
            return LLMUnavailableError(f"cannot reach the local server at {self.url}: is it running?")
        return LLMUnavailableError(f"connection to the local server at {self.url} broke ({type(exc).__name__})")


class _StatusError(LLMUnavailableError):
    """The server answered with a 5xx: unavailable for this turn (the fallback may answer)."""


def _sse_events(response: Any) -> Iterator[str]:
    """The `data:` payloads of a server-sent event stream (multi-line data joined)."""
    lines: list[str] = []
    while True:
        raw = response.readline()
        if not raw:
            if lines:
                yield "\n".join(lines)
            return
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if not line:
            if lines:
                yield "\n".join(lines)
                lines = []
        elif line.startswith("data:"):
            lines.append(line[5:].lstrip())


def _response_format(mode: str, schema: dict[str, Any] | None) -> dict[str, Any]:
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": schema}
    return {"type": "json_object"}


def _json_or_none(text: str) -> Any:
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None
    return value if isinstance(value, dict) else None


def _message(data: dict[str, Any]) -> str:
    error = data.get("error", data.get("detail"))
    if isinstance(error, dict):
        error = error.get("message") or error.get("msg")
    elif isinstance(error, list) and error:  # FastAPI validation errors
        error = error[0].get("msg") if isinstance(error[0], dict) else error[0]
    if not error:
        return ""
    # Validation errors echo the request ('input': ...), which may hold the learner's words:
    # keep only what the server says is wrong.
    text = re.split(r"['\"]input['\"]\s*:", " ".join(str(error).split()))[0].rstrip(" ,{")
    return f": {text[:160]}"


def _during(error: LLMError, received: list[str]) -> LLMError:
    if not received:
        return error
    return LLMStreamCutError(f"the reply was cut off: {error}", partial_text="".join(received))
