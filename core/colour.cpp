#include "colour.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace auglab {

Lut brightnessContrastLut(float alpha, float beta) {
    Lut lut{};
    for (int v = 0; v < 256; ++v) {
        const float product = static_cast<float>(v) * alpha;  // rounded to float before the add
        const float x = product + beta;
        const float clipped = std::clamp(x, 0.0f, 255.0f);
        lut[static_cast<std::size_t>(v)] = static_cast<std::uint8_t>(clipped);  // truncation, as astype(uint8)
    }
    return lut;
}

float contrastAlpha(const BrightnessContrastParams& p) { return static_cast<float>(1.0 + p.contrast); }

float brightnessBeta(const BrightnessContrastParams& p, double imageMean) {
    return static_cast<float>(p.brightness * (p.brightness_by_max ? 255.0 : imageMean));
}

void rgbToHlsF(float r, float g, float b, float& h, float& l, float& s) {
    const float vmax = std::max(std::max(r, g), b), vmin = std::min(std::min(r, g), b);
    const float diff = vmax - vmin, sum = vmax + vmin;
    l = sum * 0.5f;
    if (diff <= std::numeric_limits<float>::epsilon()) {
        h = s = 0;
        return;
    }
    s = l < 0.5f ? diff / sum : diff / (2.0f - sum);
    const float d60 = 60.0f / diff;
    if (vmax == r)
        h = g < b ? std::fma(g - b, d60, 360.0f) : (g - b) * d60;
    else if (vmax == g)
        h = std::fma(b - r, d60, 120.0f);
    else
        h = std::fma(r - g, d60, 240.0f);
}

void hlsToRgbF(float h, float l, float s, float& r, float& g, float& b) {
    if (s == 0) {
        r = g = b = l;
        return;
    }
    const float p2 = l <= 0.5f ? l * (1.0f + s) : l + s - l * s;
    const float p1 = 2.0f * l - p2;
    float hh = h * (6.0f / 360.0f);
    if (hh >= 6.0f) hh -= 6.0f;
    int sector = static_cast<int>(hh);  // truncated: a negative hue stays in sector 0
    const float f = hh - static_cast<float>(sector);
    sector = std::clamp(sector, 0, 5);
    const float tab[4] = {p2, p1, std::fma(p2 - p1, 1.0f - f, p1), std::fma(p2 - p1, f, p1)};
    static constexpr int kSectors[6][3] = {{1, 3, 0}, {1, 0, 2}, {3, 0, 1}, {0, 2, 1}, {0, 1, 3}, {2, 1, 0}};
    b = tab[kSectors[sector][0]];
    g = tab[kSectors[sector][1]];
    r = tab[kSectors[sector][2]];
}

Lut equalizeLut(const std::array<std::uint64_t, 256>& hist, bool pil) {
    Lut lut{};
    for (int v = 0; v < 256; ++v) lut[std::size_t(v)] = static_cast<std::uint8_t>(v);
    if (pil) {
        int last = -1, nonEmpty = 0;
        std::uint64_t below = 0;  // the non-empty counts but the last
        for (int v = 0; v < 256; ++v)
            if (hist[std::size_t(v)]) {
                if (last >= 0) below += hist[std::size_t(last)];
                last = v;
                ++nonEmpty;
            }
        const std::uint64_t step = below / 255;
        if (nonEmpty <= 1 || step == 0) return lut;
        std::uint64_t cum = 0;
        for (std::size_t v = 0; v < 256; ++v) {
            cum += hist[v];
            lut[v] = static_cast<std::uint8_t>(std::min<std::uint64_t>((cum + step / 2) / step, 255));
        }
        return lut;
    }
    std::size_t first = 0;
    while (first < 256 && !hist[first]) ++first;
    std::uint64_t total = 0;
    for (std::uint64_t c : hist) total += c;
    if (first == 256 || hist[first] == total) return lut;
    const float scale = 255.0f / static_cast<float>(total - hist[first]);
    std::uint64_t sum = 0;
    lut[first] = 0;
    for (std::size_t k = first + 1; k < 256; ++k) {
        sum += hist[k];
        const float v = std::nearbyint(static_cast<float>(sum) * scale);
        lut[k] = static_cast<std::uint8_t>(v > 255.0f ? 255.0f : v);
    }
    return lut;
}

