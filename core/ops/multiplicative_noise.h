#pragma once
// multiplicative_noise: the multiplier drawn for each colour channel (module: multiplicative_noise.cpp).

#include <array>

#include "op_types.h"

namespace auglab {

class OpModule;

struct MultiplyParams {
    std::array<double, 3> multiplier{1.0, 1.0,
                                     1.0};  ///< R, G, B as drawn (one value thrice unless per channel)
    bool operator==(const MultiplyParams&) const = default;
};

const OpModule& multiplicativeNoiseModule();

}  // namespace auglab
