// CPU kernels of the drawing steps (cpu_drawn_ops.h).

#include "cpu_drawn_ops.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numbers>
#include <optional>
#include <vector>

#include "cpu/box_rows.h"
#include "cpu/flare_rows.h"
#include "cpu/lut.h"
#include "cpu/pixel_rows.h"
#include "raster.h"

namespace auglab::cpu_drawn {

BoxDivider::BoxDivider(int k) : area_(k * k), inverse_(static_cast<float>(1.0 / (k * k))) {
    if (area_ <= 256) {
        const double scale = double(1 << 23) / area_;
        scale_ = static_cast<std::uint64_t>(std::floor(scale));
        delta_ = static_cast<std::uint64_t>(area_ / 2);
        if (scale - double(scale_) < 0.5)
            ++delta_;
        else
            ++scale_;
    }
}

std::array<std::uint8_t, 256> rainDarkerTable(double brightness) {
    std::array<std::uint8_t, 256> darker{};
    for (std::size_t v = 0; v < 256; ++v)
        darker[v] = static_cast<std::uint8_t>(std::clamp(std::nearbyint(double(v) * brightness), 0.0, 255.0));
    return darker;
}

void rainDrops(const RainStep& s, int w, int h, const std::function<void(int, int, int)>& visit) {
    for (const auto& l : s.lines) {
        const raster::Point ends[2] = {{l[0], l[1]}, {l[2], l[3]}};
        raster::polyline(w, h, ends, false, s.width, 4, visit);
    }
}

namespace {

// Row window sums (each pixel's k values of its channel along the row, border reflect_101) of
// rows y0..y1 into `sums`, in 16-bit lanes (k <= kBoxMaxK16) or 32-bit ones.
template <typename Sum>
void boxRowSums(const std::uint8_t* data, int w, int cn, std::size_t stride, int k, int y0, int y1,
                Sum* sums) {
    const int a = k / 2;
    const std::size_t values = std::size_t(w) * std::size_t(cn), c = std::size_t(cn);
    std::vector<Sum> padded((std::size_t(w) + std::size_t(k) - 1) * c);
    for (int y = y0; y < y1; ++y) {
        const std::uint8_t* src = data + stride * std::size_t(y);
        Sum* dst = sums + values * std::size_t(y);
        // The row at pixels -a .. w + k - a - 2 (an even k has one pixel fewer after the row than
        // before it): the inside widened in one pass, the borders after.
        if constexpr (sizeof(Sum) == 2)
            cpu::widenBytes16(src, padded.data() + std::size_t(a) * c, values);
        else
            for (std::size_t i = 0; i < values; ++i) padded[std::size_t(a) * c + i] = src[i];
        for (int i = 0; i < k - 1; ++i) {
            const int x = i < a ? i - a : w + i - a;  // the pixels before the row, then after it
            for (std::size_t ch = 0; ch < c; ++ch)
                padded[std::size_t(x + a) * c + ch] = src[std::size_t(reflect101(x, w)) * c + ch];
        }
        if constexpr (sizeof(Sum) == 2) {
            cpu::windowSums16(padded.data(), dst, values, k, cn);
        } else {  // running sums: the value entering the window added, the one leaving it taken away
            for (std::size_t ch = 0; ch < c; ++ch) {
                Sum sum = 0;
                for (int t = 0; t < k; ++t) sum += padded[std::size_t(t) * c + ch];
                dst[ch] = sum;
                for (int x = 1; x < w; ++x) {
                    sum += padded[std::size_t(x + k - 1) * c + ch] - padded[std::size_t(x - 1) * c + ch];
                    dst[std::size_t(x) * c + ch] = sum;
                }
            }
        }
    }
}

// BoxDivider(k)'s division in 16-bit lanes (cpu::boxDivision16), found once per k <= 15.
std::optional<cpu::BoxDivision16> boxDivision16Of(int k) {
    static const std::array<std::optional<cpu::BoxDivision16>, cpu::kBoxMaxK16 + 1> table = [] {
        std::array<std::optional<cpu::BoxDivision16>, cpu::kBoxMaxK16 + 1> t{};
        for (int side = 2; side <= cpu::kBoxMaxK16; ++side) {
            const BoxDivider d(side);
            t[std::size_t(side)] = cpu::boxDivision16(d.scale(), d.delta(), std::uint32_t(255 * side * side));
        }
        return t;
    }();
    return k >= 0 && k <= cpu::kBoxMaxK16 ? table[std::size_t(k)] : std::nullopt;
}

template <typename Sum>
void boxBlurWith(std::uint8_t* data, int w, int h, int cn, std::size_t stride, int k, const RowLoop& loop) {
    const int a = k / 2;
    const BoxDivider divide(k);
    const std::optional<cpu::BoxDivision16> division16 = sizeof(Sum) == 2 ? boxDivision16Of(k) : std::nullopt;
    const std::size_t values = std::size_t(w) * std::size_t(cn);
    // Every row's sums are written before any is read: no zero fill.
    const std::unique_ptr<Sum[]> rowSumsOwner(new Sum[values * std::size_t(h)]);
    Sum* const rowSumsData = rowSumsOwner.get();
    loop(h, [&](int y0, int y1) { boxRowSums(data, w, cn, stride, k, y0, y1, rowSumsData); });
    loop(h, [&](int y0, int y1) {
        // The column sums of the rows' sums over the window, moved down a row at a time.
        const auto rowAt = [&](int t) { return rowSumsData + values * std::size_t(reflect101(t, h)); };
        std::vector<Sum> acc(values, Sum(0));
        std::vector<std::uint8_t> line(cn == 4 ? values : 0);
        for (int t = y0 - a; t < y0 - a + k; ++t) {
            if constexpr (sizeof(Sum) == 2)
                cpu::add16(acc.data(), rowAt(t), values);
            else
                for (std::size_t i = 0; i < values; ++i) acc[i] += rowAt(t)[i];
        }
        for (int y = y0; y < y1; ++y) {
            std::uint8_t* row = data + stride * std::size_t(y);
            std::uint8_t* out = cn == 4 ? line.data() : row;
            if constexpr (sizeof(Sum) == 2) {
                if (y > y0 && division16)  // the window's next row and the division in one pass
                    cpu::slideDivide16(acc.data(), rowAt(y - a + k - 1), rowAt(y - a - 1), out, values, *division16);
                else if (y > y0)
                    cpu::slide16(acc.data(), rowAt(y - a + k - 1), rowAt(y - a - 1), values);
                if (y == y0 && division16) cpu::divide16(acc.data(), out, values, *division16);
                if (!division16)
                    for (std::size_t i = 0; i < values; ++i) out[i] = divide(acc[i]);
            } else {
                if (y > y0) {  // unsigned arithmetic: the sum stays exact
                    const Sum* in = rowAt(y - a + k - 1);
                    const Sum* leaving = rowAt(y - a - 1);
                    for (std::size_t i = 0; i < values; ++i) acc[i] += in[i] - leaving[i];
                }
                for (std::size_t i = 0; i < values; ++i) out[i] = divide(acc[i]);
            }
            if (cn == 4)  // alpha is not blurred
                for (std::size_t i = 0; i < values; ++i)
                    if (i % 4 != 3) row[i] = line[i];
        }
    });
}

}  // namespace

void boxBlurBytes(std::uint8_t* data, int w, int h, int channels, std::size_t stride, int k, const RowLoop& loop) {
    if (k <= 1 || w <= 0 || h <= 0) return;
    if (k <= cpu::kBoxMaxK16 && BoxDivider(k).fixedPoint())
        boxBlurWith<std::uint16_t>(data, w, h, channels, stride, k, loop);
    else
        boxBlurWith<std::uint32_t>(data, w, h, channels, stride, k, loop);
}

namespace {

// Each disc's run on each row, in the discs' order (index, x0, x1).
struct DiscRun {
    std::uint32_t disc;
    int x0, x1;
};
std::vector<std::vector<DiscRun>> discRuns(const std::vector<FlareStep::Circle>& discs, std::uint32_t first,
                                           int w, int h, std::vector<std::vector<DiscRun>> rows = {}) {
    rows.resize(std::size_t(h));
    for (std::size_t i = 0; i < discs.size(); ++i)
        raster::filledCircle(w, h, {discs[i].x, discs[i].y}, discs[i].radius, [&](int y, int x0, int x1) {
            rows[std::size_t(y)].push_back({first + std::uint32_t(i), x0, x1});
        });
    return rows;
}

// A separable Gaussian over a float32 w x h x 3 layer, as cv2.GaussianBlur(layer, (0, 0), sigma)
// computes it for float data: ksize round(8 sigma + 1) | 1, OpenCV's kernel (float64 taps made
// float32), border reflect_101, each pass's sums stored as float32 (the sums here in float64: OpenCV's
// order of float32 additions is not reproduced, a difference of the order of 1e-6). Only the
// channels in `mask` (bits 0..2).
void gaussianFloat(std::vector<float>& layer, int w, int h, double sigma, unsigned mask,
                   const RowLoop& loop) {
    const std::vector<double> taps = gaussianFloatTaps(sigma);
    const int k = int(taps.size()), r = k / 2;
    const std::size_t rowValues = std::size_t(w) * 3;
    std::vector<float> tmp(layer.size());
    loop(h, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y) {
            const float* src = layer.data() + rowValues * std::size_t(y);
            float* dst = tmp.data() + rowValues * std::size_t(y);
            for (int x = 0; x < w; ++x)
                for (std::size_t c = 0; c < 3; ++c) {
                    if (!(mask >> c & 1u)) {
                        dst[std::size_t(x) * 3 + c] = src[std::size_t(x) * 3 + c];
                        continue;
                    }
                    double acc = 0;
                    for (int t = 0; t < k; ++t)
                        acc += taps[std::size_t(t)] * src[std::size_t(reflect101(x + t - r, w)) * 3 + c];
                    dst[std::size_t(x) * 3 + c] = static_cast<float>(acc);
                }
        }
    });
    loop(h, [&](int y0, int y1) {
        std::vector<double> acc(rowValues);
        for (int y = y0; y < y1; ++y) {
            std::fill(acc.begin(), acc.end(), 0.0);
            for (int t = 0; t < k; ++t) {
                const float* src = tmp.data() + rowValues * std::size_t(reflect101(y + t - r, h));
                for (std::size_t i = 0; i < rowValues; ++i) acc[i] += taps[std::size_t(t)] * src[i];
            }
            float* out = layer.data() + rowValues * std::size_t(y);
            for (std::size_t i = 0; i < rowValues; ++i)
                if (mask >> (i % 3) & 1u) out[i] = static_cast<float>(acc[i]);
        }
    });
}

}  // namespace