HsvLuts hsvLuts(const HsvParams& p) {
    HsvLuts l;
    l.identity = p.hue_shift_deg == 0 && p.sat_shift == 0 && p.val_shift == 0;
    const double hueUnits = p.hue_shift_deg / 2.0;
    const double sat = std::trunc(p.sat_shift), val = std::trunc(p.val_shift);
    for (int i = 0; i < 256; ++i) {
        double h = std::fmod(i + hueUnits, 180.0);
        if (h < 0) h += 180.0;  // floored modulo, result in [0, 180)
        l.hue[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(std::min(179.0, std::trunc(h)));
        l.sat[static_cast<std::size_t>(i)] = i == 0 ? 0 : static_cast<std::uint8_t>(std::clamp(i + sat, 0.0, 255.0));
        l.val[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(std::clamp(i + val, 0.0, 255.0));
    }
    return l;
}

namespace {

constexpr int kHsvShift = 12;

struct HsvTables {
    std::array<int, 256> sdiv{}, hdiv{};
    HsvTables() {
        for (int i = 1; i < 256; ++i) {
            sdiv[static_cast<std::size_t>(i)] = static_cast<int>(std::lround((255 << kHsvShift) / (1.0 * i)));
            hdiv[static_cast<std::size_t>(i)] = static_cast<int>(std::lround((180 << kHsvShift) / (6.0 * i)));
        }
    }
};

const HsvTables& hsvTables() {
    static const HsvTables t;
    return t;
}

}  // namespace

const std::array<int, 256>& hsvSaturationDivisors() { return hsvTables().sdiv; }
const std::array<int, 256>& hsvHueDivisors() { return hsvTables().hdiv; }

void rgbToHsv8(int r, int g, int b, int& h, int& s, int& v) {
    const HsvTables& t = hsvTables();
    v = std::max({r, g, b});
    const int vmin = std::min({r, g, b});
    const int diff = v - vmin;
    const int vr = v == r ? -1 : 0;
    const int vg = v == g ? -1 : 0;
    s = (diff * t.sdiv[static_cast<std::size_t>(v)] + (1 << (kHsvShift - 1))) >> kHsvShift;
    int hh = (vr & (g - b)) + (~vr & ((vg & (b - r + 2 * diff)) + ((~vg) & (r - g + 4 * diff))));
    hh = (hh * t.hdiv[static_cast<std::size_t>(diff)] + (1 << (kHsvShift - 1))) >> kHsvShift;
    hh += hh < 0 ? 180 : 0;
    h = hh;
}

void hsvToRgb8(int h, int s, int v, int& r, int& g, int& b) {
    // OpenCV's HSV2RGB_b vector loop (the one cv::cvtColor runs over all but a row's last few
    // pixels): sector = trunc(h * 6/180) mod 6, the tab[] terms with `1 - s*h` fused (x86-64 runs
    // its AVX2+FMA3 build, where the compiler fuses them), then v_trunc(x * 255) and a saturating
    // pack. Checked against cv::cvtColor on all 180*256*256 triples (tests/test_colour_ops.cpp).
    const float fs = static_cast<float>(s) * (1.0f / 255.0f);
    const float fv = static_cast<float>(v) * (1.0f / 255.0f);
    float fh = static_cast<float>(h) * (6.0f / 180.0f);
    const float pre = std::trunc(fh);
    fh -= pre;
    const int sector = static_cast<int>(pre) % 6;
    const float tab[4] = {fv, fv * (1.0f - fs), fv * std::fma(-fs, fh, 1.0f), fv * std::fma(-fs, 1.0f - fh, 1.0f)};
    static constexpr int kSectors[6][3] = {{1, 3, 0}, {1, 0, 2}, {3, 0, 1}, {0, 2, 1}, {0, 1, 3}, {2, 1, 0}};
    const auto toByte = [](float x) { return std::clamp(static_cast<int>(x * 255.0f), 0, 255); };
    b = toByte(tab[kSectors[sector][0]]);
    g = toByte(tab[kSectors[sector][1]]);
    r = toByte(tab[kSectors[sector][2]]);
}

std::vector<double> gaussianKernel(double sigma) {
    const int ksize = static_cast<int>(sigma * 3.5) * 2 + 1;
    std::vector<double> k(static_cast<std::size_t>(ksize));
    if (ksize == 1) {
        k[0] = 1.0;
        return k;
    }
    const double scale = -0.5 / (sigma * sigma);
    double sum = 0;
    for (int i = 0; i < ksize; ++i) {
        const double x = i - (ksize - 1) * 0.5;
        k[static_cast<std::size_t>(i)] = std::exp(scale * x * x);
        sum += k[static_cast<std::size_t>(i)];
    }
    for (double& t : k) t /= sum;
    return k;
}

}  // namespace auglab
