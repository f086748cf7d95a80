#pragma once
// random_gamma: the drawn gamma (module: random_gamma.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

struct GammaParams {
    double gamma = 1;  ///< the exponent (Albumentations' gamma_limit draw / 100)
    bool operator==(const GammaParams&) const = default;
};

const OpModule& randomGammaModule();

}  // namespace auglab
