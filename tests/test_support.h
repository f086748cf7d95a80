#pragma once
// Shared helpers of the engine suites: conversions to and from cv::Mat, crops of the bundled
// photos, and the equivalence bounds of SPEC §2.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include <QByteArray>
#include <QString>
#include <opencv2/core.hpp>

#include "geometry.h"
#include "ops/affine.h"
#include "image.h"
#include "image_io.h"
#include "plan.h"

namespace auglab::testing {

inline std::string samplePath(const char* file) {
    return std::string(AUGLAB_SOURCE_DIR) + "/resources/samples/" + file;
}

/// Wraps an Image as a cv::Mat (RGB order kept; OpenCV's geometry does not care about order).
inline cv::Mat toMat(const Image& img) {
    return cv::Mat(img.height, img.width, CV_8UC(img.channels), const_cast<std::uint8_t*>(img.pixels.data()),
                   img.stride)
        .clone();
}

inline Image fromMat(const cv::Mat& m) {
    Image img(m.cols, m.rows, m.channels());
    for (int y = 0; y < m.rows; ++y)
        std::copy(m.ptr<std::uint8_t>(y), m.ptr<std::uint8_t>(y) + m.cols * m.channels(), img.row(y));
    return img;
}

/// A width x height crop of a bundled photo (tiled when larger), with `channels` 3 or 4 (the
/// alpha channel is a smooth ramp so that it is not constant).
inline Image photoCrop(const char* file, int width, int height, int channels) {
    const Image photo = loadImage(samplePath(file)).image;
    Image out(width, height, channels);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const std::uint8_t* s = photo.at((x + 37) % photo.width, (y + 53) % photo.height);
            std::uint8_t* d = out.at(x, y);
            d[0] = s[0];
            d[1] = s[1];
            d[2] = s[2];
            // A smooth alpha ramp: real alpha mattes, not a sawtooth of full-contrast edges.
            if (channels == 4) d[3] = static_cast<std::uint8_t>(255 * (x + y) / std::max(1, width + height - 2));
        }
    return out;
}

/// A random forward matrix about the image centre: rotation, anisotropic scale, shear, shift.
inline Matrix3 randomMatrix(std::mt19937& rng, int w, int h) {
    std::uniform_real_distribution<double> rot(-180, 180), scale(0.5, 2.0), shear(-20, 20), shift(-0.3, 0.3);
    AffineParams a;
    a.rotate_deg = rot(rng);
    a.scale_x = scale(rng);
    a.scale_y = scale(rng);
    a.shear_x_deg = shear(rng);
    a.shear_y_deg = shear(rng);
    a.translate_x_px = int(shift(rng) * w);
    a.translate_y_px = int(shift(rng) * h);
    return affineMatrix(a, w, h);
}

/// A projective map: the image's corners moved inward or outward by up to 20% of its size.
inline Matrix3 randomHomography(std::mt19937& rng, int w, int h) {
    std::uniform_real_distribution<double> jitter(-0.2, 0.2);
    const std::array<Point2, 4> from{Point2{0, 0}, {double(w), 0}, {double(w), double(h)}, {0, double(h)}};
    std::array<Point2, 4> to = from;
    for (Point2& p : to) {
        p.x += jitter(rng) * std::max(w, 2);
        p.y += jitter(rng) * std::max(h, 2);
    }
    return perspectiveTransform(from, to);
}

/// The warp step of a forward map (projective when its last row is not (0, 0, 1)).
inline WarpStep warpStepOf(const Matrix3& forward, int inW, int inH, int outW, int outH, Interpolation interp,
                           BorderMode border, Rgb fill) {
    const Matrix3 inv = forward.inverse();
    WarpStep w;
    w.projective = forward(2, 0) != 0 || forward(2, 1) != 0 || forward(2, 2) != 1;
    if (w.projective) w.homography = inv.m;
    else w.inverse = {inv(0, 0), inv(0, 1), inv(0, 2), inv(1, 0), inv(1, 1), inv(1, 2)};
    w.inputWidth = inW;
    w.inputHeight = inH;
    w.interpolation = interp;
    w.border = border;
    w.fill = fill;
    w.copy = !w.projective && inv.isIdentity() && inW == outW && inH == outH;
    return w;
}

/// Value-by-value comparison statistics.
struct Diff {
    double meanAbs = 0;
    int maxAbs = 0;
    long long valuesOver2 = 0;
    long long values = 0;
    long long pixelsDiffering = 0;
    long long pixels = 0;

    double fractionOver2() const { return values ? double(valuesOver2) / double(values) : 0; }
    double pixelFractionDiffering() const { return pixels ? double(pixelsDiffering) / double(pixels) : 0; }
    /// SPEC §2, linear interpolation: mean <= 0.25, at most 0.1% of values over 2, none over 8.
    /// On images of under 1000 values one value over 2 is allowed: 0.1% of them is less than one.
    bool withinLinearBounds() const {
        const double allowedOver2 = std::max(1.0, 0.001 * double(values));
        return meanAbs <= 0.25 && double(valuesOver2) <= allowedOver2 && maxAbs <= 8;
    }
    QByteArray describe() const {
        char buf[200];
        std::snprintf(buf, sizeof buf, "mean %.4f, max %d, %.4f%% of values > 2, %.4f%% of pixels differ", meanAbs,
                      maxAbs, 100 * fractionOver2(), 100 * pixelFractionDiffering());
        return buf;
    }
};

inline Diff compare(const Image& a, const Image& b) {
    Diff d;
    if (a.width != b.width || a.height != b.height || a.channels != b.channels) {
        d.maxAbs = 256;
        d.meanAbs = 256;
        return d;
    }
    double sum = 0;
    for (int y = 0; y < a.height; ++y)
        for (int x = 0; x < a.width; ++x) {
            bool differs = false;
            for (int c = 0; c < a.channels; ++c) {
                const int diff = std::abs(int(a.at(x, y)[c]) - int(b.at(x, y)[c]));
                sum += diff;
                d.maxAbs = std::max(d.maxAbs, diff);
                d.valuesOver2 += diff > 2;
                differs = differs || diff != 0;
                ++d.values;
            }
            d.pixelsDiffering += differs;
            ++d.pixels;
        }
    d.meanAbs = d.values ? sum / double(d.values) : 0;
    return d;
}

}  // namespace auglab::testing
