#pragma once
// The AVX2 path of the CPU's bilinear warp: eight output pixels at a time whose four taps all lie
// inside the source. Same integers as the scalar code (fixed-point coordinates from the shared
// tables, weights (32 - fx)(32 - fy) ... summing to 1024), so results are bit-identical.

#include <cstddef>
#include <cstdint>

namespace auglab {

struct LinearBlockSource {
    const std::uint8_t* pixels;
    std::size_t stride;
    std::size_t size;    ///< bytes in `pixels`
    int fastW, fastH;    ///< width - 1, height - 1: taps at sx and sx + 1 stay inside
};

/// True when this machine runs AVX2 (checked once).
bool cpuHasAvx2();

/// Renders output pixels x .. x + 7 of one row when all their taps are inside the source (and
/// returns true); otherwise writes nothing and returns false. CN is 3 or 4.
template <int CN>
bool linearBlock8Avx2(const LinearBlockSource& s, int X0, int Y0, const int* adelta, const int* bdelta,
                      std::uint8_t* out);

}  // namespace auglab
