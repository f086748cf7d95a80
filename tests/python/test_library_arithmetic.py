"""Arithmetic of Albumentations 2.0.8 (albucore 0.0.24, OpenCV 4.11) that AugLab's importer and
exporter rely on, in test_export_library's environment (python_module.albumentations), issue 33:

- Gaussian noise: the library adds a float noise map to a uint8 image by truncating each noise
  value toward zero, then saturating, which is SPEC §3's gauss_noise definition and what AugLab
  computes, so the exporter says nothing about it (it used to warn that the sum was truncated).
- Fills of floats: the dropouts assign them with numpy (truncated toward zero), the warps and pads
  hand them to OpenCV (rounded), and the transforms that call cv2.remap / cv2.warpPerspective with
  one number v paint (v, 0, 0): the importer reads each as the library paints it."""

from __future__ import annotations

import albumentations as A
import cv2
import numpy as np
from albumentations.augmentations.pixel import functional as fpixel


def test_library_truncates_the_noise_before_adding():
    rng = np.random.default_rng(7)
    image = rng.integers(0, 256, (64, 96, 3), dtype=np.uint8)
    # Halves and near-integers both ways, large values that saturate, and ordinary draws.
    noise = np.concatenate([np.array([-0.5, -1.5, -0.7, 0.7, 1.5, -2.9, 2.9, -0.2, 300.0, -300.0], np.float32),
                            rng.normal(0, 40, 64 * 96 * 3 - 10).astype(np.float32)]).reshape(image.shape)
    theirs = fpixel.add_noise(image, noise)
    ours = np.clip(image.astype(np.int32) + np.trunc(noise).astype(np.int32), 0, 255).astype(np.uint8)
    assert theirs.dtype == np.uint8
    assert np.array_equal(theirs, ours), f"{np.count_nonzero(theirs != ours)} values differ"
    # The transform hands its noise map to that function as it is.
    transform = A.GaussNoise(p=1)
    assert transform.apply(image, noise_map=noise).tobytes() == theirs.tobytes()


def colours(image, background=(50, 50, 50)):
    return {tuple(int(v) for v in px) for px in image.reshape(-1, 3)} - {background}


def test_fills_of_floats_and_single_numbers():
    image = np.full((64, 64, 3), 50, np.uint8)
    fill = (103.53, 116.28, 123.675)
    dropouts = [A.CoarseDropout(num_holes_range=(1, 1), hole_height_range=(20, 20), hole_width_range=(20, 20),
                                fill=fill, p=1), A.GridDropout(fill=fill, p=1)]
    for t in dropouts:
        assert colours(t(image=image)["image"]) == {(103, 116, 123)}, type(t).__name__
    shrink = dict(border_mode=cv2.BORDER_CONSTANT, fill=fill, p=1)
    warps = [A.Affine(scale=0.5, **shrink), A.PadIfNeeded(80, 80, **shrink),
             A.ShiftScaleRotate(shift_limit=0, scale_limit=(-0.5, -0.5), rotate_limit=0, **shrink)]
    for t in warps:
        assert colours(t(image=image)["image"]) == {(104, 116, 124)}, type(t).__name__
    one = dict(border_mode=cv2.BORDER_CONSTANT, fill=200, p=1)
    red = [A.GridDistortion(num_steps=5, distort_limit=(0.5, 0.5), **one)]
    for t in red:
        assert (200, 0, 0) in colours(t(image=image)["image"]), type(t).__name__
    assert (200, 200, 200) in colours(A.Affine(rotate=(30, 30), **one)(image=image)["image"])
