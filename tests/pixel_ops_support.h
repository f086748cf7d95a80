#pragma once
// What test_colour_ops and test_filter_ops share: the bundled photos, RGBA copies with padded rows,
// OpenCV views, per-channel comparisons and the references written independently of the kernels.

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <opencv2/imgproc.hpp>
#include <random>

#include "colour.h"
#include "image.h"
#include "image_io.h"

namespace auglab::testing {

const QStringList kSamples{"astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg"};

inline Image loadSample(const QString& name) {
    return loadImage((QString(AUGLAB_SOURCE_DIR) + "/resources/samples/" + name).toStdString()).image;
}

// RGBA copy of an RGB image with random alpha and padded rows (padding bytes 0xA5).
inline Image rgbaPadded(const Image& rgb, unsigned seed) {
    Image out;
    out.width = rgb.width;
    out.height = rgb.height;
    out.channels = 4;
    out.stride = std::size_t(rgb.width) * 4 + 13;
    out.pixels.assign(out.stride * std::size_t(rgb.height), 0xA5);
    std::mt19937 rng(seed);
    for (int y = 0; y < rgb.height; ++y)
        for (int x = 0; x < rgb.width; ++x) {
            std::memcpy(out.at(x, y), rgb.at(x, y), 3);
            out.at(x, y)[3] = std::uint8_t(rng());
        }
    return out;
}

// The RGB channels as a tightly packed CV_8UC3 matrix (RGB order, as our images are).
inline cv::Mat rgbMat(const Image& img) {
    const cv::Mat m(img.height, img.width, CV_8UC(img.channels), const_cast<std::uint8_t*>(img.pixels.data()),
                    img.stride);
    if (img.channels == 3) return m.clone();
    cv::Mat out;
    cv::cvtColor(m, out, cv::COLOR_RGBA2RGB);
    return out;
}

struct Cmp {
    long n = 0, differing = 0;
    int max = 0;
    double fraction() const { return n ? double(differing) / double(n) : 0.0; }
};
// RGB values of `img` (columns below xEnd) against a CV_8UC3 reference.
inline Cmp compareRgb(const Image& img, const cv::Mat& ref, int xEnd = 1 << 30) {
    Cmp c;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < std::min(img.width, xEnd); ++x)
            for (int ch = 0; ch < 3; ++ch) {
                const int d = std::abs(int(img.at(x, y)[ch]) - int(ref.ptr<std::uint8_t>(y)[3 * x + ch]));
                ++c.n;
                c.differing += d != 0;
                c.max = std::max(c.max, d);
            }
    return c;
}

// Every byte that is not an RGB value (alpha, row padding) is the same in both images.
inline bool sameNonRgbBytes(const Image& a, const Image& b) {
    if (a.stride != b.stride || a.pixels.size() != b.pixels.size()) return false;
    for (int y = 0; y < a.height; ++y)
        for (std::size_t i = 0; i < a.stride; ++i) {
            const bool rgb = i < std::size_t(a.width * a.channels) && int(i % std::size_t(a.channels)) < 3;
            if (!rgb && a.row(y)[i] != b.row(y)[i]) return false;
        }
    return true;
}

// SPEC §3 brightness_contrast, scalar: float32 multiply, float32 add (no FMA), clip, truncate.
inline std::uint8_t refBrightnessContrast(int v, float alpha, float beta) {
    volatile float product = float(v) * alpha;
    volatile float sum = product + beta;
    const float s = sum;
    return std::uint8_t(s < 0.0f ? 0.0f : s > 255.0f ? 255.0f : s);
}
// The image with every RGB value looked up by cv::LUT in the in-test reference table.
inline cv::Mat refLookup(const Image& src, float alpha, float beta) {
    cv::Mat table(1, 256, CV_8U), out;
    for (int v = 0; v < 256; ++v) table.at<std::uint8_t>(v) = refBrightnessContrast(v, alpha, beta);
    cv::LUT(rgbMat(src), table, out);
    return out;
}

// cv::cvtColor(HSV2RGB) with every pixel in OpenCV's vector loop: the pixels laid out in rows of
// 64, a multiple of every SIMD block (16 SSE/NEON, 32 AVX2). A row's last (width mod block) pixels
// would otherwise go through OpenCV's scalar loop, which rounds where the vector loop truncates.
inline cv::Mat hsvToRgbVectorPath(const cv::Mat& hsv) {
    const std::size_t n = hsv.total();
    cv::Mat flat(int((n + 63) / 64), 64, CV_8UC3, cv::Scalar::all(0)), rgb, out(hsv.size(), CV_8UC3);
    std::memcpy(flat.data, hsv.data, n * 3);
    cv::cvtColor(flat, rgb, cv::COLOR_HSV2RGB);
    std::memcpy(out.data, rgb.data, n * 3);
    return out;
}
// OpenCV runs its AVX2 build here, whose compiler-fused multiply-adds hsvToRgb8 reproduces.
inline bool openCvUsesFma() {
    return cv::checkHardwareSupport(CV_CPU_AVX2) && cv::checkHardwareSupport(CV_CPU_FMA3);
}

// Reflect-101 by folding with the period 2n-2 (written differently from the kernel's loop).
inline int fold101(int p, int n) {
    if (n == 1) return 0;
    const int period = 2 * n - 2;
    p = ((p % period) + period) % period;
    return p < n ? p : period - p;
}

// Mean and std of clip(128 + trunc(N(mu, sigma))) - 128, summed over the integer outcomes.
inline std::pair<double, double> truncNormalMoments(double mu, double sigma) {
    const auto cdf = [&](double x) { return 0.5 * std::erfc(-(x - mu) / sigma / std::sqrt(2.0)); };
    double m1 = 0, m2 = 0;
    for (int k = -400; k <= 400; ++k) {  // trunc(X) = k: X in [k, k+1) above 0, (k-1, k] below, (-1, 1) at 0
        const double p = k > 0 ? cdf(k + 1) - cdf(k) : k < 0 ? cdf(k) - cdf(k - 1) : cdf(1) - cdf(-1);
        const double d = std::clamp(k, -128, 127);
        m1 += p * d;
        m2 += p * d * d;
    }
    return {m1, std::sqrt(m2 - m1 * m1)};
}

}  // namespace auglab::testing
