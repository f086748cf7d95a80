#pragma once
// The realism meter (SPEC §6's advice to push ranges "to the edge of realism", measured): the share
// of an output's pixels that are invented rather than taken from the image, computed from the
// plan, pixel by pixel, not estimated from colours. A pixel is invented when the position its warp
// samples lies off the image it reads (outside [-0.5, W - 0.5) x [-0.5, H - 0.5): a border fill,
// reflection or repeat), when a gather's index was clamped to the edge, when it lies in a dropout
// hole, or when it was sampled from a pixel a previous stage invented. A pasted box of a partner
// image (cutmix) is real pixels again; a blend (mixup) keeps what the image had.

#include <cstdint>
#include <vector>

#include "pipeline.h"
#include "plan.h"

namespace auglab {

/// Per output pixel of `plan` (rows of plan.width), 1 where it is invented.
std::vector<std::uint8_t> inventedMask(const Plan& plan);

/// The share of invented pixels of `plan`'s output, 0..1.
double inventedShare(const Plan& plan);

/// Find the edge: the widest version of range parameter `key` of op `op` of `pipeline` whose
/// samples stay realistic: at most `allowedShare` of `samples` samples (indices 0.. of `seed`, for a
/// width x height image, rendered at most `side` pixels on the longer side) with more than
/// `threshold` invented pixels. The range is widened about its centre by a factor found by bisection
/// (the same samples at every step) up to the parameter's bounds; returns the widest range found
/// (the current one when even it is past the edge). Throws InputError for a key that is not a range.
Range findTheEdge(const Pipeline& pipeline, std::size_t op, const std::string& key,
                  std::uint64_t seed, int width, int height, double threshold, double allowedShare,
                  int samples = 64, int side = 96);

/// The share of `samples` samples whose invented share exceeds `threshold` (what findTheEdge bounds).
double shareOverThreshold(const Pipeline& pipeline, std::uint64_t seed, int width, int height,
                          double threshold, int samples = 64, int side = 96);

}  // namespace auglab
