// Sampling: Philox4x32-10 against the Random123 known answers, determinism, the gate rule (toggling
// one op never changes another's draws), ranges and distributions of the drawn values.

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include <QtTest>

#include "error.h"
#include "ops/distortion.h"
#include "philox.h"
#include "plan.h"
#include "sampler.h"

using namespace auglab;

namespace {

OpConfig op(const char* name) {
    return OpConfig::withDefaults(name);
}

template <class T>
T paramsOf(const Replay& r, std::size_t i) {
    return std::get<T>(r.ops.at(i).params);
}

}  // namespace

class TestSampler : public QObject {
    Q_OBJECT

private slots:
    /// elasticMaps against its definition written out one pixel at a time: the noise normalised,
    /// cv2.getGaussianKernel's taps in float, each pixel of each pass summed as first edge weight
    /// (the taps past the start, summed in double) times the first pixel, the taps inside in order,
    /// then the last edge weight times the last pixel; scaled by alpha and added to the grid. The
    /// engine's passes run tap by tap across whole rows over zero-padded rows: the same floats.
    void elasticMapsAreTheirDefinition() {
        const auto kernel = [](int ksize, double sigma) {
            std::vector<double> k(static_cast<std::size_t>(ksize));
            double sum = 0;
            for (int i = 0; i < ksize; ++i) {
                const double x = i - (ksize - 1) * 0.5;
                sum += k[std::size_t(i)] = std::exp(-0.5 / (sigma * sigma) * x * x);
            }
            std::vector<float> out;
            for (double v : k) out.push_back(static_cast<float>(v / sum));
            return out;
        };
        // One axis of one pass: out[pos] over `len` values `at(i)`.
        const auto pass = [](const std::vector<float>& k, int len, const std::function<float(int)>& at,
                             int pos) {
            const int ksize = int(k.size()), r = ksize / 2, lo = pos - r, hi = pos + r;
            const auto edgeSum = [&](int m, bool fromStart) {
                double s = 0;
                for (int j = 0; j < std::min(m, ksize); ++j)
                    s += k[std::size_t(fromStart ? j : ksize - 1 - j)];
                return static_cast<float>(s);
            };
            const float wFirst = lo < 0 ? edgeSum(-lo, true) : 0.0f,
                        wLast = hi > len - 1 ? edgeSum(hi - (len - 1), false) : 0.0f;
            float acc = wFirst * at(0);
            for (int i = std::max(lo, 0); i <= std::min(hi, len - 1); ++i)
                acc += k[std::size_t(i - lo)] * at(i);
            return acc + wLast * at(len - 1);
        };
        struct Case {
            int width, height;
            ElasticParams p;
            double scale;
        };
        std::vector<Case> cases;
        ElasticParams defaults;  // sigma 50: a 401-tap kernel, wider than the image
        defaults.noiseSeed = 7;
        cases.push_back({97, 61, defaults, 1.0});
        ElasticParams small = defaults;
        small.sigma = 6;
        small.alpha = 120;
        cases.push_back({130, 45, small, 1.0});
        cases.push_back({130, 45, small, 0.5});
        ElasticParams approx = small;
        approx.approximate = approx.sameDxDy = approx.uniform = true;
        cases.push_back({64, 70, approx, 1.0});
        for (const Case& c : cases) {
            const DistortionMaps got = elasticMaps(c.p, c.width, c.height, c.scale);
            std::vector<float> f = elasticNoise(c.p, c.width, c.height);
            if (!c.p.uniform) {
                float maxAbs = 0;
                for (float v : f) maxAbs = std::max(maxAbs, std::abs(v));
                for (float& v : f) v /= maxAbs;
            }
            const double sigma = c.p.sigma * c.scale;
            const int ksize = c.p.approximate ? std::max(1, int(std::lround(17 * c.scale)) | 1)
                                              : int(std::lround(sigma * 8 + 1)) | 1;
            const std::vector<float> k = kernel(ksize, sigma);
            const int fields = c.p.sameDxDy ? 1 : 2, w = c.width, h = c.height * fields;
            std::vector<float> rows(f.size()), blurred(f.size());
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    rows[std::size_t(y) * w + x] = pass(
                        k, w, [&](int i) { return f[std::size_t(y) * w + i]; }, x);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    blurred[std::size_t(y) * w + x] = pass(
                        k, h, [&](int i) { return rows[std::size_t(i) * w + x]; }, y);
            const float alpha = static_cast<float>(c.p.alpha * c.scale);
            const std::size_t n = std::size_t(c.width) * c.height;
            for (int y = 0; y < c.height; ++y)
                for (int x = 0; x < c.width; ++x) {
                    const std::size_t o = std::size_t(y) * c.width + x;
                    const float dx = blurred[o] * alpha, dy = blurred[o + (c.p.sameDxDy ? 0 : n)] * alpha;
                    QVERIFY2(got.x[o] == static_cast<float>(x + double(dx)) &&
                                 got.y[o] == static_cast<float>(y + double(dy)),
                             qPrintable(QString("%1x%2 sigma %3: pixel (%4, %5)")
                                            .arg(c.width)
                                            .arg(c.height)
                                            .arg(sigma)
                                            .arg(x)
                                            .arg(y)));
                }
        }
    }

