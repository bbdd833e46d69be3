"""A local fake of the Anthropic Messages API for tests and benchmarks.

A real HTTP server on 127.0.0.1 (ephemeral port, one thread per connection) that
answers POST /v1/messages like the real API: a JSON `Message`, or with
`"stream": true` server-sent events in the real order and shapes (message_start,
content_block_start, ping, content_block_delta/text_delta..., content_block_stop,
message_delta, message_stop), sent with chunked transfer encoding. So the real SDK
parses it exactly as it parses the real service.

Script it with a queue of `Reply` objects, consumed one per request (the `default`
reply answers when the queue is empty):

    fake.push(Reply("Hi there!"))                          # text, split into tokens
    fake.push(Reply(status=429, headers={"retry-after-ms": "1"}))  # then the SDK retries
    fake.push(Reply(status=500), Reply("ok"))
    fake.push(Reply("a b c d", cut_after=2))               # connection dropped after 2 deltas
    fake.push(Reply("slow", headers_delay=5))              # nothing at all for 5 s (timeouts)
    fake.push(Reply("x", first_token_delay=0.4, token_delay=0.025))

`FakeAnthropicServer(timing=Timing.realistic())` gives every reply without its own
delays a first-token delay of 400 ms and 40 tokens/s, for benchmarks.

Every request is recorded (`fake.requests`: method, path, lower-cased headers, JSON
body) so tests can assert on the system prompt, cache_control and messages; each
record's `finished` event is set when the server is done with it and `outcome` says
how it ended ("complete", "client-gone", "cut", "status", "stopped").
"""
from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
ERROR_MESSAGES = {
    401: "invalid x-api-key",
    429: "Number of request tokens has exceeded your per-minute rate limit",
    500: "Internal server error",
    529: "Overloaded",
}
FAKE_API_KEY = "sk-ant-test-not-a-real-key"
_TOKEN = re.compile(r"\s*\S+|\s+")


@dataclass
class Timing:
    """Delays for replies that set none themselves (seconds)."""

    first_token_delay: float = 0.0
    token_delay: float = 0.0

    @classmethod
    def realistic(cls, first_token_ms: float = 400.0, tokens_per_s: float = 40.0) -> "Timing":
        return cls(first_token_ms / 1000.0, 1.0 / tokens_per_s if tokens_per_s > 0 else 0.0)


