#pragma once
// hue_saturation_value: the drawn shifts (module: hue_saturation_value.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

struct HsvParams {
    double hue_shift_deg = 0, sat_shift = 0, val_shift = 0;
    bool operator==(const HsvParams&) const = default;
};

const OpModule& hueSaturationValueModule();

}  // namespace auglab