    void philoxKnownAnswers_data();
    void philoxKnownAnswers();
    void deterministic();
    void gateIsDrawnForEveryOp();
    void probabilityIsHonoured();
    void valuesStayInRanges();
    void uniformDistribution();
    void betaDistribution_data();
    void betaDistribution();
    void elasticNoiseDistribution();
    void isoNoiseDistribution();
    void fixedRangesAreExact();
    void keepRatio();
    void dropoutHolesInsideImage_data();
    void dropoutHolesInsideImage();
    void dropoutAtTheImagesEdge();
    void gridDropoutFollowsAlbumentations_data();
    void gridDropoutFollowsAlbumentations();
    void randomResizedCropFollowsTorchvision();
    void randomResizedCropFallsBackToCentre_data();
    void randomResizedCropFallsBackToCentre();
    void opsAfterCropUseItsSize();
    void deotteDrawsNormals();
    void disabledOpNeverApplies();
    void drawnValuesUseKeyUnits();
};

void TestSampler::philoxKnownAnswers_data() {
    // The "philox4x32 10" known-answer vectors of the Random123 distribution (tests/kat_vectors).
    QTest::addColumn<QList<uint>>("counter");
    QTest::addColumn<QList<uint>>("key");
    QTest::addColumn<QList<uint>>("expected");
    QTest::newRow("zeros") << QList<uint>{0, 0, 0, 0} << QList<uint>{0, 0}
                           << QList<uint>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
    QTest::newRow("ones") << QList<uint>{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}
                          << QList<uint>{0xffffffff, 0xffffffff}
                          << QList<uint>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd};
    QTest::newRow("pi") << QList<uint>{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}
                        << QList<uint>{0xa4093822, 0x299f31d0}
                        << QList<uint>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1};
}

void TestSampler::philoxKnownAnswers() {
    QFETCH(QList<uint>, counter);
    QFETCH(QList<uint>, key);
    QFETCH(QList<uint>, expected);
    const PhiloxCounter out = philox4x32({counter[0], counter[1], counter[2], counter[3]}, {key[0], key[1]});
    for (int i = 0; i < 4; ++i) QCOMPARE(uint(out[std::size_t(i)]), expected[i]);
}

void TestSampler::deterministic() {
    std::vector<OpConfig> pipeline{op("affine"), op("horizontal_flip"), op("coarse_dropout"),
                                   op("gauss_noise")};
    pipeline[1].p = 0.5;
    const Replay a = samplePipeline(pipeline, 42, 7, 640, 480);
    const Replay b = samplePipeline(pipeline, 42, 7, 640, 480);
    QCOMPARE(a, b);
    // Another index, another seed: different draws.
    QVERIFY(!(samplePipeline(pipeline, 42, 8, 640, 480) == a));
    QVERIFY(!(samplePipeline(pipeline, 43, 7, 640, 480) == a));
    // Indices beyond 32 bits are distinct samples too (the counter holds the whole 64-bit index).
    QVERIFY(!(samplePipeline(pipeline, 42, 7 + (1ull << 32), 640, 480) == a));
}

void TestSampler::gateIsDrawnForEveryOp() {
    // Turning an op off, or changing its probability, must not move any other op's draws.
    std::vector<OpConfig> pipeline{op("affine"), op("brightness_contrast"), op("hue_saturation_value")};
    std::vector<OpConfig> changed = pipeline;
    changed[1].enabled = false;
    std::vector<OpConfig> lessLikely = pipeline;
    lessLikely[1].p = 0.1;
    for (std::uint64_t i = 0; i < 50; ++i) {
        const Replay r0 = samplePipeline(pipeline, 5, i, 300, 200);
        const Replay r1 = samplePipeline(changed, 5, i, 300, 200);
        const Replay r2 = samplePipeline(lessLikely, 5, i, 300, 200);
        QVERIFY(!r1.ops[1].applied);
        QCOMPARE(r1.ops[0], r0.ops[0]);
        QCOMPARE(r1.ops[2], r0.ops[2]);
        QCOMPARE(r2.ops[0], r0.ops[0]);
        QCOMPARE(r2.ops[2], r0.ops[2]);
    }
}

void TestSampler::probabilityIsHonoured() {
    std::vector<OpConfig> pipeline{op("horizontal_flip")};
    pipeline[0].p = 0.3;
    int applied = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i)
        applied += samplePipeline(pipeline, 99, std::uint64_t(i), 10, 10).ops[0].applied;
    // Binomial(20000, 0.3): sd = 64.8; 5 sd either side.
    QVERIFY2(std::abs(applied - 0.3 * n) < 5 * 64.8, qPrintable(QString::number(applied)));
    pipeline[0].p = 0.0;
    for (int i = 0; i < 1000; ++i)
        QVERIFY(!samplePipeline(pipeline, 99, std::uint64_t(i), 10, 10).ops[0].applied);
    pipeline[0].p = 1.0;
    for (int i = 0; i < 1000; ++i)
        QVERIFY(samplePipeline(pipeline, 99, std::uint64_t(i), 10, 10).ops[0].applied);
}

