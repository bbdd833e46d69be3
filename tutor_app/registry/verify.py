"""Model files checked against their sha256, without re-hashing them at every start.

A file's hash is remembered by (path, size, mtime_ns) in a small JSON file in the app's
cache folder: any write to a model file changes its mtime (and usually its size), so a
damaged file is hashed again and refused, while an untouched GB-sized model costs one
`stat` per start. `tutor-app models status` re-hashes everything (`rehash=True`), which
also catches damage that kept the mtime (bit rot, a restored backup).
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from pathlib import Path

log = logging.getLogger(__name__)

CACHE_FILE = "verified.json"
_VERSION = 1


def sha256_file(path: Path, chunk: int = 1 << 20, progress=None) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
            if progress is not None:
                progress(len(block))
    return digest.hexdigest()


class HashCache:
    """sha256 of files, remembered by (path, size, mtime_ns); `file` None keeps it in
    memory only. Shared by the threads that load services at the same time."""

    def __init__(self, file: Path | None = None) -> None:
        self.file = file
        self.hashed = 0  # files actually read (the rest came from the cache)
        self._lock = threading.Lock()
        self._dirty = False
        self._entries: dict[str, dict] = self._read()

    def _read(self) -> dict[str, dict]:
        if self.file is None or not self.file.is_file():
            return {}
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
            if data.get("version") == _VERSION and isinstance(data.get("files"), dict):
                return dict(data["files"])
        except (OSError, ValueError, AttributeError):
            pass
        log.info("model verification cache unreadable; files will be hashed again")
        return {}

    def sha256(self, path: Path, rehash: bool = False) -> str:
        """The file's sha256; from the cache when its size and mtime are unchanged."""
        key = str(Path(path).absolute())
        st = os.stat(path)
        with self._lock:
            entry = self._entries.get(key)
            if (not rehash and entry and entry.get("size") == st.st_size
                    and entry.get("mtime_ns") == st.st_mtime_ns and isinstance(entry.get("sha256"), str)):
                return entry["sha256"]
        digest = sha256_file(Path(path))
        self.remember(Path(path), digest, st)
        with self._lock:
            self.hashed += 1
        self.save()  # a small write now saves a long read at the next start
        return digest

    def remember(self, path: Path, digest: str, st: os.stat_result | None = None) -> None:
        """Record a hash computed elsewhere (an install hashes while it copies)."""
        st = st or os.stat(path)
        with self._lock:
            self._entries[str(Path(path).absolute())] = {
                "size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": digest}
            self._dirty = True

    def save(self) -> None:
        """Write the cache if it changed; a cache that cannot be written only costs time."""
        if self.file is None:
            return
        with self._lock:
            if not self._dirty:
                return
            payload = json.dumps({"version": _VERSION, "files": self._entries}, indent=0)
            self._dirty = False
        tmp = self.file.with_name(f".{self.file.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(payload, encoding="utf-8")
            os.replace(tmp, self.file)  # atomic: concurrent starts never read half a file
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            log.info("cannot write the model verification cache %s: %s", self.file, exc)


def verify_files(folder: Path, files: dict[str, str], hashes: HashCache | None = None,
                 rehash: bool = False) -> str:
    """'' when every listed file exists with its sha256, else what is wrong. The one
    checksum test behind `models status` and every model load."""
    for rel, expected in files.items():
        path = folder / rel
        if not path.is_file():
            return f"{rel} is missing"
        got = hashes.sha256(path, rehash) if hashes is not None else sha256_file(path)
        if got != expected:
            return f"{rel} has the wrong checksum"
    return ""
