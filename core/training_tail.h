#pragma once
// The training tail rendered: normalize, to_float, from_float and to_tensor (core/ops/training.cpp)
// applied to a rendered uint8 sample as Albumentations 2.0.8 applies them, for the Python module,
// whose training loops then get float32 straight from the engine instead of paying a NumPy pass.
//
// Every tail op is a function of a pixel's channel value alone, once the image's statistics are
// known (the per-image normalisations), so a tail is compiled to one table per channel: 256 output
// values, each computed by the library's own float32 (or float64) steps on that input value. One
// pass then looks the pixels up into the output, in H x W x C order or, after to_tensor, C x H x W.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "image.h"

namespace auglab {

class Pipeline;
struct Replay;

/// One op of the tail, with its arguments.
struct TailOp {
    enum class Kind { Normalize, ToFloat, FromFloat, ToTensor } kind{};
    std::array<double, 3> mean{}, std{};
    double maxPixelValue = 255;
    std::string normalization =
        "standard";               ///< standard, image, image_per_channel, min_max, min_max_per_channel
    std::string dtype = "uint8";  ///< from_float's output type
    double maxValue = 255;        ///< to_float's divisor, from_float's multiplier
    bool transposeMask = false;
};

/// The element type of a tail's output.
enum class TailType { UInt8, UInt16, UInt32, Float32 };

std::size_t tailTypeSize(TailType t);

/// A rendered tail's output: `channels` planes of height x width (chw) or height x width pixels of
/// `channels` values, of `type`, packed, in `data`.
struct TailImage {
    TailType type = TailType::UInt8;
    int width = 0, height = 0, channels = 0;
    bool chw = false;
    std::unique_ptr<std::byte[]> data;
    std::size_t bytes() const;
};

/// The ops of `pipeline`'s training tail that sample `replay` applies, in order.
std::vector<TailOp> appliedTail(const Pipeline& pipeline, const Replay& replay);

/// Whether `pipeline` has a training tail (whatever its gates draw).
bool hasTrainingTail(const Pipeline& pipeline);

/// `tail` applied to `image` (3 or 4 channels). An empty tail gives the image's bytes as they are.
/// InputError when the tail cannot take the image (a standard normalisation's three means on an
/// RGBA image, as the library refuses it).
TailImage renderTail(const Image& image, const std::vector<TailOp>& tail);

}  // namespace auglab
