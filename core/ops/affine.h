#pragma once
// affine: the drawn parameters (module: affine.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

struct AffineParams {
    double rotate_deg = 0, scale_x = 1, scale_y = 1, shear_x_deg = 0, shear_y_deg = 0;
    int translate_x_px = 0, translate_y_px = 0;
    Interpolation interpolation = Interpolation::Linear;
    BorderMode border = BorderMode::Constant;
    Rgb fill{0, 0, 0};
    bool operator==(const AffineParams&) const = default;
};

const OpModule& affineModule();

}  // namespace auglab
