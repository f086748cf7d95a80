#pragma once
// motion_blur: the drawn kernel size, line angle, direction bias and shift (module: motion_blur.cpp).

#include <cstdint>
#include <vector>

#include "op_types.h"

namespace auglab {

class OpModule;

struct MotionBlurParams {
    int ksize = 3;         ///< odd
    double angle = 0;      ///< degrees, counter-clockwise
    double direction = 0;  ///< -1 backward only .. 0 symmetric .. 1 forward only
    double shift_x = 0;    ///< px the line is moved by (0 unless allow_shifted)
    double shift_y = 0;
    bool operator==(const MotionBlurParams&) const = default;
};

/// The ksize x ksize kernel Albumentations 2.0.8's create_motion_kernel draws for these parameters
/// (row-major; 1 on the line's pixels, 0 elsewhere), before normalisation.
std::vector<std::uint8_t> motionKernel(const MotionBlurParams& p);

const OpModule& motionBlurModule();

}  // namespace auglab
