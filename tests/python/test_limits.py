"""The pixel limit: the module refuses, at once and with a ValueError naming what and the limit, every
image over auglab-cli's 100 megapixels (core/image_io.h's kMaxImagePixels), whichever way it comes:
an array passed in (an image, a batch's, a partner, a mask), a file read, bytes decoded, a size asked
for (a replay's, an op's output), and a batch whose outputs could not fit in memory. Without it, each
of these was a MemoryError (std::bad_alloc) or the out-of-memory killer, after up to a minute.

The huge arrays here are broadcasts: views of one pixel, which cost no memory to make."""

from __future__ import annotations

import json
import os
import struct
import time
import zlib

import numpy as np
import pytest

import auglab
from conftest import preset_text

LIMIT = 100_000_000
HUGE = (1 << 20, 1 << 20)  # 2^40 pixels: its copy would be 3 TB
REPLAY_HUGE = (1_000_000, 1_000_000)  # the largest size a replay document may give
SMALL = np.full((20, 30, 3), 90, np.uint8)


def huge(shape=HUGE, channels=3):
    return np.broadcast_to(np.zeros((1, 1, channels), np.uint8), (*shape, channels))


def limit_error(error, what: str, size: str) -> None:
    """`error` says what was refused, its size (H x W) and the limit."""
    message = str(error.value)
    assert message.startswith(what + ": "), message
    assert size in message and "100 megapixel limit" in message, message


@pytest.fixture(scope="module")
def pipe():
    return auglab.Pipeline.from_json(preset_text([{"op": "affine"}, {"op": "horizontal_flip", "p": 0.5}]))


def test_the_limit_is_the_clis():
    assert auglab.MAX_PIXELS == LIMIT


@pytest.mark.parametrize("shape", [HUGE, (10001, 10000), (1, LIMIT + 1)], ids=["2^40", "100.01 MP", "one row"])
def test_an_image_array_over_the_limit(pipe, shape):
    size = f"{shape[0]} x {shape[1]}"
    with pytest.raises(ValueError) as e:
        pipe(huge(shape), 0)
    limit_error(e, "image", size)
    with pytest.raises(ValueError) as e:
        pipe.batch([SMALL, huge(shape)], [0, 1])
    limit_error(e, "images[1]", size)


def test_arrays_of_every_entry_point(pipe, tmp_path):
    size = f"{HUGE[0]} x {HUGE[1]}"
    # A replay drawn for the huge size, written by hand (replay() refuses the size itself).
    replay = pipe.replay(SMALL, 0)
    replay["image_size"] = [REPLAY_HUGE[1], REPLAY_HUGE[0]]
    with pytest.raises(ValueError) as e:
        auglab.apply_replay(huge(REPLAY_HUGE), replay)
    limit_error(e, "image", f"{REPLAY_HUGE[0]} x {REPLAY_HUGE[1]}")
    with pytest.raises(ValueError) as e:
        auglab.imwrite(tmp_path / "huge.png", huge())
    limit_error(e, "image", size)
    assert not list(tmp_path.iterdir())
    # With targets: the image, and a mask of its size.
    with pytest.raises(ValueError) as e:
        pipe(huge(), 0, bboxes=[[1, 2, 3, 4]], class_labels=[1])
    limit_error(e, "image", size)
    mask = np.broadcast_to(np.zeros((1, 1), np.uint8), HUGE)
    with pytest.raises(ValueError) as e:
        pipe(huge(), 0, mask=mask)
    limit_error(e, "image", size)


def test_partners_over_the_limit_are_refused_before_a_sample_draws_them():
    mixup = auglab.Pipeline.from_json(preset_text([{"op": "mixup", "p": 1}]))
    size = f"{HUGE[0]} x {HUGE[1]}"
    with pytest.raises(ValueError) as e:
        mixup(SMALL, 0, partners=[SMALL, huge()])
    limit_error(e, "partners[1]", size)
    with pytest.raises(ValueError) as e:
        mixup.batch([SMALL], [0], partners=[huge()])
    limit_error(e, "partners[0]", size)

    class Lazy:  # a dataset: its items are read when drawn, and checked then
        def __len__(self):
            return 1

        def __getitem__(self, i):
            return huge()

    with pytest.raises(ValueError) as e:
        mixup(SMALL, 0, partners=Lazy())
    assert f"partners[0]: {size} (H x W) is over the 100 megapixel limit" in str(e.value), str(e.value)


def test_replay_of_a_size_over_the_limit(pipe):
    with pytest.raises(ValueError) as e:
        pipe.replay(HUGE, 0)
    limit_error(e, "image", f"{HUGE[0]} x {HUGE[1]}")
    with pytest.raises(ValueError) as e:
        pipe.replay((10001, 10000), 0)
    limit_error(e, "image", "10001 x 10000")
    with pytest.raises(ValueError) as e:
        pipe.replay(huge(), 0)
    limit_error(e, "image", f"{HUGE[0]} x {HUGE[1]}")
    assert pipe.replay((10000, 10000), 0)["image_size"] == [10000, 10000]  # at the limit: allowed


