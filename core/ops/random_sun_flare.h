#pragma once
// random_sun_flare: the drawn flare (module: random_sun_flare.cpp).

#include <array>
#include <vector>

#include "op_types.h"

namespace auglab {

class OpModule;

struct SunFlareParams {
    struct Circle {
        double alpha = 0.1;  ///< the blend weight (overlay)
        int x = 0, y = 0;    ///< centre in frame pixels (may lie outside the frame)
        int size = 1;  ///< the library's rad ** 3: the overlay's radius; physics_based: int(size ** 0.33)
        Rgb colour{};
        bool operator==(const Circle&) const = default;
    };
    double angle = 0;  ///< the flare line's direction drawn, as a fraction of a turn
    int x = 0, y = 0;  ///< the sun's centre in frame pixels
    std::vector<Circle> circles;
    int sunRadius = 400;  ///< the settings the drawing needs
    Rgb sunColour{255, 255, 255};
    bool physics = false;
    bool operator==(const SunFlareParams&) const = default;
};

const OpModule& randomSunFlareModule();

}  // namespace auglab
