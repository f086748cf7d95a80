#pragma once
// brightness_contrast: the drawn parameters (module: brightness_contrast.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

struct BrightnessContrastParams {
    double brightness = 0, contrast = 0;
    bool brightness_by_max = true;
    bool operator==(const BrightnessContrastParams&) const = default;
};

const OpModule& brightnessContrastModule();

}  // namespace auglab
