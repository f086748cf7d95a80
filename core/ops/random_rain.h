#pragma once
// random_rain: the drawn rain (module: random_rain.cpp).

#include <array>
#include <vector>

#include "op_types.h"

namespace auglab {

class OpModule;

struct RainParams {
    double slant = 0;                       ///< added to each drop's x at its lower end, in pixels
    int length = 1;                         ///< each drop's height in pixels
    std::vector<std::array<int, 2>> drops;  ///< each drop's upper end, x, y in frame pixels
    int width = 1;                          ///< the settings the drawing needs
    Rgb colour{200, 200, 200};
    int blur = 7;
    double brightness = 0.7;
    bool operator==(const RainParams&) const = default;
};

const OpModule& randomRainModule();

}  // namespace auglab