void TestSampler::valuesStayInRanges() {
    OpConfig affine = op("affine");
    affine.set("rotate_deg", Range{-30, 10});
    affine.set("keep_ratio", false);
    affine.set("scale_y", Range{0.5, 0.7});
    affine.set("shear_x_deg", Range{-5, 5});
    affine.set("translate_x_frac", Range{-0.25, 0.5});
    OpConfig bc = op("brightness_contrast");
    OpConfig hsv = op("hue_saturation_value");
    const int w = 640, h = 480;
    for (std::uint64_t i = 0; i < 2000; ++i) {
        const Replay r = samplePipeline({affine, bc, hsv}, 1, i, w, h);
        const auto& a = paramsOf<AffineParams>(r, 0);
        QVERIFY(a.rotate_deg >= -30 && a.rotate_deg < 10);
        QVERIFY(a.scale_y >= 0.5 && a.scale_y < 0.7);
        QVERIFY(a.shear_x_deg >= -5 && a.shear_x_deg < 5);
        QVERIFY(a.shear_y_deg == 0);
        // trunc(U(-0.25, 0.5) * 640) lies in [-160, 320).
        QVERIFY(a.translate_x_px >= -160 && a.translate_x_px < 320);
        const auto& b = paramsOf<BrightnessContrastParams>(r, 1);
        QVERIFY(std::abs(b.brightness) <= 0.2 && std::abs(b.contrast) <= 0.2);
        const auto& c = paramsOf<HsvParams>(r, 2);
        QVERIFY(std::abs(c.hue_shift_deg) <= 40 && std::abs(c.sat_shift) <= 30 &&
                std::abs(c.val_shift) <= 20);
    }
}

void TestSampler::uniformDistribution() {
    // Rotation U(-30, 30) over 20000 samples: mean 0 (sd of mean 0.12), and each of 10 bins holds
    // about 2000 draws (chi-square with 9 degrees of freedom, 0.1% critical value 27.9).
    OpConfig affine = op("affine");
    affine.set("rotate_deg", Range{-30, 30});
    const int n = 20000;
    double sum = 0;
    std::vector<int> bins(10);
    for (int i = 0; i < n; ++i) {
        const double r =
            paramsOf<AffineParams>(samplePipeline({affine}, 3, std::uint64_t(i), 100, 100), 0).rotate_deg;
        sum += r;
        bins[std::size_t(std::clamp(int((r + 30) / 6), 0, 9))]++;
    }
    QVERIFY(std::abs(sum / n) < 5 * 0.1225);
    double chi2 = 0;
    for (int b : bins) chi2 += (b - 2000.0) * (b - 2000.0) / 2000.0;
    QVERIFY2(chi2 < 27.9, qPrintable(QString::number(chi2)));
}

namespace {

/// Closed-form Beta CDFs, written independently of the engine: the arcsine law for (1/2, 1/2) and
/// the binomial tail for whole parameters, I_x(a, b) = sum_{j=a}^{a+b-1} C(a+b-1, j) x^j (1-x)^(a+b-1-j).
double betaCdfReference(double x, double a, double b) {
    if (a == 0.5 && b == 0.5) return 2.0 / M_PI * std::asin(std::sqrt(x));
    const int n = int(a + b) - 1;
    double sum = 0;
    for (int j = int(a); j <= n; ++j) {
        double c = 1;
        for (int k = 0; k < j; ++k) c = c * (n - k) / (k + 1);
        sum += c * std::pow(x, j) * std::pow(1 - x, n - j);
    }
    return sum;
}

}  // namespace

void TestSampler::betaDistribution_data() {
    QTest::addColumn<double>("a");
    QTest::addColumn<double>("b");
    QTest::newRow("arcsine (0.5, 0.5)") << 0.5 << 0.5;
    QTest::newRow("uniform (1, 1)") << 1.0 << 1.0;
    QTest::newRow("(2, 5)") << 2.0 << 5.0;
    QTest::newRow("(3, 3)") << 3.0 << 3.0;
}

void TestSampler::betaDistribution() {
    // The CDF against closed forms at 99 points, then 8000 draws against it: the one-sample KS
    // statistic below its 0.1% critical value 1.949 / sqrt(n).
    QFETCH(double, a);
    QFETCH(double, b);
    for (int k = 1; k < 100; ++k) {
        const double x = k / 100.0;
        QVERIFY2(std::abs(regularizedIncompleteBeta(x, a, b) - betaCdfReference(x, a, b)) < 1e-12,
                 qPrintable(QString("x = %1").arg(x)));
    }
    const int n = 8000;
    std::vector<double> v;
    for (int i = 0; i < n; ++i) {
        const double x = OpDraws(11, std::uint64_t(i), 3).beta(1, a, b);
        QVERIFY(x >= 0 && x <= 1);
        v.push_back(x);
    }
    std::sort(v.begin(), v.end());
    double ks = 0;
    for (int i = 0; i < n; ++i) {
        const double f = betaCdfReference(v[std::size_t(i)], a, b);
        ks = std::max({ks, std::abs(f - double(i) / n), std::abs(f - double(i + 1) / n)});
    }
    QVERIFY2(ks < 1.949 / std::sqrt(double(n)), qPrintable(QString("KS %1").arg(ks)));
}

