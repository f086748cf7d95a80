#pragma once
// random_fog: the drawn fog (module: random_fog.cpp).

#include <array>
#include <vector>

#include "op_types.h"

namespace auglab {

class OpModule;

struct FogParams {
    double intensity = 0.5;                     ///< the fog coefficient drawn (fog_coef_range)
    double alphaCoef = 0.08;                    ///< each particle's blend weight is alpha_coef * intensity
    std::vector<std::array<int, 3>> particles;  ///< x, y, radius in frame pixels, in drawing order
    bool operator==(const FogParams&) const = default;
};

const OpModule& randomFogModule();

}  // namespace auglab
