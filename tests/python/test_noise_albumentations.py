"""Gaussian noise's arithmetic in Albumentations 2.0.8 (albucore 0.0.24), in test_export_library's
environment (python_module.albumentations): the library adds a float noise map to a uint8 image by
truncating each noise value toward zero, then saturating, which is SPEC §3's gauss_noise
definition and what AugLab computes, so the exporter says nothing about it (issue 33: it used to
warn that the library truncated the sum instead)."""

from __future__ import annotations

import albumentations as A
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
