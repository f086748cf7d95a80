#pragma once
// multiplicative_noise: the multiplier drawn for each colour channel (module: multiplicative_noise.cpp).

#include <array>
#include <cstdint>

#include "op_types.h"

namespace auglab {

class OpModule;

struct MultiplyParams {
    std::array<double, 3> multiplier{1.0, 1.0,
                                     1.0};  ///< R, G, B as drawn (one value thrice unless per channel)
    bool operator==(const MultiplyParams&) const = default;
};

/// albucore's uint8 multiply table (multiply_by_constant): float32(v) x float32(m), clipped to
/// [0, 255], truncated by astype(uint8).
std::array<std::uint8_t, 256> albucoreMultiplyLut(double m);

const OpModule& multiplicativeNoiseModule();

}  // namespace auglab
