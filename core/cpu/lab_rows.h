#pragma once
// OpenCV's 8-bit Lab (core/colour.h Lab8) on rows of pixels, with Google Highway's run-time
// dispatch, for CLAHE: the integer conversions with their tables gathered in 32-bit lanes (16
// pixels a step on AVX-512, 8 on AVX2, 4 on SSE4), the same operations as the scalar definitions
// (shared::labFromRgb, shared::claheBlend, shared::labToRgb), which run on what is left of a row
// and on CPUs without those targets. tests/test_cpu_kernels.cpp compares both kernels with the
// definitions on every SIMD target, labPlanes on every colour.

#include <cstddef>
#include <cstdint>

namespace auglab::cpu {

/// n pixels (3 or 4 channels; alpha ignored) to Lab8's L, a and b, one byte each, into three planes.
void labPlanes(const std::uint8_t* src, std::size_t n, int channels, std::uint8_t* L, std::uint8_t* a,
               std::uint8_t* b);

/// One row of a CLAHE'd image from its Lab planes: pixel x's new L is claheBlend of the tables'
/// entries top[t1[x] + L], top[t2[x] + L], bottom[t1[x] + L] and bottom[t2[x] + L] (t1 and t2 the
/// offsets of the row's tiles' tables: tile index * 256) with the weights xa[x], xa1[x], ya and ya1;
/// then labToRgb of (new L, a, b) into dst's R, G and B (alpha, at 4 channels, kept).
struct ClaheRow {
    const std::int32_t* top;     ///< the tables of the tile row above, widened
    const std::int32_t* bottom;  ///< and below
    const std::int32_t* t1;      ///< per column: the left tile's table offset
    const std::int32_t* t2;      ///< the right one's
    const float* xa;             ///< per column: the right tile's weight
    const float* xa1;            ///< the left one's
    float ya = 0, ya1 = 0;       ///< the bottom and top tile rows' weights
};
void claheRow(const std::uint8_t* L, const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* dst,
              std::size_t n, int channels, const ClaheRow& row);

/// The SIMD target these kernels run on here ("AVX3", "AVX2", ...).
const char* labTarget();

}  // namespace auglab::cpu
