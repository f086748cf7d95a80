#pragma once
// gaussian_blur: the drawn sigma and kernel size (module: gaussian_blur.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

struct BlurParams {
    double sigma_px = 0;
    int ksize = 0;  ///< the kernel's size drawn from `kernel_size` (odd), 0: from sigma

    bool operator==(const BlurParams&) const = default;
};

const OpModule& gaussianBlurModule();

}  // namespace auglab
