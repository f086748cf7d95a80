#pragma once
// safe_rotate: the angle drawn, and the resampling settings (module: safe_rotate.cpp).

#include "geometry.h"
#include "op_types.h"

namespace auglab {

class OpModule;

struct SafeRotateParams {
    double angle_deg = 0;
    Interpolation interpolation = Interpolation::Linear;
    BorderMode border = BorderMode::Constant;
    Rgb fill{0, 0, 0};
    bool operator==(const SafeRotateParams&) const = default;
};

/// Albumentations 2.0.8 SafeRotate's forward matrix for a width x height image about `cx, cy`:
/// cv2.getRotationMatrix2D(c, angle, 1) moved so that the rotated image's bounding box
/// (int(H |sin| + W |cos|) x int(H |cos| + W |sin|)) is centred, then scaled back to W x H per axis.
/// `sx`, `sy` get the two scales.
Matrix3 safeRotateMatrix(double angleDeg, double cx, double cy, int width, int height, double& sx,
                         double& sy);

const OpModule& safeRotateModule();

}  // namespace auglab
