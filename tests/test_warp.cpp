// The CPU warp against two independent references: a naive double-precision bilinear/nearest
// written here, and OpenCV's cv::warpAffine with the same forward matrix, for random matrices,
// every border, both interpolations and sizes that hit edges (1x1, odd, non-square, 4097x3).
// Bounds are those of SPEC §2. Also: the affine matrix's meaning, identity and flips bit for bit.

#include <cmath>
#include <cstring>
#include <random>

#include <QtTest>
#include <opencv2/imgproc.hpp>

#include "cpu/integer_warp.h"
#include "cpu/pixel_rows.h"
#include "cpu/simd_targets.h"
#include "cpu_backend.h"
#include "cpu_warp_avx2.h"
#include "geometry.h"
#include "image_io.h"
#include "test_support.h"
#include "warp_fixed_point.h"

using namespace auglab;
using namespace auglab::testing;

namespace {

// Border lookup written independently of the engine: reflect by explicit mirroring steps.
int referenceBorder(int p, int len, BorderMode mode) {
    if (p >= 0 && p < len) return p;
    switch (mode) {
        case BorderMode::Constant:
            return -1;
        case BorderMode::Replicate:
            return std::clamp(p, 0, len - 1);
        case BorderMode::Wrap:
            return ((p % len) + len) % len;
        case BorderMode::Reflect:
            while (p < 0 || p >= len) p = p < 0 ? -p - 1 : 2 * len - 1 - p;
            return p;
        case BorderMode::Reflect101:
            if (len == 1) return 0;
            while (p < 0 || p >= len) p = p < 0 ? -p : 2 * len - 2 - p;
            return p;
    }
    return -1;
}

// Naive reference: exact double coordinates, double bilinear weights, no fixed point at all.
Image referenceWarp(const Image& src, const Matrix3& forward, int outW, int outH, Interpolation interp,
                    BorderMode border, Rgb fill) {
    const Matrix3 inv = forward.inverse();
    Image out(outW, outH, src.channels);
    const double cval[4] = {double(fill[0]), double(fill[1]), double(fill[2]), 0.0};
    auto tap = [&](int x, int y, int c) -> double {
        const int sx = referenceBorder(x, src.width, border), sy = referenceBorder(y, src.height, border);
        if (sx < 0 || sy < 0) return cval[c];
        return src.at(sx, sy)[c];
    };
    for (int y = 0; y < outH; ++y)
        for (int x = 0; x < outW; ++x) {
            const double d = inv(2, 0) * x + inv(2, 1) * y + inv(2, 2);  // 1 for an affine map
            const double u = (inv(0, 0) * x + inv(0, 1) * y + inv(0, 2)) / d;
            const double v = (inv(1, 0) * x + inv(1, 1) * y + inv(1, 2)) / d;
            for (int c = 0; c < src.channels; ++c) {
                double value;
                if (interp == Interpolation::Nearest) {
                    value = tap(int(std::floor(u + 0.5)), int(std::floor(v + 0.5)), c);
                } else {
                    const int x0 = int(std::floor(u)), y0 = int(std::floor(v));
                    const double fx = u - x0, fy = v - y0;
                    value = (1 - fx) * (1 - fy) * tap(x0, y0, c) + fx * (1 - fy) * tap(x0 + 1, y0, c) +
                            (1 - fx) * fy * tap(x0, y0 + 1, c) + fx * fy * tap(x0 + 1, y0 + 1, c);
                }
                out.at(x, y)[c] = static_cast<std::uint8_t>(std::clamp(std::lround(value), 0L, 255L));
            }
        }
    return out;
}

Image engineWarp(const Image& src, const Matrix3& forward, int outW, int outH, Interpolation interp,
                 BorderMode border, Rgb fill) {
    const WarpStep w = warpStepOf(forward, src.width, src.height, outW, outH, interp, border, fill);
    Image out(outW, outH, src.channels);
    warpRows(src, out, w, 0, outH);
    return out;
}

int cvBorder(BorderMode b) {
    switch (b) {
        case BorderMode::Constant:
            return cv::BORDER_CONSTANT;
        case BorderMode::Replicate:
            return cv::BORDER_REPLICATE;
        case BorderMode::Reflect:
            return cv::BORDER_REFLECT;
        case BorderMode::Reflect101:
            return cv::BORDER_REFLECT_101;
        case BorderMode::Wrap:
            return cv::BORDER_WRAP;
    }
    return cv::BORDER_CONSTANT;
}

Image opencvWarp(const Image& src, const Matrix3& forward, int outW, int outH, Interpolation interp,
                 BorderMode border, Rgb fill) {
    const cv::Mat m = (cv::Mat_<double>(2, 3) << forward(0, 0), forward(0, 1), forward(0, 2), forward(1, 0),
                       forward(1, 1), forward(1, 2));
    cv::Mat dst;
    cv::warpAffine(toMat(src), dst, m, cv::Size(outW, outH),
                   interp == Interpolation::Nearest ? cv::INTER_NEAREST : cv::INTER_LINEAR, cvBorder(border),
                   cv::Scalar(fill[0], fill[1], fill[2], 0));
    return fromMat(dst);
}

Image opencvPerspective(const Image& src, const Matrix3& forward, int outW, int outH, Interpolation interp,
                        BorderMode border, Rgb fill) {
    const cv::Mat m = (cv::Mat_<double>(3, 3) << forward(0, 0), forward(0, 1), forward(0, 2), forward(1, 0),
                       forward(1, 1), forward(1, 2), forward(2, 0), forward(2, 1), forward(2, 2));
    cv::Mat dst;
    cv::warpPerspective(toMat(src), dst, m, cv::Size(outW, outH),
                        interp == Interpolation::Nearest ? cv::INTER_NEAREST : cv::INTER_LINEAR,
                        cvBorder(border), cv::Scalar(fill[0], fill[1], fill[2], 0));
    return fromMat(dst);
}

const QList<BorderMode> kBorders{BorderMode::Constant, BorderMode::Replicate, BorderMode::Reflect,
                                 BorderMode::Reflect101, BorderMode::Wrap};

}  // namespace

