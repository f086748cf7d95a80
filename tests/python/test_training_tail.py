"""The training tail rendered by the module (normalize, to_float, from_float, to_tensor): each call's
output against the arithmetic Albumentations 2.0.8 documents for it, written here in NumPy from that
definition (float32 throughout for the standard normalisation and to_float, as albucore's lookup
tables compute them), on the uint8 image the same call gives with training=False."""

from __future__ import annotations

import json

import numpy as np
import pytest

import auglab
from conftest import preset_text

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
CROP = {"op": "random_crop", "size": [96, 128]}


def pipe_of(*tail, before=(CROP, {"op": "horizontal_flip", "p": 0.5})):
    return auglab.Pipeline.from_json(preset_text([*before, *tail]))


@pytest.fixture(scope="module")
def image(photos):
    return next(iter(photos.values()))


def standard(u8, mean=MEAN, std=STD, max_pixel=255.0):
    """(v - mean * max) / (std * max) in float32, the mean and the reciprocal rounded to float32."""
    m = np.asarray(mean, np.float32) * np.float32(max_pixel)
    d = np.float32(1) / (np.asarray(std, np.float32) * np.float32(max_pixel))
    return (u8.astype(np.float32) - m) * d


def test_standard_normalize_and_to_tensor(image):
    pipe = pipe_of({"op": "normalize"}, {"op": "to_tensor"})
    assert pipe.training_tail == ("normalize", "to_tensor")
    for index in range(4):
        u8 = pipe(image, index, training=False)
        assert u8.dtype == np.uint8 and u8.shape == (96, 128, 3)
        x = pipe(image, index)
        assert x.dtype == np.float32 and x.shape == (3, 96, 128) and x.flags.c_contiguous
        assert np.array_equal(x, standard(u8).transpose(2, 0, 1)), f"sample {index}"


def test_normalize_arguments_and_hwc(image):
    mean, std = (0.5, 0.25, 0.125), (0.3, 0.2, 0.1)
    pipe = pipe_of({"op": "normalize", "mean": list(mean), "std": list(std), "max_pixel_value": 200})
    u8 = pipe(image, 1, training=False)
    x = pipe(image, 1)
    assert x.shape == (96, 128, 3) and x.dtype == np.float32
    assert np.array_equal(x, standard(u8, mean, std, 200.0))


def test_to_float_then_normalize_and_from_float(image):
    u8 = pipe_of()(image, 2)
    f = pipe_of({"op": "to_float", "max_value": 255})(image, 2)
    assert f.dtype == np.float32 and np.array_equal(f, u8.astype(np.float32) / np.float32(255))
    # normalize on a float image: (x - m) * d in float32 (cv2.subtract, cv2.multiply)
    n = pipe_of({"op": "to_float"}, {"op": "normalize", "max_pixel_value": 1})(image, 2)
    assert np.array_equal(n, standard(f, max_pixel=1.0))
    back = pipe_of({"op": "to_float"}, {"op": "from_float", "dtype": "uint16", "max_value": 65535})(image, 2)
    want = np.clip(np.rint(f * np.float32(65535)), 0, 65535).astype(np.uint16)
    assert back.dtype == np.uint16 and np.array_equal(back, want)
    same = pipe_of({"op": "to_float"}, {"op": "from_float"})(image, 2)
    assert same.dtype == np.uint8 and np.array_equal(same, u8)


def test_to_tensor_alone_is_a_view(image):
    pipe = pipe_of({"op": "to_tensor"})
    u8 = pipe(image, 3, training=False)
    x = pipe(image, 3)
    assert x.dtype == np.uint8 and x.shape == (3, 96, 128) and np.array_equal(x, u8.transpose(2, 0, 1))


