#pragma once
// The maths of the pixel ops, written once: LUT builders and the exact 8-bit colour conversions
// of OpenCV that Albumentations applies. Backends call these (or mirror them in a kernel); they
// never re-derive a formula.

#include <array>
#include <cstdint>
#include <vector>

#include "replay.h"
#include "shared_maths.h"

namespace auglab {

using Lut = std::array<std::uint8_t, 256>;

/// out = uint8(clip(float(v) * alpha + beta, 0, 255)), truncated; float32 multiply then add, as
/// Albumentations' LUT does (numpy float32 array, python-float scalars).
Lut brightnessContrastLut(float alpha, float beta);
/// alpha = float(1 + contrast); beta = float(brightness * 255) when by max, else
/// float(brightness * mean) with the mean of the image the op is applied to.
float contrastAlpha(const BrightnessContrastParams& p);
float brightnessBeta(const BrightnessContrastParams& p, double imageMean);

/// The three HSV LUTs: hue over 0..179 (entries above 179 unused), saturation and value 0..255.
struct HsvLuts {
    Lut hue{}, sat{}, val{};
    bool identity = true;  ///< all shifts zero: the op leaves the image as it is
};
/// H' = trunc((H + hue_deg / 2) mod 180) with a floored modulo; S' = clip(S + trunc(s)) with
/// S = 0 kept at 0; V' = clip(V + trunc(v)).
HsvLuts hsvLuts(const HsvParams& p);

/// OpenCV's RGB2HSV division tables (12-bit fixed point): saturation 255/v and hue 30/diff.
const std::array<int, 256>& hsvSaturationDivisors();
const std::array<int, 256>& hsvHueDivisors();

/// OpenCV's 8-bit RGB2HSV_FULL=false conversion (H 0..179), bit exact.
void rgbToHsv8(int r, int g, int b, int& h, int& s, int& v);
/// OpenCV's 8-bit HSV2RGB as cv::cvtColor computes it (its vector path): float maths with the
/// two `1 - s*h` terms fused (FMA), the result truncated, not rounded. Bit exact for every pixel
/// except the last (width mod 32, or mod 16 without AVX2) of each row, which OpenCV sends through
/// a scalar loop that rounds instead (<= 1 level).
void hsvToRgb8(int h, int s, int v, int& r, int& g, int& b);

/// OpenCV 4.x RGB2GRAY on 8-bit data: 15-bit coefficients, (R*9798 + G*19235 + B*3735 + 16384) >> 15.
/// (The 14-bit 4899/9617/1868 set is OpenCV's YUV one and differs on 0.26% of colours.)
inline std::uint8_t grayOf(int r, int g, int b) {
    return static_cast<std::uint8_t>((r * 9798 + g * 19235 + b * 3735 + (1 << 14)) >> 15);
}

/// OpenCV's 8-bit RGB2YCrCb (14-bit fixed point, bit exact): Y = (4899 R + 9617 G + 1868 B + 2^13)
/// >> 14; Cr = sat((R - Y) 11682 + 128 * 2^14 + 2^13) >> 14); Cb likewise with B and 9241.
inline void rgbToYCrCb8(int r, int g, int b, int& y, int& cr, int& cb) {
    constexpr int half = 1 << 13, delta = 128 << 14;
    y = (r * 4899 + g * 9617 + b * 1868 + half) >> 14;
    cr = ((r - y) * 11682 + delta + half) >> 14;
    cb = ((b - y) * 9241 + delta + half) >> 14;
    cr = cr < 0 ? 0 : (cr > 255 ? 255 : cr);
    cb = cb < 0 ? 0 : (cb > 255 ? 255 : cb);
}
/// OpenCV's 8-bit YCrCb2RGB (14-bit fixed point, bit exact).
inline void yCrCbToRgb8(int y, int cr, int cb, int& r, int& g, int& b) {
    constexpr int half = 1 << 13;
    cr -= 128;
    cb -= 128;
    const auto sat = [](int v) { return v < 0 ? 0 : (v > 255 ? 255 : v); };
    b = sat(y + ((cb * 29049 + half) >> 14));
    g = sat(y + ((cb * -5636 + cr * -11698 + half) >> 14));
    r = sat(y + ((cr * 22987 + half) >> 14));
}

/// OpenCV's float RGB2HLS (values in [0, 1]; H in degrees [0, 360), L and S in [0, 1]) as
/// cv::cvtColor computes it in its vector path, bit exact for every 8-bit colour: l = (max + min) / 2;
/// s = diff / (max + min) below l = 0.5, else diff / (2 - (max + min)); h from 60 / diff, its
/// products with an offset (120, 240, or 360 for a negative red hue) fused.
void rgbToHlsF(float r, float g, float b, float& h, float& l, float& s);
/// OpenCV's float HLS2RGB (its vector path): p2 = l (1 + s) or l + s - l s, p1 = 2 l - p2, the sector
/// from h / 60 truncated (a hue of 360 or more turned once, a negative one not at all, as OpenCV
/// does), the in-between values fused. Measured against cv2 on 4M random triples: 0.001% of the
/// values a float ulp apart (a level apart once rounded to 8 bits).
void hlsToRgbF(float h, float l, float s, float& r, float& g, float& b);

/// OpenCV's 8-bit sRGB <-> CIE L*a*b* (D65): cv::cvtColor's COLOR_RGB2LAB and COLOR_LAB2RGB on
/// uint8, bit exact (both are integer arithmetic on tables OpenCV builds once in software floating
/// point; the tables are rebuilt here from the same formulas and checked against cv::cvtColor on
/// every colour and every Lab triple). L is L* * 255 / 100, a and b are offset by 128.
class Lab8 {
public:
    static const Lab8& tables();

