#pragma once
// The maths of the pixel ops, written once: LUT builders and the exact 8-bit colour conversions
// of OpenCV that Albumentations applies. Backends call these (or mirror them in a kernel); they
// never re-derive a formula.

#include <array>
#include <cstdint>
#include <vector>

#include "replay.h"

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

/// Kernel size int(sigma * 3.5) * 2 + 1 and the normalised Gaussian taps of
/// cv::getGaussianKernel(ksize, sigma), in double.
std::vector<double> gaussianKernel(double sigma);

}  // namespace auglab