std::array<std::uint8_t, 256> fogTable(const FogStep& s) {
    std::array<std::uint8_t, 256> t{};
    for (int v = 0; v < 256; ++v) {
        const float b = std::fma(255.0f, s.alpha, static_cast<float>(v) * s.beta);
        t[std::size_t(v)] = static_cast<std::uint8_t>(std::clamp(std::nearbyint(b), 0.0f, 255.0f));
    }
    return t;
}

std::array<std::uint8_t, 256> shadowTable(double darkness) {
    std::array<std::uint8_t, 256> t{};
    for (std::size_t v = 0; v < 256; ++v)
        t[v] = static_cast<std::uint8_t>(std::clamp(double(v) * darkness, 0.0, 255.0));
    return t;
}

// RandomFog's particles (FogStep): each particle's disc, row by row, in the particles' order (a
// pixel's blends happen in that order whichever rows a thread takes).
void applyFog(Image& img, const FogStep& s, const RowLoop& loop) {
    const int w = img.width, h = img.height;
    const std::size_t cn = std::size_t(img.channels);
    const std::array<std::uint8_t, 256> blended = fogTable(s);
    // Each row's runs, in the particles' order (a thin fog has hundreds of thousands of tiny ones);
    // raster::filledCircle gives each row of a disc once.
    std::vector<std::vector<std::array<int, 2>>> rows(static_cast<std::size_t>(h));
    for (const auto& pt : s.particles)
        raster::filledCircle(w, h, {pt[0], pt[1]}, pt[2], [&](int y, int x0, int x1) {
            rows[std::size_t(y)].push_back({x0, x1});
        });
    loop(h, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y) {
            std::uint8_t* row = img.row(y);
            for (const auto& [x0, x1] : rows[std::size_t(y)])
                for (int x = x0; x <= x1; ++x)
                    for (std::size_t c = 0; c < 3; ++c) {
                        std::uint8_t& v = row[std::size_t(x) * cn + c];
                        v = blended[v];
                    }
        }
    });
}

