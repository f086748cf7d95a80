#pragma once
// iso_noise: the drawn colour shift and intensity, and the key of the per-pixel noise (module:
// iso_noise.cpp).

#include <cstdint>

#include "op_types.h"

namespace auglab {

class OpModule;

struct IsoNoiseParams {
    double colorShift = 0.01, intensity = 0.1;
    std::uint64_t noiseSeed = 0;  ///< the key of the pixels' Poisson counts and hue offsets
    bool operator==(const IsoNoiseParams&) const = default;
};

const OpModule& isoNoiseModule();

}  // namespace auglab
