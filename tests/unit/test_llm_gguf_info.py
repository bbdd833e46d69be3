"""The GGUF header read before llama.cpp loads a file: the bundled model's facts, and
one clear line for a missing, foreign, cut-short or template-less file."""
from __future__ import annotations

import pytest

from tutor_app.llm.factory import resolve_gguf
from tutor_app.llm.gguf_info import GGUFError, read_gguf_info
from tutor_app.paths import default_models_dir
from tutor_app.registry.manifest import ModelRegistry


@pytest.fixture(scope="module")
def bundled():
    return resolve_gguf("smollm2-135m-instruct", ModelRegistry.load(default_models_dir()))


def test_the_bundled_model_header(bundled):
    info = read_gguf_info(bundled)
    assert (info.architecture, info.block_count, info.context_length) == ("llama", 30, 8192)
    assert (info.embedding_length, info.head_count, info.head_count_kv) == (576, 9, 3)
    assert info.has_chat_template and "<|im_start|>" in info.chat_template
    assert info.size_bytes == bundled.stat().st_size
    # K and V, f16, 30 layers, a 192-wide grouped-query cache: 2 * 30 * 2048 * 192 * 2 bytes.
    assert info.kv_cache_bytes(2048) == 2 * 30 * 2048 * 192 * 2
    assert info.layer_bytes() == info.size_bytes // 31


def test_missing_file(tmp_path):
    with pytest.raises(GGUFError, match="is missing"):
        read_gguf_info(tmp_path / "nope.gguf")


def test_not_a_gguf(tmp_path):
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"PK\x03\x04 this is a zip, not a model" * 10)
    with pytest.raises(GGUFError, match="not a GGUF file"):
        read_gguf_info(fake)


@pytest.mark.parametrize("keep", [3, 24, 300, 40_000])
def test_cut_short_inside_the_header(tmp_path, bundled, keep):
    cut = tmp_path / "cut.gguf"
    with bundled.open("rb") as src:
        cut.write_bytes(src.read(keep))
    with pytest.raises(GGUFError) as caught:
        read_gguf_info(cut)
    assert "cut.gguf is not a usable GGUF model" in str(caught.value) and "\n" not in str(caught.value)


def test_a_file_without_a_chat_template_says_so(tmp_path, bundled):
    plain = tmp_path / "base.gguf"
    data = bundled.read_bytes()
    assert data.count(b"tokenizer.chat_template") == 1
    plain.write_bytes(data.replace(b"tokenizer.chat_template", b"tokenizer.chat_templatX"))  # same length
    info = read_gguf_info(plain)
    assert not info.has_chat_template and info.block_count == 30
