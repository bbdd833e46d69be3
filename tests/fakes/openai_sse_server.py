"""A stand-in for a local OpenAI-compatible model server (Ollama, LM Studio...) that
misbehaves on purpose: a threaded HTTP server on 127.0.0.1 that lists one model and
answers each streamed chat request with the next scripted body.

    with SseStandIn() as server:
        server.push(GARBAGE)                 # 200 text/event-stream, unparseable events
        server.push(cut_after("Hello there. I"))  # one good delta, then the connection drops
"""
from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Script:
    events: list[str]  # the `data:` payloads, sent in order
    drop: bool = False  # close the connection after the events (no [DONE], no end of body)


GARBAGE = Script(["{this is not json", "[DONE]"])


def delta(text: str) -> str:
    return json.dumps({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})


def cut_after(text: str) -> Script:
    return Script([delta(text)], drop=True)


def whole(text: str) -> Script:
    done = json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return Script([delta(text), done, "[DONE]"])


class SseStandIn:
    def __init__(self) -> None:
        self._queue: deque[Script] = deque()
        self._lock = threading.Lock()
        self.requests = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                body = json.dumps({"object": "list", "data": [{"id": "stand-in", "object": "model"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with outer._lock:
                    outer.requests += 1
                    script = outer._queue.popleft() if outer._queue else GARBAGE
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                if script.drop:
                    self.send_header("Content-Length", "100000")  # promised, never sent: a cut
                else:
                    self.send_header("Connection", "close")
                self.end_headers()
                for event in script.events:
                    self.wfile.write(f"data: {event}\n\n".encode())
                    self.wfile.flush()
                self.close_connection = True

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def push(self, *scripts: Script) -> None:
        with self._lock:
            self._queue.extend(scripts)

    def __enter__(self) -> "SseStandIn":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
