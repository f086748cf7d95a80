// CPU kernels of the pixel ops. Each reads its constants from the plan step; colour maths touches
// RGB only and leaves alpha as it is.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "cpu/colour_rows.h"
#include "cpu/lab_rows.h"
#include "cpu/lut.h"
#include "cpu/median_rows.h"
#include "cpu/noise_rows.h"
#include "cpu_backend.h"
#include "cpu_convolve_fma.h"
#include "cpu_drawn_ops.h"
#include "error.h"
#include "host_steps.h"
#include "shared_maths.h"

namespace auglab {

namespace {

/// A table per colour channel (R, G, B); alpha kept.
void channelLutRows(Image& img, const std::array<Lut, 3>& luts, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
        cpu::lookupChannels(img.row(y), img.row(y), static_cast<std::size_t>(img.width), img.channels, luts);
}

void lutRows(Image& img, const Lut& lut, int y0, int y1) {
    const std::size_t rowBytes = static_cast<std::size_t>(img.width) * 3;
    if (img.channels == 3 && img.stride == rowBytes && y1 > y0) {  // the rows as one run
        cpu::lookup(img.row(y0), img.row(y0), rowBytes * static_cast<std::size_t>(y1 - y0), lut);
        return;
    }
    for (int y = y0; y < y1; ++y) {
        std::uint8_t* p = img.row(y);
        if (img.channels == 3)  // every byte of an RGB row is a colour value
            cpu::lookup(p, p, static_cast<std::size_t>(img.width) * 3, lut);
        else  // RGBA: alpha is not a colour
            cpu::lookupChannels(p, p, static_cast<std::size_t>(img.width), img.channels, {lut, lut, lut});
    }
}

void hsvRows(Image& img, const HsvLuts& l, int y0, int y1) {
    // The widened, analysed tables of the last step this thread ran: a step's strips of rows reuse
    // them (comparing 768 bytes costs less than widening and analysing them again).
    thread_local struct {
        bool valid = false;
        std::array<std::uint8_t, 256> hue{}, sat{}, val{};
        cpu::HsvTables32 t;
    } cache;
    if (!cache.valid || cache.hue != l.hue || cache.sat != l.sat || cache.val != l.val) {
        std::copy(l.hue.begin(), l.hue.end(), cache.t.hue.begin());
        std::copy(l.sat.begin(), l.sat.end(), cache.t.sat.begin());
        std::copy(l.val.begin(), l.val.end(), cache.t.val.begin());
        cpu::analyseHsvTables(cache.t);
        cache.hue = l.hue;
        cache.sat = l.sat;
        cache.val = l.val;
        cache.valid = true;
    }
    for (int y = y0; y < y1; ++y)
        cpu::hsvPixels(img.row(y), static_cast<std::size_t>(img.width), img.channels, cache.t);
}

void grayRows(Image& img, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
        cpu::grayPixels(img.row(y), img.row(y), static_cast<std::size_t>(img.width), img.channels);
}

void grayBlendRows(Image& img, const GrayBlendStep& s, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
        cpu::grayBlendPixels(img.row(y), static_cast<std::size_t>(img.width), img.channels, s.alpha, s.beta);
}

}  // namespace

double stepMean(const Image& img, const MeanBrightnessStep& s) {
    std::uint64_t sum = 0;
    std::vector<std::uint8_t> line(img.channels == 3 && s.gray ? std::size_t(img.width) * 3 : 0);
    for (int y = 0; y < img.height; ++y) {
        const std::uint8_t* p = img.row(y);
        if (img.channels == 3 && !s.gray) {  // R + G + B of every pixel: every byte of the row
            sum += cpu::sumBytes(p, static_cast<std::size_t>(img.width) * 3);
        } else if (img.channels == 3) {  // a gray copy of the row holds each gray value three times
            std::memcpy(line.data(), p, line.size());
            cpu::grayPixels(line.data(), line.data(), static_cast<std::size_t>(img.width), 3);
            sum += cpu::sumBytes(line.data(), line.size()) / 3;
        } else if (s.gray) {
            for (int x = 0; x < img.width; ++x, p += img.channels) sum += grayOf(p[0], p[1], p[2]);
        } else {
            for (int x = 0; x < img.width; ++x, p += img.channels) sum += p[0] + p[1] + p[2];
        }
    }
    return meanOfSum(s, static_cast<double>(sum), double(img.width) * img.height);
}

std::array<Lut, 3> equalizeTables(const Image& img, const EqualizeStep& s) {
    std::array<std::array<std::uint64_t, 256>, 3> hist{};
    for (int y = 0; y < img.height; ++y) {
        const std::uint8_t* p = img.row(y);
        if (s.byChannels) {
            for (int x = 0; x < img.width; ++x, p += img.channels) {
                ++hist[0][p[0]];
                ++hist[1][p[1]];
                ++hist[2][p[2]];
            }
        } else {
            for (int x = 0; x < img.width; ++x, p += img.channels) {
                int l, cr, cb;
                rgbToYCrCb8(p[0], p[1], p[2], l, cr, cb);
                ++hist[0][std::size_t(l)];
            }
        }
    }
    if (!s.byChannels) return {equalizeLut(hist[0], s.pil), {}, {}};
    return {equalizeLut(hist[0], s.pil), equalizeLut(hist[1], s.pil), equalizeLut(hist[2], s.pil)};
}

namespace {

// An image's Lab8 planes (L, a, b), each w * h bytes.
struct LabPlanes {
    std::vector<std::uint8_t> L, a, b;
};

LabPlanes labPlanesOf(const Image& img, const RowLoop& loop) {
    const std::size_t w = std::size_t(img.width), n = w * std::size_t(img.height);
    LabPlanes lab{std::vector<std::uint8_t>(n), std::vector<std::uint8_t>(n), std::vector<std::uint8_t>(n)};
    loop(img.height, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y) {
            const std::size_t at = std::size_t(y) * w;
            cpu::labPlanes(img.row(y), w, img.channels, lab.L.data() + at, lab.a.data() + at, lab.b.data() + at);
        }
    });
    return lab;
}

