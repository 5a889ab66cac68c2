"""TensorBoard event files written by hand (hograd_core/applications/event_file.py), read back
by tensorboard's own reader and checksum (a test-only package, requirements-dev.txt: the app
never imports it)."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import crc32c as tb_crc32c
from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c as tb_masked_crc32c

from hograd_core.applications import event_file as ev


def read_back(folder: Path, data: bytes) -> EventAccumulator:
    (folder / "events.out.tfevents.1.hograd").write_bytes(data)
    events = EventAccumulator(str(folder), size_guidance={"scalars": 0, "histograms": 0})
    events.Reload()
    return events


def test_crc32c_is_castagnolis_as_tensorboard_computes_it() -> None:
    assert ev.crc32c(b"123456789") == 0xE3069283  # the standard check value of CRC-32C
    rng = random.Random(0)
    for size in (0, 1, 7, 8, 100, 4096):
        data = bytes(rng.randrange(256) for _ in range(size))
        assert ev.crc32c(data) == tb_crc32c(data)
        assert ev.masked_crc32c(data) == tb_masked_crc32c(data)


def test_every_scalar_reads_back_with_its_step_and_value(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    steps = [0, 1, 2, 5, 130, 2**40]  # varints of one to six bytes
    values = {
        "loss/a": rng.normal(size=6) * 1e3,
        "grad/b": rng.random(6) * 1e-30,
        "odd/c": np.array([0.0, -1.5, math.inf, -math.inf, 3.0, 1e-45]),
    }
    data = ev.event_file(
        [
            (s, [ev.scalar(tag, float(v[i])) for tag, v in values.items()])
            for i, s in enumerate(steps)
        ],
        wall_time=1_700_000_000.25,
    )
    events = read_back(tmp_path, data)
    assert set(events.Tags()["scalars"]) == set(values)
    for tag, want in values.items():
        got = events.Scalars(tag)
        assert [e.step for e in got] == steps
        assert [e.wall_time for e in got] == [1_700_000_000.25] * 6
        np.testing.assert_array_equal([e.value for e in got], want.astype(np.float32))


def test_nan_reads_back_as_nan(tmp_path: Path) -> None:
    data = ev.event_file([(3, [ev.scalar("loss", math.nan)])], wall_time=1.0)
    (event,) = read_back(tmp_path, data).Scalars("loss")
    assert event.step == 3 and math.isnan(event.value)


def test_a_histogram_reads_back_field_by_field(tmp_path: Path) -> None:
    limits, counts = [0.0, 1e-3, 1.0, 10.0], [4, 0, 7, 2]
    data = ev.event_file(
        [(7, [ev.histogram("g/W1", 0.0, 9.5, 13, 20.25, 60.5, limits, counts)])], wall_time=2.0
    )
    (h,) = read_back(tmp_path, data).Histograms("g/W1")
    v = h.histogram_value
    assert h.step == 7
    assert (v.min, v.max, v.num, v.sum, v.sum_squares) == (0.0, 9.5, 13, 20.25, 60.5)
    assert list(v.bucket_limit) == limits and list(v.bucket) == counts
    with pytest.raises(ValueError, match="4 limits for 3 buckets"):
        ev.histogram("g", 0, 1, 1, 1, 1, limits, counts[:3])
