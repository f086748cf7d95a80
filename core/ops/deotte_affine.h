#pragma once
// deotte_affine: the drawn parameters (module: deotte_affine.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

/// The six values of the notebook's draws (its rot, shr, h_zoom, w_zoom, h_shift, w_shift).
struct DeotteParams {
    double rotation_deg = 0, shear_deg = 0, height_zoom = 1, width_zoom = 1, height_shift_px = 0,
           width_shift_px = 0;
    bool operator==(const DeotteParams&) const = default;
};

const OpModule& deotteAffineModule();

}  // namespace auglab