void TestSampler::elasticNoiseDistribution() {
    // ElasticTransform's noise (numpy's standard_normal and uniform(-1, 1) in the library): each field
    // of a 200 x 150 image against the closed-form CDF, one-sample KS below its 0.1% critical value;
    // dx and dy not correlated; another seed, other noise.
    for (const bool uniform : {false, true}) {
        ElasticParams p;
        p.uniform = uniform;
        p.noiseSeed = 0x5eed;
        const int w = 200, h = 150, n = w * h;
        const std::vector<float> noise = elasticNoise(p, w, h);
        QCOMPARE(noise.size(), std::size_t(2 * n));
        for (int f = 0; f < 2; ++f) {
            std::vector<double> v(noise.begin() + std::ptrdiff_t(f) * n,
                                  noise.begin() + std::ptrdiff_t(f + 1) * n);
            std::sort(v.begin(), v.end());
            double ks = 0;
            for (int i = 0; i < n; ++i) {
                const double x = v[std::size_t(i)];
                const double cdf = uniform ? (x + 1) / 2 : 0.5 * std::erfc(-x / std::sqrt(2.0));
                ks = std::max({ks, std::abs(cdf - double(i) / n), std::abs(cdf - double(i + 1) / n)});
            }
            QVERIFY2(ks < 1.949 / std::sqrt(double(n)),
                     qPrintable(QString("field %1: KS %2").arg(f).arg(ks)));
        }
        double sxy = 0, sxx = 0, syy = 0;
        for (int i = 0; i < n; ++i) {
            const double a = noise[std::size_t(i)], b = noise[std::size_t(n + i)];
            sxy += a * b, sxx += a * a, syy += b * b;
        }
        QVERIFY2(std::abs(sxy / std::sqrt(sxx * syy)) < 4 / std::sqrt(double(n)), "dx and dy correlate");
        ElasticParams q = p;
        q.noiseSeed = 0x5eee;
        QVERIFY(elasticNoise(q, w, h) != noise);
        p.sameDxDy = true;
        QCOMPARE(elasticNoise(p, w, h).size(), std::size_t(n));
    }
}

void TestSampler::isoNoiseDistribution() {
    // ISONoise's per-pixel noise (numpy's poisson and normal in the library), over a 300 x 200 image:
    // the counts against Poisson(lambda) for small and large rates (chi-square of the counts seen at
    // least 5 times expected, the rest pooled, below the 0.1% critical value of its degrees of
    // freedom), the hue normals against N(0, 1) (one-sample KS below its 0.1% critical value).
    const int w = 300, h = 200, n = w * h;
    // The 0.1% critical values of chi-square for 1..12 degrees of freedom.
    const double critical[] = {10.83, 13.82, 16.27, 18.47, 20.52, 22.46,
                               24.32, 26.12, 27.88, 29.59, 31.26, 32.91};
    for (const double lambda : {0.03, 0.3, 2.5}) {
        std::vector<long long> seen(64, 0);
        std::vector<double> normals;
        const IsoNoise noise(0xc0ffee, lambda);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const IsoNoiseSample s = noise.at(x, y);
                QVERIFY(s.count >= 0 && s.count < 64);
                ++seen[std::size_t(s.count)];
                normals.push_back(s.normal);
            }
        double chi = 0, pmf = std::exp(-lambda), restExpected = n;
        long long restSeen = n;
        int bins = 0;
        for (int k = 0; k < 64 && pmf * n >= 5; ++k, pmf *= lambda / k) {
            const double expected = pmf * n;
            chi += (seen[std::size_t(k)] - expected) * (seen[std::size_t(k)] - expected) / expected;
            restExpected -= expected;
            restSeen -= seen[std::size_t(k)];
            ++bins;
        }
        if (restExpected > 1e-9)
            chi += (restSeen - restExpected) * (restSeen - restExpected) / restExpected, ++bins;
        QVERIFY(bins >= 2);
        QVERIFY2(chi < critical[std::min(bins - 2, 11)],
                 qPrintable(QString("lambda %1: chi-square %2 over %3 bins").arg(lambda).arg(chi).arg(bins)));
        std::sort(normals.begin(), normals.end());
        double ks = 0;
        for (int i = 0; i < n; ++i) {
            const double cdf = 0.5 * std::erfc(-normals[std::size_t(i)] / std::sqrt(2.0));
            ks = std::max({ks, std::abs(cdf - double(i) / n), std::abs(cdf - double(i + 1) / n)});
        }
        QVERIFY2(ks < 1.949 / std::sqrt(double(n)), qPrintable(QString("hue normals: KS %1").arg(ks)));
    }
}