@dataclass
class Reply:
    """One scripted answer. `status` != 200 answers with the API's error body."""

    text: str = "Hello! How are you today?"
    status: int = 200
    tokens: list[str] | None = None  # explicit deltas; default: `text` split at words
    headers: dict[str, str] = field(default_factory=dict)  # e.g. {"retry-after-ms": "1"}
    error_type: str | None = None
    error_message: str | None = None
    headers_delay: float = 0.0  # before the status line (connect ok, then silence)
    first_token_delay: float | None = None  # after message_start, before the first delta
    token_delay: float | None = None  # between deltas
    cut_after: int | None = None  # drop the connection after this many deltas
    error_event_after: int | None = None  # send an SSE `error` event after this many deltas
    stop_reason: str = "end_turn"
    input_tokens: int = 25
    cache_read_input_tokens: int = 0

    def deltas(self) -> list[str]:
        if self.tokens is not None:
            return list(self.tokens)
        return _TOKEN.findall(self.text)


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    reply: Reply | None = None
    outcome: str = ""
    deltas_sent: int = 0
    finished: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def api_key(self) -> str:
        """The credential sent: `x-api-key`, or a bearer token (newer SDKs send that)."""
        bearer = self.headers.get("authorization", "")
        return self.headers.get("x-api-key") or bearer.removeprefix("Bearer ").strip()

    @property
    def stream(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))

    @property
    def system(self) -> Any:
        return self.body.get("system") if isinstance(self.body, dict) else None

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", []) if isinstance(self.body, dict) else []


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    fake: "FakeAnthropicServer"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.open_sockets: set[socket.socket] = set()
        self.sockets_lock = threading.Lock()

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        with self.sockets_lock:
            self.open_sockets.add(request)
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self.sockets_lock:
                self.open_sockets.discard(request)

    def drop_all(self) -> None:
        """End idle keep-alive connections so their handler threads exit."""
        with self.sockets_lock:
            sockets = list(self.open_sockets)
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class FakeAnthropicServer:
    def __init__(self, timing: Timing | None = None, default: Reply | None = None,
                 valid_keys: set[str] | None = None) -> None:
        self.timing = timing or Timing()
        self.default = default or Reply()
        self.valid_keys = valid_keys  # None = any non-empty key is accepted
        self.requests: list[RecordedRequest] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._ids = 0

    # -- lifecycle --------------------------------------------------------------------
    def start(self) -> "FakeAnthropicServer":
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.fake = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-anthropic", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()  # wakes every handler that is waiting out a delay
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.drop_all()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "FakeAnthropicServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._httpd is not None, "start() the server first"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    # -- scripting --------------------------------------------------------------------
    def push(self, *replies: Reply | str) -> None:
        with self._lock:
            self._queue.extend(Reply(r) if isinstance(r, str) else r for r in replies)

    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def wait_requests(self, count: int, timeout: float = 60.0) -> bool:
        """Block until `count` requests have arrived (tests wait on this, never sleep)."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self.requests) >= count, timeout)

    def last_request(self) -> RecordedRequest:
        with self._lock:
            return self.requests[-1]

    def _next(self, record: RecordedRequest) -> tuple[Reply, str]:
        with self._lock:
            self.requests.append(record)
            self._arrived.notify_all()
            self._ids += 1
            reply = self._queue.popleft() if self._queue else self.default
            return reply, f"msg_fake{self._ids:06d}"

    def _wait(self, seconds: float) -> bool:
        """Sleep, unless the server is stopping; False means stop now."""
        if seconds <= 0:
            return not self._stop.is_set()
        return not self._stop.wait(seconds)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like the real API; the SDK pools connections
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet in tests
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        fake = self.server.fake
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        headers = {k.lower(): v for k, v in self.headers.items()}
        record = RecordedRequest("POST", self.path, headers, body)
        try:
            self._answer(fake, record)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            record.outcome = record.outcome or "client-gone"
            self.close_connection = True
        finally:
            record.finished.set()

    def _answer(self, fake: FakeAnthropicServer, record: RecordedRequest) -> None:
        reply, msg_id = fake._next(record)
        record.reply = reply
        if not fake._wait(reply.headers_delay):
            record.outcome = "stopped"
            self.close_connection = True
            return
        problem = self._validate(fake, record)
        if problem is not None:
            status, message = problem
            self._error(status, ERROR_TYPES.get(status, "api_error"), message, {})
            record.outcome = "status"
            return
        if self.path.split("?")[0] != "/v1/messages":
            self._error(404, "not_found_error", f"Not found: {self.path}", {})
            record.outcome = "status"
            return
        if reply.status != 200:
            self._error(
                reply.status,
                reply.error_type or ERROR_TYPES.get(reply.status, "api_error"),
                reply.error_message or ERROR_MESSAGES.get(reply.status, "error"),
                reply.headers,
            )
            record.outcome = "status"
            return
        if record.stream:
            self._stream(fake, record, reply, msg_id)
        else:
            self._message(record, reply, msg_id)
            record.outcome = "complete"

    def _validate(self, fake: FakeAnthropicServer, record: RecordedRequest) -> tuple[int, str] | None:
        key = record.api_key
        if not key:
            return 401, "x-api-key header is required"
        if fake.valid_keys is not None and key not in fake.valid_keys:
            return 401, "invalid x-api-key"
        if "anthropic-version" not in record.headers:
            return 400, "anthropic-version: header is required"
        body = record.body
        if not isinstance(body, dict):
            return 400, "request body must be a JSON object"
        for name in ("model", "max_tokens", "messages"):
            if name not in body:
                return 400, f"{name}: Field required"
        if not body["messages"]:
            return 400, "messages: at least one message is required"
        if not isinstance(body["messages"], list) or body["messages"][0].get("role") != "user":
            return 400, 'messages: first message must use the "user" role'
        return None

    # -- responses --------------------------------------------------------------------
    def _send_json(self, status: int, payload: dict[str, Any], extra: dict[str, str]) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_fake")
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _error(self, status: int, kind: str, message: str, extra: dict[str, str]) -> None:
        payload = {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_fake"}
        self._send_json(status, payload, extra)

    def _usage(self, reply: Reply, output_tokens: int) -> dict[str, Any]:
        return {
            "input_tokens": reply.input_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": reply.cache_read_input_tokens,
            "output_tokens": output_tokens,
            "service_tier": "standard",
        }

    def _message_obj(self, record: RecordedRequest, reply: Reply, msg_id: str, text: str | None,
                     output_tokens: int) -> dict[str, Any]:
        content = [] if text is None else [{"type": "text", "text": text}]
        return {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": record.body.get("model", "claude-fake"),
            "content": content,
            "stop_reason": None if text is None else reply.stop_reason,
            "stop_sequence": None,
            "usage": self._usage(reply, output_tokens),
        }

    def _message(self, record: RecordedRequest, reply: Reply, msg_id: str) -> None:
        text = "".join(reply.deltas())
        self._send_json(200, self._message_obj(record, reply, msg_id, text, len(reply.deltas())), reply.headers)

    def _stream(self, fake: FakeAnthropicServer, record: RecordedRequest, reply: Reply, msg_id: str) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", "req_fake")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        deltas = reply.deltas()
        first = reply.first_token_delay if reply.first_token_delay is not None else fake.timing.first_token_delay
        between = reply.token_delay if reply.token_delay is not None else fake.timing.token_delay

        self._event("message_start", {"type": "message_start",
                                      "message": self._message_obj(record, reply, msg_id, None, 1)})
        self._event("content_block_start", {"type": "content_block_start", "index": 0,
                                            "content_block": {"type": "text", "text": ""}})
        self._event("ping", {"type": "ping"})
        for i, delta in enumerate(deltas):
            if reply.cut_after is not None and i >= reply.cut_after:
                record.outcome = "cut"
                self._drop()
                return
            if reply.error_event_after is not None and i >= reply.error_event_after:
                self._event("error", {"type": "error",
                                      "error": {"type": "overloaded_error", "message": "Overloaded"}})
                self._end_chunks()
                record.outcome = "error-event"
                return
            if not fake._wait(first if i == 0 else between):
                record.outcome = "stopped"
                self._drop()
                return
            self._event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                "delta": {"type": "text_delta", "text": delta}})
            record.deltas_sent = i + 1
        self._event("content_block_stop", {"type": "content_block_stop", "index": 0})
        self._event("message_delta", {"type": "message_delta",
                                      "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                                      "usage": {"output_tokens": len(deltas)}})
        self._event("message_stop", {"type": "message_stop"})
        self._end_chunks()
        record.outcome = "complete"

    def _event(self, name: str, data: dict[str, Any]) -> None:
        payload = f"event: {name}\ndata: {json.dumps(data)}\n\n".encode("utf-8")
        self.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))
        self.wfile.flush()

    def _end_chunks(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _drop(self) -> None:
        """Close the connection mid-body, as a network failure would."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def run_forever(host_note: str = "") -> None:  # pragma: no cover - manual benchmarking aid
    """`python -m tests.fakes.anthropic_server`: serve with realistic timing until Ctrl-C."""
    with FakeAnthropicServer(timing=Timing.realistic()) as fake:
        print(f"fake Anthropic API on {fake.url} {host_note}".strip(), flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":  # pragma: no cover
    run_forever()
