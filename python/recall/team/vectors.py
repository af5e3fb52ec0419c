"""Vectors on the wire to pgvector: its binary format, without the pgvector package.

A vector is sent as pgvector's binary input (a 2-byte dimension, 2 unused
bytes, big-endian float32s), so a push of many chunks costs no float
formatting or parsing on either side.
"""

from __future__ import annotations

import struct
from array import array
from sys import byteorder
from typing import TYPE_CHECKING, Any

from recall.team.connect import TeamError

if TYPE_CHECKING:
    import psycopg


class VectorBytes(bytes):
    """A vector's body as pgvector reads it: big-endian float32s."""


def from_float32(data: bytes) -> VectorBytes:
    """Little-endian float32 bytes (how the local index stores vectors) as a VectorBytes."""
    floats = array("f", data)
    if byteorder == "little":
        floats.byteswap()
    return VectorBytes(floats.tobytes())


def from_floats(values: Any) -> VectorBytes:
    """Any sequence of floats (a numpy row) as a VectorBytes."""
    return VectorBytes(struct.pack(f">{len(values)}f", *(float(v) for v in values)))


def register(conn: psycopg.Connection[Any]) -> None:
    """Teach `conn` to send VectorBytes (and lists of them) as pgvector's `vector`."""
    from psycopg.adapt import Dumper
    from psycopg.pq import Format
    from psycopg.types import TypeInfo

    info = TypeInfo.fetch(conn, "vector")
    if info is None:
        raise TeamError(
            "team index: the database has no vector type (pgvector): `recall team init`"
        )
    info.register(conn)
    vector_oid = info.oid

    class _Dumper(Dumper):
        format = Format.BINARY
        oid = vector_oid

        def dump(self, obj: Any) -> bytes:
            return struct.pack(">HH", len(obj) // 4, 0) + bytes(obj)

    conn.adapters.register_dumper(VectorBytes, _Dumper)
