#pragma once
// Gaussian noise (NoiseStep) on rows of 8-bit pixels, with Google Highway's run-time dispatch: each
// pixel's Philox words in vector lanes (one pixel a lane), Box-Muller by philox.h's float
// polynomials, the same operations in the same order, so every target gives the scalar
// definition's bytes. tests/test_cpu_kernels.cpp checks that on every SIMD target.

#include <cstddef>
#include <cstdint>

namespace auglab::cpu {

/// Pixels x0 .. x0 + n - 1 of row y (p points at pixel x0; 3 or 4 channels, alpha kept): each
/// colour value plus trunc(mean255 + std255 * z), clipped to 0..255, z the pixel's normal from
/// pixelNoiseWords(seed, x, y): boxMuller of words 0 and 1 for R and G and of words 2 and 3 for B
/// (perChannel), or boxMuller's first of words 0 and 1 for all three.
void gaussNoisePixels(std::uint8_t* p, int x0, int y, std::size_t n, int channels, std::uint64_t seed,
                      float mean255, float std255, bool perChannel);

/// The scalar definition gaussNoisePixels computes (for the tests).
void gaussNoisePixelsScalar(std::uint8_t* p, int x0, int y, std::size_t n, int channels, std::uint64_t seed,
                            float mean255, float std255, bool perChannel);

/// The SIMD target gaussNoisePixels runs on here ("AVX3", "AVX2", ...).
const char* noiseTarget();

}  // namespace auglab::cpu
