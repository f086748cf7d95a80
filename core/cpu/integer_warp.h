#pragma once
// Warp stages that move whole pixels (flips, transposes, 90-degree turns, crops, pads, and chains of
// them), executed as row copies, reversals and fills instead of per-pixel sampling. The result is
// the generic warp's (cpu_warp.cpp) bit for bit: at whole source positions nearest and linear
// interpolation both copy the pixel, and the border rule is applied per axis as it does.

#include <cstdint>
#include <optional>
#include <vector>

#include "image.h"
#include "plan.h"

namespace auglab::cpu {

/// A warp stage as source indices: output pixel (x, y) is source pixel (cols[x], rows[y]) (transposed:
/// (rows[y], cols[x])), or the fill where either is -1 (a constant border).
struct IntegerWarp {
    bool transposed = false;  ///< output rows run along source columns (a transpose or a quarter turn)
    std::vector<int> rows;    ///< per output row: the source row (transposed: column), -1 for the fill
    std::vector<int> cols;    ///< per output column: the source column (transposed: row), -1 for the fill
    /// `cols` cut into runs (not transposed): `n` pixels from output column `x` on, copied from source
    /// column `from` on (`step` 1), from `from` down (`step` -1: a reversal), or the fill (`step` 0).
    struct Run {
        int x = 0, n = 0, from = 0, step = 0;
    };
    std::vector<Run> runs;
    std::uint8_t fill[4] = {0, 0, 0, 0};  ///< the constant border's colour; alpha 0, as the warp's
};

/// `w`'s stage from an inWidth x inHeight input to outWidth x outHeight as an IntegerWarp, when its
/// inverse matrix is a signed permutation with whole offsets and it samples by nearest or linear
/// interpolation (no gather, remap, projective or nearest-resize map); otherwise nothing.
std::optional<IntegerWarp> integerWarp(const WarpStep& w, int inWidth, int inHeight, int outWidth, int outHeight);

/// Rows [y0, y1) of `dst` (already sized) from `src` as `m` says; written from the bottom up where
/// that reads the source rows in ascending order (readsUpward).
void integerWarpRows(const ImageView& src, Image& dst, const IntegerWarp& m, int y0, int y1);

/// Whether output rows [y0, y1) read the source's rows from the bottom up (a vertical flip, a half
/// turn): a caller that cuts them into strips then takes the strips from the last one, so that
/// memory is read forwards, which the prefetcher follows (reading it backwards cost a vertical flip
/// 1.5-4x its time here).
bool readsUpward(const IntegerWarp& m, int y0, int y1);

}  // namespace auglab::cpu