// A ClaheStep's tables: the grid's tile size and one 256-entry table per tile, row by row.
struct ClaheTables {
    int tileWidth = 0, tileHeight = 0;
    std::vector<std::uint8_t> luts;  ///< tilesX * tilesY tables of 256 entries
};

// The tables of a CLAHE of the lightness plane `light` (w x h).
ClaheTables claheTablesOf(const std::uint8_t* light, int w, int h, const ClaheStep& s, const RowLoop& loop) {
    const int tx = s.tilesX, ty = s.tilesY;
    ClaheTables t;
    shared::claheTileSize(w, h, tx, ty, t.tileWidth, t.tileHeight);
    const int tileW = t.tileWidth, tileH = t.tileHeight;
    std::vector<int> col(static_cast<std::size_t>(tileW * tx)), row(static_cast<std::size_t>(tileH * ty));
    for (std::size_t x = 0; x < col.size(); ++x) col[x] = cpu_drawn::reflect101(int(x), w);
    for (std::size_t y = 0; y < row.size(); ++y) row[y] = cpu_drawn::reflect101(int(y), h);
    const int area = tileW * tileH;
    const float lutScale = 255.0f / static_cast<float>(area);
    const int clip = shared::claheClip(s.clipLimit, area);
    t.luts.resize(static_cast<std::size_t>(tx * ty) * 256);
    loop(tx * ty, [&](int k0, int k1) {
        for (int k = k0; k < k1; ++k) {
            const int x0 = (k % tx) * tileW, y0 = (k / tx) * tileH;
            // Four histograms summed at the end: consecutive equal values then do not wait on
            // each other's increments.
            int hist[4][256] = {};
            const int inside = std::max(0, std::min(tileW, w - x0));  // columns not padded
            for (int y = y0; y < y0 + tileH; ++y) {
                const std::uint8_t* l = light + static_cast<std::size_t>(row[std::size_t(y)]) * std::size_t(w);
                const std::uint8_t* in = l + x0;
                int x = 0;
                for (; x + 4 <= inside; x += 4) {
                    ++hist[0][in[x]];
                    ++hist[1][in[x + 1]];
                    ++hist[2][in[x + 2]];
                    ++hist[3][in[x + 3]];
                }
                for (; x < inside; ++x) ++hist[0][in[x]];
                for (x = x0 + inside; x < x0 + tileW; ++x) ++hist[0][l[col[std::size_t(x)]]];
            }
            for (int v = 0; v < 256; ++v) hist[0][v] += hist[1][v] + hist[2][v] + hist[3][v];
            shared::claheTable(hist[0], clip, lutScale, t.luts.data() + static_cast<std::size_t>(k) * 256);
        }
    });
    return t;
}

}  // namespace

FancyPcaStats fancyPcaStats(const Image& img, const FancyPcaStep& s, const RowLoop& loop) {
    const int w = img.width, h = img.height, cn = img.channels;
    std::array<float, 256> unit{};  // the library's to_float table: float32 k / 255
    for (std::size_t k = 0; k < 256; ++k) unit[k] = shared::unitOf(int(k));
    // numpy's float32 mean over the pixels: one running float32 sum per channel, in pixel order.
    std::array<float, 3> sum{};
    for (int y = 0; y < h; ++y) {
        const std::uint8_t* p = img.row(y);
        for (int x = 0; x < w; ++x, p += cn)
            for (std::size_t c = 0; c < 3; ++c) sum[c] += unit[p[c]];
    }
    const double n = double(w) * double(h);
    FancyPcaStats st;
    for (std::size_t c = 0; c < 3; ++c) st.mean[c] = static_cast<float>(double(sum[c]) / n);
    // np.cov of the centred float32 values, in float64 (centred again by their own float64 mean). The
    // sums go row by row, then over the rows in order: the same for any thread count.
    std::vector<std::array<double, 3>> rowSums(std::size_t(h), std::array<double, 3>{});
    std::vector<std::array<double, 6>> rowProducts(std::size_t(h), std::array<double, 6>{});
    const auto centred = [&](const std::uint8_t* p, std::size_t c) {
        return double(unit[p[c]] - st.mean[c]);
    };
    loop(h, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y) {
            const std::uint8_t* p = img.row(y);
            for (int x = 0; x < w; ++x, p += cn)
                for (std::size_t c = 0; c < 3; ++c) rowSums[std::size_t(y)][c] += centred(p, c);
        }
    });
    std::array<double, 3> avg{};
    for (const auto& r : rowSums)
        for (std::size_t c = 0; c < 3; ++c) avg[c] += r[c];
    for (double& a : avg) a /= n;
    constexpr std::size_t kPairs[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
    loop(h, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y) {
            const std::uint8_t* p = img.row(y);
            for (int x = 0; x < w; ++x, p += cn) {
                const std::array<double, 3> d{centred(p, 0) - avg[0], centred(p, 1) - avg[1],
                                              centred(p, 2) - avg[2]};
                for (std::size_t k = 0; k < 6; ++k)
                    rowProducts[std::size_t(y)][k] += d[kPairs[k][0]] * d[kPairs[k][1]];
            }
        }
    });
    std::array<double, 6> products{};
    for (const auto& r : rowProducts)
        for (std::size_t k = 0; k < 6; ++k) products[k] += r[k];
    shared::fancyPcaMatrix(products.data(), n, s.alpha.data(), st.m.data());
    return st;
}

