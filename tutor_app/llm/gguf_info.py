"""What a GGUF file says about itself, read from its header without loading the weights.

Used before llama.cpp loads a model: a file that is not GGUF (or is cut short) gets one
clear line instead of a C-level failure, the chat template is checked up front, and the
layer count and attention shape size the GPU offload and the memory check. Pure Python:
only the key/value header is read (arrays such as the vocabulary are skipped).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from tutor_app.errors import ModelMissingError

MAGIC = b"GGUF"
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_MAX_STRING = 64 << 20  # a chat template is a few KB; anything this long means a corrupt file
_MAX_KV = 1 << 16


class GGUFError(ModelMissingError):
    """The file is missing, not GGUF, or corrupt: one line naming it."""


@dataclass(frozen=True)
class GGUFInfo:
    path: Path
    size_bytes: int
    architecture: str
    name: str
    block_count: int  # transformer layers (what n_gpu_layers counts)
    context_length: int  # the context the model was trained for
    embedding_length: int
    head_count: int
    head_count_kv: int
    chat_template: str  # "" when the file carries none

    @property
    def has_chat_template(self) -> bool:
        return bool(self.chat_template.strip())

    def kv_cache_bytes(self, n_ctx: int) -> int:
        """f16 K and V for every layer over `n_ctx` tokens (llama.cpp's default cache type)."""
        if not (self.block_count and self.embedding_length and self.head_count):
            return 0
        kv_width = self.embedding_length * (self.head_count_kv or self.head_count) // self.head_count
        return 2 * self.block_count * n_ctx * kv_width * 2

    def layer_bytes(self) -> int:
        """Rough size of one layer's weights: the file split over the layers plus one for
        the token embeddings and output head."""
        return self.size_bytes // max(1, self.block_count + 1)


def read_gguf_info(path: Path) -> GGUFInfo:
    path = Path(path)
    if not path.is_file():
        raise GGUFError(f"model file {path} is missing")
    size = path.stat().st_size
    try:
        with path.open("rb") as handle:
            meta = _read_header(handle)
    except GGUFError as exc:
        raise GGUFError(f"{path.name} is not a usable GGUF model: {exc}") from None
    except (OSError, struct.error, UnicodeDecodeError, MemoryError) as exc:
        raise GGUFError(f"{path.name} is not a usable GGUF model (corrupt or cut short: "
                        f"{type(exc).__name__})") from None
    arch = str(meta.get("general.architecture", ""))

    def num(key: str) -> int:
        value = meta.get(f"{arch}.{key}", 0)
        if isinstance(value, list):  # some files list per-layer head counts
            value = max(value) if value else 0
        return int(value) if isinstance(value, (int, float)) else 0

    return GGUFInfo(
        path=path, size_bytes=size, architecture=arch, name=str(meta.get("general.name", path.stem)),
        block_count=num("block_count"), context_length=num("context_length"),
        embedding_length=num("embedding_length"), head_count=num("attention.head_count"),
        head_count_kv=num("attention.head_count_kv"),
        chat_template=str(meta.get("tokenizer.chat_template", "") or ""),
    )


def _read_header(handle: BinaryIO) -> dict[str, Any]:
    if handle.read(4) != MAGIC:
        raise GGUFError("not a GGUF file (wrong magic bytes)")
    (version,) = struct.unpack("<I", _exact(handle, 4))
    if version < 2:
        raise GGUFError(f"GGUF version {version} is too old for llama.cpp")
    _tensors, kv_count = struct.unpack("<QQ", _exact(handle, 16))
    if kv_count > _MAX_KV:
        raise GGUFError("corrupt header (absurd key count)")
    meta: dict[str, Any] = {}
    for _ in range(kv_count):
        key = _string(handle)
        (kind,) = struct.unpack("<I", _exact(handle, 4))
        meta[key] = _value(handle, kind, keep_arrays=not key.startswith("tokenizer.ggml."))
    return meta


def _value(handle: BinaryIO, kind: int, keep_arrays: bool) -> Any:
    if kind in _SCALARS:
        fmt = _SCALARS[kind]
        return struct.unpack(fmt, _exact(handle, struct.calcsize(fmt)))[0]
    if kind == _STRING:
        return _string(handle)
    if kind == _ARRAY:
        (inner, count) = struct.unpack("<IQ", _exact(handle, 12))
        if not keep_arrays:  # the vocabulary: skipped, never decoded
            _skip_array(handle, inner, count)
            return []
        items = [_value(handle, inner, keep_arrays) for _ in range(count)]
        return items if keep_arrays else []
    raise GGUFError(f"corrupt header (unknown value type {kind})")


def _skip_array(handle: BinaryIO, inner: int, count: int) -> None:
    if inner in _SCALARS:
        handle.seek(count * struct.calcsize(_SCALARS[inner]), 1)
        return
    if inner != _STRING:
        raise GGUFError(f"corrupt header (unexpected array of type {inner})")
    read, unpack, seek = handle.read, struct.Struct("<Q").unpack, handle.seek
    for _ in range(count):
        (length,) = unpack(read(8))
        if length > _MAX_STRING:
            raise GGUFError("corrupt header (absurd string length)")
        seek(length, 1)


def _string(handle: BinaryIO) -> str:
    (length,) = struct.unpack("<Q", _exact(handle, 8))
    if length > _MAX_STRING:
        raise GGUFError("corrupt header (absurd string length)")
    return _exact(handle, length).decode("utf-8")


def _exact(handle: BinaryIO, n: int) -> bytes:
    data = handle.read(n)
    if len(data) != n:
        raise GGUFError("the file ends inside its header (cut short)")
    return data
