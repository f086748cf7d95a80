#pragma once
// salt_and_pepper: exact numbers of pixels set to white and to black, as Albumentations 2.0.8
// SaltAndPepper (module: salt_and_pepper.cpp).

#include <cstdint>

#include "op_types.h"

namespace auglab {

class OpModule;

struct SaltPepperParams {
    double amount = 0.03;        ///< the share of the image's pixels that become salt or pepper
    double saltShare = 0.5;      ///< the share of those that become salt (white)
    std::uint64_t noiseSeed = 0; ///< keys which pixels (SaltPepperStep, core/plan.h)
    bool operator==(const SaltPepperParams&) const = default;
};

const OpModule& saltAndPepperModule();

}  // namespace auglab