namespace {

using cpu_drawn::reflect101;

// ISONoise (IsoNoiseStep) over the image: the count thresholds of the image's rate tabled once.
void applyIsoNoise(Image& img, const IsoNoiseStep& s, const RowLoop& loop) {
    const IsoNoise noise(s.seed, isoNoiseLambda(img, s.intensity));
    const std::vector<std::uint32_t> thresholds = cpu::isoNoiseThresholds(noise.lambda(), noise.p0());
    const cpu::IsoNoiseRows rows{s.seed, thresholds.data(), thresholds.size(), static_cast<float>(s.colorSigma),
                                 static_cast<float>(s.intensity)};
    loop(img.height, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y)
            cpu::isoNoisePixels(img.row(y), 0, y, std::size_t(img.width), img.channels, rows);
    });
}

// The luma through `lut`, Cr and Cb kept.
void lumaLutRows(Image& img, const Lut& lut, int y0, int y1) {
    const int cn = img.channels;
    for (int y = y0; y < y1; ++y) {
        std::uint8_t* p = img.row(y);
        for (int x = 0; x < img.width; ++x, p += cn) {
            int l, cr, cb, r, g, b;
            rgbToYCrCb8(p[0], p[1], p[2], l, cr, cb);
            yCrCbToRgb8(lut[std::size_t(l)], cr, cb, r, g, b);
            p[0] = static_cast<std::uint8_t>(r);
            p[1] = static_cast<std::uint8_t>(g);
            p[2] = static_cast<std::uint8_t>(b);
        }
    }
}

void channelMatrixRows(Image& img, const ChannelMatrixStep& s, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
        cpu::channelMatrixPixels(img.row(y), img.row(y), static_cast<std::size_t>(img.width), img.channels, s.m);
}

// CLAHE of the lightness (ClaheStep), as cv::CLAHE::apply on the L of OpenCV's 8-bit Lab: the Lab
// planes once, the tiles' tables from L, then each row's new L and its RGB (cpu::claheRow).
void applyClahe(Image& img, const ClaheStep& s, const RowLoop& loop) {
    const LabPlanes lab = labPlanesOf(img, loop);
    const int w = img.width, h = img.height;
    const ClaheTables t = claheTablesOf(lab.L.data(), w, h, s, loop);
    const std::vector<std::int32_t> luts(t.luts.begin(), t.luts.end());  // widened for gathers
    // Each pixel's new L: the four nearest tiles' tables blended bilinearly in float32 (OpenCV's
    // weights: position / tile size - 0.5, floored; edges clamp to the outer tiles).
    struct Axis {
        std::vector<std::int32_t> t1, t2;
        std::vector<float> a, a1;
    };
    const auto axis = [](int n, int tile, int tiles) {
        Axis ax{std::vector<std::int32_t>(std::size_t(n)), std::vector<std::int32_t>(std::size_t(n)),
                std::vector<float>(std::size_t(n)), std::vector<float>(std::size_t(n))};
        const float inv = 1.0f / static_cast<float>(tile);
        for (std::size_t i = 0; i < std::size_t(n); ++i) {
            int t1, t2;
            shared::claheAxis(int(i), inv, tiles, t1, t2, ax.a[i], ax.a1[i]);
            ax.t1[i] = t1 * 256;
            ax.t2[i] = t2 * 256;
        }
        return ax;
    };
    const int tx = s.tilesX;
    const Axis ax = axis(w, t.tileWidth, tx), ay = axis(h, t.tileHeight, s.tilesY);
    loop(h, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y) {
            const std::size_t yi = std::size_t(y), at = yi * std::size_t(w);
            cpu::ClaheRow row;
            row.top = luts.data() + static_cast<std::size_t>(ay.t1[yi] * tx);
            row.bottom = luts.data() + static_cast<std::size_t>(ay.t2[yi] * tx);
            row.t1 = ax.t1.data();
            row.t2 = ax.t2.data();
            row.xa = ax.a.data();
            row.xa1 = ax.a1.data();
            row.ya = ay.a[yi];
            row.ya1 = ay.a1[yi];
            cpu::claheRow(lab.L.data() + at, lab.a.data() + at, lab.b.data() + at, img.row(y), std::size_t(w),
                          img.channels, row);
        }
    });
}

