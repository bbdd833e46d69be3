"""A voice's ONNX graph cut at its decoder's input, on the protobuf bytes: small graphs built
with the `onnx` package (a setup dependency; the app does not need it) and run with
onnxruntime, whole and in two parts."""
from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")  # a setup dependency (emotion export); CI fails on skips
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from tutor_app.core.protobuf_wire import fields, length_field, read_varint, varint, varint_field  # noqa: E402
from tutor_app.speech.vits_split import split_at_decoder  # noqa: E402


def _model(decoder_reads_input: bool = False, with_info: bool = True, prefix: str = "/dec/") -> bytes:
    """x, n -> text side (x*2 + w1, masked by n) -> latent -> decoder (conv-like: + w2, relu, * 3) -> y."""
    w1 = numpy_helper.from_array(np.array([1.0, -2.0, 0.5], dtype=np.float32), "w1")
    w2 = numpy_helper.from_array(np.array([0.25, 1.0, -1.0], dtype=np.float32), "w2")
    two = numpy_helper.from_array(np.array(2.0, dtype=np.float32), "two")
    three = numpy_helper.from_array(np.array(3.0, dtype=np.float32), "three")
    nodes = [
        helper.make_node("Mul", ["x", "two"], ["doubled"], name="/enc_p/Mul"),
        helper.make_node("Add", ["doubled", "w1"], ["shifted"], name="/enc_p/Add"),
        helper.make_node("Cast", ["n"], ["n_float"], name="/Cast", to=TensorProto.FLOAT),
        helper.make_node("Mul", ["shifted", "n_float"], ["latent"], name="/Mul_7"),
        helper.make_node("Add", ["latent", "n_float" if decoder_reads_input else "w2"], ["pre"],
                         name=f"{prefix}conv_pre/Conv"),
        helper.make_node("Relu", ["pre"], ["act"], name=f"{prefix}Relu"),
        helper.make_node("Mul", ["act", "three"], ["y"], name=f"{prefix}Mul"),
    ]
    info = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [3])
            for name in ("doubled", "shifted", "n_float", "latent", "pre", "act")] if with_info else []
    graph = helper.make_graph(nodes, "voice", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]),
                                               helper.make_tensor_value_info("n", TensorProto.INT64, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
                              initializer=[w1, w2, two, three], value_info=info)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)])
    model.ir_version = 8
    return model.SerializeToString()


def _session(model: bytes):
    from tutor_app.core.onnx import import_onnxruntime

    ort = import_onnxruntime()
    return ort.InferenceSession(model, providers=["CPUExecutionProvider"])


FEED = {"x": np.array([1.0, 2.0, -3.0], dtype=np.float32), "n": np.array([1], dtype=np.int64)}


@pytest.mark.parametrize("with_info", [True, False])
def test_the_two_parts_give_the_whole_graphs_output(with_info):
    model = _model(with_info=with_info)
    parts = split_at_decoder(model)
    assert parts is not None and parts.latent == "latent"
    whole = _session(model).run(None, FEED)[0]
    front, decoder = _session(parts.front), _session(parts.decoder)
    assert [i.name for i in front.get_inputs()] == ["x", "n"] and [o.name for o in front.get_outputs()] == ["latent"]
    assert [i.name for i in decoder.get_inputs()] == ["latent"] and [o.name for o in decoder.get_outputs()] == ["y"]
    latent = front.run(None, FEED)[0]
    assert np.array_equal(latent, (FEED["x"] * 2 + [1.0, -2.0, 0.5]).astype(np.float32))
    assert np.array_equal(decoder.run(None, {"latent": latent})[0], whole)


def test_each_part_keeps_only_its_own_weights():
    parts = split_at_decoder(_model())
    assert parts is not None
    front, decoder = onnx.load_from_string(parts.front), onnx.load_from_string(parts.decoder)
    assert {w.name for w in front.graph.initializer} == {"w1", "two"}
    assert {w.name for w in decoder.graph.initializer} == {"w2", "three"}
    assert [n.name for n in decoder.graph.node] == ["/dec/conv_pre/Conv", "/dec/Relu", "/dec/Mul"]
    onnx.checker.check_model(front)
    onnx.checker.check_model(decoder)


def test_no_cut_when_there_is_no_decoder_or_it_reads_the_inputs():
    assert split_at_decoder(_model(prefix="/vocoder/")) is None  # no node under /dec/
    assert split_at_decoder(_model(decoder_reads_input=True)) is None  # needs more than the latent
    assert split_at_decoder(b"") is None
    assert split_at_decoder(b"\x3a\xff\xff\xff\x0f\x00") is None  # a graph field longer than the bytes
    assert split_at_decoder(bytes(range(7, 200))) is None  # not protobuf at all


def test_the_wire_format_round_trips():
    for value in (0, 1, 127, 128, 300, 2**35 + 7):
        assert read_varint(varint(value), 0) == (value, len(varint(value)))
    message = varint_field(2, 300) + length_field(8, b"name") + length_field(7, length_field(1, b"x"))
    found = list(fields(message))
    assert [(f.number, f.wire) for f in found] == [(2, 0), (8, 2), (7, 2)]
    assert found[0].value == 300 and found[1].text(message) == "name"
    nested = found[2]
    assert [f.payload(message) for f in fields(message, nested.value, nested.end)] == [b"x"]
    assert message[found[1].start:found[1].end] == length_field(8, b"name")  # a field's whole bytes
