#pragma once
// rgb_shift: the shift drawn for each colour channel, in levels (module: rgb_shift.cpp).

#include <array>

#include "op_types.h"

namespace auglab {

class OpModule;

struct ChannelShiftParams {
    std::array<double, 3> shift{};  ///< R, G, B, in levels as drawn (the table adds trunc of each)
    bool operator==(const ChannelShiftParams&) const = default;
};

const OpModule& rgbShiftModule();

}  // namespace auglab
