#pragma once
// RandomSunFlare's overlay blends on one row (core/cpu_drawn_ops.cpp applyOverlayFlare), with Google
// Highway's run-time dispatch: 16 pixels a step on AVX-512, each pixel through every disc in turn in
// its own lanes, with the scalar code's float32 arithmetic (two products, their sum, rounded to
// nearest even, clipped), so every target gives its bytes.

#include <cstddef>
#include <cstdint>

namespace auglab::cpu {

/// The discs a row is blended with, in order, as arrays: disc i covers pixels [x0[i], x1[i]] of the
/// row (x0 > x1: none), has colour (r[i], g[i], b[i]) and weights alpha[i] (the overlay's) and
/// beta[i] (the image's). The overlay restarts from the result at disc `restart` (the sun's first).
struct FlareDiscs {
    const std::int32_t *x0, *x1, *r, *g, *b;
    const float *alpha, *beta;
    std::size_t count, restart;
};

/// Pixels [lo, hi] of `row` (3 or 4 channels, alpha kept): overlay = the pixel, result = the pixel;
/// then for each disc, the overlay takes its colour where it covers the pixel, and when the overlay
/// and the result differ in any channel, each channel of the result becomes round(overlay * alpha +
/// result * beta), clipped to 0..255.
void flareOverlayRow(std::uint8_t* row, int channels, int lo, int hi, const FlareDiscs& discs);

/// The same one pixel at a time: the definition the vector code follows.
void flareOverlayRowScalar(std::uint8_t* row, int channels, int lo, int hi, const FlareDiscs& discs);

}  // namespace auglab::cpu
