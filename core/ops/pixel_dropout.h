#pragma once
// pixel_dropout: single pixels replaced by a value, as Albumentations 2.0.8 PixelDropout (module:
// pixel_dropout.cpp).

#include <array>
#include <cstdint>

#include "op_types.h"

namespace auglab {

class OpModule;

struct PixelDropoutParams {
    double prob = 0.01;             ///< of each pixel (each value, perChannel)
    bool perChannel = false;
    std::array<int, 3> value{};     ///< what a dropped pixel becomes
    std::uint64_t noiseSeed = 0;    ///< keys which pixels drop (PixelDropoutStep, core/plan.h)
    bool operator==(const PixelDropoutParams&) const = default;
};

const OpModule& pixelDropoutModule();

}  // namespace auglab
