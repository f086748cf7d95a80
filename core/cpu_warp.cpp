// The CPU warp. A projective warp's positions follow cv::warpPerspective (warp_fixed_point.h);
// the others follow OpenCV's warpAffine exactly: the inverse matrix is applied in
// fixed point with 10 fractional bits (per-column deltas precomputed, per-row offset rounded), then
// reduced to 1/32 pixel. Bilinear weights are the integer products (32 - fx)(32 - fy) etc., which
// sum to 1024, so a pixel that lands exactly on a source pixel is copied bit for bit (flips are
// exact) and results equal OpenCV's table-driven 15-bit weights, which are these times 32.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu_backend.h"
#include "cpu_warp_avx2.h"
#include "warp_fixed_point.h"

namespace auglab {

// cv::borderInterpolate: the source index used for p outside [0, len), or -1 for a constant border.
int borderIndex(int p, int len, BorderMode mode) {
    if (static_cast<unsigned>(p) < static_cast<unsigned>(len)) return p;
    switch (mode) {
        case BorderMode::Constant:
            return -1;
        case BorderMode::Replicate:
            return p < 0 ? 0 : len - 1;
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

namespace {

constexpr int kAbBits = kWarpAbBits;
constexpr int kInterBits = kWarpInterBits;
constexpr int kInterSize = 1 << kInterBits;

// Projective: positions from ProjectiveRow (cv::warpPerspective's arithmetic), per pixel;
// otherwise from the affine tables (cv::warpAffine's).
template <int CN, bool Projective>
void warpNearest(const ImageView& src, Image& dst, const WarpStep& w, const WarpTables& t,
                 const std::uint8_t* cval, int y0, int y1, int xBegin = 0, int xEnd = -1) {
    if (xEnd < 0) xEnd = dst.width;
    const std::vector<int>& adelta = t.adelta;
    const std::vector<int>& bdelta = t.bdelta;
    const int sw = src.width, sh = src.height;
    for (int y = y0; y < y1; ++y) {
        const int X0 = Projective ? 0 : t.x0[static_cast<std::size_t>(y)];
        const int Y0 = Projective ? 0 : t.y0[static_cast<std::size_t>(y)];
        const std::optional<ProjectiveRow> row =
            Projective ? std::optional<ProjectiveRow>(std::in_place, w, y) : std::nullopt;
        std::uint8_t* out = dst.row(y) + static_cast<std::size_t>(xBegin) * CN;
        for (int x = xBegin; x < xEnd; ++x, out += CN) {
            int sx, sy;
            if constexpr (Projective) {
                row->position(x, sx, sy);
            } else {
                sx = (X0 + adelta[static_cast<std::size_t>(x)]) >> kAbBits;
                sy = (Y0 + bdelta[static_cast<std::size_t>(x)]) >> kAbBits;
            }
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

template <int CN, bool Projective>
void warpLinear(const ImageView& src, Image& dst, const WarpStep& w, const WarpTables& t,
                const std::uint8_t* cval, int y0, int y1, int xBegin = 0, int xEnd = -1, bool blocks = true);

/// warpNearest of a separable affine warp: each output row a copy of its source row's pixels at
/// the columns' source offsets (found once), or of the output row above when both read the same
/// source row (an upscale). Columns and rows that fall outside go through warpNearest itself.
template <int CN>
void warpNearestSeparable(const ImageView& src, Image& dst, const WarpStep& w, const WarpTables& t,
                          const std::uint8_t* cval, int y0, int y1) {
    const int sw = src.width, sh = src.height, width = dst.width;
    const int X0 = t.x0[std::size_t(y0)];
    std::vector<int> off(static_cast<std::size_t>(width));
    int xa = width, xb = width;
    for (int x = 0; x < width; ++x) {
        const int sx = (X0 + t.adelta[std::size_t(x)]) >> kAbBits;
        const bool inside = sx >= 0 && sx < sw;
        if (inside && xa == width) xa = x;
        if (!inside && xa < width && xb == width) xb = x;
        if (inside && xb < width) break;  // inside again after a gap: the first run only
        off[std::size_t(x)] = sx * CN;
    }
    if (xa >= xb) {
        warpNearest<CN, false>(src, dst, w, t, cval, y0, y1);
        return;
    }
    int previous = -1;  // the source row of output row y - 1, when it was copied here
    for (int y = y0; y < y1; ++y) {
        const int sy = (t.y0[std::size_t(y)] + t.bdelta[0]) >> kAbBits;
        if (sy < 0 || sy >= sh) {
            warpNearest<CN, false>(src, dst, w, t, cval, y, y + 1);
            previous = -1;
            continue;
        }
        std::uint8_t* out = dst.row(y);
        if (sy == previous) {
            std::memcpy(out, dst.row(y - 1), static_cast<std::size_t>(width) * CN);
            continue;
        }
        const std::uint8_t* row = src.data + static_cast<std::size_t>(sy) * src.stride;
        for (int x = xa; x < xb; ++x)
            std::memcpy(out + static_cast<std::size_t>(x) * CN, row + off[std::size_t(x)], CN);
        if (xa > 0) warpNearest<CN, false>(src, dst, w, t, cval, y, y + 1, 0, xa);
        if (xb < width) warpNearest<CN, false>(src, dst, w, t, cval, y, y + 1, xb, width);
        previous = sy;
    }
}

/// Whether the affine tables' source column depends on the output column alone and the source row
/// on the output row alone, over rows [y0, y1): no rotation or shear.
bool separable(const WarpTables& t, int y0, int y1) {
    return std::all_of(t.bdelta.begin(), t.bdelta.end(), [](int v) { return v == 0; }) &&
           std::all_of(t.x0.begin() + y0, t.x0.begin() + y1,
                       [&](int v) { return v == t.x0[std::size_t(y0)]; });
}

/// warpLinear of a separable affine warp (AVX2): per output column its source column and weights
/// once; per source row the horizontal pass once (kept while the next output rows read it: an
/// upscale reads each twice or more); per output row the vertical pass. The integers are the
/// per-pixel sums', so the bytes are warpLinear's. Columns and rows whose taps leave the source
/// go through warpLinear itself.
template <int CN>
void warpLinearSeparable(const ImageView& src, Image& dst, const WarpStep& w, const WarpTables& t,
                         const std::uint8_t* cval, int y0, int y1) {
    constexpr int shift = kAbBits - kInterBits;
    const int sw = src.width, sh = src.height, width = dst.width;
    const int X0 = t.x0[std::size_t(y0)];
    // The columns whose taps lie inside: [xa, xb), the rest (a border) pixel by pixel.
    std::vector<int> off(static_cast<std::size_t>(width));
    std::vector<std::uint64_t> wx(static_cast<std::size_t>(width));
    int xa = width, xb = width;
    for (int x = 0; x < width; ++x) {
        const int X = (X0 + t.adelta[std::size_t(x)]) >> shift;
        const int sx = X >> kInterBits, fx = X & (kInterSize - 1);
        const bool inside = sx >= 0 && sx < sw - 1;
        if (inside && xa == width) xa = x;
        if (!inside && xa < width && xb == width) xb = x;
        if (inside && xb < width) {  // inside again after a gap: keep the first run only
            break;
        }
        off[std::size_t(x)] = sx * CN;
        const std::uint64_t pair = std::uint64_t(kInterSize - fx) | (std::uint64_t(fx) << 8);
        wx[std::size_t(x)] = pair * 0x0001000100010001ull;
    }
    if (xa >= xb) {
        warpLinear<CN, false>(src, dst, w, t, cval, y0, y1);
        return;
    }
    const int n = xb - xa;
    const int maxOff = *std::max_element(off.begin() + xa, off.begin() + xb);
    // Each load reads 8 bytes at a tap pair: the last row's last pairs may not have them.
    const std::size_t safeEnd = src.size >= 8 ? src.size - 8 : 0;
    std::vector<std::int16_t> rows[2] = {std::vector<std::int16_t>(4 * std::size_t(n)),
                                         std::vector<std::int16_t>(4 * std::size_t(n))};
    int held[2] = {-1, -1};
    // Source row sy's pass, computed into the buffer that does not hold `keep` unless held already.
    const auto horizontal = [&](int sy, int keep) -> const std::int16_t* {
        for (int k = 0; k < 2; ++k)
            if (held[k] == sy) return rows[k].data();
        const int k = held[0] == keep ? 1 : 0;
        const std::uint8_t* row = src.data + std::size_t(sy) * src.stride;
        // The vector pass reads 8 bytes at every tap pair: on a row where the farthest pair (the
        // largest offset, at either end: a flip reverses them) has not 8, the whole row is scalar.
        const int safe = std::size_t(sy) * src.stride + std::size_t(maxOff) > safeEnd ? 0 : n;
        linearRowAvx2<CN>(row, off.data() + xa, wx.data() + xa, safe, rows[k].data());
        for (int i = safe; i < n; ++i) {
            const std::uint8_t* p = row + off[std::size_t(xa + i)];
            const int wx0 = int(wx[std::size_t(xa + i)] & 0xff),
                      wx1 = int((wx[std::size_t(xa + i)] >> 8) & 0xff);
            for (int c = 0; c < CN; ++c)
                rows[k][4 * std::size_t(i) + c] = static_cast<std::int16_t>(p[c] * wx0 + p[c + CN] * wx1);
        }
        held[k] = sy;
        return rows[k].data();
    };
    for (int y = y0; y < y1; ++y) {
        const int Y = (t.y0[std::size_t(y)] + t.bdelta[0]) >> shift;
        const int sy = Y >> kInterBits, fy = Y & (kInterSize - 1);
        if (sy < 0 || sy >= sh - 1) {
            warpLinear<CN, false>(src, dst, w, t, cval, y, y + 1);
            continue;
        }
        const std::int16_t* top = horizontal(sy, sy + 1);
        const std::int16_t* bottom = horizontal(sy + 1, sy);
        linearColumnsAvx2<CN>(top, bottom, fy, n, dst.row(y) + std::size_t(xa) * CN);
        // The border columns, pixel by pixel.
        if (xa > 0) warpLinear<CN, false>(src, dst, w, t, cval, y, y + 1, 0, xa);
        if (xb < width) warpLinear<CN, false>(src, dst, w, t, cval, y, y + 1, xb, width);
    }
}

template <int CN, bool Projective>
void warpLinear(const ImageView& src, Image& dst, const WarpStep& w, const WarpTables& t,
                const std::uint8_t* cval, int y0, int y1, int xBegin, int xEnd, bool blocks) {
    if (xEnd < 0) xEnd = dst.width;
    const std::vector<int>& adelta = t.adelta;
    const std::vector<int>& bdelta = t.bdelta;
    const int sw = src.width, sh = src.height;
    const unsigned fastW = static_cast<unsigned>(std::max(sw - 1, 0));
    const unsigned fastH = static_cast<unsigned>(std::max(sh - 1, 0));
    const std::size_t stride = src.stride;
    [[maybe_unused]] const std::uint8_t* srcEnd = src.data + src.size;
    const bool avx2 = blocks && cpuHasAvx2();
    const LinearBlockSource block{src.data, stride, src.size, int(fastW), int(fastH)};
    for (int y = y0; y < y1; ++y) {
        const int X0 = Projective ? 0 : t.x0[static_cast<std::size_t>(y)];
        const int Y0 = Projective ? 0 : t.y0[static_cast<std::size_t>(y)];
        const std::optional<ProjectiveRow> row =
            Projective ? std::optional<ProjectiveRow>(std::in_place, w, y) : std::nullopt;
        std::uint8_t* out = dst.row(y) + static_cast<std::size_t>(xBegin) * CN;
        int blockEnd = 0;  // pixels before this were done eight at a time
        for (int x = xBegin; x < xEnd; ++x, out += CN) {
            if (avx2 && x >= blockEnd && x + 8 <= xEnd) {
                bool done;
                if constexpr (Projective) {
                    // Positions of eight pixels (a remap's from its map, a homography's computed as
                    // position() computes them), then the same interpolation as the affine blocks.
                    if (row->remapRow) {
                        done = linearBlock8PositionsAvx2<CN>(block, row->remapRow + 2 * x, out);
                    } else {
                        int xy[16];
                        projectivePositions8Avx2(row->m.data(), row->X0, row->Y0, row->W0, row->unit, x, xy);
                        done = linearBlock8PositionsAvx2<CN>(block, xy, out);
                    }
                } else {
                    done = linearBlock8Avx2<CN>(block, X0, Y0, adelta.data() + x, bdelta.data() + x, out);
                }
                if (done) {
                    x += 7;
                    out += 7 * CN;
                    continue;
                }
                blockEnd = x + 8;  // near a border: these eight go one by one
            }
            int X, Y;  // in 1/32 pixel
            if constexpr (Projective) {
                row->position(x, X, Y);
            } else {
                X = (X0 + adelta[static_cast<std::size_t>(x)]) >> (kAbBits - kInterBits);
                Y = (Y0 + bdelta[static_cast<std::size_t>(x)]) >> (kAbBits - kInterBits);
            }
            const int sx = X >> kInterBits, sy = Y >> kInterBits;
            const int fx = X & (kInterSize - 1), fy = Y & (kInterSize - 1);
            const int w00 = (kInterSize - fx) * (kInterSize - fy), w01 = fx * (kInterSize - fy);
            const int w10 = (kInterSize - fx) * fy, w11 = fx * fy;
            if (static_cast<unsigned>(sx) < fastW && static_cast<unsigned>(sy) < fastH) {
                const std::uint8_t* p =
                    src.data + static_cast<std::size_t>(sy) * stride + static_cast<std::size_t>(sx) * CN;
#if defined(__SSE2__)
                // Four taps of up to 4 channels each: widen to 16 bits, pair the left and right taps
                // and let pmaddwd form p00*w00 + p01*w01 per channel. Same integers as the scalar
                // code. A 3-channel tap reads one byte past its pixel; the last pixel of the buffer
                // takes the scalar path so that this never reads outside the image.
                if (CN == 4 || p + stride + CN + 4 <= srcEnd) {
                    const __m128i zero = _mm_setzero_si128();
                    auto load = [&](const std::uint8_t* q) {
                        std::int32_t v;
                        std::memcpy(&v, q, 4);
                        return _mm_unpacklo_epi8(_mm_cvtsi32_si128(v), zero);
                    };
                    const __m128i top = _mm_unpacklo_epi16(load(p), load(p + CN));
                    const __m128i bottom = _mm_unpacklo_epi16(load(p + stride), load(p + stride + CN));
                    const __m128i wTop = _mm_set1_epi32((w01 << 16) | w00);
                    const __m128i wBottom = _mm_set1_epi32((w11 << 16) | w10);
                    __m128i sum = _mm_add_epi32(_mm_madd_epi16(top, wTop), _mm_madd_epi16(bottom, wBottom));
                    sum = _mm_srai_epi32(_mm_add_epi32(sum, _mm_set1_epi32(512)), 10);
                    const __m128i packed = _mm_packus_epi16(_mm_packs_epi32(sum, sum), zero);
                    const std::int32_t bytes = _mm_cvtsi128_si32(packed);
                    std::memcpy(out, &bytes, CN);
                    continue;
                }
#endif
                for (int c = 0; c < CN; ++c)
                    out[c] = static_cast<std::uint8_t>((p[c] * w00 + p[c + CN] * w01 + p[stride + c] * w10 +
                                                        p[stride + c + CN] * w11 + 512) >>
                                                       10);
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
                out[c] = static_cast<std::uint8_t>(
                    (v00[c] * w00 + v01[c] * w01 + v10[c] * w10 + v11[c] * w11 + 512) >> 10);
        }
    }
}

}  // namespace

/// The gather (GatherStep): one source pixel, all channels, per output pixel.
void gatherRows(const ImageView& src, Image& dst, const GatherStep& g, int y0, int y1) {
    const int cn = dst.channels, half = g.dim / 2;
    for (int y = y0; y < y1; ++y) {
        std::uint8_t* out = dst.row(y);
        for (int x = 0; x < dst.width; ++x, out += cn) {
            const int i0 =
                gatherIndex((g.rowA0[std::size_t(y)] + g.colB0[std::size_t(x)]) + g.m02, g.lo, g.hi);
            const int i1 =
                gatherIndex((g.rowA1[std::size_t(y)] + g.colB1[std::size_t(x)]) + g.m12, g.lo, g.hi);
            const int row = half - i0, col = half - 1 + i1;
            const std::uint8_t* s = src.at(static_cast<int>(std::int64_t(col) * src.width / g.dim),
                                           static_cast<int>(std::int64_t(row) * src.height / g.dim));
            for (int c = 0; c < cn; ++c) out[c] = s[c];
        }
    }
}

void warpRows(const ImageView& src, Image& dst, const WarpStep& w, int y0, int y1) {
    warpRows(src, dst, w,
             w.gather || w.copy || w.projective ? WarpTables{} : warpTables(w, dst.width, dst.height), y0,
             y1);
}

namespace {

/// A remap of whole pixels inside the input (RemapMap::whole): each output pixel is its source
/// pixel, what bilinear weights of (1, 0, 0, 0) give exactly; runs of consecutive source pixels
/// (a tile's row) are one copy.
void wholeRemapRows(const ImageView& src, Image& dst, const RemapMap& map, int shift, int y0, int y1) {
    const std::size_t cn = static_cast<std::size_t>(dst.channels);
    if (!map.tiles.empty()) {  // the rectangles themselves: each row of each one copy
        for (const RemapMap::Tile& t : map.tiles)
            for (int y = std::max(y0, t.y); y < std::min(y1, t.y + t.h); ++y)
                std::memcpy(dst.row(y) + static_cast<std::size_t>(t.x) * cn, src.at(t.x + t.dx, y + t.dy),
                            static_cast<std::size_t>(t.w) * cn);
        return;
    }
    for (int y = y0; y < y1; ++y) {
        const int* xy = map.xy.data() + 2 * static_cast<std::size_t>(y) * static_cast<std::size_t>(map.width);
        std::uint8_t* out = dst.row(y);
        int x = 0;
        while (x < dst.width) {
            const int sx = xy[2 * x] >> shift, sy = xy[2 * x + 1] >> shift;
            int end = x + 1;
            while (end < dst.width && (xy[2 * end] >> shift) == sx + (end - x) &&
                   (xy[2 * end + 1] >> shift) == sy)
                ++end;
            std::memcpy(out + static_cast<std::size_t>(x) * cn, src.at(sx, sy),
                        static_cast<std::size_t>(end - x) * cn);
            x = end;
        }
    }
}

}  // namespace

namespace {

void warpRowsWith(const ImageView& src, Image& dst, const WarpStep& w, const WarpTables& tables, int y0,
                  int y1, bool passes) {
    if (w.remap && w.remap->whole && src.channels == dst.channels && w.remap->width == dst.width) {
        wholeRemapRows(src, dst, *w.remap, w.interpolation == Interpolation::Nearest ? 0 : kWarpInterBits, y0,
                       y1);
        return;
    }
    if (w.gather) {
        gatherRows(src, dst, *w.gather, y0, y1);
        return;
    }
    if (w.copy && src.width == dst.width && src.height == dst.height && src.channels == dst.channels) {
        const std::size_t bytes = static_cast<std::size_t>(dst.width) * dst.channels;
        for (int y = y0; y < y1; ++y) std::memcpy(dst.row(y), src.row(y), bytes);
        return;
    }
    // The constant border's colour; alpha outside the image is 0 (transparent), as a scalar fill of
    // 0 gives in Albumentations for 4-channel images.
    const std::uint8_t cval[4] = {w.fill[0], w.fill[1], w.fill[2], 0};
    const bool linear = w.interpolation == Interpolation::Linear;
    const auto run = [&]<int CN, bool P>() {
        if (passes && linear && !P && cpuHasAvx2() && y0 < y1 && separable(tables, y0, y1))
            warpLinearSeparable<CN>(src, dst, w, tables, cval, y0, y1);
        else if (linear)
            warpLinear<CN, P>(src, dst, w, tables, cval, y0, y1, 0, -1, passes);
        else if (passes && !P && y0 < y1 && separable(tables, y0, y1))
            warpNearestSeparable<CN>(src, dst, w, tables, cval, y0, y1);
        else
            warpNearest<CN, P>(src, dst, w, tables, cval, y0, y1);
    };
    if (dst.channels == 4) {
        if (w.projective)
            run.template operator()<4, true>();
        else
            run.template operator()<4, false>();
    } else {
        if (w.projective)
            run.template operator()<3, true>();
        else
            run.template operator()<3, false>();
    }
}

}  // namespace

void warpRows(const ImageView& src, Image& dst, const WarpStep& w, const WarpTables& tables, int y0, int y1) {
    warpRowsWith(src, dst, w, tables, y0, y1, true);
}

void warpRowsPerPixel(const ImageView& src, Image& dst, const WarpStep& w, int y0, int y1) {
    warpRowsWith(src, dst, w,
                 w.gather || w.copy || w.projective ? WarpTables{} : warpTables(w, dst.width, dst.height), y0,
                 y1, false);
}

}  // namespace auglab
