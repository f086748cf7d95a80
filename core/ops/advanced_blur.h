#pragma once
// advanced_blur: an anisotropic generalised Gaussian kernel with multiplicative noise, as
// Albumentations 2.0.8 AdvancedBlur (module: advanced_blur.cpp).

#include <cstdint>
#include <vector>

#include "op_types.h"

namespace auglab {

class OpModule;

struct AdvancedBlurParams {
    int ksize = 3;            ///< odd kernel side
    double sigma_x = 1, sigma_y = 1;  ///< in pixels, along the kernel's axes before rotation
    double rotate = 0;        ///< degrees
    double beta = 1;          ///< shape: 1 Gaussian, < 1 heavier tails, > 1 flatter top
    Range noise{1, 1};        ///< each tap multiplied by a value uniform in this range
    std::uint64_t noise_seed = 0;  ///< the taps' multipliers (Philox, pixelNoiseWords)
    bool operator==(const AdvancedBlurParams&) const = default;
};

/// The kernel Albumentations 2.0.8 builds (AdvancedBlur.get_params), row-major, side ksize: with
/// g = (x, y) the tap's offset from the centre and S = R diag(sigma_x^2, sigma_y^2) R^T (R the
/// rotation by `rotate`), exp(-0.5 (g^T S^-1 g)^beta) times the tap's multiplier, rounded to float32
/// and divided by the (double) sum. Tap (row i, column j)'s multiplier is
/// noise.min + (noise.max - noise.min) u, u the first word of pixelNoiseWords(noise_seed, j, i) / 2^32.
std::vector<float> advancedBlurKernel(const AdvancedBlurParams& p);

const OpModule& advancedBlurModule();

}  // namespace auglab