OUTPUTS = {
    # An op's own size: resize's 16384 x 16384 is within its bounds, but 268 megapixels.
    "resize": ([{"op": "resize", "size": [16384, 16384]}], "resize", "16384 x 16384"),
    # A size that follows the image: the shorter side scaled to 16384, the longer with it.
    "smallest_max_size": ([{"op": "smallest_max_size", "max_size": [16384, 16384]}], "smallest_max_size",
                          "16384 x 24576"),
    # Past the limit in the middle of the pipeline, back under it at the end: the frames between
    # are images too.
    "intermediate": ([{"op": "resize", "size": [16384, 16384]}, {"op": "resize", "size": [64, 64]}], "resize",
                     "16384 x 16384"),
}


@pytest.mark.parametrize("case", OUTPUTS, ids=list(OUTPUTS))
def test_outputs_over_the_limit(case, tmp_path):
    pipeline, op, size = OUTPUTS[case]
    pipe = auglab.Pipeline.from_json(preset_text(pipeline))
    image = np.full((200, 300, 3), 90, np.uint8)
    for call, what in ((lambda: pipe(image, 0), "image"), (lambda: pipe.batch([SMALL, image], [0, 1]), "images[0]"),
                       (lambda: pipe.replay(image, 0), "image"),
                       (lambda: pipe(image, 0, bboxes=[[1, 2, 30, 40]], class_labels=[1]), "image")):
        start = time.monotonic()
        with pytest.raises(ValueError) as e:
            call()
        assert time.monotonic() - start < 2, f"{case}: refused only after {time.monotonic() - start:.1f} s"
        message = str(e.value)
        assert message.startswith(what + ": ") and f"{op} makes a {size} image" in message, message
        assert "100 megapixel limit" in message, message
    # A replay document asking for such an output (written by hand: replay() refuses to draw one).
    replay = auglab.Pipeline.from_json(preset_text([{"op": "resize", "size": [64, 64]}])).replay(SMALL, 0)
    assert replay["ops"][0]["size"] == [64, 64]
    replay["ops"][0]["size"] = [16384, 16384]
    with pytest.raises(ValueError) as e:
        auglab.apply_replay(SMALL, replay)
    assert str(e.value).startswith("replay: resize makes a 16384 x 16384 image"), str(e.value)
    assert "100 megapixel limit" in str(e.value)


def test_a_batch_is_checked_whole_before_anything_renders():
    """The output over the limit is the batch's last: refused before the first image is rendered (a
    mixing op's lazy pool is read only while rendering, so nothing of it is read)."""
    pipe = auglab.Pipeline.from_json(preset_text([{"op": "mixup", "p": 1},
                                                  {"op": "pad_if_needed", "min_size": [10001, 1]}]))

    class Lazy:
        asked = []

        def __len__(self):
            return 3

        def __getitem__(self, i):
            self.asked.append(i)
            return SMALL

    at_limit = huge((10000, 10000))  # allowed as input; padded to 10001 rows it is not
    pool = Lazy()
    with pytest.raises(ValueError) as e:
        pipe.batch([SMALL, SMALL, at_limit], [0, 1, 2], partners=pool)
    assert str(e.value).startswith("images[2]: pad_if_needed makes a 10001 x 10000 image"), str(e.value)
    assert pool.asked == [], "images were rendered before the batch was checked"


def machine_memory() -> int:
    """RAM and swap, in bytes, as /proc/meminfo says."""
    fields = dict(line.split(":", 1) for line in open("/proc/meminfo"))
    return sum(int(fields[key].split()[0]) * 1024 for key in ("MemTotal", "SwapTotal"))


@pytest.mark.skipif(not os.path.exists("/proc/meminfo"), reason="no /proc/meminfo to size the batch with")
@pytest.mark.parametrize("output", ["numpy", "dlpack"])
def test_a_batch_whose_outputs_cannot_fit_in_memory(output):
    """Each image within the limit, all of them together more than the machine holds: refused at once,
    before a pixel is rendered, instead of filling the memory image after image."""
    pipe = auglab.Pipeline.from_json(preset_text([{"op": "horizontal_flip", "p": 1}]))
    image = huge((10000, 10000))
    count = 2 * machine_memory() // (3 * 10000 * 10000) + 2
    start = time.monotonic()
    with pytest.raises(ValueError) as e:
        pipe.batch([image] * count, range(count), output=output)
    assert time.monotonic() - start < 10
    message = str(e.value)
    assert message.startswith(f"images: the {count} outputs need "), message
    assert "more than this machine's memory" in message, message


def png_header_claiming(width: int, height: int) -> bytes:
    """A PNG whose header claims width x height (and that holds no pixel)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")


def test_files_and_bytes_over_the_limit(tmp_path):
    """Files and bytes: refused from the header by the CLI's decoders, before a pixel is decoded."""
    data = png_header_claiming(20000, 20000)
    path = tmp_path / "huge.png"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=r"20000x20000 image is over the 100 megapixel limit"):
        auglab.imread(path)
    with pytest.raises(ValueError, match=r"^'s3://b/huge\.png': 20000x20000 image is over the 100 megapixel limit"):
        auglab.imdecode(data, name="s3://b/huge.png")


def test_within_the_limit_still_works(pipe):
    """The limit refuses nothing below it: odd and extreme shapes that fit."""
    for shape in [(1, 1), (1, 5000), (3000, 1)]:
        image = np.full((*shape, 3), 7, np.uint8)
        assert pipe(image, 0).shape == image.shape
    tall = auglab.Pipeline.from_json(preset_text([{"op": "resize", "size": [10000, 10000]}]))
    assert tall.replay(SMALL, 0)["image_size"] == [30, 20]  # a 100-megapixel output is allowed
    assert json.dumps(pipe.replay((10000, 10000), 1))
