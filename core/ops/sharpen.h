#pragma once
// sharpen and emboss: the drawn visibility and effect strength (module: sharpen.cpp).

#include <array>

#include "op_types.h"

namespace auglab {

class OpModule;

struct KernelEffectParams {
    double alpha = 0;   ///< visibility of the effect, 0..1
    double amount = 0;  ///< sharpen: lightness; emboss: strength
    bool operator==(const KernelEffectParams&) const = default;
};

/// The 3 x 3 kernel Albumentations 2.0.8 builds (row-major, float32 as numpy computes it):
/// (1 - alpha) * identity + alpha * effect, the effect [[-1, -1, -1], [-1, 8 + lightness, -1],
/// [-1, -1, -1]] (sharpen) or [[-1 - s, -s, 0], [-s, 1, s], [0, s, 1 + s]] (emboss).
std::array<float, 9> effectKernel(bool emboss, const KernelEffectParams& p);

const OpModule& sharpenModule();
const OpModule& embossModule();

}  // namespace auglab
