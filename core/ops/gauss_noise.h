#pragma once
// gauss_noise: the drawn parameters (module: gauss_noise.cpp).

#include <cstdint>

#include "op_types.h"

namespace auglab {

class OpModule;

struct NoiseParams {
    double std_frac = 0, mean_frac = 0;
    bool per_channel = true;
    std::uint64_t noiseSeed = 0;  ///< key of the per-pixel normal draws
    bool operator==(const NoiseParams&) const = default;
};

const OpModule& gaussNoiseModule();

}  // namespace auglab
