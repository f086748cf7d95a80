#pragma once
// no_op: Albumentations' NoOp, which leaves the image as it is (module: no_op.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

struct NoOpParams {
    bool operator==(const NoOpParams&) const = default;
};

const OpModule& noOpModule();

}  // namespace auglab
