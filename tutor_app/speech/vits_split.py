"""A Piper (VITS) voice's ONNX graph cut in two at its decoder's input, in memory.

Piper's model makes a sentence's audio in one run: the text side (phonemes -> durations ->
latent frames, ~30 ms for a 1.9 s sentence on 2 cores) and the decoder (frames -> audio,
~55 ms, growing with the sentence). The decoder is convolutional: a stretch of frames
decoded with 16 frames of context on each side gives the same samples as the whole run
(speech/tts.py decodes a sentence's first 0.37 s alone, so it plays after ~45 ms instead of
~80-140). ORT can only run a whole graph, so the graph is split here: `front` ends at the
decoder's input (the latent frames), `decoder` starts there.

Done on the protobuf bytes (core/protobuf_wire.py): nodes, initializers and value infos are
copied whole; only the graphs' node lists, inputs and outputs are new. The cut is the
first input of the first node under "/dec/" (how Piper's export names the decoder) that is
not a weight; a graph without one, or whose decoder reads anything but that tensor, is
not split (None: the voice runs whole).
"""
from __future__ import annotations

from dataclasses import dataclass

from tutor_app.core.protobuf_wire import LENGTH, Buffer, Field, WireError, fields, length_field, varint_field

# ModelProto.graph; GraphProto's fields; NodeProto's; ValueInfoProto's; TypeProto's.
_GRAPH = 7
_NODE, _INITIALIZER, _INPUT, _OUTPUT, _VALUE_INFO, _SPARSE_INITIALIZER = 1, 5, 11, 12, 13, 15
_NODE_INPUT, _NODE_OUTPUT, _NODE_NAME = 1, 2, 3
_TENSOR_NAME = 8
_VALUE_NAME, _VALUE_TYPE = 1, 2
_TYPE_TENSOR, _TENSOR_ELEM_TYPE = 1, 1
_FLOAT = 1

DECODER_PREFIX = "/dec/"


@dataclass(frozen=True)
class SplitVoice:
    front: bytes  # an ONNX model: the voice's inputs -> `latent`
    decoder: bytes  # an ONNX model: `latent` -> the voice's audio output
    latent: str  # the tensor between them ([1, channels, frames])


@dataclass(frozen=True)
class _Node:
    raw: bytes
    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


def split_at_decoder(model: Buffer, prefix: str = DECODER_PREFIX) -> SplitVoice | None:
    """`model` (an ONNX file's bytes) as two models cut at the decoder's input, or None
    when there is no such cut (or the bytes are not a model this understands)."""
    try:
        return _split(model, prefix)
    except (WireError, IndexError):
        return None


def _split(model: Buffer, prefix: str) -> SplitVoice | None:
    top = list(fields(model))
    graph = next((f for f in top if f.number == _GRAPH and f.wire == LENGTH), None)
    if graph is None:
        return None
    kept: list[bytes] = []  # the graph's other fields (name, doc string, ...), unchanged
    nodes: list[_Node] = []
    weights: dict[str, bytes] = {}
    inputs: dict[str, bytes] = {}
    outputs: dict[str, bytes] = {}
    infos: dict[str, bytes] = {}
    for f in fields(model, graph.value, graph.end):
        raw = bytes(model[f.start:f.end])
        if f.number == _NODE:
            nodes.append(_node(model, f, raw))
        elif f.number == _INITIALIZER:
            weights[_name_of(model, f, _TENSOR_NAME)] = raw
        elif f.number in (_INPUT, _OUTPUT, _VALUE_INFO):
            {_INPUT: inputs, _OUTPUT: outputs, _VALUE_INFO: infos}[f.number][_name_of(model, f, _VALUE_NAME)] = raw
        elif f.number == _SPARSE_INITIALIZER:
            return None  # not in Piper's exports; not worth handling
        else:
            kept.append(raw)
    first = next((n for n in nodes if n.name.startswith(prefix)), None)
    latent = next((name for name in first.inputs if name and name not in weights), None) if first else None
    if latent is None or latent in inputs:
        return None
    producer = {out: i for i, n in enumerate(nodes) for out in n.outputs}
    front_nodes, front_inputs = _needed(nodes, producer, weights, [latent], stop=set())
    decoder_nodes, decoder_inputs = _needed(nodes, producer, weights, list(outputs), stop={latent})
    if latent not in producer or decoder_inputs != {latent} or not front_inputs <= set(inputs):
        return None
    latent_info = infos.get(latent) or _float_info(latent)

    def build(chosen: set[int], graph_inputs: list[bytes], graph_outputs: list[bytes], io: set[str]) -> bytes:
        used = [nodes[i] for i in sorted(chosen)]  # the original order is a valid order
        names = {name for n in used for name in n.inputs}
        made = {name for n in used for name in n.outputs}
        body = b"".join(kept) + b"".join(n.raw for n in used)
        body += b"".join(raw for name, raw in weights.items() if name in names)
        body += b"".join(graph_inputs) + b"".join(graph_outputs)
        body += b"".join(raw for name, raw in infos.items() if name in made and name not in io)
        rest = b"".join(bytes(model[f.start:f.end]) for f in top if f is not graph)
        return rest + length_field(_GRAPH, body)

    front = build(front_nodes, [raw for name, raw in inputs.items() if name in front_inputs],
                  [_as_field(_OUTPUT, latent_info)], {latent})
    decoder = build(decoder_nodes, [_as_field(_INPUT, latent_info)], list(outputs.values()),
                    {latent, *outputs})
    return SplitVoice(front, decoder, latent)


def _needed(nodes: list[_Node], producer: dict[str, int], weights: dict[str, bytes], wanted: list[str],
            stop: set[str]) -> tuple[set[int], set[str]]:
    """The nodes that `wanted` needs, back to the graph's inputs or `stop`; and which of
    those (or `stop`'s) tensors they read."""
    chosen: set[int] = set()
    reads: set[str] = set()
    todo = list(wanted)
    while todo:
        name = todo.pop()
        if not name or name in weights:
            continue
        if name in stop or name not in producer:
            reads.add(name)
            continue
        index = producer[name]
        if index not in chosen:
            chosen.add(index)
            todo.extend(nodes[index].inputs)
    return chosen, reads


def _node(buf: Buffer, f: Field, raw: bytes) -> _Node:
    name, ins, outs = "", [], []
    for part in fields(buf, f.value, f.end):
        if part.wire != LENGTH:
            continue
        if part.number == _NODE_INPUT:
            ins.append(part.text(buf))
        elif part.number == _NODE_OUTPUT:
            outs.append(part.text(buf))
        elif part.number == _NODE_NAME:
            name = part.text(buf)
    return _Node(raw, name, tuple(ins), tuple(outs))


def _name_of(buf: Buffer, f: Field, number: int) -> str:
    return next((p.text(buf) for p in fields(buf, f.value, f.end) if p.number == number and p.wire == LENGTH), "")


def _float_info(name: str) -> bytes:
    """A ValueInfoProto field (as a value_info entry) for a float tensor of any shape."""
    tensor = varint_field(_TENSOR_ELEM_TYPE, _FLOAT)
    value = length_field(_VALUE_NAME, name.encode()) + length_field(_VALUE_TYPE, length_field(_TYPE_TENSOR, tensor))
    return length_field(_VALUE_INFO, value)


def _as_field(number: int, info_field: bytes) -> bytes:
    """A value_info entry re-keyed as a graph input or output."""
    payload = next(fields(info_field)).payload(info_field)
    return length_field(number, payload)
