#pragma once
// random_rotate90, transpose and d4: whole-pixel maps that swap the frame's sides (module: rotate90.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

/// The number of quarter turns counter-clockwise (np.rot90's k), 0 to 3.
struct Rot90Params {
    int factor = 0;
    bool operator==(const Rot90Params&) const = default;
};

const OpModule& randomRotate90Module();
const OpModule& transposeModule();
const OpModule& d4Module();

}  // namespace auglab
