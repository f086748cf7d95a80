"""Strict presets, as the CLI reads them: every fault a ValueError with the CLI's message (the JSON
path of the fault); bad images and arguments say what was expected."""

from __future__ import annotations

import json

import numpy as np
import pytest

import auglab
from conftest import W2, preset_text, write_preset

BAD_PRESETS = {
    "unknown top-level key": '{"format": "auglab-preset", "version": 1, "pipelin": []}',
    "unknown op": preset_text([{"op": "affine"}, {"op": "rotate_a_lot"}]),
    "min above max": preset_text([{"op": "coarse_dropout", "holes": [9, 8]}]),
    "wrong type": preset_text([{"op": "affine", "p": "often"}]),
    "out of bounds": preset_text([{"op": "horizontal_flip", "p": 1.5}]),
    "unknown parameter": preset_text([{"op": "gaussian_blur", "sigma": [1, 2]}]),
    "odd kernel sizes": preset_text([{"op": "motion_blur", "kernel_size": [3, 8]}]),
    "newer version": '{"format": "auglab-preset", "version": 99, "pipeline": []}',
    "not a preset": '{"format": "auglab-replay", "version": 1}',
    "syntax": '{"format": "auglab-preset", "version": 1, "pipeline": [,]}',
    "duplicate key": '{"format": "auglab-preset", "version": 1, "version": 1, "pipeline": []}',
    "group without children": preset_text([{"group": "one_of", "children": []}]),
    "bad targets section": preset_text([{"op": "affine"}], targets={"boxes": {"format": "xyxy"}}),
}


def cli_error(cli, path) -> str:
    r = cli.run("validate", path, check=False)
    assert r.returncode == 2, r.stdout
    prefix = "auglab-cli validate: error: "
    assert r.stderr.startswith(prefix), r.stderr
    return r.stderr[len(prefix):].rstrip("\n")


@pytest.mark.parametrize("case", BAD_PRESETS, ids=list(BAD_PRESETS))
def test_bad_presets_raise_the_cli_error(cli, tmp_path, case):
    path = write_preset(tmp_path, "bad", BAD_PRESETS[case])
    expected = cli_error(cli, path)
    with pytest.raises(ValueError) as loaded:
        auglab.Pipeline.load(path)
    assert str(loaded.value) == expected
    # From text, the same message without the file's name in front.
    with pytest.raises(ValueError) as parsed:
        auglab.Pipeline.from_json(BAD_PRESETS[case])
    message = str(parsed.value)
    assert expected.endswith(message.removeprefix("preset")), (expected, message)


def test_json_path_is_named():
    with pytest.raises(ValueError, match=r"^pipeline\[1\]\.holes: min 9 > max 8"):
        auglab.Pipeline.from_json(preset_text([{"op": "affine"}, {"op": "coarse_dropout", "holes": [9, 8]}]))
    with pytest.raises(ValueError, match=r"pipeline\[0\]\.children\[1\]\.p"):
        auglab.Pipeline.from_json(preset_text([{"group": "one_of", "children": [
            {"op": "affine"}, {"op": "horizontal_flip", "p": -1}]}]))


def test_missing_file_is_the_cli_error(cli, tmp_path):
    path = tmp_path / "missing.auglab.json"
    with pytest.raises(ValueError) as e:
        auglab.Pipeline.load(path)
    assert str(e.value) == cli_error(cli, path)


IMAGE = np.zeros((20, 30, 3), np.uint8)


@pytest.mark.parametrize("image, error, words", [
    (IMAGE.astype(np.float32), ValueError, "expected dtype uint8, got float32"),
    (IMAGE.astype(np.uint16), ValueError, "expected dtype uint8, got uint16"),
    (IMAGE[..., 0], ValueError, "H x W x 3 (RGB) or H x W x 4 (RGBA) array, got shape (20, 30)"),
    (np.zeros((20, 30, 2), np.uint8), ValueError, "got shape (20, 30, 2)"),
    (np.zeros((0, 30, 3), np.uint8), ValueError, "at least one pixel"),
    (IMAGE.tolist(), TypeError, "expected a NumPy array, got list"),
])
def test_bad_images(image, error, words):
    pipe = auglab.Pipeline.from_json(json.dumps(W2))
    with pytest.raises(error) as e:
        pipe(image, 0)
    assert words in str(e.value)
    with pytest.raises(error) as e:
        pipe.batch([IMAGE, image], [0, 1])
    assert "images[1]" in str(e.value) and words in str(e.value)


def test_bad_indices_and_seeds():
    pipe = auglab.Pipeline.from_json(json.dumps(W2))
    with pytest.raises(ValueError, match="index: expected 0 .. 2\\^64 - 1, got -1"):
        pipe(IMAGE, -1)
    with pytest.raises(ValueError, match="seed: expected 0 .. 2\\^64 - 1, got 18446744073709551616"):
        pipe(IMAGE, 0, seed=2**64)
    with pytest.raises(TypeError, match="index: expected an integer, got float"):
        pipe(IMAGE, 1.0)
    assert pipe(IMAGE, np.uint64(2**64 - 1)).shape == IMAGE.shape  # the whole range, NumPy integers too
    with pytest.raises(ValueError, match="indices: expected one per image \\(2\\), got 1"):
        pipe.batch([IMAGE, IMAGE], [0])
    with pytest.raises(ValueError, match="backend"):
        pipe.batch([IMAGE], [0], backend="gpu")
    with pytest.raises(ValueError, match="threads"):
        pipe.batch([IMAGE], [0], threads=0)


def test_a_pipeline_the_image_cannot_take_is_a_value_error(cli, tmp_path):
    """The engine's InputError (here a crop larger than the image), as the CLI reports it."""
    text = preset_text([{"op": "random_crop", "size": [500, 500]}])
    path = write_preset(tmp_path, "crop", text)
    small = tmp_path / "small.png"
    auglab.imwrite(small, np.full((40, 60, 3), 128, np.uint8))
    r = cli.apply(path, small, 0, tmp_path / "out.png", check=False)
    pipe = auglab.Pipeline.from_json(text)
    if r.returncode == 0:
        pytest.skip("random_crop pads a small image here: nothing to refuse")
    with pytest.raises(ValueError) as e:
        pipe(np.full((40, 60, 3), 128, np.uint8), 0)
    assert str(e.value) in r.stderr
