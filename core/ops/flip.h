#pragma once
// horizontal_flip and vertical_flip: nothing is drawn but the gate (module: flip.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

struct FlipParams {
    bool operator==(const FlipParams&) const = default;
};

const OpModule& horizontalFlipModule();
const OpModule& verticalFlipModule();

}  // namespace auglab
