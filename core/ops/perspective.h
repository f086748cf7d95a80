#pragma once
// perspective: the drawn corners (module: perspective.cpp).

#include <array>

#include "op_types.h"

namespace auglab {

class OpModule;

/// What Albumentations 2.0.8's Perspective computes for one sample: the four source corners (top-left,
/// top-right, bottom-right, bottom-left, in pixels, float32 values as the library orders and adjusts
/// them) that map to the frame's corners, and its "max" size (the longer of opposite edges, int()).
struct PerspectiveParams {
    std::array<std::array<double, 2>, 4> cornersPx{};
    int maxWidth = 0, maxHeight = 0;
    bool keepSize = true, fitOutput = false;
    Interpolation interpolation = Interpolation::Linear;
    BorderMode border = BorderMode::Constant;
    Rgb fill{0, 0, 0};
    bool operator==(const PerspectiveParams&) const = default;
};

const OpModule& perspectiveModule();

}  // namespace auglab
