#pragma once
// mixup and cutmix: a partner image per sample, mixed in (module: mix.cpp).

#include <cstdint>
#include <string>

#include "op_types.h"

namespace auglab {

class OpModule;

/// What one mixup or cutmix drew. The partner is an index into the pool the sample was drawn from
/// (PartnerPool: a dataset's files in order, or the images loaded); `partnerPath` names it when
/// the caller knows the file (replays record it, so a replay alone finds the partner again).
struct MixParams {
    std::uint64_t partner = 0;
    std::uint64_t partners = 1;  ///< the pool's size
    std::string partnerPath;
    double lambda = 1.0;  ///< the Beta(alpha, alpha) draw: the sample's own weight
    Hole box;             ///< cutmix: the pasted box in pixels of the image the op works on
    double effectiveLambda =
        1.0;  ///< the sample's weight as a loss uses it: mixup lambda; cutmix 1 - box area / image area
    bool operator==(const MixParams&) const = default;
};

const OpModule& mixupModule();
const OpModule& cutmixModule();

}  // namespace auglab