class TestWarp : public QObject {
    Q_OBJECT

private slots:
    void matchesReferences_data();
    void matchesReferences();
    void wholePhotoAgainstOpenCv();
    void perspectiveMatchesReferences_data();
    void perspectiveMatchesReferences();
    void perspectiveTransformMapsCorners();
    void affineMatrixMeaning();
    void identityIsBitExact();
    void flipsAreExact();
    void wholePixelMapsAreRowCopies();
    void separablePassesArePerPixel();
    void blocksArePerPixel();
    void halfPixelErrorWouldBeCaught();
};

void TestWarp::matchesReferences_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("interp");
    QTest::addColumn<int>("border");
    const QList<QSize> sizes{{1, 1}, {7, 5}, {64, 37}, {4097, 3}, {3, 200}, {301, 207}};
    for (const QSize& s : sizes)
        for (int interp = 0; interp < 2; ++interp)
            for (BorderMode b : kBorders) {
                const QByteArray name = QByteArray::number(s.width()) + "x" + QByteArray::number(s.height()) +
                                        (interp ? " linear " : " nearest ") + borderName(b);
                QTest::newRow(name.constData()) << s.width() << s.height() << 3 << interp << int(b);
            }
    QTest::newRow("rgba 120x90 linear reflect") << 120 << 90 << 4 << 1 << int(BorderMode::Reflect);
    QTest::newRow("rgba 120x90 linear constant") << 120 << 90 << 4 << 1 << int(BorderMode::Constant);
}

