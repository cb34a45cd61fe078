"""Compact, type-preserving encoding of work records into BSON-ready values.

A work record (see :mod:`fingerprint.store.base`) is a dict of str keys whose values are
str, int, float, bool, None, bytes, ``array.array``, 1-D or n-D ``numpy.ndarray``, lists,
tuples or dicts of those. Numbers in bulk are packed, not stored one BSON element each
(a BSON int array costs 7 to 15 bytes per element, packed uint32 costs 4):

- ``array.array`` -> ``{"__packed__": "array", "type": typecode, "data": bytes}``
- ``numpy.ndarray`` -> ``{"__packed__": "ndarray", "type": dtype.str, "shape": [...],
  "data": bytes}``
- a list or tuple of ints (16 or more) -> ``{"__packed__": "list", "type": "q", "data": bytes}``,
  decoded back to a list (of Python ints). Other lists are encoded element by element; tuples
  come back as lists.

Byte order is the machine's (little-endian on every platform this runs on).
"""

from __future__ import annotations

from array import array

import numpy as np

MARK = "__packed__"
_MIN_PACKED_LIST = 16
_INT64 = (-(2**63), 2**63 - 1)


def encode(value):
    """Encode one record value (recursively) into BSON-ready types.

    Raises:
        TypeError: a value of an unsupported type, or a dict key that is not a str.
    """
    if value is None or isinstance(value, (str, bool, int, float, bytes)):
        return value
    if isinstance(value, array):
        return {MARK: "array", "type": value.typecode, "data": value.tobytes()}
    if isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value)
        return {MARK: "ndarray", "type": data.dtype.str, "shape": list(data.shape),
                "data": data.tobytes()}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        if len(value) >= _MIN_PACKED_LIST and all(
            type(v) is int and _INT64[0] <= v <= _INT64[1] for v in value
        ):
            return {MARK: "list", "type": "q", "data": array("q", value).tobytes()}
        return [encode(v) for v in value]
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise TypeError(f"record keys must be str, got {key!r}")
        return {k: encode(v) for k, v in value.items()}
    raise TypeError(f"cannot store a value of type {type(value).__name__} in a work record")


def decode(value):
    """Inverse of :func:`encode` (bytes may arrive as ``bson.Binary``, a bytes subclass)."""
    if isinstance(value, dict):
        kind = value.get(MARK)
        if kind == "array":
            out = array(value["type"])
            out.frombytes(bytes(value["data"]))
            return out
        if kind == "ndarray":
            return np.frombuffer(bytes(value["data"]), dtype=np.dtype(value["type"])).reshape(
                value["shape"]
            ).copy()
        if kind == "list":
            return array(value["type"], bytes(value["data"])).tolist()
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, bytes):
        return bytes(value)
    return value