void TestSampler::fixedRangesAreExact() {
    OpConfig affine = op("affine");
    affine.set("rotate_deg", Range{12.5, 12.5});
    affine.set("scale_x", Range{1.25, 1.25});
    affine.set("translate_x_frac", Range{0.1, 0.1});
    affine.set("translate_y_frac", Range{-0.1, -0.1});
    for (std::uint64_t i = 0; i < 20; ++i) {
        const auto& a = paramsOf<AffineParams>(samplePipeline({affine}, 8, i, 301, 199), 0);
        QCOMPARE(a.rotate_deg, 12.5);
        QCOMPARE(a.scale_x, 1.25);
        QCOMPARE(a.translate_x_px, 30);   // trunc(30.1)
        QCOMPARE(a.translate_y_px, -19);  // trunc(-19.9) toward zero
    }
}

void TestSampler::keepRatio() {
    OpConfig affine = op("affine");
    for (std::uint64_t i = 0; i < 100; ++i) {
        const auto& a = paramsOf<AffineParams>(samplePipeline({affine}, 8, i, 100, 100), 0);
        QCOMPARE(a.scale_y, a.scale_x);
    }
    affine.set("keep_ratio", false);
    int differ = 0;
    for (std::uint64_t i = 0; i < 100; ++i) {
        const auto& a = paramsOf<AffineParams>(samplePipeline({affine}, 8, i, 100, 100), 0);
        differ += a.scale_y != a.scale_x;
    }
    QCOMPARE(differ, 100);
}

void TestSampler::dropoutHolesInsideImage_data() {
    QTest::addColumn<bool>("pixels");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::newRow("fractions 640x480") << false << 640 << 480;
    QTest::newRow("fractions 1x1") << false << 1 << 1;
    QTest::newRow("pixels 640x480") << true << 640 << 480;
    QTest::newRow("pixels larger than image 10x7") << true << 10 << 7;
}

void TestSampler::dropoutHolesInsideImage() {
    QFETCH(bool, pixels);
    QFETCH(int, width);
    QFETCH(int, height);
    OpConfig d = op("coarse_dropout");
    d.set("holes", Range{2, 5});
    if (pixels) {
        d.set("hole_height_px", Range{5, 40});
        d.set("hole_width_px", Range{3, 30});
    }
    d.set("fill", Fill{Fill::Mode::RandomUniform, {0, 0, 0}});
    std::map<std::size_t, int> counts;
    for (std::uint64_t i = 0; i < 500; ++i) {
        const auto& p = paramsOf<DropoutParams>(samplePipeline({d}, 11, i, width, height), 0);
        QVERIFY(p.holes.size() >= 2 && p.holes.size() <= 5);
        QCOMPARE(p.holeColours.size(), p.holes.size());
        counts[p.holes.size()]++;
        for (const Hole& h : p.holes) {
            QVERIFY(h.x >= 0 && h.y >= 0 && h.x + h.w <= width && h.y + h.h <= height);
            if (pixels && width >= 30 && height >= 40) {
                QVERIFY(h.h >= 5 && h.h <= 40);
                QVERIFY(h.w >= 3 && h.w <= 30);
            }
            if (!pixels) {
                // trunc(H * U(0.05, 0.1))
                QVERIFY(h.h >= int(height * 0.05) && h.h <= int(height * 0.1));
            }
        }
    }
    // randint is inclusive at both ends: every count 2..5 occurs.
    QCOMPARE(counts.size(), std::size_t(4));
}

void TestSampler::dropoutAtTheImagesEdge() {
    // Albumentations 2.0.8 (coarse_dropout.py, calculate_hole_dimensions): a size in pixels is drawn
    // from [min, min(max, side)], and an image smaller than the minimum raises. Not the whole range
    // clamped after, which would make most holes full-side.
    OpConfig d = op("coarse_dropout");
    d.set("holes", Range{1, 1});
    d.set("hole_height_px", Range{5, 400});
    d.set("hole_width_px", Range{3, 20});
    std::map<int, int> heights;
    for (std::uint64_t i = 0; i < 2000; ++i) {
        const Hole h = paramsOf<DropoutParams>(samplePipeline({d}, 4, i, 100, 30), 0).holes.at(0);
        QVERIFY(h.h >= 5 && h.h <= 30 && h.w >= 3 && h.w <= 20);
        heights[h.h]++;
    }
    QCOMPARE(heights.size(), std::size_t(26));  // every height 5..30 occurs
    QVERIFY2(heights[30] < 2000 / 26 * 2,
             qPrintable(QString::number(heights[30])));  // uniform, not piled at 30
    const auto refused = [](const OpConfig& o, int w, int h, const char* words) {
        try {
            samplePipeline({o}, 1, 0, w, h);
        } catch (const InputError& e) {
            return QString(e.what()).contains(words);
        }
        return false;
    };
    QVERIFY(refused(d, 100, 4, "do not fit this 100x4 image"));  // lower than the 5-px minimum height
    QVERIFY(refused(d, 2, 30, "do not fit this 2x30 image"));
    // GridDropout: the exported unit_size_range [min, max + 1) must stay within the shorter side,
    // else the library raises: so the largest unit must be below it.
    OpConfig g = op("grid_dropout");
    g.set("unit_size_px", Range{10, 40});
    QCOMPARE(paramsOf<DropoutParams>(samplePipeline({g}, 1, 0, 60, 41), 0).unitPx[0] <= 40, true);
    QVERIFY(refused(g, 60, 40, "below its shorter side, 40"));
}

