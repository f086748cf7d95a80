#pragma once
// channel_dropout: the colour channels set to the fill (module: channel_dropout.cpp).

#include <array>

#include "op_types.h"

namespace auglab {

class OpModule;

struct ChannelDropParams {
    std::array<bool, 3> dropped{};  ///< R, G, B
    double fill = 0;                ///< levels; the channel becomes trunc(fill), as numpy stores it
    bool operator==(const ChannelDropParams&) const = default;
};

const OpModule& channelDropoutModule();

}  // namespace auglab
