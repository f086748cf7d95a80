#pragma once
// fancy_pca: the drawn weights of the principal components (module: fancy_pca.cpp).

#include <array>

#include "op_types.h"

namespace auglab {

class OpModule;

struct FancyPcaParams {
    /// N(0, alpha) per principal component, largest first, as float32 (the library's alpha_vector)
    std::array<float, 3> alpha{};
    bool operator==(const FancyPcaParams&) const = default;
};

const OpModule& fancyPcaModule();

}  // namespace auglab