@pytest.mark.parametrize("mode", ["image", "image_per_channel", "min_max", "min_max_per_channel"])
def test_per_image_normalizations(image, mode):
    pipe = pipe_of({"op": "normalize", "normalization": mode})
    u8 = pipe(image, 0, training=False)
    x = pipe(image, 0)
    assert x.dtype == np.float32 and x.shape == u8.shape
    v = u8.astype(np.float64)
    axis = (0, 1) if mode.endswith("per_channel") else None
    if mode.startswith("image"):
        want = np.clip((v - v.mean(axis=axis)) / (v.std(axis=axis) + 1e-4), -20, 20)
    else:
        lo, hi = v.min(axis=axis), v.max(axis=axis)
        want = (v - lo) / (hi - lo + 1e-4)
    # The library's float64 values, rounded to float32 (the statistics summed in another order).
    assert np.allclose(x, want.astype(np.float32), rtol=2e-7, atol=1e-7)
    if mode.startswith("image"):
        assert abs(float(x.mean())) < 1e-3 and abs(float(x.std()) - 1) < 1e-3


def test_gates_as_drawn(image):
    pipe = pipe_of({"op": "normalize", "p": 0.5})
    kinds = set()
    for index in range(12):
        applied = [op["applied"] for op in pipe.replay(image, index)["ops"] if op["op"] == "normalize"]
        out = pipe(image, index)
        assert out.dtype == (np.float32 if applied == [True] else np.uint8), f"sample {index}"
        kinds.add(out.dtype)
    assert kinds == {np.dtype(np.float32), np.dtype(np.uint8)}, "12 samples of p = 0.5 draw both"


def test_batch_is_the_calls(image):
    pipe = pipe_of({"op": "normalize"}, {"op": "to_tensor"})
    images = [image, image[::2, ::2], np.ascontiguousarray(image[:, ::-1])]
    for threads in (1, 3):
        outs = pipe.batch(images, [4, 5, 6], threads=threads)
        for k, out in enumerate(outs):
            assert out.dtype == np.float32 and np.array_equal(out, pipe(images[k], 4 + k)), f"images[{k}]"
    plain = pipe.batch(images, [4, 5, 6], training=False)
    assert all(np.array_equal(a, pipe(images[k], 4 + k, training=False)) for k, a in enumerate(plain))
    with pytest.raises(ValueError, match="training=False"):
        pipe.batch(images, [4, 5, 6], output="dlpack")
    assert len(pipe.batch(images, [4, 5, 6], output="dlpack", training=False)) == 3


def test_rgba(image):
    rgba = np.dstack([image, np.full(image.shape[:2], 200, np.uint8)])
    with pytest.raises(ValueError, match="4 channels"):
        pipe_of({"op": "normalize"})(rgba, 0)
    u8 = pipe_of()(rgba, 0)
    f = pipe_of({"op": "to_float"}, {"op": "to_tensor"})(rgba, 0)
    assert f.shape == (4, 96, 128) and np.array_equal(f, (u8.astype(np.float32) / np.float32(255)).transpose(2, 0, 1))


def test_targets_and_masks(image):
    pipe = pipe_of({"op": "normalize"}, {"op": "to_tensor", "transpose_mask": True})
    h, w = image.shape[:2]
    masks = np.zeros((h, w, 2), np.uint8)
    masks[: h // 2, :, 0] = 1
    masks[:, : w // 2, 1] = 2
    r = pipe(image, 1, mask=masks, bboxes=np.array([[1.0, 2.0, 50.0, 60.0]]), class_labels=[3])
    plain = pipe(image, 1, mask=masks, bboxes=np.array([[1.0, 2.0, 50.0, 60.0]]), class_labels=[3], training=False)
    assert r["image"].shape == (3, 96, 128) and np.array_equal(r["image"], standard(plain["image"]).transpose(2, 0, 1))
    assert r["mask"].shape == (2, 96, 128) and np.array_equal(r["mask"], plain["mask"].transpose(2, 0, 1))
    assert np.array_equal(r["bboxes"], plain["bboxes"])
    keep = pipe_of({"op": "normalize"}, {"op": "to_tensor"})(image, 1, mask=masks)
    assert keep["mask"].shape == (96, 128, 2), "transpose_mask false keeps H x W x K"


def test_arguments(image):
    pipe = pipe_of({"op": "normalize"})
    with pytest.raises(TypeError, match="training: expected True or False"):
        pipe(image, 0, training=1)
    assert pipe_of().training_tail == ()
    json.loads(pipe.to_json())  # the preset keeps its tail
