"""TensorBoard event files, written without the tensorboard package.

An event file is a sequence of TFRecords, each holding one serialized ``Event`` protobuf
(tensorflow/core/util/event.proto; TFRecord framing from tensorflow/core/lib/io/record_writer.cc)::

    record  := length (uint64, little-endian) · masked_crc32c(length) (uint32)
               · data (length bytes) · masked_crc32c(data) (uint32)
    masked_crc32c(b) = ((c >> 15) | (c << 17)) + 0xa282ead8   (mod 2**32), c = CRC-32C of b

The first record is ``Event(wall_time, file_version="brain.Event:2")``; then one ``Event`` per
step whose ``summary`` holds ``Summary.Value``s: a scalar is ``simple_value`` (a float32, as
``SummaryWriter.add_scalar`` writes it), a histogram is a ``HistogramProto``. Only the few
fields below are written, each as ``key = field_number << 3 | wire_type`` then its payload:

    Event:            wall_time 1 (double), step 2 (int64), file_version 3 (string), summary 5
    Summary:          value 1 (repeated message)
    Summary.Value:    tag 1 (string), simple_value 2 (float), histo 5 (message)
    HistogramProto:   min 1, max 2, num 3, sum 4, sum_squares 5 (doubles),
                      bucket_limit 6, bucket 7 (packed repeated doubles)

PyTorch writes these with ``torch.utils.tensorboard``, which needs the tensorboard package (and
with it grpcio, protobuf and werkzeug); this module is the 100 lines the download needs.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

__all__ = ["crc32c", "masked_crc32c", "scalar", "histogram", "event_file"]

_VARINT, _FIXED64, _BYTES, _FIXED32 = 0, 1, 2, 5


def _crc_table() -> tuple[int, ...]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):  # the Castagnoli polynomial, reflected
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return tuple(table)


_TABLE = _crc_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of ``data``: ``crc32c(b"123456789") == 0xE3069283``."""
    crc, table = 0xFFFFFFFF, _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """The CRC a TFRecord stores: rotated right by 15 bits, plus a constant."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # an int64 is written as its two's complement
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _key(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _message(number: int, payload: bytes) -> bytes:
    return _key(number, _BYTES) + _varint(len(payload)) + payload


def _double(number: int, value: float) -> bytes:
    return _key(number, _FIXED64) + struct.pack("<d", value)


def scalar(tag: str, value: float) -> bytes:
    """A ``Summary.Value`` holding a scalar (stored as float32, as TensorBoard does)."""
    return _message(1, tag.encode()) + _key(2, _FIXED32) + struct.pack("<f", value)


def histogram(
    tag: str,
    low: float,
    high: float,
    num: float,
    total: float,
    squares: float,
    limits: Sequence[float],
    counts: Sequence[float],
) -> bytes:
    """A ``Summary.Value`` holding a histogram: bucket i counts the values up to ``limits[i]``
    (and above ``limits[i - 1]``), as ``SummaryWriter.add_histogram_raw`` takes them."""
    if len(limits) != len(counts):
        raise ValueError(f"histogram: {len(limits)} limits for {len(counts)} buckets")
    packed = [struct.pack(f"<{len(v)}d", *map(float, v)) for v in (limits, counts)]
    histo = b"".join(_double(i, v) for i, v in enumerate((low, high, num, total, squares), 1))
    histo += _message(6, packed[0]) + _message(7, packed[1])
    return _message(1, tag.encode()) + _message(5, histo)


def _event(wall_time: float, step: int | None, body: bytes) -> bytes:
    step_field = b"" if step is None else _key(2, _VARINT) + _varint(step)
    return _double(1, wall_time) + step_field + body


def _record(data: bytes) -> bytes:
    length = struct.pack("<Q", len(data))
    return (
        length
        + struct.pack("<I", masked_crc32c(length))
        + data
        + struct.pack("<I", masked_crc32c(data))
    )


def event_file(steps: Iterable[tuple[int, Sequence[bytes]]], wall_time: float) -> bytes:
    """The bytes of an event file: the version record, then for each ``(step, values)`` one
    Event whose summary holds ``values`` (from :func:`scalar` and :func:`histogram`). Give the
    steps in increasing order: TensorBoard drops data it takes for an orphaned restart when a
    step goes back."""
    out = [_record(_event(wall_time, None, _message(3, b"brain.Event:2")))]
    for step, values in steps:
        summary = b"".join(_message(1, v) for v in values)
        out.append(_record(_event(wall_time, int(step), _message(5, summary))))
    return b"".join(out)
