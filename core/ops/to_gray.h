#pragma once
// to_gray: nothing is drawn but the gate (module: to_gray.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

struct GrayParams {
    bool operator==(const GrayParams&) const = default;
};

const OpModule& toGrayModule();

}  // namespace auglab
