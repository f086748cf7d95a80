#pragma once
// Gaussian noise (NoiseStep) on rows of 8-bit pixels, with Google Highway's run-time dispatch: each
// pixel's Philox words in vector lanes (one pixel a lane), Box-Muller by philox.h's float
// polynomials, the same operations in the same order, so every target gives the scalar
// definition's bytes. tests/test_cpu_kernels.cpp checks that on every SIMD target.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace auglab::cpu {

/// Pixels x0 .. x0 + n - 1 of row y (p points at pixel x0; 3 or 4 channels, alpha kept): each
/// colour value plus trunc(mean255 + std255 * z), clipped to 0..255, z the pixel's normal from
/// pixelNoiseWords(seed, x, y): boxMuller of words 0 and 1 for R and G and of words 2 and 3 for B
/// (perChannel), or boxMuller's first of words 0 and 1 for all three.
void gaussNoisePixels(std::uint8_t* p, int x0, int y, std::size_t n, int channels, std::uint64_t seed,
                      float mean255, float std255, bool perChannel);

/// PixelDropoutStep's drop flags of pixels x0 .. x0 + n - 1 of row y (drop[3 i + c]), pixelDropRow's
/// (core/plan.h) with the Philox words in vector lanes.
void pixelDrops(std::uint64_t seed, std::uint64_t threshold, bool perChannel, int x0, int y, std::size_t n,
                std::uint8_t* drop);

/// The pixel keys of pixels x0 .. x0 + n - 1 of row y (pixelKeyRow's, core/plan.h) with the Philox
/// words in vector lanes.
void pixelKeys(std::uint64_t seed, int x0, int y, std::size_t n, std::uint32_t* keys);

/// The scalar definition gaussNoisePixels computes (for the tests).
void gaussNoisePixelsScalar(std::uint8_t* p, int x0, int y, std::size_t n, int channels, std::uint64_t seed,
                            float mean255, float std255, bool perChannel);

/// ISONoise's count thresholds for a rate lambda (p0 = exp(-lambda)): entry k is
/// ceil(c_k x 2^32), c_k the float64 running sum of the first k + 1 Poisson probabilities, as
/// shared::isoNoiseCount sums them, while c_k x 2^32 is below 2^32, p_k is above 0 and k is below
/// kIsoMaxCount. A pixel's count is the number of entries its word 0 reaches (w0 >= entry):
/// shared::isoNoiseCount's.
std::vector<std::uint32_t> isoNoiseThresholds(double lambda, double p0);

/// An IsoNoiseStep's parameters for isoNoisePixels.
struct IsoNoiseRows {
    std::uint64_t seed = 0;
    const std::uint32_t* thresholds = nullptr;  ///< isoNoiseThresholds
    std::size_t thresholdCount = 0;
    float colorSigma = 0, intensity = 0;
};

/// Pixels x0 .. x0 + n - 1 of row y (p points at pixel x0; 3 or 4 channels, alpha kept) through
/// shared::isoNoisePixel, each with its count (the thresholds its word 0 reaches) and the normal
/// boxMullerFirst of its words 2 and 3 (pixelNoiseWords(seed, x, y)). Vectorised where the CPU fuses
/// multiply-adds (the HLS conversions' fmaf), the scalar definition elsewhere.
void isoNoisePixels(std::uint8_t* p, int x0, int y, std::size_t n, int channels, const IsoNoiseRows& rows);

/// The scalar definition isoNoisePixels computes (for the tests).
void isoNoisePixelsScalar(std::uint8_t* p, int x0, int y, std::size_t n, int channels, const IsoNoiseRows& rows);

/// The SIMD target gaussNoisePixels runs on here ("AVX3", "AVX2", ...).
const char* noiseTarget();

}  // namespace auglab::cpu
