"""Read one float32 weight (an initializer) out of an ONNX file, without the `onnx` package.

The built-in emotion model needs MiniLM's word-embedding matrix, which the embedder's ONNX
export already carries bit for bit; reading it from there lets a torch-free install leave
out the 87 MB safetensors copy of the same weights. ONNX files are protobuf: ModelProto
field 7 is the graph, GraphProto field 5 the initializers, and a TensorProto has dims (1),
data_type (2), float_data (4), name (8), raw_data (9) and data_location (14).
"""
from __future__ import annotations

import mmap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt

from tutor_app.core.protobuf_wire import LENGTH, fields, read_varint

_GRAPH, _INITIALIZER = 7, 5
_DIMS, _DATA_TYPE, _FLOAT_DATA, _NAME, _RAW_DATA, _LOCATION = 1, 2, 4, 8, 9, 14
_FLOAT, _EXTERNAL = 1, 1


class OnnxWeightError(ValueError):
    """The file is not a readable ONNX model, or has no such float32 weight."""


def _only(buf: mmap.mmap, start: int, end: int, number: int) -> tuple[int, int] | None:
    for field in fields(buf, start, end):
        if field.number == number and field.wire == LENGTH:
            return field.value, field.end
    return None


def _tensor(buf: mmap.mmap, start: int, end: int, name: str) -> npt.NDArray[np.float32] | None:
    dims: list[int] = []
    dtype = external = 0
    found = False
    data: tuple[int, int] | None = None
    for num, wire, value, stop in _plain(buf, start, end):
        if num == _NAME and wire == 2:
            if buf[value:stop].decode("utf-8", "replace") != name:
                return None
            found = True
        elif num == _DIMS and wire == 0:
            dims.append(value)
        elif num == _DIMS and wire == 2:  # packed dims
            pos = value
            while pos < stop:
                dim, pos = read_varint(buf, pos)
                dims.append(dim)
        elif num == _DATA_TYPE and wire == 0:
            dtype = value
        elif num == _LOCATION and wire == 0:
            external = value
        elif num in (_RAW_DATA, _FLOAT_DATA) and wire == 2:
            data = (value, stop)
    if not found:
        return None
    if dtype != _FLOAT or external == _EXTERNAL or data is None:
        raise OnnxWeightError(f"{name} is not stored inline as float32")
    count = int(np.prod(dims)) if dims else 0
    if (data[1] - data[0]) != 4 * count:
        raise OnnxWeightError(f"{name}: {data[1] - data[0]} bytes for shape {tuple(dims)}")
    flat = np.frombuffer(buf, dtype="<f4", count=count, offset=data[0])
    return flat.reshape(dims).astype(np.float32, copy=True)  # a copy: the file closes


def _plain(buf: mmap.mmap, start: int, end: int) -> Iterator[tuple[int, int, int, int]]:
    """(field number, wire type, value, end) per field (see core/protobuf_wire.py)."""
    for field in fields(buf, start, end):
        yield field.number, field.wire, field.value, field.end


def read_weight(path: Path, name: str) -> npt.NDArray[np.float32]:
    """The float32 initializer `name` of the ONNX model at `path` (a copy in memory)."""
    try:
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            graph = _only(buf, 0, len(buf), _GRAPH)
            if graph is None:
                raise OnnxWeightError(f"{path.name} has no graph")
            for num, wire, value, stop in _plain(buf, *graph):
                if num == _INITIALIZER and wire == 2:
                    tensor = _tensor(buf, value, stop, name)
                    if tensor is not None:
                        return tensor
    except (OSError, IndexError, ValueError) as exc:
        if isinstance(exc, OnnxWeightError):
            raise
        raise OnnxWeightError(f"{path.name} is not a readable ONNX model ({type(exc).__name__})") from exc
    raise OnnxWeightError(f"{path.name} has no weight named {name}")