    /// RGB2Lab: gamma-expanded channels (11-bit), XYZ by 12-bit coefficients, the cube-root table.
    void fromRgb(int r, int g, int b, int& L, int& a, int& bb) const {
        shared::labFromRgb(view_, r, g, b, L, a, bb);
    }
    /// Lab2RGB (OpenCV's Lab2RGBinteger): Y and f(Y) from L by a table, f(X), f(Z) from a, b in
    /// 14-bit fixed point, X and Z by a table, RGB by 12-bit coefficients, then the inverse gamma.
    void toRgb(int L, int a, int b, int& r, int& g, int& bb) const {
        shared::labToRgb(view_, L, a, b, r, g, bb);
    }
    /// The tables in one block, laid out as shared::lab_layout says (for a device copy).
    std::vector<unsigned char> packed() const;
    /// The tables, as the shared definitions read them.
    const shared::LabTables& view() const { return view_; }

private:
    Lab8();
    static constexpr int kMinAb = shared::lab_layout::kMinAb;

    std::array<std::uint16_t, 256> gamma_{};      ///< sRGB to linear, * 255 * 8
    std::array<std::uint16_t, 3072> cbrt_{};      ///< f(t) * 2^15 for t = i / 2040
    std::array<int, 9> toXyz_{};                  ///< rows X / Xn, Y, Z / Zn; columns R, G, B
    std::array<std::uint16_t, 512> yf_{};         ///< per L: Y and f(Y), * 2^14
    std::vector<int> abToXz_;                     ///< f to X or Z (2^14 fixed point), from kMinAb
    std::array<std::uint16_t, 4096> invGamma_{};  ///< linear (12-bit) to sRGB 8-bit
    std::array<int, 9> toRgb_{};                  ///< rows R, G, B; columns X, Y, Z
    shared::LabTables view_{};                    ///< the tables above
};

/// The eigenpairs of a symmetric 3 x 3 matrix (row-major), by cyclic Jacobi rotations in float64:
/// the eigenvalues in descending order, the eigenvectors as the columns of `vectors` (row-major), each
/// with its largest-magnitude component positive (the first of equal ones).
void symmetricEigen3(const std::array<double, 9>& m, std::array<double, 3>& values,
                     std::array<double, 9>& vectors);

/// The table that equalises a 256-bin histogram, as Albumentations 2.0.8's equalize builds it:
/// cv2.equalizeHist's (`pil` false: the first non-empty bin i maps to 0, bin k to
/// round-half-even(float(count of bins i+1..k) * (255.f / float(total - count i))), an image of
/// one value is left as it is) or the library's Pillow-style one (`pil`: step = floor(sum of the
/// non-empty counts but the last / 255), bin k to min((count of bins 0..k + step // 2) // step, 255);
/// fewer than two values or a zero step leave the image as it is). Counts in integers: the library's
/// float32 counts are the same below 2^24 pixels.
Lut equalizeLut(const std::array<std::uint64_t, 256>& hist, bool pil);

/// Kernel size int(sigma * 3.5) * 2 + 1 (or `ksize` when above 0, an even one made odd by adding 1,
/// as Albumentations' create_gaussian_kernel_1d does) and the normalised Gaussian taps of
/// cv::getGaussianKernel(ksize, sigma), in double.
std::vector<double> gaussianKernel(double sigma, int ksize = 0);
/// The taps cv::GaussianBlur(ksize, sigma 0) uses on 8-bit images, each a multiple of 1/256 (its
/// fixed-point path): OpenCV's binomial tables up to size 9, else the Gaussian of sigma
/// 0.15 ksize + 0.35 normalised, each tap rounded to 1/256 with its error carried to the next, the
/// centre taking what is left of 1. With these taps a float separable blur computes OpenCV's sums
/// exactly (every partial sum is a multiple of 2^-16 below 256); only exact halves round otherwise.
std::vector<double> gaussianTaps8u(int ksize);

}  // namespace auglab