// RandomShadow's polygons (ShadowStep), one after the other: each marks the pixels cv2.fillPoly
// covers in a mask (a pixel its spans reach twice is darkened once), then darkens them by a table.
void applyShadow(Image& img, const ShadowStep& s, const RowLoop& loop) {
    const int w = img.width, h = img.height;
    const std::size_t cn = std::size_t(img.channels);
    std::vector<std::uint8_t> mask(std::size_t(w) * std::size_t(h), 0);
    std::uint8_t mark = 0;
    for (const ShadowStep::Polygon& poly : s.polygons) {
        if (++mark == 0) {  // 255 polygons marked: start the marks again
            std::fill(mask.begin(), mask.end(), 0);
            mark = 1;
        }
        std::vector<raster::Point> pts;
        for (const auto& v : poly.vertices) pts.push_back({v[0], v[1]});
        int top = h, bottom = -1;
        raster::fillPoly(w, h, pts, 8, [&](int y, int x0, int x1) {
            std::fill(mask.begin() + std::ptrdiff_t(std::size_t(y) * std::size_t(w) + std::size_t(x0)),
                      mask.begin() + std::ptrdiff_t(std::size_t(y) * std::size_t(w) + std::size_t(x1) + 1),
                      mark);
            top = std::min(top, y);
            bottom = std::max(bottom, y);
        });
        if (bottom < top) continue;
        const std::array<std::uint8_t, 256> darker = shadowTable(poly.darkness);
        loop(bottom - top + 1, [&](int r0, int r1) {
            for (int y = top + r0; y < top + r1; ++y) {
                std::uint8_t* row = img.row(y);
                const std::uint8_t* m = mask.data() + std::size_t(y) * std::size_t(w);
                for (std::size_t x = 0; x < std::size_t(w); ++x)
                    if (m[x] == mark)
                        for (std::size_t c = 0; c < 3; ++c) row[x * cn + c] = darker[row[x * cn + c]];
            }
        });
    }
}

