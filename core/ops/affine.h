#pragma once
// affine: the drawn parameters (module: affine.cpp).

#include "geometry.h"
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

/// Albumentations 2.0 Affine: M = T(c) * T(tx, ty) * Sh * R * S * T(-c), c = (W/2 - 0.5, H/2 - 0.5),
/// R = [[cos t, sin t], [-sin t, cos t]] with t = rad(rotate mod 360), positive turning
/// counter-clockwise on screen; Sh = [[1, tan(rad(-shear_x))], [tan(rad(-shear_y)), 1]];
/// S = diag(scale_x, scale_y).
Matrix3 affineMatrix(const AffineParams& a, int width, int height);

const OpModule& affineModule();

}  // namespace auglab
