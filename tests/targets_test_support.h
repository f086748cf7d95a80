#pragma once
// What the targets suites share (test_targets.cpp, test_targets_library.cpp): presets and replays with
// a targets section, boxes, a patterned mask and its OpenCV form.

#include <opencv2/core.hpp>

#include <cmath>
#include <numbers>
#include <string>

#include <QtTest>

#include "preset.h"
#include "replay.h"
#include "sampler.h"
#include "targets.h"

namespace auglab::testing {

inline constexpr double kDeg = std::numbers::pi / 180;

inline Preset targetPreset(const std::string& pipeline, const std::string& targets = "{}") {
    return parsePreset(R"({"format": "auglab-preset", "version": 1, "seed": 3, "pipeline": )" + pipeline +
                       R"(, "targets": )" + targets + "}");
}

inline Replay replayOf(const Preset& p, int w, int h, std::uint64_t index = 0) {
    return samplePipeline(p.pipeline, p.seed, index, w, h);
}

inline Box box(double x0, double y0, double x1, double y1, int id = 0) {
    return {x0, y0, x1, y1, id, id, 1};
}

inline void expectBox(const Box& b, double x0, double y0, double x1, double y1, double tol = 1e-3) {
    if (std::abs(b.x0 - x0) > tol || std::abs(b.y0 - y0) > tol || std::abs(b.x1 - x1) > tol ||
        std::abs(b.y1 - y1) > tol)
        QFAIL(qPrintable(QString("box [%1, %2, %3, %4], expected [%5, %6, %7, %8]")
                             .arg(b.x0)
                             .arg(b.y0)
                             .arg(b.x1)
                             .arg(b.y1)
                             .arg(x0)
                             .arg(y0)
                             .arg(x1)
                             .arg(y1)));
}

inline Mask patternMask(int w, int h) {
    Mask m;
    m.width = w;
    m.height = h;
    m.values.resize(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            m.values[static_cast<std::size_t>(y) * w + x] =
                static_cast<std::uint8_t>(((x / 7) * 3 + (y / 5) * 5 + ((x + 2 * y) / 11)) % 6 + 1);
    return m;
}

inline cv::Mat matOf(const Mask& m) {
    cv::Mat out(m.height, m.width, CV_8UC1);
    for (int y = 0; y < m.height; ++y)
        for (int x = 0; x < m.width; ++x) out.at<std::uint8_t>(y, x) = m.at(x, y);
    return out;
}

inline double differingShare(const Mask& a, const cv::Mat& b) {
    if (a.width != b.cols || a.height != b.rows) return 1.0;
    long n = 0;
    for (int y = 0; y < a.height; ++y)
        for (int x = 0; x < a.width; ++x) n += a.at(x, y) != b.at<std::uint8_t>(y, x);
    return double(n) / (double(a.width) * a.height);
}

}  // namespace auglab::testing