void TestWarp::matchesReferences() {
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, channels);
    QFETCH(int, interp);
    QFETCH(int, border);
    const auto interpolation = interp ? Interpolation::Linear : Interpolation::Nearest;
    const auto mode = BorderMode(border);
    // A crop of a real photo (tiled when the size exceeds it), so edges have real contrast.
    const Image src = photoCrop("astronaut.png", width, height, channels);
    std::mt19937 rng(1234u + unsigned(width * 31 + height * 7 + interp * 3 + border));
    const Rgb fill{200, 30, 90};
    for (int trial = 0; trial < 4; ++trial) {
        const Matrix3 m = randomMatrix(rng, width, height);
        const Image ours = engineWarp(src, m, width, height, interpolation, mode, fill);
        const Image naive = referenceWarp(src, m, width, height, interpolation, mode, fill);
        const Image cvOut = opencvWarp(src, m, width, height, interpolation, mode, fill);
        const Diff toNaive = compare(ours, naive), toCv = compare(ours, cvOut);
        const QByteArray where = "trial " + QByteArray::number(trial);
        if (interpolation == Interpolation::Linear) {
            QVERIFY2(toNaive.withinLinearBounds(), (where + " vs naive: " + toNaive.describe()).constData());
            QVERIFY2(toCv.withinLinearBounds(), (where + " vs OpenCV: " + toCv.describe()).constData());
        } else {
            // Nearest: a pixel may pick the other neighbour on a rounding tie.
            QVERIFY2(toNaive.pixelFractionDiffering() <= 0.005,
                     (where + " vs naive: " + toNaive.describe()).constData());
            QVERIFY2(toCv.pixelFractionDiffering() <= 0.005,
                     (where + " vs OpenCV: " + toCv.describe()).constData());
        }
    }
}

void TestWarp::perspectiveMatchesReferences_data() {
    matchesReferences_data();
}

void TestWarp::perspectiveMatchesReferences() {
    // Projective warps (WarpStep::projective, the perspective op's) against cv::warpPerspective and
    // the double-precision reference, for random corner moves, every border and size.
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, channels);
    QFETCH(int, interp);
    QFETCH(int, border);
    const auto interpolation = interp ? Interpolation::Linear : Interpolation::Nearest;
    const auto mode = BorderMode(border);
    const Image src = photoCrop("astronaut.png", width, height, channels);
    std::mt19937 rng(4321u + unsigned(width * 31 + height * 7 + interp * 3 + border));
    const Rgb fill{200, 30, 90};
    for (int trial = 0; trial < 3; ++trial) {
        const Matrix3 m = randomHomography(rng, width, height);
        const Image ours = engineWarp(src, m, width, height, interpolation, mode, fill);
        const Image naive = referenceWarp(src, m, width, height, interpolation, mode, fill);
        const Image cvOut = opencvPerspective(src, m, width, height, interpolation, mode, fill);
        const Diff toNaive = compare(ours, naive), toCv = compare(ours, cvOut);
        const QByteArray where = "trial " + QByteArray::number(trial);
        if (interpolation == Interpolation::Linear) {
            // Where a projective map squeezes a tiny or thin image hard, 1/32-pixel positions (OpenCV's
            // too) are far from exact ones: there the bound is OpenCV's own distance to the reference.
            const Diff cvToNaive = compare(cvOut, naive);
            const bool asCloseAsOpenCv = toNaive.meanAbs <= cvToNaive.meanAbs + 0.05 && toNaive.maxAbs <= 8;
            QVERIFY2(
                toNaive.withinLinearBounds() || asCloseAsOpenCv,
                (where + " vs naive: " + toNaive.describe() + "; OpenCV vs naive: " + cvToNaive.describe())
                    .constData());
            QVERIFY2(toCv.withinLinearBounds(), (where + " vs OpenCV: " + toCv.describe()).constData());
        } else {
            QVERIFY2(toNaive.pixelFractionDiffering() <= 0.005,
                     (where + " vs naive: " + toNaive.describe()).constData());
            QVERIFY2(toCv.pixelFractionDiffering() <= 0.005,
                     (where + " vs OpenCV: " + toCv.describe()).constData());
        }
    }
}

