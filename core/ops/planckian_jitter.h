#pragma once
// planckian_jitter: the colour cast of a light source of another temperature, as Albumentations 2.0.8
// PlanckianJitter (module: planckian_jitter.cpp).

#include <array>

#include "op_types.h"

namespace auglab {

class OpModule;

struct PlanckianParams {
    int temperature = 6000;  ///< kelvin, as drawn (int() of the clipped draw)
    bool cied = false;       ///< the CIE D illuminants' table instead of the black body's
    bool operator==(const PlanckianParams&) const = default;
};

/// The R and B gains relative to G for a temperature: the library's table interpolated linearly
/// between its two nearest 500 K steps (the temperature clamped to the table), c0 / c1 and c2 / c1
/// in float64.
std::array<double, 2> planckianGains(int temperature, bool cied);

const OpModule& planckianJitterModule();

}  // namespace auglab