// RandomRain (RainStep): the drops on a black layer, the layer blurred, added, then the brightness.
void applyRain(Image& img, const RainStep& s, const RowLoop& loop) {
    const int w = img.width, h = img.height;
    const std::size_t cn = std::size_t(img.channels), rowValues = std::size_t(w) * 3;
    if (s.lines.empty()) return;  // the library returns the image as it is: no drops, no dimming
    std::vector<std::uint8_t> layer(rowValues * std::size_t(h), 0);
    rainDrops(s, w, h, [&](int y, int x0, int x1) {
        std::uint8_t* p = layer.data() + rowValues * std::size_t(y);
        for (int x = x0; x <= x1; ++x)
            for (std::size_t c = 0; c < 3; ++c) p[std::size_t(x) * 3 + c] = s.colour[c];
    });
    if (s.blur > 1) boxBlurBytes(layer.data(), w, h, 3, rowValues, s.blur, loop);
    const std::array<std::uint8_t, 256> darker = rainDarkerTable(s.brightness);
    const bool dim = s.brightness != 1.0;
    loop(h, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y) {
            std::uint8_t* row = img.row(y);
            const std::uint8_t* l = layer.data() + rowValues * std::size_t(y);
            if (cn == 3) {  // cv2.add, then cv2.multiply as a table: two vector passes over the row
                cpu::addSaturated(row, l, rowValues);
                if (dim) cpu::lookup(row, row, rowValues, darker);
                continue;
            }
            for (std::size_t x = 0; x < std::size_t(w); ++x)
                for (std::size_t c = 0; c < 3; ++c) {
                    std::uint8_t& v = row[x * cn + c];
                    const std::uint8_t sum = static_cast<std::uint8_t>(std::min(255, v + l[x * 3 + c]));
                    v = dim ? darker[sum] : sum;
                }
        }
    });
}

// RandomSunFlare's overlay method (FlareStep): per pixel, the overlay's value and the result's
// through every blend (each blend covers the whole image: a pixel off a circle still moves towards
// the overlay wherever an earlier circle left the two apart). A pixel no disc covers never changes.
void applyOverlayFlare(Image& img, const FlareStep& s, const RowLoop& loop) {
    const int w = img.width, h = img.height;
    const auto nCircles = std::uint32_t(s.circles.size());
    const std::vector<std::vector<DiscRun>> rows =
        discRuns(s.sun, nCircles, w, h, discRuns(s.circles, 0, w, h));
    std::vector<const FlareStep::Circle*> all;
    for (const auto& c : s.circles) all.push_back(&c);
    for (const auto& c : s.sun) all.push_back(&c);
    // The discs as cpu::FlareDiscs' arrays (the runs filled in per row).
    std::vector<std::int32_t> red, green, blue;
    std::vector<float> alpha, beta;
    for (const FlareStep::Circle* c : all) {
        red.push_back(c->colour[0]);
        green.push_back(c->colour[1]);
        blue.push_back(c->colour[2]);
        alpha.push_back(c->alpha);
        beta.push_back(c->beta);
    }
    loop(h, [&](int y0, int y1) {
        std::vector<std::int32_t> runX0(all.size()), runX1(all.size());
        const cpu::FlareDiscs discs{runX0.data(), runX1.data(), red.data(), green.data(), blue.data(),
                                    alpha.data(), beta.data(),  all.size(), nCircles};
        for (int y = y0; y < y1; ++y) {
            const auto& runs = rows[std::size_t(y)];
            if (runs.empty()) continue;
            int lo = w, hi = -1;
            std::fill(runX0.begin(), runX0.end(), w);
            std::fill(runX1.begin(), runX1.end(), -1);
            for (const DiscRun& r : runs) {  // a disc's runs on a row are nested spans about its centre
                runX0[r.disc] = std::min(runX0[r.disc], r.x0);
                runX1[r.disc] = std::max(runX1[r.disc], r.x1);
                lo = std::min(lo, r.x0);
                hi = std::max(hi, r.x1);
            }
            // The sun's overlay starts from the result (discs.restart); see cpu/flare_rows.h.
            cpu::flareOverlayRow(img.row(y), img.channels, lo, hi, discs);
        }
    });
}