void TestWarp::perspectiveTransformMapsCorners() {
    // The four points map where they were asked to, and agree with cv::getPerspectiveTransform.
    const std::array<Point2, 4> from{Point2{0, 0}, {451, 0}, {451, 300}, {0, 300}};
    const std::array<Point2, 4> to{Point2{12.5, 7}, {430, 20.25}, {445, 290}, {3, 280.5}};
    const Matrix3 m = perspectiveTransform(from, to);
    for (std::size_t i = 0; i < 4; ++i) {
        const double d = m(2, 0) * from[i].x + m(2, 1) * from[i].y + m(2, 2);
        QVERIFY(std::abs((m(0, 0) * from[i].x + m(0, 1) * from[i].y + m(0, 2)) / d - to[i].x) < 1e-9);
        QVERIFY(std::abs((m(1, 0) * from[i].x + m(1, 1) * from[i].y + m(1, 2)) / d - to[i].y) < 1e-9);
    }
    std::vector<cv::Point2f> a, b;
    for (std::size_t i = 0; i < 4; ++i) {
        a.emplace_back(float(from[i].x), float(from[i].y));
        b.emplace_back(float(to[i].x), float(to[i].y));
    }
    const cv::Mat cvM = cv::getPerspectiveTransform(a, b);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            QVERIFY(std::abs(cvM.at<double>(r, c) - m(r, c)) < 1e-12 * (1 + std::abs(m(r, c))));
}

void TestWarp::wholePhotoAgainstOpenCv() {
    // The figures quoted in the README: whole photos, a typical augmentation, linear, constant.
    for (const char* file : {"astronaut.png", "rocket.jpg"}) {
        const Image src = loadImage(samplePath(file)).image;
        AffineParams a;
        a.rotate_deg = 17.3;
        a.scale_x = a.scale_y = 1.13;
        a.shear_x_deg = 4;
        a.translate_x_px = 11;
        const Matrix3 m = affineMatrix(a, src.width, src.height);
        const Image ours =
            engineWarp(src, m, src.width, src.height, Interpolation::Linear, BorderMode::Constant, {});
        const Diff toCv = compare(
            ours, opencvWarp(src, m, src.width, src.height, Interpolation::Linear, BorderMode::Constant, {}));
        const Diff toNaive = compare(ours, referenceWarp(src, m, src.width, src.height, Interpolation::Linear,
                                                         BorderMode::Constant, {}));
        qInfo("%s: vs cv::warpAffine %s; vs double-precision reference %s", file, toCv.describe().constData(),
              toNaive.describe().constData());
        QVERIFY2(toCv.withinLinearBounds(), toCv.describe().constData());
        QVERIFY2(toNaive.withinLinearBounds(), toNaive.describe().constData());
    }
}

void TestWarp::affineMatrixMeaning() {
    const int w = 101, h = 61;
    const double cx = 50, cy = 30;  // (W/2 - 0.5, H/2 - 0.5)
    auto apply = [](const Matrix3& m, double x, double y) {
        return QPointF(m(0, 0) * x + m(0, 1) * y + m(0, 2), m(1, 0) * x + m(1, 1) * y + m(1, 2));
    };
    auto near = [](QPointF a, QPointF b) {
        return std::abs(a.x() - b.x()) < 1e-9 && std::abs(a.y() - b.y()) < 1e-9;
    };
    AffineParams a;
    a.rotate_deg = 90;  // counter-clockwise on screen: a point right of the centre moves above it (y down)
    QVERIFY(near(apply(affineMatrix(a, w, h), cx + 10, cy), QPointF(cx, cy - 10)));
    a = {};
    a.scale_x = 2;
    a.scale_y = 3;
    QVERIFY(near(apply(affineMatrix(a, w, h), cx + 10, cy + 1), QPointF(cx + 20, cy + 3)));
    a = {};
    a.translate_x_px = 7;
    a.translate_y_px = -4;
    QVERIFY(near(apply(affineMatrix(a, w, h), 0, 0), QPointF(7, -4)));
    a = {};
    a.shear_x_deg = 45;  // Sh = [[1, tan(-45 deg)], [0, 1]]: x' = x - y about the centre
    QVERIFY(near(apply(affineMatrix(a, w, h), cx, cy + 10), QPointF(cx - 10, cy + 10)));
    a = {};
    a.shear_y_deg = 45;
    QVERIFY(near(apply(affineMatrix(a, w, h), cx + 10, cy), QPointF(cx + 10, cy - 10)));
    a = {};
    a.rotate_deg = 450;  // r mod 360
    QVERIFY(near(apply(affineMatrix(a, w, h), cx + 10, cy), QPointF(cx, cy - 10)));
    QVERIFY(affineMatrix(AffineParams{}, w, h).isIdentity());
}

