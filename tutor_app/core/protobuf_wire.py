"""Protobuf's wire format, read and written by hand: enough to walk an ONNX file's
messages and to write new ones from their parts, without the `onnx` package (not in the
installer: its 31 MB would take the archive past its size limit).

A message is a run of fields; each field is a key (field number << 3 | wire type) and a
value: a varint (type 0), 8 or 4 fixed bytes (1, 5), or a length and that many bytes
(2: strings, bytes and nested messages).
"""
from __future__ import annotations

import mmap
from collections.abc import Iterator
from dataclasses import dataclass

Buffer = bytes | mmap.mmap  # both index to an int and slice to bytes

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5


class WireError(ValueError):
    """The bytes are not a protobuf message this reader understands."""


@dataclass(frozen=True)
class Field:
    number: int
    wire: int
    value: int  # a varint's number; for a length-delimited field where its bytes start
    end: int  # where the field ends (for a length-delimited one, where its bytes stop)
    start: int  # where the field's key starts: buf[start:end] is the whole field

    def payload(self, buf: Buffer) -> bytes:
        return bytes(buf[self.value:self.end]) if self.wire == LENGTH else b""

    def text(self, buf: Buffer) -> str:
        return self.payload(buf).decode("utf-8", "replace")


def read_varint(buf: Buffer, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise WireError("malformed varint")


def fields(buf: Buffer, start: int = 0, end: int | None = None) -> Iterator[Field]:
    """The fields of the message in buf[start:end], in order."""
    end = len(buf) if end is None else end
    pos = start
    while pos < end:
        at = pos
        key, pos = read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == VARINT:
            value, pos = read_varint(buf, pos)
            yield Field(number, wire, value, pos, at)
        elif wire == LENGTH:
            length, pos = read_varint(buf, pos)
            if pos + length > end:
                raise WireError("a field runs past its message")
            yield Field(number, wire, pos, pos + length, at)
            pos += length
        elif wire in (FIXED64, FIXED32):
            pos += 8 if wire == FIXED64 else 4
            if pos > end:
                raise WireError("a field runs past its message")
            yield Field(number, wire, 0, pos, at)
        else:
            raise WireError(f"unsupported wire type {wire}")


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def length_field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (a string, bytes or a nested message)."""
    return varint(number << 3 | LENGTH) + varint(len(payload)) + payload


def varint_field(number: int, value: int) -> bytes:
    return varint(number << 3 | VARINT) + varint(value)
