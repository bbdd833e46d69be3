"""Shared helpers for the memory tests: one real MiniLM embedder per test process."""
from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@functools.lru_cache(maxsize=1)
def real_embedder():
    from tutor_app.memory.embedder import SentenceEmbedder
    from tutor_app.paths import default_models_dir
    from tutor_app.registry.manifest import ModelRegistry

    folder = ModelRegistry.load(default_models_dir()).path("all-minilm-l6-v2")
    return SentenceEmbedder("all-minilm-l6-v2", folder)


@pytest.fixture
def embedder():
    return real_embedder()


@pytest.fixture
def open_profile(tmp_path, embedder):
    """open_profile(name) -> ProfileMemory on one shared db dir; closed after the test."""
    from tutor_app.memory.storage.store import open_store

    opened = []

    def _open(profile: str = "default", db_dir: Path | None = None):
        store = open_store(db_dir or tmp_path / "memory.lancedb", embedder, profile)
        opened.append(store)
        return store

    yield _open
    for s in opened:
        s.close()


class DimOnlyEmbedder:
    """Name and size of MiniLM without the model: for tests that pass vectors in
    themselves (crash safety, schema checks), where loading torch would only cost time."""

    name = "all-minilm-l6-v2"
    dim = 384

    def embed(self, texts):  # pragma: no cover - these tests never embed
        raise AssertionError("this test must not embed")

    def embed_one(self, text):  # pragma: no cover
        raise AssertionError("this test must not embed")


_HEX = rb"[0-9A-Fa-f-]"


def secret_pattern(needle: str) -> re.Pattern[bytes]:
    """How a test finds `needle` in any file (see `files_containing`)."""
    data = needle.encode("utf-8")
    if re.fullmatch(_HEX + b"+", data):
        return re.compile(rb"(?<!" + _HEX + rb")" + re.escape(data) + rb"(?!" + _HEX + rb")")
    return re.compile(re.escape(data))


def files_containing(root: Path, needle: str) -> list[Path]:
    """Files whose bytes hold `needle`. LanceDB manifests and transaction files name data
    files by random UUIDs, so a short digit secret such as "4921" turns up inside one now
    and then (it failed a CI run once): a needle made of hex digits must not be part of a
    longer hex run (a UUID) to count. The learner's text always has it alone."""
    pattern = secret_pattern(needle)
    return [p for p in root.rglob("*") if p.is_file() and pattern.search(p.read_bytes())]


def run_cli(*args: str, data_dir: Path, stdin: str | None = None, profile: str | None = None,
            input_bytes: bytes | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUTOR_APP_")}
    env.update({"TUTOR_APP_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    cmd = [sys.executable, "-m", "tutor_app"]
    if profile:
        cmd += ["--profile", profile]
    cmd += list(args)
    return subprocess.run(cmd, input=input_bytes if input_bytes is not None else (stdin or "").encode(),
                          capture_output=True, env=env, cwd=REPO, timeout=300)