void TestWarp::identityIsBitExact() {
    const Image src = photoCrop("coffee.png", 333, 211, 3);
    for (auto interp : {Interpolation::Nearest, Interpolation::Linear}) {
        const Image out =
            engineWarp(src, Matrix3::identity(), src.width, src.height, interp, BorderMode::Constant, {});
        QVERIFY(samePixels(out, src));
    }
}

void TestWarp::flipsAreExact() {
    const Image src = photoCrop("chelsea.png", 451, 300, 4);
    for (auto interp : {Interpolation::Nearest, Interpolation::Linear}) {
        const Image h = engineWarp(src, horizontalFlipMatrix(src.width), src.width, src.height, interp,
                                   BorderMode::Constant, {});
        const Image v = engineWarp(src, verticalFlipMatrix(src.height), src.width, src.height, interp,
                                   BorderMode::Constant, {});
        cv::Mat hRef, vRef;
        cv::flip(toMat(src), hRef, 1);
        cv::flip(toMat(src), vRef, 0);
        QVERIFY(samePixels(h, fromMat(hRef)));
        QVERIFY(samePixels(v, fromMat(vRef)));
    }
}

void TestWarp::separablePassesArePerPixel() {
    // Scales, crops with a resize and flips (affine maps without rotation or shear) run as a
    // horizontal pass per source row and a vertical pass per output row (nearest: each row its
    // columns' source pixels, or the row above's copy): the per-pixel warp's bytes
    // for upscales, downscales, flips, fractional offsets, borders on every side, 3 and 4 channels,
    // whole images and stripes of rows (as threads take them).
    std::mt19937 rng(77);
    int checked = 0;
    for (const auto& [w, h] : {std::pair{1, 1}, {2, 2}, {9, 5}, {64, 33}, {301, 207}})
        for (int channels : {3, 4}) {
            const Image src = photoCrop("rocket.jpg", w, h, channels);
            for (const double a : {1.0, 0.5, 0.37, 1.73, 2.0, -1.3, 0.25})
                for (const double e : {1.0, 0.61, 2.5, -0.8})
                    for (const auto& [outW, outH] :
                         {std::pair{w, h}, {2 * w + 3, h + 1}, {std::max(1, w / 2), std::max(1, h / 3)}})
                        for (auto interp : {Interpolation::Linear, Interpolation::Nearest}) {
                            const BorderMode border = kBorders[std::size_t(rng() % std::size(kBorders))];
                            WarpStep step = warpStepOf(Matrix3::identity(), w, h, outW, outH, interp, border,
                                                       Rgb{12, 200, 77});
                            const double c =
                                std::uniform_real_distribution<double>(-3, 3)(rng) + (a < 0 ? w : 0);
                            const double f =
                                std::uniform_real_distribution<double>(-3, 3)(rng) + (e < 0 ? h : 0);
                            step.inverse = std::array<double, 6>{a, 0, c, 0, e, f};
                            step.copy = false;
                            Image perPixel(outW, outH, channels, Image::Uninitialised{});
                            warpRowsPerPixel(src, perPixel, step, 0, outH);
                            Image passes(outW, outH, channels, Image::Uninitialised{});
                            const int split = outH / 3;
                            warpRows(src, passes, step, 0, split);
                            warpRows(src, passes, step, split, outH);
                            for (int y = 0; y < outH; ++y)
                                if (std::memcmp(perPixel.row(y), passes.row(y),
                                                std::size_t(outW) * channels) != 0) {
                                    int x = 0;
                                    while (std::memcmp(perPixel.at(x, y), passes.at(x, y),
                                                       std::size_t(channels)) == 0)
                                        ++x;
                                    QFAIL(qPrintable(
                                        QString(
                                            "%1x%2 (%3 ch) -> %4x%5, scale %6 x %7, offset (%8, %9), border "
                                            "%10, %11: first difference at (%12, %13)")
                                            .arg(w)
                                            .arg(h)
                                            .arg(channels)
                                            .arg(outW)
                                            .arg(outH)
                                            .arg(a)
                                            .arg(e)
                                            .arg(c)
                                            .arg(f)
                                            .arg(int(border))
                                            .arg(interpolationName(interp))
                                            .arg(x)
                                            .arg(y)));
                                }
                            ++checked;
                        }
        }
    QCOMPARE(checked, 5 * 2 * 7 * 4 * 3 * 2);
}

