#include "colour.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace auglab {

Lut brightnessContrastLut(float alpha, float beta) {
    Lut lut{};
    for (int v = 0; v < 256; ++v) {
        const float product = static_cast<float>(v) * alpha;  // rounded to float before the add
        const float x = product + beta;
        const float clipped = std::clamp(x, 0.0f, 255.0f);
        lut[static_cast<std::size_t>(v)] =
            static_cast<std::uint8_t>(clipped);  // truncation, as astype(uint8)
    }
    return lut;
}

float contrastAlpha(const BrightnessContrastParams& p) {
    return static_cast<float>(1.0 + p.contrast);
}

float brightnessBeta(const BrightnessContrastParams& p, double imageMean) {
    return static_cast<float>(p.brightness * (p.brightness_by_max ? 255.0 : imageMean));
}

void rgbToHlsF(float r, float g, float b, float& h, float& l, float& s) {
    shared::rgbToHlsF(r, g, b, h, l, s);
}

void hlsToRgbF(float h, float l, float s, float& r, float& g, float& b) {
    shared::hlsToRgbF(h, l, s, r, g, b);
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

namespace {

// OpenCV's constants (core/src/color_lab: softdouble raw values, which are the nearest doubles of
// these decimals): sRGB to XYZ, XYZ to sRGB, the D65 white point.
constexpr double kRgbToXyz[9] = {0.412453, 0.357580, 0.180423, 0.212671, 0.715160,
                                 0.072169, 0.019334, 0.119193, 0.950227};
constexpr double kXyzToRgb[9] = {3.240479, -1.53715, -0.498535, -0.969256, 1.875991,
                                 0.041556, 0.055648, -0.204043, 1.057311};
constexpr double kD65[3] = {0.950456, 1.0, 1.088754};

/// cvRound: to nearest, ties to even (the default rounding mode).
int roundEven(double v) {
    return static_cast<int>(std::nearbyint(v));
}

/// The sRGB transfer function and its inverse in float64, the result as float32 (OpenCV's
/// applyGamma / applyInvGamma on softdouble, returned as softfloat).
float srgbToLinear(float x) {
    const double xd = x;
    return static_cast<float>(xd <= 809.0 / 20000.0
                                  ? xd / (323.0 / 25.0)
                                  : std::pow((xd + 11.0 / 200.0) / (1.0 + 11.0 / 200.0), 12.0 / 5.0));
}
float linearToSrgb(float x) {
    const double xd = x;
    return static_cast<float>(xd <= 7827.0 / 2500000.0
                                  ? xd * (323.0 / 25.0)
                                  : std::pow(xd, 1.0 / (12.0 / 5.0)) * (1.0 + 11.0 / 200.0) - 11.0 / 200.0);
}

/// OpenCV's softfloat cube root (Turkowski's): the mantissa's cube root by a quartic rational
/// polynomial in float64 on [0.125, 1), its bits truncated (not rounded) to float32. For x > 0 normal.
float softCbrt(float x) {
    const auto xv = std::bit_cast<std::uint32_t>(x);
    int ex = int((xv >> 23) & 0xFF) - 127;
    int shx = ex % 3;
    shx -= shx >= 0 ? 3 : 0;
    ex = (ex - shx) / 3 - 1;
    double fr =
        std::bit_cast<double>((std::uint64_t(shx + 1023) << 52) | (std::uint64_t(xv & 0x7FFFFF) << 29));
    fr = ((((45.2548339756803022511987494 * fr + 192.2798368355061050458134625) * fr +
            119.1654824285581628956914143) *
               fr +
           13.43250139086239872172837314) *
              fr +
          0.1636161226585754240958355063) /
         ((((14.80884093219134573786480845 * fr + 151.9714051044435648658557668) * fr +
            168.5254414101568283957668343) *
               fr +
           33.9905941350215598754191872) *
              fr +
          1.0);
    const auto fv = std::bit_cast<std::uint64_t>(fr);
    return std::bit_cast<float>((std::uint32_t(ex + 127) << 23) +
                                std::uint32_t((fv & 0xFFFFFFFFFFFFFull) >> 29));
}

}  // namespace

const Lab8& Lab8::tables() {
    static const Lab8 t;
    return t;
}

Lab8::Lab8() {
    // Every step in float32 where OpenCV uses softfloat, float64 where softdouble.
    for (int i = 0; i < 256; ++i)
        gamma_[std::size_t(i)] = std::uint16_t(roundEven(2040.0f * srgbToLinear(float(i) / 255.0f)));
    const float lthresh = 216.0f / 24389.0f, lscale = 841.0f / 108.0f, lbias = 16.0f / 116.0f;
    const float cbScale = 1.0f / 2040.0f;
    for (int i = 0; i < 3072; ++i) {
        const float x = cbScale * float(i);
        const float f = x < lthresh ? std::fma(x, lscale, lbias) : softCbrt(x);
        cbrt_[std::size_t(i)] = std::uint16_t(roundEven(32768.0f * f));
    }
    for (int row = 0; row < 3; ++row)
        for (int col = 0; col < 3; ++col)
            toXyz_[std::size_t(3 * row + col)] = roundEven(4096.0 * kRgbToXyz[3 * row + col] / kD65[row]);

    for (int i = 0; i < 256; ++i) {
        int y, ify;
        if (i <= 20) {
            y = roundEven(float(i * 16384 * 20 * 9) / float(17 * 29 * 29 * 29));
            ify = roundEven(16384.0f * (16.0f / 116.0f + float(i * 5) / float(3 * 17 * 29)));
        } else {
            const float fy = float(i * 100 * 16384) / float(255 * 116) + float(16 * 16384) / 116.0f;
            ify = roundEven(fy);
            y = roundEven(fy * fy * fy / float(16384 * 16384));
        }
        yf_[std::size_t(2 * i)] = std::uint16_t(y);
        yf_[std::size_t(2 * i + 1)] = std::uint16_t(ify);
    }
    abToXz_.resize(shared::lab_layout::kAbToXzSize);
    for (int i = kMinAb; i < shared::lab_layout::kAbToXzSize + kMinAb; ++i)
        abToXz_[std::size_t(i - kMinAb)] =
            i <= 3390 ? i * 108 / 841 - 16384 * 16 / 116 * 108 / 841 : i * i / 16384 * i / 16384;
    for (int i = 0; i < 4096; ++i)
        invGamma_[std::size_t(i)] =
            std::uint16_t(roundEven(255.0f * linearToSrgb(float(i) * (1.0f / 4096.0f))));
    for (int row = 0; row < 3; ++row)
        for (int col = 0; col < 3; ++col)
            toRgb_[std::size_t(3 * row + col)] = roundEven(4096.0 * kXyzToRgb[3 * row + col] * kD65[col]);
    view_ = shared::LabTables{gamma_.data(),    cbrt_.data(),  toXyz_.data(), yf_.data(),
                              invGamma_.data(), toRgb_.data(), abToXz_.data()};
}

std::vector<unsigned char> Lab8::packed() const {
    using namespace shared::lab_layout;
    std::vector<unsigned char> out(kBytes);
    const auto put = [&](std::size_t at, const void* data, std::size_t bytes) {
        std::memcpy(out.data() + at, data, bytes);
    };
    put(kGamma, gamma_.data(), sizeof(gamma_));
    put(kCbrt, cbrt_.data(), sizeof(cbrt_));
    put(kToXyz, toXyz_.data(), sizeof(toXyz_));
    put(kYf, yf_.data(), sizeof(yf_));
    put(kInvGamma, invGamma_.data(), sizeof(invGamma_));
    put(kToRgb, toRgb_.data(), sizeof(toRgb_));
    put(kAbToXz, abToXz_.data(), abToXz_.size() * sizeof(int));
    return out;
}

void symmetricEigen3(const std::array<double, 9>& m, std::array<double, 3>& values,
                     std::array<double, 9>& vectors) {
    shared::symmetricEigen3(m.data(), values.data(), vectors.data());
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
        l.sat[static_cast<std::size_t>(i)] =
            i == 0 ? 0 : static_cast<std::uint8_t>(std::clamp(i + sat, 0.0, 255.0));
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

const std::array<int, 256>& hsvSaturationDivisors() {
    return hsvTables().sdiv;
}
const std::array<int, 256>& hsvHueDivisors() {
    return hsvTables().hdiv;
}

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
    const float tab[4] = {fv, fv * (1.0f - fs), fv * std::fma(-fs, fh, 1.0f),
                          fv * std::fma(-fs, 1.0f - fh, 1.0f)};
    static constexpr int kSectors[6][3] = {{1, 3, 0}, {1, 0, 2}, {3, 0, 1}, {0, 2, 1}, {0, 1, 3}, {2, 1, 0}};
    const auto toByte = [](float x) { return std::clamp(static_cast<int>(x * 255.0f), 0, 255); };
    b = toByte(tab[kSectors[sector][0]]);
    g = toByte(tab[kSectors[sector][1]]);
    r = toByte(tab[kSectors[sector][2]]);
}

std::vector<double> gaussianTaps8u(int ksize) {
    static const std::vector<std::vector<int>> kBinomial{{256},
                                                         {},
                                                         {64, 128, 64},
                                                         {},
                                                         {16, 64, 96, 64, 16},
                                                         {},
                                                         {8, 28, 56, 72, 56, 28, 8},
                                                         {},
                                                         {4, 13, 30, 51, 60, 51, 30, 13, 4}};
    std::vector<double> taps(static_cast<std::size_t>(ksize));
    if (ksize <= 9) {
        for (std::size_t i = 0; i < taps.size(); ++i) taps[i] = kBinomial[std::size_t(ksize - 1)][i] / 256.0;
        return taps;
    }
    const double sigma = std::fma(double(ksize), 0.15, 0.35);
    const double scale = -0.125 / (sigma * sigma);
    const int half = (ksize - 1) / 2;
    std::vector<double> v(static_cast<std::size_t>(half));
    double sum = 0;
    for (int i = 0, x = 1 - ksize; i < half; ++i, x += 2) {
        v[std::size_t(i)] = std::exp(double(x * x) * scale);
        sum += v[std::size_t(i)];
    }
    sum = sum * 2 + 1;
    const double mul = 1 / sum;
    double err = 0;
    int fixedSum = 0;
    for (int i = 0; i < half; ++i) {
        const double adjusted = v[std::size_t(i)] * mul * 256 + err;
        const int t = static_cast<int>(std::nearbyint(adjusted));
        err = adjusted - t;
        taps[std::size_t(i)] = taps[std::size_t(ksize - 1 - i)] = t / 256.0;
        fixedSum += t;
    }
    taps[std::size_t(half)] = (256 - 2 * fixedSum) / 256.0;
    return taps;
}

std::vector<double> gaussianKernel(double sigma, int size) {
    const int ksize = size > 0 ? size + (size % 2 == 0 ? 1 : 0) : static_cast<int>(sigma * 3.5) * 2 + 1;
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
