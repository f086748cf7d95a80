#pragma once
// random_tone_curve: the Bezier control points drawn per channel (module: random_tone_curve.cpp).

#include <array>

#include "op_types.h"

namespace auglab {

class OpModule;

struct ToneCurveParams {
    std::array<double, 3> low{0.25, 0.25, 0.25};   ///< R, G, B: y of the first control point, in [0, 1]
    std::array<double, 3> high{0.75, 0.75, 0.75};  ///< y of the second
    bool operator==(const ToneCurveParams&) const = default;
};

const OpModule& randomToneCurveModule();

}  // namespace auglab