void TestWarp::blocksArePerPixel() {
    // Eight output pixels at a time (AVX2) for affine maps, homographies (positions computed per
    // pixel as cv::warpPerspective computes them) and remaps (positions from the map, some outside
    // the image and past its last row, where the 8-byte loads must not read past the buffer): the
    // per-pixel warp's bytes, 3 and 4 channels, every border.
    std::mt19937 rng(91);
    int checked = 0;
    for (const auto& [w, h] : {std::pair{9, 5}, {64, 37}, {301, 207}})
        for (int channels : {3, 4}) {
            const Image src = photoCrop("coffee.png", w, h, channels);
            for (int trial = 0; trial < 6; ++trial) {
                const BorderMode border = kBorders[std::size_t(trial) % std::size(kBorders)];
                const Matrix3 m = trial % 3 == 0 ? randomMatrix(rng, w, h) : randomHomography(rng, w, h);
                WarpStep step = warpStepOf(m, w, h, w, h, Interpolation::Linear, border, Rgb{9, 99, 199});
                if (trial % 3 == 2) {  // a remap of random positions, most inside
                    auto map = std::make_shared<RemapMap>();
                    map->width = w;
                    map->height = h;
                    for (int i = 0; i < w * h; ++i) {
                        const bool out = rng() % 10 == 0;
                        map->xy.push_back(int(rng() % unsigned(32 * (w + (out ? 8 : 0)))) - (out ? 128 : 0));
                        map->xy.push_back(int(rng() % unsigned(32 * (h + (out ? 8 : 0)))) - (out ? 128 : 0));
                    }
                    step.projective = true;
                    step.remap = map;
                }
                Image perPixel(w, h, channels, Image::Uninitialised{}),
                    blocks(w, h, channels, Image::Uninitialised{});
                warpRowsPerPixel(src, perPixel, step, 0, h);
                warpRows(src, blocks, step, 0, h);
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x)
                        if (std::memcmp(perPixel.at(x, y), blocks.at(x, y), std::size_t(channels)) != 0)
                            QFAIL(qPrintable(QString("%1x%2 (%3 ch), trial %4: first difference at (%5, %6)")
                                                 .arg(w)
                                                 .arg(h)
                                                 .arg(channels)
                                                 .arg(trial)
                                                 .arg(x)
                                                 .arg(y)));
                ++checked;
            }
        }
    QCOMPARE(checked, 3 * 2 * 6);
    // The eight positions at a time against ProjectiveRow::position, for homographies whose divisor
    // crosses zero along a row (positions past an int's range, a zero divisor) as well.
    if (!cpuHasAvx2()) return;
    for (int trial = 0; trial < 40; ++trial) {
        WarpStep step;
        step.projective = true;
        step.interpolation = trial % 2 ? Interpolation::Linear : Interpolation::Nearest;
        for (double& v : step.homography) v = std::uniform_real_distribution<double>(-2, 2)(rng);
        if (trial % 4 == 0)
            step.homography[6] = 0.05, step.homography[7] = 0, step.homography[8] = -1.0;  // d = 0 at x = 20
        for (int y : {0, 3, 250}) {
            const ProjectiveRow row(step, y);
            for (int x = 0; x < 64; x += 8) {
                int xy[16];
                projectivePositions8Avx2(row.m.data(), row.X0, row.Y0, row.W0, row.unit, x, xy);
                for (int i = 0; i < 8; ++i) {
                    int X, Y;
                    row.position(x + i, X, Y);
                    QVERIFY2(xy[2 * i] == X && xy[2 * i + 1] == Y,
                             qPrintable(QString("trial %1, (%2, %3): %4, %5 vs %6, %7")
                                            .arg(trial)
                                            .arg(x + i)
                                            .arg(y)
                                            .arg(xy[2 * i])
                                            .arg(xy[2 * i + 1])
                                            .arg(X)
                                            .arg(Y)));
                }
            }
        }
    }
}

