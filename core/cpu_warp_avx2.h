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
    std::size_t size;  ///< bytes in `pixels`
    int fastW, fastH;  ///< width - 1, height - 1: taps at sx and sx + 1 stay inside
};

/// True when this machine runs AVX2 (checked once).
bool cpuHasAvx2();

/// Renders output pixels x .. x + 7 of one row when all their taps are inside the source (and
/// returns true); otherwise writes nothing and returns false. CN is 3 or 4.
template <int CN>
bool linearBlock8Avx2(const LinearBlockSource& s, int X0, int Y0, const int* adelta, const int* bdelta,
                      std::uint8_t* out);

/// The same for eight output pixels whose positions are given (1/32 pixel, X and Y interleaved:
/// xy[2i], xy[2i + 1]): a projective warp's or a remap's.
template <int CN>
bool linearBlock8PositionsAvx2(const LinearBlockSource& s, const int* xy, std::uint8_t* out);

/// ProjectiveRow::position of output pixels x .. x + 7 (X and Y interleaved into xy[16]), four
/// doubles at a time with the scalar code's operations (a product, then a sum; the reciprocal
/// scaled; clamped as std::min and std::max clamp, NaN included; rounded to nearest even): the
/// same integers. `m` the homography, X0/Y0/W0 the row terms, `unit` 32 or 1.
void projectivePositions8Avx2(const double* m, double X0, double Y0, double W0, double unit, int x, int* xy);

/// The separable form of the same interpolation, for warps whose source column depends on the output
/// column alone and source row on the output row alone (scales, crops with a resize, flips: an
/// affine map without rotation or shear). The horizontal pass of one source row: h[4i + c] =
/// p[off[i] + c] * (32 - fx) + p[off[i] + CN + c] * fx for output pixels i < n (channel slot 3 is
/// junk for 3 channels), `wx[i]` holding the byte pairs (32 - fx, fx) four times. Every tap pair
/// must lie inside the row; 8 bytes are read at each offset, so `row` must have 8 readable bytes
/// from each off[i] (the caller checks the last row of a buffer).
template <int CN>
void linearRowAvx2(const std::uint8_t* row, const int* off, const std::uint64_t* wx, int n, std::int16_t* h);

/// The vertical pass: n output pixels (top * (32 - fy) + bottom * fy + 512) >> 10 from two
/// horizontal passes, written as CN-channel pixels: exactly the bilinear sum above.
template <int CN>
void linearColumnsAvx2(const std::int16_t* top, const std::int16_t* bottom, int fy, int n, std::uint8_t* out);

}  // namespace auglab