// FancyPCA (FancyPcaStep), as Albumentations' fancy_pca computes it on v / 255 in float32.
void applyFancyPca(Image& img, const FancyPcaStep& s, const RowLoop& loop) {
    const FancyPcaStats st = fancyPcaStats(img, s, loop);
    const int cn = img.channels;
    loop(img.height, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y) {
            std::uint8_t* p = img.row(y);
            for (int x = 0; x < img.width; ++x, p += cn) {
                int px[3] = {p[0], p[1], p[2]};
                shared::fancyPcaPixel(px, st.mean.data(), st.m.data());
                for (int c = 0; c < 3; ++c) p[c] = static_cast<std::uint8_t>(px[c]);
            }
        }
    });
}

// v rounded to nearest even and clipped to 0..255, as std::nearbyint in the default rounding mode
// would, without its library call on baseline x86-64 (no SSE4.1 round): adding and subtracting
// 1.5 * 2^23 leaves the integer float arithmetic rounds to, for |v| < 2^22 (v is clipped first).
inline std::uint8_t roundedByte(float v) {
    const float c = std::clamp(v, -1.0f, 256.0f);
    const float shifted = c + 12582912.0f;  // not folded away: exact float maths (no -ffast-math)
    const float r = shifted - 12582912.0f;
    return static_cast<std::uint8_t>(std::clamp(static_cast<int>(r), 0, 255));
}

// n RGB floats to the colour bytes of n / 3 pixels of `cn` channels, rounded as roundedByte.
void storeRounded(const float* __restrict acc, std::uint8_t* __restrict out, std::size_t n, int cn) {
    if (cn == 3) {
        cpu::floatsToBytes(acc, out, n);
    } else {
        for (std::size_t i = 0; i < n; ++i) out[i / 3 * std::size_t(cn) + i % 3] = roundedByte(acc[i]);
    }
}

// Separable Gaussian like cv::sepFilter2D on 8-bit data: a float row pass into a float buffer, a
// float column pass, rounded to nearest. Border reflect_101 on both axes. Each output value sums
// its taps in order, a multiply then an add each (cpu::weightedSum: a vector of sums in a register
// over all taps).
void applyBlur(Image& img, const std::vector<float>& k, const RowLoop& loop) {
    const int w = img.width, h = img.height, ks = static_cast<int>(k.size()), r = ks / 2, cn = img.channels;
    const std::size_t rowFloats = static_cast<std::size_t>(w) * 3;
    std::vector<float> tmp(rowFloats * static_cast<std::size_t>(h));
    loop(h, [&](int y0, int y1) {
        // The row as RGB floats with r pixels of reflect_101 border on each side.
        std::vector<float> padded(static_cast<std::size_t>(w + 2 * r) * 3);
        std::vector<const float*> taps(static_cast<std::size_t>(ks));
        for (int y = y0; y < y1; ++y) {
            const std::uint8_t* src = img.row(y);
            const bool inside = cn == 3;  // an RGB row converts in one pass; the borders after it
            if (inside) cpu::bytesToFloats(src, padded.data() + static_cast<std::size_t>(r) * 3, rowFloats);
            for (int x = -r; x < w + r; ++x) {
                if (inside && x == 0 && w > 0) x = w;  // converted above
                if (x >= w + r) break;
                const std::uint8_t* p = src + static_cast<std::size_t>(reflect101(x, w)) * cn;
                float* d = padded.data() + static_cast<std::size_t>(x + r) * 3;
                d[0] = p[0];
                d[1] = p[1];
                d[2] = p[2];
            }
            for (int t = 0; t < ks; ++t)
                taps[std::size_t(t)] = padded.data() + static_cast<std::size_t>(t) * 3;
            cpu::weightedSum(taps.data(), k.data(), ks, tmp.data() + rowFloats * static_cast<std::size_t>(y),
                             rowFloats);
        }
    });
    loop(h, [&](int y0, int y1) {
        std::vector<float> acc(rowFloats);
        std::vector<const float*> taps(static_cast<std::size_t>(ks));
        for (int y = y0; y < y1; ++y) {
            for (int t = 0; t < ks; ++t)
                taps[std::size_t(t)] =
                    tmp.data() + rowFloats * static_cast<std::size_t>(reflect101(y + t - r, h));
            cpu::weightedSum(taps.data(), k.data(), ks, acc.data(), rowFloats);
            storeRounded(acc.data(), img.row(y), rowFloats, cn);
        }
    });
}

