#pragma once
// The fixed-point coordinates of a warp, as OpenCV's warpAffine computes them: the inverse matrix
// in 1/1024 pixel, split into a per-column part (adelta, bdelta) and a per-row part (x0, y0, with
// the rounding offset of the interpolation folded in). Source x of output (x, y) is
// (x0[y] + adelta[x]) >> 10 for nearest and >> 5 in 1/32 pixel for linear. Every backend uses
// these same integers, so their warps agree to the bit.

#include <array>
#include <vector>

#include "plan.h"

namespace auglab {

inline constexpr int kWarpAbBits = 10;    ///< fractional bits of the matrix products
inline constexpr int kWarpInterBits = 5;  ///< fractional bits of bilinear positions (1/32 pixel)

struct WarpTables {
    std::vector<int> adelta, bdelta;  ///< per output column
    std::vector<int> x0, y0;          ///< per output row, rounding offset included
};

WarpTables warpTables(const WarpStep& w, int outWidth, int outHeight);

/// One output row of a projective warp (WarpStep::projective): the homography's row terms, computed
/// once per row as cv::warpPerspective does.
struct ProjectiveRow {
    ProjectiveRow(const WarpStep& w, int y);
    /// The source position of output pixel (x, y), as cv::warpPerspective computes it: in double,
    /// divided, then rounded to nearest (even) and saturated: in 1/32 pixel for linear
    /// interpolation, in whole pixels for nearest. Every backend uses these integers (the GL and
    /// CUDA backends read them from projectiveMap).
    void position(int x, int& X, int& Y) const;

    const std::array<double, 9>& m;
    double X0, Y0, W0, unit;
    const int* remapRow = nullptr;  ///< a remap's row of positions (WarpStep::remap)
};

/// ProjectiveRow::position of every output pixel, X and Y interleaved, row by row (a remap's own map).
std::vector<int> projectiveMap(const WarpStep& w, int outWidth, int outHeight);

}  // namespace auglab
