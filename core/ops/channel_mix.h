#pragma once
// to_sepia and channel_shuffle: 3 x 3 matrices on the colour channels, in cv2.transform's 8-bit fixed
// point (core/plan.h ChannelMatrixStep) (module: channel_mix.cpp).

#include <array>

#include "op_types.h"

namespace auglab {

class OpModule;

struct SepiaParams {
    bool operator==(const SepiaParams&) const = default;
};

/// channel_shuffle: output channel c is input channel order[c] (img[..., order]).
struct ChannelShuffleParams {
    std::array<int, 3> order{0, 1, 2};
    bool operator==(const ChannelShuffleParams&) const = default;
};

const OpModule& toSepiaModule();
const OpModule& channelShuffleModule();

}  // namespace auglab