void TestSampler::gridDropoutFollowsAlbumentations_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("unitMin");  // 0: no unit_size_px (max(2, side // 10) per axis)
    QTest::addColumn<int>("unitMax");
    QTest::addColumn<double>("ratio");
    QTest::addColumn<bool>("randomOffset");
    QTest::addColumn<int>("expectedUnitMin");
    QTest::addColumn<int>("expectedUnitMax");
    QTest::newRow("default unit, 451x300, offsets") << 451 << 300 << 0 << 0 << 0.5 << true << 45 << 45;
    QTest::newRow("default unit, 451x300, corners") << 451 << 300 << 0 << 0 << 0.37 << false << 45 << 45;
    QTest::newRow("unit 17-23, 640x427, offsets") << 640 << 427 << 17 << 23 << 0.3 << true << 17 << 23;
    QTest::newRow("unit 17-23, 640x427, corners") << 640 << 427 << 17 << 23 << 0.9 << false << 17 << 23;
    QTest::newRow("unit up to the short side less one, 60x40")
        << 60 << 40 << 30 << 39 << 0.5 << true << 30 << 39;
    QTest::newRow("ratio 1, cells of 2 px, 33x9") << 33 << 9 << 2 << 2 << 1.0 << false << 2 << 2;
    QTest::newRow("one row too few, 3x1") << 3 << 1 << 0 << 0 << 0.5 << true << 2 << 2;
}

void TestSampler::gridDropoutFollowsAlbumentations() {
    // Albumentations 2.0 GridDropout: rows = H // unit, columns = W // unit, the side cut into
    // lengths q or q + 1 (q = side // count) in shuffled order, one hole per cell of
    // trunc(min(max(cell * ratio, 1), cell - 1)) pixels, offset uniformly in [0, cell - hole].
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, unitMin);
    QFETCH(int, unitMax);
    QFETCH(double, ratio);
    QFETCH(bool, randomOffset);
    QFETCH(int, expectedUnitMin);
    QFETCH(int, expectedUnitMax);
    OpConfig g = op("grid_dropout");
    g.set("ratio", ratio);
    g.set("random_offset", randomOffset);
    if (unitMin) g.set("unit_size_px", Range{double(unitMin), double(unitMax)});
    const auto holeSize = [&](int cell) { return int(std::min(std::max(cell * ratio, 1.0), cell - 1.0)); };
    std::map<int, int> units, firstHoleY;
    std::set<std::vector<int>> columnCuts;  // how the columns were shuffled
    bool unevenColumns = false;
    for (std::uint64_t i = 0; i < 400; ++i) {
        const Replay r = samplePipeline({g}, 3, i, width, height);
        QCOMPARE(r, samplePipeline({g}, 3, i, width, height));
        const auto& p = paramsOf<DropoutParams>(r, 0);
        // A drawn unit is square (one randint, as Albumentations draws it); the default is a tenth
        // of each side, at least 2.
        const int unitW = unitMin ? p.unitPx[0] : std::max(2, width / 10);
        const int unitH = unitMin ? p.unitPx[0] : std::max(2, height / 10);
        QCOMPARE(p.unitPx[0], unitW);
        QCOMPARE(p.unitPx[1], unitH);
        QVERIFY(unitW >= expectedUnitMin && unitW <= expectedUnitMax);
        units[unitW]++;
        const int rows = height / unitH, cols = width / unitW;
        QCOMPARE(int(p.holes.size()), rows * cols);
        if (p.holes.empty()) continue;
        const int qy = height / rows, qx = width / cols;
        std::vector<int> ys, xs;  // hole corners of the first column and the first row
        for (int k = 0; k < int(p.holes.size()); ++k) {
            const Hole& h = p.holes[std::size_t(k)];
            QVERIFY(h.x >= 0 && h.y >= 0 && h.x + h.w <= width && h.y + h.h <= height);
            QVERIFY2(h.h == holeSize(qy) || (height % rows && h.h == holeSize(qy + 1)),
                     qPrintable(QString::number(h.h)));
            QVERIFY2(h.w == holeSize(qx) || (width % cols && h.w == holeSize(qx + 1)),
                     qPrintable(QString::number(h.w)));
            for (int m = 0; m < k; ++m) {  // cells do not overlap, so neither do their holes
                const Hole& o = p.holes[std::size_t(m)];
                QVERIFY(h.x >= o.x + o.w || o.x >= h.x + h.w || h.y >= o.y + o.h || o.y >= h.y + h.h);
            }
            if (k % cols == 0) ys.push_back(h.y);
            if (k < cols) xs.push_back(h.x);
        }
        firstHoleY[p.holes[0].y]++;
        if (!randomOffset) {
            // Holes sit at the cells' corners: the corners cut each side into a permutation of
            // side % count lengths q + 1 and the rest q.
            const auto checkCuts = [](std::vector<int> starts, int side, int count) {
                starts.push_back(side);
                int longer = 0;
                if (starts[0] != 0) return false;
                for (std::size_t c = 1; c < starts.size(); ++c) {
                    const int len = starts[c] - starts[c - 1];
                    if (len != side / count && len != side / count + 1) return false;
                    longer += len == side / count + 1;
                }
                return longer == side % count;
            };
            QVERIFY(checkCuts(ys, height, rows));
            QVERIFY(checkCuts(xs, width, cols));
            columnCuts.insert(xs);
            unevenColumns = unevenColumns || width % cols != 0;
        }
    }
    if (unevenColumns) QVERIFY2(columnCuts.size() > 1, "the uneven columns are never shuffled");
    if (unitMin && expectedUnitMin < expectedUnitMax) {
        // randint is inclusive at both ends.
        QCOMPARE(units.begin()->first, expectedUnitMin);
        QCOMPARE(units.rbegin()->first, expectedUnitMax);
    }
    if (randomOffset && unitMin == unitMax && height / std::max(2, height / 10) > 0) {
        // The first cell starts at 0: its hole's y takes every offset in [0, cell - hole].
        const int unitH = unitMin ? std::min(unitMin, std::min(width, height)) : std::max(2, height / 10);
        const int rows = height / unitH, q = height / rows;
        QCOMPARE(firstHoleY.begin()->first, 0);
        QVERIFY2(firstHoleY.rbegin()->first >= q - holeSize(q),
                 qPrintable(QString::number(firstHoleY.rbegin()->first)));
        QVERIFY(firstHoleY.rbegin()->first <= q + 1 - holeSize(q + 1));
    }
}

