"""Arguments of the wrong type or value: a TypeError or ValueError that names the argument and says what
was expected, never pybind11's "incompatible function arguments" with the whole signature; and file
names as Python's open() takes them (str, bytes, os.PathLike; a str that is not UTF-8, as os.listdir
gives such a name, opens that file)."""

from __future__ import annotations

import json
import os
import pathlib

import numpy as np
import pytest

import auglab
from conftest import W2, preset_text, write_preset

IMAGE = np.full((20, 30, 3), 90, np.uint8)
PIPE = auglab.Pipeline.from_json(json.dumps(W2))
MIXUP = auglab.Pipeline.from_json(preset_text([{"op": "mixup", "p": 1}]))
TARGETS = auglab.Pipeline.from_json(preset_text([{"op": "horizontal_flip"}]))

# (call, exception, what the message starts with, words it holds)
MISUSES = {
    "threads float": (lambda: PIPE.batch([IMAGE], [0], threads=2.0), TypeError,
                      "threads: expected an integer, got float 2.0"),
    "threads str": (lambda: PIPE.batch([IMAGE], [0], threads="2"), TypeError,
                    "threads: expected an integer, got str '2'"),
    "threads too many": (lambda: PIPE.batch([IMAGE], [0], threads=2**40), ValueError, "threads: expected 1 .. "),
    "backend int": (lambda: PIPE.batch([IMAGE], [0], backend=1), TypeError,
                    "backend: expected a str, got int 1"),
    "output None": (lambda: PIPE.batch([IMAGE], [0], output=None), TypeError,
                    "output: expected a str, got NoneType None"),
    "images not a sequence": (lambda: PIPE.batch(5, [0]), TypeError,
                              "images: expected a sequence of images, got int 5"),
    "indices not iterable": (lambda: PIPE.batch([IMAGE], 0), TypeError,
                             "indices: expected an iterable of integers, got int 0"),
    "positions not iterable": (lambda: MIXUP.batch([IMAGE], [0], partners=[IMAGE], positions=0), TypeError,
                               "positions: expected an iterable of integers, got int 0"),
    "index bool": (lambda: PIPE(IMAGE, True), TypeError, "index: expected an integer, got bool True"),
    "quality float": (lambda: auglab.imwrite("x.jpg", IMAGE, 95.0), TypeError,
                      "quality: expected an integer, got float 95.0"),
    "quality out of range": (lambda: auglab.imwrite("x.jpg", IMAGE, 101), ValueError,
                             "quality: expected 1 .. 100, got 101"),
    "imdecode name": (lambda: auglab.imdecode(b"abc", name=5), TypeError, "name: expected a str, got int 5"),
    "imread path int": (lambda: auglab.imread(5), TypeError,
                        "path: expected a str, bytes or os.PathLike, got int 5"),
    "imwrite path None": (lambda: auglab.imwrite(None, IMAGE), TypeError,
                          "path: expected a str, bytes or os.PathLike, got NoneType None"),
    "load path list": (lambda: auglab.Pipeline.load(["a.json"]), TypeError,
                       "path: expected a str, bytes or os.PathLike, got list ['a.json']"),
    "path with NUL": (lambda: auglab.imread("a\0b.png"), ValueError, "path: 'a\\x00b.png' holds a NUL character"),
    "path not encodable": (lambda: auglab.imread("\ud800.png"), ValueError,
                           "path: '\\ud800.png' cannot be encoded as a file name"),
    "from_json int": (lambda: auglab.Pipeline.from_json(5), TypeError, "text: expected a str or bytes, got int 5"),
    "from_json not UTF-8": (lambda: auglab.Pipeline.from_json(b"\xff{}"), ValueError, "text: not UTF-8"),
    "from_json surrogate": (lambda: auglab.Pipeline.from_json('{"name": "\ud800"}'), ValueError,
                            "text: "),
    "replay shape floats": (lambda: PIPE.replay((20.5, 30), 0), TypeError,
                            "image: expected an array or an (H, W) pair of integers, got tuple (20.5, 30)"),
    "replay shape str": (lambda: PIPE.replay("20x30", 0), TypeError,
                         "image: expected an array or an (H, W) pair of integers, got str '20x30'"),
    "replay huge width": (lambda: PIPE.replay((20, 2**40), 0), ValueError, "image: "),
    "replay zero": (lambda: PIPE.replay((0, 30), 0), ValueError, "image: expected at least one pixel"),
    "apply_replay int": (lambda: auglab.apply_replay(IMAGE, 5), TypeError,
                           "replay: expected a dict or auglab-replay JSON text, got int 5"),
    "position float": (lambda: TARGETS(IMAGE, 0, bboxes=[[1, 2, 3, 4]], class_labels=[1], partners=[],
                                       position=1.5), TypeError, "position: expected an integer, got float 1.5"),
    "position too large": (lambda: TARGETS(IMAGE, 0, bboxes=[[1, 2, 3, 4]], class_labels=[1], partners=[],
                                           position=2**64), ValueError,
                           "position: expected 0 .. 2^64 - 1, got 18446744073709551616"),
    "batch item float": (lambda: PIPE.batch([IMAGE], [0], output="dlpack")[0.0], TypeError,
                         "index: expected an integer, got float 0.0"),
    "dlpack copy str": (lambda: PIPE.batch([IMAGE], [0], output="dlpack")[0].__dlpack__(copy="yes"), TypeError,
                        "copy: expected a bool or None, got str 'yes'"),
}