// The 3 x 3 to 9 x 9 medians by sorting networks on vectors of bytes (cpu/median_rows.h), border
// replicate; alpha is not a colour and stays.
void medianNetworkRows(Image& img, const Image& src, int ksize, const RowLoop& loop) {
    const int w = img.width, h = img.height, r = ksize / 2;
    const std::size_t c = static_cast<std::size_t>(img.channels), n = static_cast<std::size_t>(w) * c;
    const std::size_t border = static_cast<std::size_t>(r) * c;
    loop(h, [&](int y0, int y1) {
        // Each source row once with its replicated border, as many as the window needs.
        std::vector<std::uint8_t> padded((n + 2 * border) * static_cast<std::size_t>(ksize));
        std::vector<std::uint8_t> scratch(cpu::medianScratchBytes(n, ksize, c)), row(n);
        std::vector<const std::uint8_t*> window(static_cast<std::size_t>(ksize));
        const auto fill = [&](int sy, std::uint8_t* dst) {
            const std::uint8_t* s = src.row(std::clamp(sy, 0, h - 1));
            for (int t = 0; t < r; ++t) std::memcpy(dst + static_cast<std::size_t>(t) * c, s, c);
            std::memcpy(dst + border, s, n);
            for (int t = 0; t < r; ++t) std::memcpy(dst + border + n + static_cast<std::size_t>(t) * c, s + n - c, c);
        };
        // A ring of ksize padded rows: row y + t - r lives in slot (y + t) mod ksize.
        const std::size_t span = n + 2 * border;
        const auto slot = [&](int y) {
            return padded.data() + static_cast<std::size_t>(((y % ksize) + ksize) % ksize) * span;
        };
        for (int t = 0; t < ksize - 1; ++t) fill(y0 + t - r, slot(y0 + t));
        for (int y = y0; y < y1; ++y) {
            fill(y + r, slot(y + ksize - 1));
            for (int t = 0; t < ksize; ++t) window[static_cast<std::size_t>(t)] = slot(y + t);
            std::uint8_t* out = img.row(y);
            if (c == 4) {
                cpu::medianRow(window.data(), ksize, n, c, scratch.data(), row.data());
                for (std::size_t i = 0; i < n; ++i)
                    if (i % c < 3) out[i] = row[i];
            } else {
                cpu::medianRow(window.data(), ksize, n, c, scratch.data(), out);
            }
        }
    });
}

// cv2.medianBlur on 8-bit data (border replicate): windows up to 9 x 9 by the networks, larger ones
// by a sliding histogram per channel (Huang): each step along a row removes the window's left column
// and adds its new right column; the median is the smallest value v with more than k*k/2 values <= v,
// tracked with the count of values below it.
void applyMedian(Image& img, int ksize, const RowLoop& loop) {
    const int w = img.width, h = img.height, r = ksize / 2, cn = img.channels, half = ksize * ksize / 2;
    if (ksize <= 1 || w == 0 || h == 0) return;
    const Image src = img;
    if (cpu::medianRowSize(ksize)) {
        medianNetworkRows(img, src, ksize, loop);
        return;
    }
    // The sizes by value: the histogram's int stores could otherwise alias captured ints, which the
    // compiler would then read again inside the loops.
    loop(h, [&img, &src, w, h, r, cn, half, ksize](int y0, int y1) {
        std::vector<const std::uint8_t*> rows(static_cast<std::size_t>(ksize));
        for (int y = y0; y < y1; ++y) {
            for (int t = 0; t < ksize; ++t)
                rows[static_cast<std::size_t>(t)] = src.row(std::clamp(y + t - r, 0, h - 1));
            int hist[3][256] = {};
            auto column = [&](int x, int delta) {
                const std::size_t off = static_cast<std::size_t>(std::clamp(x, 0, w - 1)) * cn;
                for (const std::uint8_t* row : rows) {
                    hist[0][row[off]] += delta;
                    hist[1][row[off + 1]] += delta;
                    hist[2][row[off + 2]] += delta;
                }
            };
            for (int x = -r; x <= r; ++x) column(x, 1);
            int med[3], below[3];
            for (int c = 0; c < 3; ++c) {
                int v = 0, count = 0;
                while (count + hist[c][v] <= half) count += hist[c][v++];
                med[c] = v;
                below[c] = count;
            }
            std::uint8_t* out = img.row(y);
            for (int x = 0;; ++x) {
                for (int c = 0; c < 3; ++c)
                    out[static_cast<std::size_t>(x) * cn + c] = static_cast<std::uint8_t>(med[c]);
                if (x + 1 == w) break;
                // Slide: the column leaving and the one entering, then move each median to its place.
                const std::size_t outX = static_cast<std::size_t>(std::clamp(x - r, 0, w - 1)) * cn;
                const std::size_t inX = static_cast<std::size_t>(std::clamp(x + r + 1, 0, w - 1)) * cn;
                for (const std::uint8_t* row : rows)
                    for (int c = 0; c < 3; ++c) {
                        const int a = row[outX + c], b = row[inX + c];
                        --hist[c][a];
                        ++hist[c][b];
                        below[c] += (b < med[c]) - (a < med[c]);
                    }
                for (int c = 0; c < 3; ++c) {
                    int& m = med[c];
                    int& lo = below[c];
                    while (lo > half) lo -= hist[c][--m];
                    while (lo + hist[c][m] <= half) lo += hist[c][m++];
                }
            }
        }
    });
}

