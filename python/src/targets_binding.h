#pragma once
// Boxes, keypoints and masks through a sample (core/targets.h): moved by the same concrete
// parameters as the pixels, filtered by the preset's `targets` rules (Albumentations 2.0.8's
// BboxParams and KeypointParams), as `auglab-cli apply --annotations --mask` moves a file's labels.
// Mixing ops draw partners with their labels from a pool, as apply's --partner with
// --partner-annotations and --partner-masks gives them. The Python side (auglab/_targets.py)
// converts the user's box and keypoint formats to the engine's pixels and back, for the image and
// for each partner; here they are plain arrays.

#include <pybind11/numpy.h>

#include <cstdint>
#include <optional>

#include "pipeline.h"

namespace auglab::python {

namespace py = pybind11;

using TargetRows = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// Sample `index` of `seed` of `image` with its targets: `boxes` an N x 4 float64 array of pixel
/// edges (x0, y0, x1, y1), `keypoints` M x 4 (x, y with pixel centres at integers, angle in radians,
/// scale), `masks` a list of H x W uint8 arrays the image's size.
///
/// `partners` (None: a pool of the image alone) is the mixing ops' pool of images as
/// Preset.sample takes it (a list of arrays, or a lazy sequence), `position` the image's item in it
/// (None: apply's pool, the image then each item). `partnerTargets(k)` gives item k's targets when
/// a 4-image grid draws it, as (boxes, keypoints, masks, width, height) in the same units, the item's
/// image being width x height; it is called at most once per item, with the GIL.
///
/// Returns (image, boxes K x 4, box ids K x 2, keypoints L x 4, keypoint ids L x 2, masks,
/// transpose_mask, width, height): each id row is (source, row), the source -1 for the image's own
/// and k for item k's, the row that box's or keypoint's in its source's input (a mirrored copy, or a
/// cell the image fills twice, shares it).
/// The image is through the training tail the sample applied when `training` (arrays.h's
/// TailedSample); transpose_mask says whether an applied to_tensor transposes masks, and width x
/// height is the size of the image the engine rendered.
py::tuple sampleWithTargets(const Preset& preset, const py::handle& image, std::uint64_t index,
                            std::uint64_t seed, const TargetRows& boxes, const TargetRows& keypoints,
                            const py::list& masks, const py::handle& partners,
                            std::optional<std::uint64_t> position, const py::handle& partnerTargets,
                            bool training);

}  // namespace auglab::python
