"""pipe(image, index) is the sample `auglab-cli apply --index --backend cpu` writes, bit for bit: on
the bundled photos, for the built-in presets and for every op alone, in RGB and RGBA, from arrays
of any strides."""

from __future__ import annotations

import json

import numpy as np
import pytest

import auglab
from conftest import PHOTOS, PRESETS, W2, assert_same, preset_text, write_preset

BUILT_IN = sorted(PRESETS.glob("*.auglab.json"))


@pytest.mark.parametrize("preset", BUILT_IN, ids=lambda p: p.name.split(".")[0])
def test_built_in_presets_match_apply(cli, photos, tmp_path, preset):
    pipe = auglab.Pipeline.load(preset)
    for photo in PHOTOS:
        for index in (0, 17):
            out = tmp_path / f"{photo.stem}-{index}.png"
            cli.apply(preset, photo, index, out)
            assert_same(pipe(photos[photo.name], index), auglab.imread(out), f"{preset.name} {photo.name} {index}")


def test_seed_overrides_the_preset(cli, photos, tmp_path):
    preset = write_preset(tmp_path, "w2", json.dumps(W2))
    pipe = auglab.Pipeline.load(preset)
    out = tmp_path / "out.png"
    cli.apply(preset, PHOTOS[0], 3, out, "--seed", 987654321987)
    assert_same(pipe(photos[PHOTOS[0].name], 3, seed=987654321987), auglab.imread(out))
    assert not np.array_equal(pipe(photos[PHOTOS[0].name], 3), auglab.imread(out))


def test_every_op_alone_matches_apply(cli, photos, op_names, tmp_path):
    """Each op of the registry, at its defaults and p = 1: the same pixels, or the same error (the
    training ops' tail left out, as apply writes the image before it: test_training_tail.py)."""
    photo = next(p for p in PHOTOS if p.name == "chelsea.png")
    image = photos[photo.name]
    checked = 0
    for name in op_names:
        preset = write_preset(tmp_path, name, preset_text([{"op": name, "p": 1}]))
        out = tmp_path / f"{name}.png"
        r = cli.apply(preset, photo, 4, out, check=False)
        pipe = auglab.Pipeline.load(preset)
        if r.returncode != 0:
            with pytest.raises(ValueError) as e:
                pipe(image, 4)
            assert str(e.value) in r.stderr, name
            continue
        assert_same(pipe(image, 4, training=False), auglab.imread(out), name)
        if not pipe.training_tail:
            assert_same(pipe(image, 4), auglab.imread(out), name)
        checked += 1
    assert checked >= len(op_names) - 2  # every op renders on a 451 x 300 photo, but for a rare refusal