// cv2.filter2D on 8-bit data with a float kernel: the non-zero taps in row-major order, each a fused
// multiply-add in float as OpenCV's vector loop does it (measured: exact where OpenCV convolves
// directly, kernels under 13 x 13), border reflect_101, rounded to nearest even. The rows are
// cpu_convolve_rows.h's, vectorised where the CPU has FMA.
void applyConvolve(Image& img, const ConvolveStep& k, const RowLoop& loop) {
    const int w = img.width, h = img.height, r = k.ksize / 2, cn = img.channels;
    std::vector<convolve_rows::Tap> taps;
    for (int i = 0; i < k.ksize; ++i)
        for (int j = 0; j < k.ksize; ++j)
            if (const float v = k.kernel[static_cast<std::size_t>(i * k.ksize + j)]; v != 0.0f)
                taps.push_back({j - r, i - r, v});
    if (w == 0 || h == 0) return;
    if (taps.empty()) {  // an all-zero kernel: black, as filter2D gives
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) std::fill_n(img.at(x, y), 3, std::uint8_t{0});
        return;
    }
    // The source with r columns of reflect_101 border on each side.
    const std::size_t rowBytes = static_cast<std::size_t>(w + 2 * r) * cn;
    std::vector<std::uint8_t> padded(rowBytes * static_cast<std::size_t>(h));
    for (int y = 0; y < h; ++y) {
        const std::uint8_t* src = img.row(y);
        std::uint8_t* dst = padded.data() + rowBytes * static_cast<std::size_t>(y);
        std::memcpy(dst + static_cast<std::size_t>(r) * cn, src, static_cast<std::size_t>(w) * cn);
        for (int x = -r; x < w + r; x = x == -1 ? w : x + 1)  // the borders
            std::copy_n(src + static_cast<std::size_t>(reflect101(x, w)) * cn, cn,
                        dst + static_cast<std::size_t>(x + r) * cn);
    }
    const auto paddedRow = [&](int y) -> const std::uint8_t* {
        return padded.data() + rowBytes * static_cast<std::size_t>(y);
    };
    const auto outRow = [&](int y) { return img.row(y); };
    const bool fma = cpuHasFma();
    const std::size_t n = static_cast<std::size_t>(w) * cn;
    std::vector<float> weights;
    for (const convolve_rows::Tap& t : taps) weights.push_back(t.weight);
    loop(h, [&](int y0, int y1) {
        // Every tap's source row, and the sums kept in vector registers over all taps.
        std::vector<const std::uint8_t*> rows(taps.size());
        std::vector<std::uint8_t> line(cn == 3 ? 0 : n);
        bool fused = true;
        for (int y = y0; y < y1 && fused; ++y) {
            for (std::size_t t = 0; t < taps.size(); ++t)
                rows[t] =
                    paddedRow(reflect101(y + taps[t].dy, h)) + static_cast<std::size_t>(taps[t].dx + r) * cn;
            std::uint8_t* o = img.row(y);
            fused = cpu::fusedConvolveBytes(rows.data(), weights.data(), int(taps.size()),
                                            cn == 3 ? o : line.data(), n);
            if (fused && cn == 4)  // alpha is not a colour
                for (std::size_t i = 0; i < n; ++i)
                    if (i % 4 != 3) o[i] = line[i];
        }
        if (fused) return;
        std::vector<float> acc(static_cast<std::size_t>(w) * cn);
        if (fma)
            convolveRowsFma(taps, w, h, cn, r, y0, y1, paddedRow, outRow, acc.data(), reflect101);
        else
            convolve_rows::rows(taps, w, h, cn, r, y0, y1, paddedRow, outRow, acc.data(), reflect101);
    });
}

void noiseRows(Image& img, const NoiseStep& n, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
        cpu::gaussNoisePixels(img.row(y), 0, y, static_cast<std::size_t>(img.width), img.channels, n.seed, n.mean255,
                              n.std255, n.perChannel);
}

void dropoutRows(Image& img, const DropoutStep& d, int rows0, int rows1) {
    const int cn = img.channels;
    for (std::size_t i = 0; i < d.holes.size(); ++i) {
        const Hole& hole = d.holes[i];
        const int x0 = std::clamp(hole.x, 0, img.width), x1 = std::clamp(hole.x + hole.w, 0, img.width);
        const int y0 = std::clamp(hole.y, rows0, rows1), y1 = std::clamp(hole.y + hole.h, rows0, rows1);
        const Rgb colour = d.mode == Fill::Mode::RandomUniform ? d.colours[i] : d.fill;
        for (int y = y0; y < y1; ++y) {
            std::uint8_t* p = img.row(y) + static_cast<std::size_t>(x0) * cn;
            for (int x = x0; x < x1; ++x, p += cn) {
                if (d.mode == Fill::Mode::Random) {
                    const auto words = pixelNoiseWords(d.seed, x, y);
                    p[0] = static_cast<std::uint8_t>(words[0]);
                    p[1] = static_cast<std::uint8_t>(words[1]);
                    p[2] = static_cast<std::uint8_t>(words[2]);
                } else {
                    p[0] = colour[0];
                    p[1] = colour[1];
                    p[2] = colour[2];
                }
            }
        }
    }
}

