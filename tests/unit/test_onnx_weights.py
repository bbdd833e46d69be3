"""The ONNX weight reader the emotion model uses to take MiniLM's word embeddings from the
embedder's ONNX export: built ONNX files (the `onnx` package makes them here; the app does
not need it) with raw and typed data, and the bad files it must refuse in one line."""
from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")  # a setup dependency (emotion export); CI fails on skips
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from tutor_app.core.onnx_weights import OnnxWeightError, read_weight  # noqa: E402


def _model(path, *tensors):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [x], [y],
                              initializer=list(tensors))
    onnx.save(helper.make_model(graph), str(path))
    return path


def test_reads_raw_data_weights_exactly(tmp_path):
    rng = np.random.default_rng(3)
    big = rng.standard_normal((300, 7)).astype(np.float32)
    other = rng.standard_normal((4,)).astype(np.float32)
    path = _model(tmp_path / "m.onnx", numpy_helper.from_array(other, "first"),
                  numpy_helper.from_array(big, "model.embeddings.word_embeddings.weight"))
    got = read_weight(path, "model.embeddings.word_embeddings.weight")
    assert got.dtype == np.float32 and got.shape == (300, 7) and np.array_equal(got, big)
    assert np.array_equal(read_weight(path, "first"), other)


def test_reads_typed_float_data(tmp_path):
    values = [0.5, -1.25, 3.0, 7.75, 0.0, 1e-3]
    path = _model(tmp_path / "m.onnx", helper.make_tensor("w", TensorProto.FLOAT, [2, 3], values))
    assert np.array_equal(read_weight(path, "w"), np.asarray(values, np.float32).reshape(2, 3))


def test_a_missing_name_or_another_type_is_refused(tmp_path):
    path = _model(tmp_path / "m.onnx", numpy_helper.from_array(np.arange(6, dtype=np.int64), "ids"))
    with pytest.raises(OnnxWeightError, match="no weight named nope"):
        read_weight(path, "nope")
    with pytest.raises(OnnxWeightError, match="float32"):
        read_weight(path, "ids")


@pytest.mark.parametrize("content", [b"", b"\x00" * 10, b"\x3a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b"not onnx at all"])
def test_garbage_is_one_clear_error(tmp_path, content):
    path = tmp_path / "bad.onnx"
    path.write_bytes(content)
    with pytest.raises(OnnxWeightError) as err:
        read_weight(path, "w")
    assert "\n" not in str(err.value)


def test_a_truncated_model_is_refused(tmp_path):
    path = _model(tmp_path / "m.onnx", numpy_helper.from_array(np.ones((50, 50), np.float32), "w"))
    path.write_bytes(path.read_bytes()[:-500])
    with pytest.raises(OnnxWeightError):
        read_weight(path, "w")
