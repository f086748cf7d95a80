#pragma once
// gaussian_blur: the drawn sigma (module: gaussian_blur.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

struct BlurParams {
    double sigma_px = 0;
    bool operator==(const BlurParams&) const = default;
};

const OpModule& gaussianBlurModule();

}  // namespace auglab
