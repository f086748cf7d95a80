#include "warp_fixed_point.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "error.h"

namespace auglab {

namespace {

// Rounds to nearest even and saturates, like cv::saturate_cast<int>(double).
int saturateInt(double v) {
    if (!(v > -2147483648.0)) return INT_MIN;
    if (!(v < 2147483647.0)) return INT_MAX;
    return static_cast<int>(std::nearbyint(v));
}

}  // namespace

WarpTables warpTables(const WarpStep& w, int outWidth, int outHeight) {
    constexpr int scale = 1 << kWarpAbBits;
    // Nearest rounds half up at 1/1024; linear rounds at 1/32 (half of 1/32 is 16/1024).
    const int round =
        w.interpolation == Interpolation::Nearest ? scale / 2 : scale / (1 << kWarpInterBits) / 2;
    const auto& m = w.inverse;
    WarpTables t;
    if (w.nearestResize && w.interpolation == Interpolation::Nearest) {
        // OpenCV's resizeNN: sx = min(cvFloor(x * ifx), w - 1), ifx = 1 / (dst / src) in double; the
        // tables hold the indices in whole units of the fixed point, so (x0 + adelta) >> bits is sx.
        const auto& r = *w.nearestResize;
        const double ifx = r.ifx > 0 ? r.ifx : 1.0 / (static_cast<double>(outWidth) / r.w);
        const double ify = r.ify > 0 ? r.ify : 1.0 / (static_cast<double>(outHeight) / r.h);
        t.adelta.resize(static_cast<std::size_t>(outWidth));
        t.bdelta.assign(static_cast<std::size_t>(outWidth), 0);
        for (int x = 0; x < outWidth; ++x)
            t.adelta[static_cast<std::size_t>(x)] =
                (r.x + std::min(static_cast<int>(std::floor(x * ifx)), r.w - 1)) * scale;
        t.x0.assign(static_cast<std::size_t>(outHeight), 0);
        t.y0.resize(static_cast<std::size_t>(outHeight));
        for (int y = 0; y < outHeight; ++y)
            t.y0[static_cast<std::size_t>(y)] =
                (r.y + std::min(static_cast<int>(std::floor(y * ify)), r.h - 1)) * scale;
        return t;
    }
    t.adelta.resize(static_cast<std::size_t>(outWidth));
    t.bdelta.resize(static_cast<std::size_t>(outWidth));
    for (int x = 0; x < outWidth; ++x) {
        t.adelta[static_cast<std::size_t>(x)] = saturateInt(m[0] * x * scale);
        t.bdelta[static_cast<std::size_t>(x)] = saturateInt(m[3] * x * scale);
    }
    t.x0.resize(static_cast<std::size_t>(outHeight));
    t.y0.resize(static_cast<std::size_t>(outHeight));
    for (int y = 0; y < outHeight; ++y) {
        t.x0[static_cast<std::size_t>(y)] = saturateInt((m[1] * y + m[2]) * scale) + round;
        t.y0[static_cast<std::size_t>(y)] = saturateInt((m[4] * y + m[5]) * scale) + round;
    }
    return t;
}

// cv::warpPerspective (WarpPerspectiveInvoker): row parts first, then the column's term; the
// divisor's reciprocal scaled by the sub-pixel grid, 0 where the divisor is 0.
ProjectiveRow::ProjectiveRow(const WarpStep& w, int y)
    : m(w.homography),
      X0(m[1] * y + m[2]),
      Y0(m[4] * y + m[5]),
      W0(m[7] * y + m[8]),
      unit(w.interpolation == Interpolation::Nearest ? 1.0 : double(1 << kWarpInterBits)) {
    if (w.remap) remapRow = w.remap->positions().data() + 2 * static_cast<std::size_t>(y) * w.remap->width;
}

void ProjectiveRow::position(int x, int& X, int& Y) const {
    if (remapRow) {
        X = remapRow[2 * x];
        Y = remapRow[2 * x + 1];
        return;
    }
    double d = W0 + m[6] * x;
    d = d != 0 ? unit / d : 0.0;
    X = saturateInt(std::max(double(INT_MIN), std::min(double(INT_MAX), (X0 + m[0] * x) * d)));
    Y = saturateInt(std::max(double(INT_MIN), std::min(double(INT_MAX), (Y0 + m[3] * x) * d)));
}

std::vector<int> projectiveMap(const WarpStep& w, int outWidth, int outHeight) {
    if (w.remap) {
        if (w.remap->width != outWidth || w.remap->height != outHeight)
            throw RuntimeError("remap: the map is " + std::to_string(w.remap->width) + "x" +
                               std::to_string(w.remap->height) + ", the stage " + std::to_string(outWidth) +
                               "x" + std::to_string(outHeight));
        return w.remap->positions();
    }
    std::vector<int> map(static_cast<std::size_t>(outWidth) * outHeight * 2);
    std::size_t i = 0;
    for (int y = 0; y < outHeight; ++y) {
        const ProjectiveRow row(w, y);
        for (int x = 0; x < outWidth; ++x, i += 2) row.position(x, map[i], map[i + 1]);
    }
    return map;
}

}  // namespace auglab