void mixRows(Image& img, const MixStep& m, int y0, int y1) {
    if (!m.partner) throw RuntimeError("a mixing step has no partner image (bindPartners)");
    const Image& b = *m.partner;
    if (b.width != img.width || b.height != img.height || b.channels != img.channels)
        throw RuntimeError("a partner image does not have the output's size and channels");
    const std::size_t n = static_cast<std::size_t>(img.width) * img.channels;
    if (m.paste) {
        const int bx0 = std::clamp(m.box.x, 0, img.width), bx1 = std::clamp(m.box.x + m.box.w, 0, img.width);
        const int by0 = std::clamp(m.box.y, y0, y1), by1 = std::clamp(m.box.y + m.box.h, y0, y1);
        for (int y = by0; y < by1; ++y) std::copy(b.at(bx0, y), b.at(bx1, y), img.at(bx0, y));
        return;
    }
    for (int y = y0; y < y1; ++y) cpu::blendBytes(img.row(y), b.row(y), n, m.weight);
}

}  // namespace

bool hasRowsFrom(const PixelStep& step) {
    return std::holds_alternative<LutStep>(step) || std::holds_alternative<GrayStep>(step) ||
           std::holds_alternative<ChannelMatrixStep>(step);
}

void pixelRowsFrom(const ImageView& src, Image& dst, const PixelStep& step, int y0, int y1) {
    const std::size_t n = static_cast<std::size_t>(dst.width);
    if (const auto* s = std::get_if<LutStep>(&step))
        lutRowsFrom(src, dst, *s, y0, y1);
    else if (std::holds_alternative<GrayStep>(step))
        for (int y = y0; y < y1; ++y) cpu::grayPixels(src.row(y), dst.row(y), n, dst.channels);
    else if (const auto* m = std::get_if<ChannelMatrixStep>(&step))
        for (int y = y0; y < y1; ++y) cpu::channelMatrixPixels(src.row(y), dst.row(y), n, dst.channels, m->m);
    else
        throw RuntimeError("pixelRowsFrom: a step without a form that reads another image");
}

void lutRowsFrom(const ImageView& src, Image& dst, const LutStep& step, int y0, int y1) {
    const bool uniform = step.uniform() && dst.channels == 3;  // compares the tables: once, not per row
    const std::size_t rowBytes = static_cast<std::size_t>(dst.width) * 3;
    if (uniform && src.stride == rowBytes && dst.stride == rowBytes && y1 > y0) {  // the rows as one run
        cpu::lookup(src.row(y0), dst.row(y0), rowBytes * static_cast<std::size_t>(y1 - y0), step.luts[0]);
        return;
    }
    for (int y = y0; y < y1; ++y) {
        if (uniform)
            cpu::lookup(src.row(y), dst.row(y), static_cast<std::size_t>(dst.width) * 3, step.luts[0]);
        else
            cpu::lookupChannels(src.row(y), dst.row(y), static_cast<std::size_t>(dst.width), dst.channels,
                                step.luts);
    }
}

bool rowLocal(const PixelStep& step) {
    return !std::holds_alternative<MeanBrightnessStep>(step) && !std::holds_alternative<BlurStep>(step) &&
           !std::holds_alternative<MedianStep>(step) && !std::holds_alternative<ConvolveStep>(step) &&
           !std::holds_alternative<CompressStep>(step) && !std::holds_alternative<EqualizeStep>(step) &&
           !std::holds_alternative<IsoNoiseStep>(step) && !std::holds_alternative<ClaheStep>(step) &&
           !std::holds_alternative<FancyPcaStep>(step) && !std::holds_alternative<FogStep>(step) &&
           !std::holds_alternative<ShadowStep>(step) && !std::holds_alternative<RainStep>(step) &&
           !std::holds_alternative<FlareStep>(step);
}

// PixelDropoutStep on rows [y0, y1): the dropped values take the step's value, alpha kept.
void pixelDropoutRows(Image& img, const PixelDropoutStep& s, int y0, int y1) {
    const std::size_t w = static_cast<std::size_t>(img.width), cn = static_cast<std::size_t>(img.channels);
    std::vector<std::uint8_t> drop(3 * w);
    for (int y = y0; y < y1; ++y) {
        cpu::pixelDrops(s.seed, s.threshold, s.perChannel, 0, y, w, drop.data());
        std::uint8_t* p = img.row(y);
        for (std::size_t x = 0; x < w; ++x, p += cn)
            for (std::size_t c = 0; c < 3; ++c)
                if (drop[3 * x + c]) p[c] = s.value[c];
    }
}

// SaltPepperStep on rows [y0, y1): white below the salt threshold, black below the pepper one, alpha
// kept.
void saltPepperRows(Image& img, const SaltPepperStep& s, int y0, int y1) {
    const std::size_t w = static_cast<std::size_t>(img.width), cn = static_cast<std::size_t>(img.channels);
    std::vector<std::uint32_t> keys(w);
    for (int y = y0; y < y1; ++y) {
        cpu::pixelKeys(s.seed, 0, y, w, keys.data());
        std::uint8_t* p = img.row(y);
        for (std::size_t x = 0; x < w; ++x, p += cn) {
            if (keys[x] >= s.pepperBelow) continue;
            const std::uint8_t v = keys[x] < s.saltBelow ? 255 : 0;
            p[0] = p[1] = p[2] = v;
        }
    }
}