@pytest.mark.parametrize("case", MISUSES, ids=list(MISUSES))
def test_misuses_name_the_argument(case):
    call, error, start = MISUSES[case]
    with pytest.raises(error) as e:
        call()
    message = str(e.value)
    assert "incompatible function arguments" not in message, message
    assert message.startswith(start), message


NOT_UTF8 = b"caf\xe9"  # Latin-1, as an old archive names its files


@pytest.fixture
def odd_folder(tmp_path):
    folder = tmp_path / os.fsdecode(NOT_UTF8)
    try:
        folder.mkdir()
    except (OSError, UnicodeError) as e:
        pytest.skip(f"the file system takes no non-UTF-8 name here: {e}")
    return folder


def test_file_names_that_are_not_utf8(odd_folder):
    """A str from os.listdir for a name that is not UTF-8 ("caf\\udce9") opens that file, as open() does;
    bytes and pathlib paths too."""
    image_path = odd_folder / "x.png"
    auglab.imwrite(str(image_path), IMAGE)
    assert os.listdir(os.fsencode(odd_folder)) == [b"x.png"]
    assert np.array_equal(auglab.imread(str(image_path)), IMAGE)
    assert np.array_equal(auglab.imread(os.fsencode(image_path)), IMAGE)
    assert np.array_equal(auglab.imread(image_path), IMAGE)
    preset = write_preset(odd_folder, "w2", json.dumps(W2))
    assert auglab.Pipeline.load(str(preset)).name == "w2"
    assert auglab.Pipeline.load(os.fsencode(preset)).name == "w2"
    # An error names the file with the bytes that are not UTF-8 escaped, as Python prints them.
    with pytest.raises(ValueError) as e:
        auglab.imread(str(odd_folder / "missing.png"))
    assert "caf\\xe9" in str(e.value), str(e.value)
    with pytest.raises(ValueError) as e:
        auglab.Pipeline.load(odd_folder / "missing.auglab.json")
    assert "caf\\xe9" in str(e.value), str(e.value)


def test_integers_of_every_kind_still_work(tmp_path):
    """What the checks accept: NumPy integers, objects with __index__, pathlib paths, bytes."""
    class Index:
        def __index__(self):
            return 2

    outs = PIPE.batch([IMAGE, IMAGE], np.array([0, 1]), threads=np.int64(2))
    assert len(outs) == 2 and np.array_equal(outs[1], PIPE(IMAGE, 1))
    assert np.array_equal(PIPE(IMAGE, Index()), PIPE(IMAGE, 2))
    assert PIPE.replay((np.int32(20), np.int64(30)), 0)["image_size"] == [30, 20]
    auglab.imwrite(tmp_path / "q.jpg", IMAGE, quality=np.uint8(90))
    assert auglab.imread(pathlib.Path(tmp_path / "q.jpg")).shape == IMAGE.shape
    assert auglab.imdecode(bytearray((tmp_path / "q.jpg").read_bytes()), name="q").shape == IMAGE.shape
    assert auglab.Pipeline.from_json(json.dumps(W2).encode()).name == "w2"
    b = PIPE.batch([IMAGE], [0], output="dlpack")
    assert b[np.int64(0)].shape == (20, 30, 3) and b[-1].shape == (20, 30, 3)