void TestSampler::randomResizedCropFollowsTorchvision() {
    // torchvision's get_params, as Albumentations 2.0: area U(scale) x W x H, aspect
    // exp(U(log ratio)), w = round(sqrt(area * aspect)), h = round(sqrt(area / aspect)), placed at
    // (int((W - w + 1) u), int((H - h + 1) v)).
    const int W = 451, H = 300;
    OpConfig c = op("random_resized_crop");
    c.set("size", Size2{96, 128});
    // Every try fits at these ranges (at most 212 px high, 220 px wide), so the first try is taken
    // and its distributions show unbiased by rejections.
    c.set("scale", Range{0.05, 0.2});
    c.set("ratio", Range{0.6, 1.8});
    double logRatioSum = 0;
    int n = 0, atLeft = 0, atRight = 0;
    for (std::uint64_t i = 0; i < 3000; ++i) {
        const auto p = paramsOf<CropParams>(samplePipeline({c}, 9, i, W, H), 0);
        QCOMPARE(p.outWidth, 128);
        QCOMPARE(p.outHeight, 96);
        QVERIFY(p.x >= 0 && p.y >= 0 && p.x + p.width <= W && p.y + p.height <= H);
        // Rounding moves each side by at most half a pixel.
        const double lo = (p.width - 0.5) * (p.height - 0.5), hi = (p.width + 0.5) * (p.height + 0.5);
        QVERIFY2(hi >= 0.05 * W * H && lo <= 0.2 * W * H,
                 qPrintable(QString("%1x%2").arg(p.width).arg(p.height)));
        QVERIFY((p.width + 0.5) / (p.height - 0.5) >= 0.6 && (p.width - 0.5) / (p.height + 0.5) <= 1.8);
        logRatioSum += std::log(double(p.width) / p.height);
        ++n;
        atLeft += p.x == 0;
        atRight += p.x == W - p.width;
    }
    // Log-uniform aspect: the mean of log(w / h) is the middle of [log 0.6, log 1.8] (0.0527).
    QVERIFY2(std::abs(logRatioSum / n - 0.5 * (std::log(0.6) + std::log(1.8))) < 0.02,
             qPrintable(QString::number(logRatioSum / n)));
    QVERIFY(atLeft > 0 && atRight > 0);  // both extreme positions occur
}

void TestSampler::randomResizedCropFallsBackToCentre_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<double>("scale");
    QTest::addColumn<double>("ratioMin");
    QTest::addColumn<double>("ratioMax");
    QTest::addColumn<QRect>("expected");  // x, y, width, height
    // No try fits: a centre crop clamped to the ratio range.
    QTest::newRow("too wide: rows of the middle") << 100 << 100 << 0.9 << 5.0 << 6.0 << QRect(0, 40, 100, 20);
    QTest::newRow("too tall: columns of the middle")
        << 100 << 100 << 0.9 << 0.1 << 0.2 << QRect(40, 0, 20, 100);
    QTest::newRow("451x300 at ratio 2") << 451 << 300 << 1.0 << 2.0 << 2.0 << QRect(0, 37, 451, 226);
    // A fitting try, rounded half to even as Python's round(): sqrt(625 x 0.01) = 2.5 -> 2.
    QTest::newRow("round half to even") << 25 << 25 << 0.01 << 1.0 << 1.0 << QRect(-1, -1, 2, 2);
}

