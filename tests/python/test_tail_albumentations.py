"""The module's training tail against Albumentations 2.0.8 itself (python_module.albumentations, in
build/pyenv with the library and opencv-python-headless 4.11): the library's Normalize, ToFloat and
FromFloat run on the uint8 image the module renders with training=False, and their outputs are
compared with the module's: bit for bit where the library computes in float32, to float32 rounding
where it returns float64 (the per-image normalisations)."""

from __future__ import annotations

import albumentations as A
import numpy as np
import pytest

import auglab
from conftest import preset_text

CROP = {"op": "random_crop", "size": [120, 150]}


def run(image, index, tail, transforms):
    pipe = auglab.Pipeline.from_json(preset_text([CROP, {"op": "hue_saturation_value"}, *tail]))
    u8 = pipe(image, index, training=False)
    return pipe(image, index), A.Compose(transforms)(image=u8)["image"]


@pytest.mark.parametrize("args", [{}, {"mean": [0.5, 0.4, 0.3], "std": [0.2, 0.3, 0.25], "max_pixel_value": 180.0}])
def test_normalize_standard(photos, args):
    for k, image in enumerate(photos.values()):
        ours, theirs = run(image, k, [{"op": "normalize", **args}], [A.Normalize(**args, p=1)])
        assert theirs.dtype == ours.dtype == np.float32 and np.array_equal(ours, theirs), f"photo {k}"


@pytest.mark.parametrize("mode", ["image", "image_per_channel", "min_max", "min_max_per_channel"])
def test_normalize_per_image(photos, mode):
    for k, image in enumerate(photos.values()):
        ours, theirs = run(image, k, [{"op": "normalize", "normalization": mode}], [A.Normalize(normalization=mode, p=1)])
        assert ours.dtype == np.float32
        rounded = theirs.astype(np.float32)
        # Equal to the library's values rounded to float32 but where its standard deviation's last
        # bits (summed in another order) move a value across a rounding boundary: one ulp, rarely.
        ulps = np.abs(ours.view(np.int32).astype(np.int64) - rounded.view(np.int32).astype(np.int64))
        assert ulps.max() <= 1 and np.count_nonzero(ulps) <= ours.size // 1000, f"photo {k}: {ulps.max()}"


def test_to_float_and_from_float(photos):
    for k, image in enumerate(photos.values()):
        ours, theirs = run(image, k, [{"op": "to_float", "max_value": 255}], [A.ToFloat(max_value=255, p=1)])
        assert theirs.dtype == ours.dtype == np.float32 and np.array_equal(ours, theirs)
        ours, theirs = run(image, k, [{"op": "to_float", "max_value": 300}, {"op": "normalize", "max_pixel_value": 1}],
                           [A.ToFloat(max_value=300, p=1), A.Normalize(max_pixel_value=1, p=1)])
        assert theirs.dtype == ours.dtype == np.float32 and np.array_equal(ours, theirs)
        ours, theirs = run(image, k, [{"op": "to_float"}, {"op": "from_float", "dtype": "uint16", "max_value": 65535}],
                           [A.ToFloat(p=1), A.FromFloat(dtype="uint16", max_value=65535, p=1)])
        assert theirs.dtype == ours.dtype == np.uint16 and np.array_equal(ours, theirs)
