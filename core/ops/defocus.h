#pragma once
// defocus: a disc kernel softened by a small Gaussian, as Albumentations 2.0.8 Defocus (module:
// defocus.cpp).

#include <vector>

#include "op_types.h"

namespace auglab {

class OpModule;

struct DefocusParams {
    int radius = 1;          ///< of the disc, in pixels
    double alias_blur = 0;   ///< sigma of the Gaussian that softens the disc's edge
    bool operator==(const DefocusParams&) const = default;
};

/// The kernel Albumentations 2.0.8 builds (albumentations.augmentations.blur.functional.defocus),
/// row-major, side 2 * max(8, radius) + 1: the disc x^2 + y^2 <= radius^2 in float32, divided by its
/// count, then cv2.GaussianBlur'd (float32, border reflect_101) with a 3 x 3 Gaussian (radius <= 8)
/// or a 5 x 5 one of sigma alias_blur (0: OpenCV's sigma for the size).
std::vector<float> defocusKernel(int radius, double aliasBlur);

const OpModule& defocusModule();

}  // namespace auglab