void TestSampler::randomResizedCropFallsBackToCentre() {
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(double, scale);
    QFETCH(double, ratioMin);
    QFETCH(double, ratioMax);
    QFETCH(QRect, expected);
    OpConfig c = op("random_resized_crop");
    c.set("scale", Range{scale, scale});
    c.set("ratio", Range{ratioMin, ratioMax});
    for (std::uint64_t i = 0; i < 20; ++i) {
        const auto p = paramsOf<CropParams>(samplePipeline({c}, 4, i, width, height), 0);
        QCOMPARE(p.width, expected.width());
        QCOMPARE(p.height, expected.height());
        if (expected.x() >= 0) {
            QCOMPARE(p.x, expected.x());
            QCOMPARE(p.y, expected.y());
        }
    }
}

void TestSampler::opsAfterCropUseItsSize() {
    OpConfig c = op("random_resized_crop");
    c.set("size", Size2{50, 80});
    OpConfig affine = op("affine");
    affine.set("translate_x_frac", Range{0.5, 0.5});
    OpConfig drop = op("coarse_dropout");
    drop.set("hole_height_frac", Range{1, 1});
    drop.set("hole_width_frac", Range{0.5, 0.5});
    const Replay r = samplePipeline({c, affine, drop}, 1, 0, 640, 427);
    QCOMPARE(paramsOf<AffineParams>(r, 1).translate_x_px, 40);  // half of 80, not of 640
    for (const Hole& h : paramsOf<DropoutParams>(r, 2).holes) {
        QCOMPARE(h.h, 50);
        QCOMPARE(h.w, 40);
    }
    int w = 0, h = 0;
    frameSize(r, 1, w, h);
    QCOMPARE(QSize(w, h), QSize(80, 50));
    frameSize(r, 0, w, h);
    QCOMPARE(QSize(w, h), QSize(640, 427));
    // A crop that does not apply leaves the size alone.
    c.p = 0;
    const Replay skipped = samplePipeline({c, affine}, 1, 0, 640, 427);
    QCOMPARE(paramsOf<AffineParams>(skipped, 1).translate_x_px, 320);
}

void TestSampler::deotteDrawsNormals() {
    // Six independent normal draws scaled by the stds: mean, spread and tails of N(0, 1).
    OpConfig d = op("deotte_affine");
    d.set("rotation_std_deg", 15.0);
    d.set("zoom_std", 0.1);
    const int n = 20000;
    double sum = 0, sumSq = 0, zoomSum = 0, cross = 0;
    int beyond2 = 0;
    for (std::uint64_t i = 0; i < std::uint64_t(n); ++i) {
        const auto p = paramsOf<DeotteParams>(samplePipeline({d}, 5, i, 64, 64), 0);
        const double z = p.rotation_deg / 15.0;
        sum += z;
        sumSq += z * z;
        beyond2 += std::abs(z) > 2;
        zoomSum += p.height_zoom;
        cross += z * (p.width_shift_px / 16.0);
    }
    QVERIFY2(std::abs(sum / n) < 0.03, qPrintable(QString::number(sum / n)));
    QVERIFY2(std::abs(sumSq / n - 1) < 0.04, qPrintable(QString::number(sumSq / n)));
    QVERIFY2(std::abs(beyond2 / double(n) - 0.0455) < 0.006,
             qPrintable(QString::number(beyond2 / double(n))));
    QVERIFY(std::abs(zoomSum / n - 1.0) < 0.003);
    QVERIFY(std::abs(cross / n) < 0.03);  // draws of different parameters are uncorrelated
}

void TestSampler::disabledOpNeverApplies() {
    OpConfig a = op("affine");
    a.enabled = false;
    for (std::uint64_t i = 0; i < 100; ++i) QVERIFY(!samplePipeline({a}, 1, i, 50, 50).ops[0].applied);
}

void TestSampler::drawnValuesUseKeyUnits() {
    // The distribution view reads values in the preset key's units, from the replay.
    OpConfig affine = op("affine");
    affine.set("translate_x_frac", Range{0.25, 0.25});
    affine.set("rotate_deg", Range{7, 7});
    OpConfig drop = op("coarse_dropout");
    drop.set("holes", Range{3, 3});
    const Replay r = samplePipeline({affine, drop}, 1, 0, 400, 200);
    QCOMPARE(drawnValues(r.ops[0], "translate_x_frac", 400, 200),
             std::vector<double>{0.25});  // 100 px of 400
    QCOMPARE(drawnValues(r.ops[0], "rotate_deg", 400, 200), std::vector<double>{7.0});
    QVERIFY(drawnValues(r.ops[0], "interpolation", 400, 200).empty());
    QCOMPARE(drawnValues(r.ops[1], "holes", 400, 200), std::vector<double>{3.0});
    const auto heights = drawnValues(r.ops[1], "hole_height_frac", 400, 200);
    QCOMPARE(heights.size(), std::size_t(3));
    for (double h : heights) QVERIFY(h >= 0.05 - 1e-12 && h <= 0.1);
    affine.enabled = false;
    QVERIFY(drawnValues(samplePipeline({affine}, 1, 0, 400, 200).ops[0], "rotate_deg", 400, 200).empty());
}

QTEST_APPLESS_MAIN(TestSampler)
#include "test_sampler.moc"