void TestWarp::wholePixelMapsAreRowCopies() {
    // Flips, transposes, quarter turns, crops and pads (signed permutations with whole offsets, the
    // offsets taking rows and columns off both edges) as row copies, reversals and fills: the
    // generic warp's bytes for every border, both interpolations, 3 and 4 channels, and sizes of one
    // pixel, odd and uneven. The generic warp itself is checked against cv::warpAffine above.
    int checked = 0;
    for (const auto& [w, h] : {std::pair{1, 1}, {7, 5}, {64, 33}, {33, 64}, {40, 40}})
        for (int channels : {3, 4}) {
            const Image src = photoCrop("chelsea.png", w, h, channels);
            for (int perm = 0; perm < 8; ++perm) {
                const bool transposed = perm & 4;
                const double sx = perm & 1 ? -1 : 1, sy = perm & 2 ? -1 : 1;
                for (const auto& [outW, outH] :
                     {std::pair{w, h}, {h, w}, {w + 9, h + 4}, {std::max(1, w - 3), 2}})
                    for (const auto& [ox, oy] : {std::pair{0, 0}, {3, -2}, {-5, 7}, {w - 1, h - 1}})
                        for (BorderMode border : kBorders)
                            for (auto interp : {Interpolation::Nearest, Interpolation::Linear}) {
                                WarpStep step = warpStepOf(Matrix3::identity(), w, h, outW, outH, interp,
                                                           border, Rgb{12, 200, 77});
                                // source x = a x + b y + c, source y = d x + e y + f
                                const double c = (sx < 0 ? (transposed ? outH : outW) - 1 : 0) + ox;
                                const double f = (sy < 0 ? (transposed ? outW : outH) - 1 : 0) + oy;
                                step.inverse = transposed ? std::array<double, 6>{0, sx, c, sy, 0, f}
                                                          : std::array<double, 6>{sx, 0, c, 0, sy, f};
                                step.copy = false;  // warpStepOf marked the identity it was given
                                const auto map = cpu::integerWarp(step, w, h, outW, outH);
                                QVERIFY(map.has_value());
                                Image fast(outW, outH, channels, Image::Uninitialised{});
                                cpu::integerWarpRows(src, fast, *map, 0, outH);
                                Image generic(outW, outH, channels);
                                warpRows(src, generic, step, 0, outH);
                                QString where;
                                for (int y = 0; y < outH && where.isEmpty(); ++y)
                                    for (int x = 0; x < outW && where.isEmpty(); ++x)
                                        if (std::memcmp(fast.at(x, y), generic.at(x, y),
                                                        std::size_t(channels)))
                                            where = QString(" first at (%1, %2): %3 vs %4")
                                                        .arg(x)
                                                        .arg(y)
                                                        .arg(fast.at(x, y)[0])
                                                        .arg(generic.at(x, y)[0]);
                                if (!where.isEmpty())
                                    QFAIL(qPrintable(
                                        QString("%1x%2 (%3 ch) -> %4x%5, map %6, offset (%7, %8), border "
                                                "%9, %10")
                                            .arg(w)
                                            .arg(h)
                                            .arg(channels)
                                            .arg(outW)
                                            .arg(outH)
                                            .arg(perm)
                                            .arg(ox)
                                            .arg(oy)
                                            .arg(int(border))
                                            .arg(interp == Interpolation::Linear ? "linear" : "nearest") +
                                        where));
                                ++checked;
                            }
            }
        }
    QCOMPARE(checked, 5 * 2 * 8 * 4 * 4 * 5 * 2);
    // Not whole pixels: sampled, not copied.
    WarpStep half =
        warpStepOf(Matrix3::translation(0.5, 0), 8, 8, 8, 8, Interpolation::Linear, BorderMode::Constant, {});
    QVERIFY(!cpu::integerWarp(half, 8, 8, 8, 8));
    WarpStep turn = warpStepOf(Matrix3{{0.96, -0.28, 1, 0.28, 0.96, 0, 0, 0, 1}}, 8, 8, 8, 8,
                               Interpolation::Nearest, BorderMode::Constant, {});
    QVERIFY(!cpu::integerWarp(turn, 8, 8, 8, 8));
    // The reversal kernel on its own, every length around the vector widths, 1, 3 and 4 bytes a
    // pixel, on every SIMD target and with AVX-512 VBMI's permute (where the CPU has it) and
    // without; nothing written past the row.
    QStringList targets;
    for (bool avoidVbmi : {false, true}) {
        cpu::reversePixelsAvoidVbmi = avoidVbmi;
        cpu::forEachSimdTarget([&](const char* target) {
            targets << target;
            for (int channels : {1, 3, 4})
                for (int n = 0; n < 100; ++n) {
                    std::vector<std::uint8_t> in(std::size_t(n * channels)), out(in.size() + 64, 0xA5);
                    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>(i * 7 + 3);
                    cpu::reversePixels(in.data(), out.data(), std::size_t(n), channels);
                    for (int i = 0; i < n; ++i)
                        for (int k = 0; k < channels; ++k)
                            QCOMPARE(out[std::size_t(i * channels + k)], in[std::size_t((n - 1 - i) * channels + k)]);
                    for (std::size_t i = in.size(); i < out.size(); ++i) QCOMPARE(out[i], std::uint8_t(0xA5));
                }
        });
    }
    cpu::reversePixelsAvoidVbmi = false;
    QVERIFY(!targets.isEmpty());
    qInfo("reversePixels runs on %s", cpu::pixelRowsTarget());
}

void TestWarp::halfPixelErrorWouldBeCaught() {
    // The bounds must catch a real error: a half-pixel offset on a photo breaks them.
    const Image src = photoCrop("astronaut.png", 256, 256, 3);
    AffineParams a;
    a.rotate_deg = 10;
    const Matrix3 m = affineMatrix(a, src.width, src.height);
    const Image good = referenceWarp(src, m, 256, 256, Interpolation::Linear, BorderMode::Reflect101, {});
    const Image shifted = engineWarp(src, Matrix3::translation(0.5, 0.5) * m, 256, 256, Interpolation::Linear,
                                     BorderMode::Reflect101, {});
    const Diff d = compare(shifted, good);
    QVERIFY2(!d.withinLinearBounds(), d.describe().constData());
}

QTEST_APPLESS_MAIN(TestWarp)
#include "test_warp.moc"