// RandomSunFlare's physics_based method (FlareStep), as add_sun_flare_physics_based computes it.
std::vector<double> gaussianFloatTaps(double sigma) {
    const int k = static_cast<int>(std::lround(sigma * 8 + 1)) | 1, r = k / 2;
    std::vector<double> taps(static_cast<std::size_t>(k));
    double sum = 0;
    for (int i = 0; i < k; ++i) {
        const double x = i - r;
        taps[std::size_t(i)] = std::exp(-0.5 / (sigma * sigma) * x * x);
        sum += taps[std::size_t(i)];
    }
    for (double& t : taps) t = static_cast<float>(t / sum);
    return taps;
}

FlareLayerKeys physicsFlareKeys(const FlareStep& s, int w, int h) {
    FlareLayerKeys k;
    k.keys.assign(std::size_t(w) * std::size_t(h), 0);
    k.colours.push_back({0, 0, 0});
    const auto painter = [&](const Rgb& colour) {
        k.colours.push_back(colour);
        const auto key = static_cast<std::uint32_t>(k.colours.size() - 1);
        return [&k, key, w](int y, int x0, int x1) {
            std::fill(k.keys.begin() + std::ptrdiff_t(y) * w + x0,
                      k.keys.begin() + std::ptrdiff_t(y) * w + x1 + 1, key);
        };
    };
    raster::filledCircle(w, h, {s.x, s.y}, s.radius, painter(s.colour));
    const double reach = std::max(w, h);
    for (const int degrees : {0, 45, 90, 135}) {  // np.radians, np.cos, np.sin, then int()
        const double a = degrees * (std::numbers::pi / 180);
        const raster::Point end{static_cast<int>(s.x + std::cos(a) * reach),
                                static_cast<int>(s.y + std::sin(a) * reach)};
        raster::line(w, h, {s.x, s.y}, end, 2, 8, painter(s.colour));
    }
    for (const auto& c : s.circles) raster::filledCircle(w, h, {c.x, c.y}, c.radius, painter(c.colour));
    return k;
}

void applyPhysicsFlare(Image& img, const FlareStep& s, const RowLoop& loop) {
    const int w = img.width, h = img.height;
    const std::size_t cn = std::size_t(img.channels), rowValues = std::size_t(w) * 3;
    std::vector<float> layer(rowValues * std::size_t(h), 0.0f);
    const FlareLayerKeys keys = physicsFlareKeys(s, w, h);
    for (std::size_t i = 0; i < keys.keys.size(); ++i)
        for (std::size_t c = 0; c < 3; ++c) layer[i * 3 + c] = keys.colours[keys.keys[i]][c];
    gaussianFloat(layer, w, h, 15, 7u, loop);
    const double fade = physicsFlareFade(w, h);
    loop(h, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y) {
            float* p = layer.data() + rowValues * std::size_t(y);
            const long long dy = y - s.y;
            for (int x = 0; x < w; ++x) {
                const long long dx = x - s.x;
                const double m = 1 - std::clamp(std::sqrt(double(dx * dx + dy * dy)) / fade, 0.0, 1.0);
                for (std::size_t c = 0; c < 3; ++c)
                    p[std::size_t(x) * 3 + c] = static_cast<float>(double(p[std::size_t(x) * 3 + c]) * m);
            }
        }
    });
    gaussianFloat(layer, w, h, 3, 1u, loop);  // the first channel (R here; the library's comment says blue)
    gaussianFloat(layer, w, h, 5, 4u, loop);
    loop(h, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y) {
            std::uint8_t* row = img.row(y);
            const float* f = layer.data() + rowValues * std::size_t(y);
            for (std::size_t x = 0; x < std::size_t(w); ++x)
                for (std::size_t c = 0; c < 3; ++c) {
                    const float product = static_cast<float>(255 - row[x * cn + c]) * (255.0f - f[x * 3 + c]);
                    const float v = 255.0f - product / 255.0f;
                    row[x * cn + c] = static_cast<std::uint8_t>(std::clamp(v, 0.0f, 255.0f));  // truncated
                }
        }
    });
}

}  // namespace auglab::cpu_drawn
