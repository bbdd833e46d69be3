"""A tiny Hugging Face hub on 127.0.0.1 for install tests: serves files under
`/{repo}/resolve/{revision}/{path}` with the headers the real huggingface_hub client
reads (commit, etag, size), so `hf_hub_download` runs unchanged against it through
HF_ENDPOINT. No network is ever touched."""
from __future__ import annotations

import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

COMMIT = "0123456789abcdef0123456789abcdef01234567"


class FakeHub:
    def __init__(self, files: dict[str, bytes]) -> None:
        """`files`: "owner/repo/path/in/repo" -> content."""
        self.files = dict(files)
        self.requests: list[tuple[str, str]] = []  # (method, path)
        hub = self

        class Handler(_Handler):
            fake = hub

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-hub", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> "FakeHub":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


class _Handler(BaseHTTPRequestHandler):
    fake: FakeHub

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet in tests
        pass

    def _content(self) -> bytes | None:
        self.fake.requests.append((self.command, self.path))
        repo_and_rest = self.path.split("?")[0].lstrip("/")
        if "/resolve/" not in repo_and_rest:
            return None
        repo, rest = repo_and_rest.split("/resolve/", 1)
        _revision, _, rel = rest.partition("/")
        return self.fake.files.get(f"{repo}/{rel}")

    def _head(self, content: bytes | None) -> bool:
        if content is None:
            self.send_response(404)
            self.send_header("X-Error-Code", "EntryNotFound")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return False
        self.send_response(200)
        self.send_header("X-Repo-Commit", COMMIT)
        self.send_header("ETag", f'"{hashlib.sha256(content).hexdigest()}"')
        self.send_header("Content-Length", str(len(content)))
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        return True

    def do_HEAD(self) -> None:  # noqa: N802 - http.server naming
        self._head(self._content())

    def do_GET(self) -> None:  # noqa: N802
        content = self._content()
        if self._head(content) and content is not None:
            self.wfile.write(content)
