#pragma once
// invert_img, solarize and posterize: the drawn threshold and bit count (module: levels.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

/// What the three level ops drew: solarize's threshold (a fraction of 255), posterize's bit count.
struct LevelParams {
    double value = 0;
    bool operator==(const LevelParams&) const = default;
};

const OpModule& invertImgModule();
const OpModule& solarizeModule();
const OpModule& posterizeModule();

}  // namespace auglab
