// The CPU warp. Coordinates follow OpenCV's warpAffine exactly: the inverse matrix is applied in
// fixed point with 10 fractional bits (per-column deltas precomputed, per-row offset rounded), then
// reduced to 1/32 pixel. Bilinear weights are the integer products (32 - fx)(32 - fy) etc., which
// sum to 1024, so a pixel that lands exactly on a source pixel is copied bit for bit (flips are
// exact) and results equal OpenCV's table-driven 15-bit weights, which are these times 32.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cpu_backend.h"

namespace auglab {

namespace {

constexpr int kAbBits = 10;
constexpr int kAbScale = 1 << kAbBits;
constexpr int kInterBits = 5;
constexpr int kInterSize = 1 << kInterBits;

// Rounds to nearest even and saturates, like cv::saturate_cast<int>(double).
int saturateInt(double v) {
    if (!(v > -2147483648.0)) return INT32_MIN;
    if (!(v < 2147483647.0)) return INT32_MAX;
    return static_cast<int>(std::nearbyint(v));
}

// cv::borderInterpolate: the source index used for p outside [0, len), or -1 for a constant border.
int borderIndex(int p, int len, BorderMode mode) {
    if (static_cast<unsigned>(p) < static_cast<unsigned>(len)) return p;
    switch (mode) {
        case BorderMode::Constant: return -1;
        case BorderMode::Replicate: return p < 0 ? 0 : len - 1;
        case BorderMode::Reflect: {  // fedcba|abcdef: period 2*len
            const long period = 2L * len;
            long q = p % period;
            if (q < 0) q += period;
            return static_cast<int>(q < len ? q : period - 1 - q);
        }
        case BorderMode::Reflect101: {  // gfedcb|abcdefgh: period 2*len - 2
            if (len == 1) return 0;
            const long period = 2L * len - 2;
            long q = p % period;
            if (q < 0) q += period;
            return static_cast<int>(q < len ? q : period - q);
        }
        case BorderMode::Wrap: {
            int q = p % len;
            return q < 0 ? q + len : q;
        }
    }
    return -1;
}

template <int CN>
void warpNearest(const Image& src, Image& dst, const WarpStep& w, const std::vector<int>& adelta,
                 const std::vector<int>& bdelta, const std::uint8_t* cval, int y0, int y1) {
    const auto& m = w.inverse;
    const int sw = src.width, sh = src.height;
    for (int y = y0; y < y1; ++y) {
        const int X0 = saturateInt((m[1] * y + m[2]) * kAbScale) + kAbScale / 2;
        const int Y0 = saturateInt((m[4] * y + m[5]) * kAbScale) + kAbScale / 2;
        std::uint8_t* out = dst.row(y);
        for (int x = 0; x < dst.width; ++x, out += CN) {
            int sx = (X0 + adelta[static_cast<std::size_t>(x)]) >> kAbBits;
            int sy = (Y0 + bdelta[static_cast<std::size_t>(x)]) >> kAbBits;
            if (static_cast<unsigned>(sx) >= static_cast<unsigned>(sw) ||
                static_cast<unsigned>(sy) >= static_cast<unsigned>(sh)) {
                sx = borderIndex(sx, sw, w.border);
                sy = borderIndex(sy, sh, w.border);
                if (sx < 0 || sy < 0) {
                    for (int c = 0; c < CN; ++c) out[c] = cval[c];
                    continue;
                }
            }
            const std::uint8_t* s = src.at(sx, sy);
            for (int c = 0; c < CN; ++c) out[c] = s[c];
        }
    }
}

template <int CN>
void warpLinear(const Image& src, Image& dst, const WarpStep& w, const std::vector<int>& adelta,
                const std::vector<int>& bdelta, const std::uint8_t* cval, int y0, int y1) {
    const auto& m = w.inverse;
    const int sw = src.width, sh = src.height;
    const unsigned fastW = static_cast<unsigned>(std::max(sw - 1, 0));
    const unsigned fastH = static_cast<unsigned>(std::max(sh - 1, 0));
    const std::size_t stride = src.stride;
    constexpr int kRound = kAbScale / kInterSize / 2;
    for (int y = y0; y < y1; ++y) {
        const int X0 = saturateInt((m[1] * y + m[2]) * kAbScale) + kRound;
        const int Y0 = saturateInt((m[4] * y + m[5]) * kAbScale) + kRound;
        std::uint8_t* out = dst.row(y);
        for (int x = 0; x < dst.width; ++x, out += CN) {
            const int X = (X0 + adelta[static_cast<std::size_t>(x)]) >> (kAbBits - kInterBits);
            const int Y = (Y0 + bdelta[static_cast<std::size_t>(x)]) >> (kAbBits - kInterBits);
            const int sx = X >> kInterBits, sy = Y >> kInterBits;
            const int fx = X & (kInterSize - 1), fy = Y & (kInterSize - 1);
            const int w00 = (kInterSize - fx) * (kInterSize - fy), w01 = fx * (kInterSize - fy);
            const int w10 = (kInterSize - fx) * fy, w11 = fx * fy;
            if (static_cast<unsigned>(sx) < fastW && static_cast<unsigned>(sy) < fastH) {
                const std::uint8_t* p = src.pixels.data() + static_cast<std::size_t>(sy) * stride +
                                        static_cast<std::size_t>(sx) * CN;
                for (int c = 0; c < CN; ++c)
                    out[c] = static_cast<std::uint8_t>(
                        (p[c] * w00 + p[c + CN] * w01 + p[stride + c] * w10 + p[stride + c + CN] * w11 + 512) >> 10);
                continue;
            }
            if (w.border == BorderMode::Constant && (sx >= sw || sx + 1 < 0 || sy >= sh || sy + 1 < 0)) {
                for (int c = 0; c < CN; ++c) out[c] = cval[c];
                continue;
            }
            const int x0 = borderIndex(sx, sw, w.border), x1 = borderIndex(sx + 1, sw, w.border);
            const int yy0 = borderIndex(sy, sh, w.border), yy1 = borderIndex(sy + 1, sh, w.border);
            const std::uint8_t* v00 = x0 >= 0 && yy0 >= 0 ? src.at(x0, yy0) : cval;
            const std::uint8_t* v01 = x1 >= 0 && yy0 >= 0 ? src.at(x1, yy0) : cval;
            const std::uint8_t* v10 = x0 >= 0 && yy1 >= 0 ? src.at(x0, yy1) : cval;
            const std::uint8_t* v11 = x1 >= 0 && yy1 >= 0 ? src.at(x1, yy1) : cval;
            for (int c = 0; c < CN; ++c)
                out[c] = static_cast<std::uint8_t>((v00[c] * w00 + v01[c] * w01 + v10[c] * w10 + v11[c] * w11 + 512) >> 10);
        }
    }
}

}  // namespace

void warpRows(const Image& src, Image& dst, const WarpStep& w, int y0, int y1) {
    if (w.copy && src.width == dst.width && src.height == dst.height && src.channels == dst.channels) {
        const std::size_t bytes = static_cast<std::size_t>(dst.width) * dst.channels;
        for (int y = y0; y < y1; ++y) std::memcpy(dst.row(y), src.row(y), bytes);
        return;
    }
    // Per-column parts of the fixed-point coordinates, as OpenCV precomputes them.
    std::vector<int> adelta(static_cast<std::size_t>(dst.width)), bdelta(static_cast<std::size_t>(dst.width));
    for (int x = 0; x < dst.width; ++x) {
        adelta[static_cast<std::size_t>(x)] = saturateInt(w.inverse[0] * x * kAbScale);
        bdelta[static_cast<std::size_t>(x)] = saturateInt(w.inverse[3] * x * kAbScale);
    }
    // The constant border's colour; alpha outside the image is 0 (transparent), as a scalar fill of
    // 0 gives in Albumentations for 4-channel images.
    const std::uint8_t cval[4] = {w.fill[0], w.fill[1], w.fill[2], 0};
    const bool linear = w.interpolation == Interpolation::Linear;
    if (dst.channels == 4) {
        if (linear) warpLinear<4>(src, dst, w, adelta, bdelta, cval, y0, y1);
        else warpNearest<4>(src, dst, w, adelta, bdelta, cval, y0, y1);
    } else {
        if (linear) warpLinear<3>(src, dst, w, adelta, bdelta, cval, y0, y1);
        else warpNearest<3>(src, dst, w, adelta, bdelta, cval, y0, y1);
    }
}

}  // namespace auglab