def rgba_of(rgb: np.ndarray) -> np.ndarray:
    h, w = rgb.shape[:2]
    alpha = (np.add.outer(np.arange(h), np.arange(w)) * 255 // (h + w)).astype(np.uint8)
    return np.dstack([rgb, alpha])


@pytest.mark.parametrize("ops", [
    W2["pipeline"],
    [{"op": "affine", "rotate_deg": [-30, 30], "border": "reflect_101"}, {"op": "hue_saturation_value"},
     {"op": "gaussian_blur"}],
    [{"op": "random_resized_crop", "size": [160, 200]}, {"op": "to_gray"}, {"op": "gauss_noise"}],
], ids=["w2", "rotate-hsv-blur", "crop-gray-noise"])
def test_rgba_matches_apply(cli, photos, tmp_path, ops):
    image = rgba_of(photos["astronaut.png"][100:400, 50:420])
    source = tmp_path / "rgba.png"
    auglab.imwrite(source, image)
    assert auglab.imread(source).shape[2] == 4
    preset = write_preset(tmp_path, "p", preset_text(ops))
    pipe = auglab.Pipeline.load(preset)
    for index in range(3):
        out = tmp_path / f"out{index}.png"
        cli.apply(preset, source, index, out)
        result = pipe(image, index)
        assert result.shape[2] == 4
        assert_same(result, auglab.imread(out), f"index {index}")


def views(image: np.ndarray):
    """Arrays of the same pixels, or of other pixels, laid out every way NumPy allows."""
    yield "contiguous copy", image.copy()
    yield "fortran order", np.asfortranarray(image)
    yield "every second row and third column", image[::2, ::3]
    yield "rows reversed", image[::-1]
    yield "columns reversed", image[:, ::-1]
    yield "channels reversed (a BGR view)", image[..., ::-1]
    yield "transposed", image.transpose(1, 0, 2)
    yield "a window", image[37:251, 101:388]
    yield "a window of an RGBA buffer", rgba_of(image)[5:-7, 9:-3, :3]
    yield "an RGBA window, rows reversed", rgba_of(image)[::-1][5:-7]
    padded = np.zeros((image.shape[0], image.shape[1] + 3, 3), np.uint8)
    padded[:, :-3] = image
    yield "padded rows", padded[:, :-3]
    yield "broadcast", np.broadcast_to(image[:1], image.shape)


def test_any_strides_give_the_pixels_they_show(photos, tmp_path, cli):
    pipe = auglab.Pipeline.from_json(json.dumps(W2))
    image = photos["coffee.png"]
    before = image.copy()
    for what, view in views(image):
        expected = pipe(np.ascontiguousarray(view), 11)
        assert_same(pipe(view, 11), expected, what)
        assert_same(pipe.batch([view], [11], threads=1)[0], expected, what + " (batch)")
    assert np.array_equal(image, before), "the input was written to"
    # And one of them against the CLI, through the file of the pixels it shows.
    view = image[::-1, ::2]
    source = tmp_path / "view.png"
    auglab.imwrite(source, view)
    out = tmp_path / "out.png"
    cli.apply(write_preset(tmp_path, "w2", json.dumps(W2)), source, 11, out)
    assert_same(pipe(view, 11), auglab.imread(out))


def test_inputs_are_read_in_place_never_written(photos, op_names):
    """The engine reads an array whose rows hold packed pixels where it is (no copy): every op, RGB
    and RGBA, a whole array and a crop of one, leaves the input's bytes as they were and returns
    pixels of its own; a sample that changes nothing (no_op, an op drawn with p = 0) returns the
    input itself, as Albumentations does."""
    photo = photos["chelsea.png"]
    inputs = {"rgb": np.ascontiguousarray(photo), "rgba": rgba_of(photo),
              "rgb crop": photo[20:240, 10:300]}  # rows 1353 bytes apart, 870 of them pixels
    for name in op_names + ["no_op"]:
        for p in (1, 0):
            pipe = auglab.Pipeline.from_json(preset_text([{"op": name, "p": p}]))
            for what, image in inputs.items():
                before = image.copy()
                try:
                    out = pipe(image, 4)
                except ValueError:
                    continue  # an op that does not fit this image: the same refusal as apply's
                assert np.array_equal(image, before), f"{name} (p {p}, {what}) wrote to its input"
                if p == 0 or name in ("no_op", "xy_masking"):  # xy_masking's default counts are 0
                    assert out is image, f"{name} (p {p}, {what}) changes nothing but returned a copy"
                else:
                    assert not np.shares_memory(out, image), f"{name} (p {p}, {what}) returned its input"


def test_outputs_own_their_pixels(photos):
    pipe = auglab.Pipeline.from_json(json.dumps(W2))
    out = pipe(photos["chelsea.png"], 1)
    assert out.flags.writeable and out.flags.c_contiguous and out.base is not None
    out[:] = 0  # the engine's image, now NumPy's to change
    assert pipe(photos["chelsea.png"], 1).any()


def test_unchanged_samples_return_their_input(photos):
    """A sample whose ops all change nothing returns the input array itself (no copy, as
    Albumentations returns it); with a training tail, or any op that runs, a new array. A dropout
    that draws no hole (xy_masking's default counts are 0) changes nothing either."""
    image = np.ascontiguousarray(photos["chelsea.png"])
    for pipeline in ([], [{"op": "no_op", "p": 1}], [{"op": "horizontal_flip", "p": 0}, {"op": "no_op", "p": 1}],
                     [{"op": "xy_masking", "p": 1}]):
        pipe = auglab.Pipeline.from_json(preset_text(pipeline))
        assert pipe(image, 3) is image, pipeline
        assert pipe(image, 3, training=False) is image, pipeline
    flip = auglab.Pipeline.from_json(preset_text([{"op": "horizontal_flip", "p": 1}]))
    assert np.array_equal(flip(image, 0), image[:, ::-1])
    tail = auglab.Pipeline.from_json(preset_text([{"op": "no_op", "p": 1}, {"op": "to_float", "p": 1}]))
    out = tail(image, 0)
    assert out.dtype == np.float32 and np.array_equal(out, image.astype(np.float32) / 255)
    assert tail(image, 0, training=False) is image


def test_imread_is_the_cli_decoder(photos, cli, tmp_path):
    # apply with a pipeline that changes nothing writes the decoded pixels as they are.
    preset = write_preset(tmp_path, "none", preset_text([{"op": "no_op"}]))
    for photo in PHOTOS:
        out = tmp_path / f"{photo.stem}.png"
        cli.apply(preset, photo, 0, out)
        assert_same(photos[photo.name], auglab.imread(out), photo.name)


@pytest.mark.parametrize("pipeline", [
    [{"op": "random_resized_crop", "size": [96, 96], "p": 1}, {"op": "horizontal_flip", "p": 0.5},
     {"op": "color_jitter", "p": 0.8}, {"op": "coarse_dropout", "p": 0.5}, {"op": "normalize", "p": 1}],
    [{"op": "affine", "rotate_deg": [-30, 30], "scale_x": [1.2, 2], "scale_y": [1.2, 2], "border": "constant"}],
    [{"op": "random_crop", "size": [64, 80]}, {"op": "vertical_flip", "p": 1}],
    [{"op": "grid_distortion"}],
    [{"op": "no_op"}],
], ids=["classification", "zoom", "crop", "remap", "nothing"])
def test_a_file_path_is_its_decode(tmp_path, pipeline):
    """pipe(path, i) is pipe(imread(path), i) bit for bit, though a crop decodes only part of a
    baseline JPEG: in 4:2:0 and PNG files (and progressive and gray JPEGs where OpenCV is installed
    to write them), over many samples."""
    photo = auglab.imread(PHOTOS[1])
    files = [tmp_path / "baseline.jpg", tmp_path / "lossless.png"]
    auglab.imwrite(files[0], photo, quality=93)
    auglab.imwrite(files[1], photo)
    try:
        import cv2
    except ImportError:
        cv2 = None
    if cv2 is not None:
        bgr = np.ascontiguousarray(photo[:, :, ::-1])
        files += [tmp_path / "progressive.jpg", tmp_path / "gray.jpg"]
        assert cv2.imwrite(str(files[2]), bgr, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
        assert cv2.imwrite(str(files[3]), cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY))
    pipe = auglab.Pipeline.from_json(preset_text(pipeline))
    for path in files:
        decoded = auglab.imread(path)
        for i in range(12):
            expected = pipe(decoded, i)
            for given in (path, str(path)):
                out = pipe(given, i)
                assert out.dtype == expected.dtype and np.array_equal(out, expected), (path.name, i)
