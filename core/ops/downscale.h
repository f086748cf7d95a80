#pragma once
// downscale: the image resized down and back up (module: downscale.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

struct DownscaleParams {
    double scale = 0.25;  ///< drawn from scale_range
    Interpolation down = Interpolation::Nearest, up = Interpolation::Nearest;
    bool operator==(const DownscaleParams&) const = default;
};

const OpModule& downscaleModule();

}  // namespace auglab
