"""The few ONNX messages `minilm.build_graph` writes, encoded in protobuf's wire format.

ONNX Runtime reads a model as serialised bytes; writing them here spares the app the `onnx` package
(27 MB with its dependency) for one graph built once. Only what the graph uses is covered: nodes with
int, float and int-list attributes, tensors as raw little-endian data, symbolic input shapes. Fields
are written in field-number order, as protobuf does, so `onnx` parses and re-serialises the bytes
unchanged (`tests/test_embed.py` checks it with the `onnx` of the test requirements).
"""
from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

import numpy as np

FLOAT, UINT8, INT8, INT64 = 1, 2, 3, 7  # TensorProto.DataType
_TENSOR_TYPES = {np.dtype(np.float32): FLOAT, np.dtype(np.uint8): UINT8, np.dtype(np.int8): INT8,
                 np.dtype(np.int64): INT64}
_ATTRIBUTE_FLOAT, _ATTRIBUTE_INT, _ATTRIBUTE_INTS = 1, 2, 7  # AttributeProto.AttributeType
_VARINT, _BYTES, _FIXED32 = 0, 2, 5


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int64 values take ten bytes, as two's complement
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _key(field: int, wire_type: int) -> bytes:
    return _varint(field << 3 | wire_type)


def _int(field: int, value: int) -> bytes:
    return _key(field, _VARINT) + _varint(value)


def _bytes(field: int, value: bytes | str) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return _key(field, _BYTES) + _varint(len(data)) + data


def _all(field: int, messages: Iterable[bytes]) -> bytes:
    return b"".join(_bytes(field, message) for message in messages)


def attribute(name: str, value: int | float | Sequence[int]) -> bytes:
    """An AttributeProto: an int, a float (stored as float32) or a list of ints."""
    if isinstance(value, bool) or not isinstance(value, (int, float, list, tuple)):
        raise TypeError(f"attribute {name!r}: unsupported value {value!r}")
    if isinstance(value, int):
        return _bytes(1, name) + _int(3, value) + _int(20, _ATTRIBUTE_INT)
    if isinstance(value, float):
        return _bytes(1, name) + _key(2, _FIXED32) + struct.pack("<f", value) + _int(20, _ATTRIBUTE_FLOAT)
    return _bytes(1, name) + b"".join(_int(8, int(item)) for item in value) + _int(20, _ATTRIBUTE_INTS)


def node(op_type: str, inputs: Sequence[str], outputs: Sequence[str], domain: str | None = None,
         **attributes: int | float | Sequence[int]) -> bytes:
    """A NodeProto; attributes in name order, as `onnx.helper.make_node` writes them."""
    return (b"".join(_bytes(1, name) for name in inputs) + b"".join(_bytes(2, name) for name in outputs)
            + _bytes(4, op_type) + _all(5, (attribute(key, attributes[key]) for key in sorted(attributes)))
            + (_bytes(7, domain) if domain is not None else b""))


def tensor(name: str, array: np.ndarray) -> bytes:
    """A TensorProto holding `array` as raw little-endian data."""
    array = np.asarray(array)
    if array.dtype not in _TENSOR_TYPES:
        raise TypeError(f"tensor {name!r}: unsupported dtype {array.dtype}")
    data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes(order="C")
    return (b"".join(_int(1, size) for size in array.shape) + _int(2, _TENSOR_TYPES[array.dtype])
            + _bytes(8, name) + _bytes(9, data))


def tensor_value(name: str, elem_type: int, shape: Sequence[int | str]) -> bytes:
    """A ValueInfoProto for a tensor: a size per dimension, a name where it varies."""
    dims = (_int(1, size) if isinstance(size, int) else _bytes(2, size) for size in shape)
    tensor_type = _int(1, elem_type) + _bytes(2, _all(1, dims))
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor_type))


def model(nodes: Sequence[bytes], name: str, inputs: Sequence[bytes], outputs: Sequence[bytes],
          initializers: Sequence[bytes], *, opsets: Sequence[tuple[str, int]], ir_version: int,
          producer: str) -> bytes:
    """A serialised ModelProto around one graph."""
    graph = (_all(1, nodes) + _bytes(2, name) + _all(5, initializers) + _all(11, inputs) + _all(12, outputs))
    opset_ids = (_bytes(1, domain) + _int(2, version) for domain, version in opsets)
    return _int(1, ir_version) + _bytes(2, producer) + _bytes(7, graph) + _all(8, opset_ids)
