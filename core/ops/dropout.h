#pragma once
// coarse_dropout, grid_dropout and xy_masking: the drawn holes (modules: coarse_dropout.cpp,
// grid_dropout.cpp, xy_masking.cpp, with what they share in dropout_common.h).

#include <array>
#include <cstdint>
#include <vector>

#include "op_types.h"

namespace auglab {

class OpModule;

struct DropoutParams {
    std::vector<Hole> holes;
    Fill::Mode fillMode = Fill::Mode::Constant;
    Rgb fill{0, 0, 0};             ///< constant fill
    std::vector<Rgb> holeColours;  ///< random_uniform: one colour per hole
    std::uint64_t noiseSeed = 0;   ///< random: key of the per-pixel noise
    /// grid_dropout: the grid unit drawn, in pixels (width, height); {0, 0} for coarse_dropout.
    std::array<int, 2> unitPx{0, 0};
    bool operator==(const DropoutParams&) const = default;
};

const OpModule& coarseDropoutModule();
const OpModule& gridDropoutModule();
/// xy_masking (xy_masking.cpp): the stripes are holes, with coarse_dropout's record and rules.
const OpModule& xyMaskingModule();

}  // namespace auglab
