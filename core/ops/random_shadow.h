#pragma once
// random_shadow: the drawn shadows (module: random_shadow.cpp).

#include <array>
#include <vector>

#include "op_types.h"

namespace auglab {

class OpModule;

struct ShadowParams {
    struct Shadow {
        std::vector<std::array<int, 2>> vertices;  ///< x, y in frame pixels, the polygon's order
        double intensity = 0.5;                    ///< the pixels inside keep 1 - intensity of their value
        bool operator==(const Shadow&) const = default;
    };
    std::vector<Shadow> shadows;  ///< in drawing order
    bool operator==(const ShadowParams&) const = default;
};

const OpModule& randomShadowModule();

}  // namespace auglab
