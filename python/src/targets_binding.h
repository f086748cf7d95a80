#pragma once
// Boxes, keypoints and masks through a sample (core/targets.h): moved by the same concrete
// parameters as the pixels, filtered by the preset's `targets` rules (Albumentations 2.0.8's
// BboxParams and KeypointParams), as `auglab-cli apply --annotations --mask` moves a file's labels.
// The Python side (auglab/_targets.py) converts the user's box and keypoint formats to the engine's
// pixels and back; here they are plain arrays.

#include <pybind11/numpy.h>

#include <cstdint>

#include "pipeline.h"

namespace auglab::python {

namespace py = pybind11;

/// Sample `index` of `seed` of `image` with its targets: `boxes` an N x 4 float64 array of pixel
/// edges (x0, y0, x1, y1), `keypoints` M x 4 (x, y with pixel centres at integers, angle in radians,
/// scale), `masks` a list of H x W uint8 arrays the image's size. Returns (image, boxes K x 4,
/// box ids K (each box's row in the input; a mirrored copy shares its original's), keypoints L x 4,
/// keypoint ids L, masks).
py::tuple sampleWithTargets(const Preset& preset, const py::handle& image, std::uint64_t index,
                            std::uint64_t seed,
                            const py::array_t<double, py::array::c_style | py::array::forcecast>& boxes,
                            const py::array_t<double, py::array::c_style | py::array::forcecast>& keypoints,
                            const py::list& masks);

}  // namespace auglab::python
