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

/// OpenCV's 8-bit RGB2HSV_FULL=false conversion (H 0..179), bit exact.
void rgbToHsv8(int r, int g, int b, int& h, int& s, int& v);
/// OpenCV's 8-bit HSV2RGB (float path, rounded to nearest even), bit exact.
void hsvToRgb8(int h, int s, int v, int& r, int& g, int& b);

/// OpenCV RGB2GRAY: (R*4899 + G*9617 + B*1868 + 8192) >> 14.
inline std::uint8_t grayOf(int r, int g, int b) {
    return static_cast<std::uint8_t>((r * 4899 + g * 9617 + b * 1868 + (1 << 13)) >> 14);
}

/// Kernel size int(sigma * 3.5) * 2 + 1 and the normalised Gaussian taps of
/// cv::getGaussianKernel(ksize, sigma), in double.
std::vector<double> gaussianKernel(double sigma);

}  // namespace auglab
