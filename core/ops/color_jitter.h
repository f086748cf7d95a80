#pragma once
// color_jitter: the drawn factors and their order (module: color_jitter.cpp).

#include <array>

#include "op_types.h"

namespace auglab {

class OpModule;

struct ColorJitterParams {
    double brightness = 1, contrast = 1, saturation = 1, hue = 0;
    /// The order the four adjustments run in: 0 brightness, 1 contrast, 2 saturation, 3 hue.
    std::array<int, 4> order{0, 1, 2, 3};
    bool operator==(const ColorJitterParams&) const = default;
};

const OpModule& colorJitterModule();

}  // namespace auglab