void applyPixelRows(Image& img, const PixelStep& step, int y0, int y1) {
    if (const auto* s = std::get_if<LutStep>(&step)) {
        if (s->uniform())
            lutRows(img, s->luts[0], y0, y1);
        else
            channelLutRows(img, s->luts, y0, y1);
    } else if (const auto* s = std::get_if<HsvStep>(&step)) {
        hsvRows(img, s->luts, y0, y1);
    } else if (std::holds_alternative<GrayStep>(step)) {
        grayRows(img, y0, y1);
    } else if (const auto* s = std::get_if<ChannelMatrixStep>(&step)) {
        channelMatrixRows(img, *s, y0, y1);
    } else if (const auto* s = std::get_if<GrayBlendStep>(&step)) {
        grayBlendRows(img, *s, y0, y1);
    } else if (const auto* s = std::get_if<NoiseStep>(&step)) {
        noiseRows(img, *s, y0, y1);
    } else if (const auto* s = std::get_if<DropoutStep>(&step)) {
        dropoutRows(img, *s, y0, y1);
    } else if (const auto* s = std::get_if<MixStep>(&step)) {
        mixRows(img, *s, y0, y1);
    } else if (const auto* s = std::get_if<PixelDropoutStep>(&step)) {
        pixelDropoutRows(img, *s, y0, y1);
    } else if (const auto* s = std::get_if<SaltPepperStep>(&step)) {
        saltPepperRows(img, *s, y0, y1);
    }
}

void applyPixelStep(Image& img, const PixelStep& step, const RowLoop& loop) {
    if (const auto* s = std::get_if<MeanBrightnessStep>(&step)) {
        const BrightnessContrastParams p{s->brightness, 0.0, false};
        const Lut lut = brightnessContrastLut(s->alpha, brightnessBeta(p, stepMean(img, *s)));
        loop(img.height, [&](int y0, int y1) { lutRows(img, lut, y0, y1); });
    } else if (const auto* s = std::get_if<IsoNoiseStep>(&step)) {
        applyIsoNoise(img, *s, loop);
    } else if (const auto* s = std::get_if<EqualizeStep>(&step)) {
        const std::array<Lut, 3> luts = equalizeTables(img, *s);
        if (s->byChannels)
            loop(img.height, [&](int y0, int y1) { channelLutRows(img, luts, y0, y1); });
        else
            loop(img.height, [&](int y0, int y1) { lumaLutRows(img, luts[0], y0, y1); });
    } else if (const auto* s = std::get_if<ClaheStep>(&step)) {
        applyClahe(img, *s, loop);
    } else if (const auto* s = std::get_if<FancyPcaStep>(&step)) {
        applyFancyPca(img, *s, loop);
    } else if (const auto* s = std::get_if<FogStep>(&step)) {
        cpu_drawn::applyFog(img, *s, loop);
    } else if (const auto* s = std::get_if<ShadowStep>(&step)) {
        cpu_drawn::applyShadow(img, *s, loop);
    } else if (const auto* s = std::get_if<RainStep>(&step)) {
        cpu_drawn::applyRain(img, *s, loop);
    } else if (const auto* s = std::get_if<FlareStep>(&step)) {
        if (s->physics)
            cpu_drawn::applyPhysicsFlare(img, *s, loop);
        else
            cpu_drawn::applyOverlayFlare(img, *s, loop);
    } else if (const auto* s = std::get_if<BlurStep>(&step)) {
        // A whole odd box (box_blur at full size: k taps of 1/k) is cv2.blur itself: integer sums.
        const std::size_t k = s->kernel.size();
        const bool box = k % 2 == 1 && k > 1 && std::all_of(s->kernel.begin(), s->kernel.end(), [&](float t) {
            return t == 1.0f / static_cast<float>(k);
        });
        if (box && (img.channels == 3 || img.channels == 4))
            cpu_drawn::boxBlurBytes(img.row(0), img.width, img.height, img.channels, img.stride, int(k), loop);
        else
            applyBlur(img, s->kernel, loop);
    } else if (const auto* s = std::get_if<MedianStep>(&step)) {
        applyMedian(img, s->ksize, loop);
    } else if (const auto* s = std::get_if<ConvolveStep>(&step)) {
        applyConvolve(img, *s, loop);
    } else if (const auto* s = std::get_if<CompressStep>(&step)) {
        applyCompress(img, *s);  // one codec call: libjpeg-turbo and libwebp are single-threaded
    } else if (std::holds_alternative<DropoutStep>(step)) {
        applyPixelRows(img, step, 0, img.height);  // a few rectangles: not worth the threads
    } else {
        loop(img.height, [&](int y0, int y1) { applyPixelRows(img, step, y0, y1); });
    }
}

}  // namespace auglab
