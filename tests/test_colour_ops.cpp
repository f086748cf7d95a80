// The pixel ops of SPEC §3 on the CPU backend, each against a reference written here (scalar
// formulas, a naive double-precision blur, analytic noise moments) and against OpenCV: the LUTs of
// brightness_contrast, OpenCV's 8-bit HSV round trip, RGB2GRAY, the separable Gaussian with
// reflect_101 at sizes that hit every edge, gauss_noise statistics and coarse_dropout fills.
// Alpha and row padding come through every op untouched.

#include <QRect>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <random>

#include "colour.h"
#include "cpu_backend.h"
#include "ops/hue_saturation_value.h"
#include "image_io.h"
#include "plan.h"
#include "thread_pool.h"

using namespace auglab;

namespace {

const QStringList kSamples{"astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg"};

Image loadSample(const QString& name) {
    return loadImage((QString(AUGLAB_SOURCE_DIR) + "/resources/samples/" + name).toStdString()).image;
}

// RGBA copy of an RGB image with random alpha and padded rows (padding bytes 0xA5).
Image rgbaPadded(const Image& rgb, unsigned seed) {
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
cv::Mat rgbMat(const Image& img) {
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
Cmp compareRgb(const Image& img, const cv::Mat& ref, int xEnd = 1 << 30) {
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
bool sameNonRgbBytes(const Image& a, const Image& b) {
    if (a.stride != b.stride || a.pixels.size() != b.pixels.size()) return false;
    for (int y = 0; y < a.height; ++y)
        for (std::size_t i = 0; i < a.stride; ++i) {
            const bool rgb = i < std::size_t(a.width * a.channels) && int(i % std::size_t(a.channels)) < 3;
            if (!rgb && a.row(y)[i] != b.row(y)[i]) return false;
        }
    return true;
}

// SPEC §3 brightness_contrast, scalar: float32 multiply, float32 add (no FMA), clip, truncate.
std::uint8_t refBrightnessContrast(int v, float alpha, float beta) {
    volatile float product = float(v) * alpha;
    volatile float sum = product + beta;
    const float s = sum;
    return std::uint8_t(s < 0.0f ? 0.0f : s > 255.0f ? 255.0f : s);
}
// The image with every RGB value looked up by cv::LUT in the in-test reference table.
cv::Mat refLookup(const Image& src, float alpha, float beta) {
    cv::Mat table(1, 256, CV_8U), out;
    for (int v = 0; v < 256; ++v) table.at<std::uint8_t>(v) = refBrightnessContrast(v, alpha, beta);
    cv::LUT(rgbMat(src), table, out);
    return out;
}

// cv::cvtColor(HSV2RGB) with every pixel in OpenCV's vector loop: the pixels laid out in rows of
// 64, a multiple of every SIMD block (16 SSE/NEON, 32 AVX2). A row's last (width mod block) pixels
// would otherwise go through OpenCV's scalar loop, which rounds where the vector loop truncates.
cv::Mat hsvToRgbVectorPath(const cv::Mat& hsv) {
    const std::size_t n = hsv.total();
    cv::Mat flat(int((n + 63) / 64), 64, CV_8UC3, cv::Scalar::all(0)), rgb, out(hsv.size(), CV_8UC3);
    std::memcpy(flat.data, hsv.data, n * 3);
    cv::cvtColor(flat, rgb, cv::COLOR_HSV2RGB);
    std::memcpy(out.data, rgb.data, n * 3);
    return out;
}
// OpenCV runs its AVX2 build here, whose compiler-fused multiply-adds hsvToRgb8 reproduces.
bool openCvUsesFma() {
    return cv::checkHardwareSupport(CV_CPU_AVX2) && cv::checkHardwareSupport(CV_CPU_FMA3);
}

// Reflect-101 by folding with the period 2n-2 (written differently from the kernel's loop).
int fold101(int p, int n) {
    if (n == 1) return 0;
    const int period = 2 * n - 2;
    p = ((p % period) + period) % period;
    return p < n ? p : period - p;
}

// Mean and std of clip(128 + trunc(N(mu, sigma))) - 128, summed over the integer outcomes.
std::pair<double, double> truncNormalMoments(double mu, double sigma) {
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

}  // namespace

Q_DECLARE_METATYPE(QList<QRect>)

class TestColourOps : public QObject {
    Q_OBJECT

private slots:
    void brightnessContrast_data();
    void brightnessContrast();
    void hsvOnPhotos_data();
    void hsvOnPhotos();
    void conversionsExhaustive();
    void labExhaustive();
    void symmetricEigen();
    void gaussianTaps8u();
    void fancyPcaThreads();
    void clahe_data();
    void clahe();
    void toGray_data();
    void toGray();
    void channelMatrix_data();
    void channelMatrix();
    void gaussianKernel_data();
    void gaussianKernel();
    void blurOnPhotos_data();
    void blurOnPhotos();
    void blurEdges_data();
    void blurEdges();
    void boxBlurIsCvBlur_data();
    void boxBlurIsCvBlur();
    void noiseExactCases_data();
    void noiseExactCases();
    void noiseStatistics_data();
    void noiseStatistics();
    void dropout_data();
    void dropout();
    void pixelDropout_data();
    void pixelDropout();
    void compression_data();
    void compression();
};

void TestColourOps::brightnessContrast_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<double>("contrast");
    QTest::addColumn<double>("brightness");
    // In the last two rows one entry (v = 245, v = 160) lies a few 1e-6 below an integer: float
    // multiply-then-add truncates it down, a fused multiply-add or double precision does not.
    const double rows[][2] = {{0, 0},         {0.2, 0.2},   {-0.2, -0.2},     {0.137, -0.0731},
                              {1.0 / 3, 0.1}, {-1, 0.5},    {-1, -0.3},       {-0.999, 0},
                              {1, 0},         {0, 1},       {0, -1},          {3, -2},
                              {0.1, 0.1},     {-0.5, 0.75}, {-0.198, -0.198}, {-0.198, -0.064}};
    int i = 0;
    for (const auto& r : rows) {
        const QString file = kSamples[i++ % kSamples.size()];
        QTest::newRow(qPrintable(QString("%1 c %2 b %3").arg(file).arg(r[0]).arg(r[1])))
            << file << r[0] << r[1];
    }
}

void TestColourOps::brightnessContrast() {
    QFETCH(QString, file);
    QFETCH(double, contrast);
    QFETCH(double, brightness);
    const BrightnessContrastParams p{brightness, contrast, true};
    const float alpha = contrastAlpha(p), beta = brightnessBeta(p, 0.0);
    QCOMPARE(alpha, float(1.0 + contrast));
    QCOMPARE(beta, float(brightness * 255.0));
    const Lut lut = auglab::brightnessContrastLut(alpha, beta);
    for (int v = 0; v < 256; ++v)
        QVERIFY2(lut[std::size_t(v)] == refBrightnessContrast(v, alpha, beta),
                 qPrintable(QString::number(v)));

    // Applied to a real photo (RGBA, padded rows): a per-value lookup, alpha and padding untouched.
    const Image src = rgbaPadded(loadSample(file), 3);
    Image out = src;
    applyPixelStep(out, LutStep{lut}, RowLoop{});
    QCOMPARE(compareRgb(out, refLookup(src, alpha, beta)).max, 0);
    QVERIFY(sameNonRgbBytes(out, src));

    // brightness_by_max = false: beta = brightness * mean of the RGB values (random alpha would
    // move the mean by tens of levels).
    const cv::Scalar m = cv::mean(rgbMat(src));
    const double mean = (m[0] + m[1] + m[2]) / 3.0;
    const float meanBeta = float(brightness * mean);
    QCOMPARE(brightnessBeta(BrightnessContrastParams{brightness, contrast, false}, mean), meanBeta);
    out = src;
    ThreadPool pool(2);
    applyPixelStep(out, MeanBrightnessStep{alpha, brightness}, RowLoop{&pool});
    QCOMPARE(compareRgb(out, refLookup(src, alpha, meanBeta)).max, 0);
    QVERIFY(sameNonRgbBytes(out, src));
}

void TestColourOps::hsvOnPhotos_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<double>("hue");
    QTest::addColumn<double>("sat");
    QTest::addColumn<double>("val");
    const struct {
        const char* name;
        double h, s, v;
    } shifts[] = {{"zero", 0, 0, 0},
                  {"default max", 40, 30, 20},
                  {"default min", -40, -30, -20},
                  {"odd degrees", 13, 0, 0},
                  {"negative wrap", -359, 0, 0},
                  {"half turn", 181, 0, 0},
                  {"fractional", -13.4, 29.9, -19.9},
                  {"sat clip up", 0, 255, 0},
                  {"sat clip down", 0, -255, 0},
                  {"val clip", 0, 0, 300},
                  {"all big", 720.5, 200, -200}};
    for (const QString& f : kSamples)
        for (const auto& s : shifts) QTest::newRow(qPrintable(f + " " + s.name)) << f << s.h << s.s << s.v;
}

void TestColourOps::hsvOnPhotos() {
    QFETCH(QString, file);
    QFETCH(double, hue);
    QFETCH(double, sat);
    QFETCH(double, val);
    const HsvLuts luts = hsvLuts(HsvParams{hue, sat, val});
    bool lutsIdentity = true;
    for (int i = 0; i < 256; ++i) {
        const auto u = std::size_t(i);
        lutsIdentity = lutsIdentity && (i >= 180 || luts.hue[u] == i) && luts.sat[u] == i && luts.val[u] == i;
    }
    if (hue == 0 && sat == 0 && val == 0) QVERIFY(luts.identity && lutsIdentity);
    if (!lutsIdentity) QVERIFY(!luts.identity);  // the plan skips identity steps: never a real shift

    // Reference: OpenCV RGB2HSV, the shifts of SPEC §3 computed here, OpenCV HSV2RGB.
    const Image src = rgbaPadded(loadSample(file), 7);
    cv::Mat hsv;
    cv::cvtColor(rgbMat(src), hsv, cv::COLOR_RGB2HSV);
    const int ds = int(std::trunc(sat)), dv = int(std::trunc(val));
    hsv.forEach<cv::Vec3b>([&](cv::Vec3b& p, const int*) {
        const double h = p[0] + hue / 2.0;
        p[0] = std::uint8_t(int(h - 180.0 * std::floor(h / 180.0)));
        p[1] = p[1] == 0 ? 0 : std::uint8_t(std::clamp(p[1] + ds, 0, 255));
        p[2] = std::uint8_t(std::clamp(p[2] + dv, 0, 255));
    });
    Image out = src;
    ThreadPool pool(2);
    applyPixelStep(out, HsvStep{luts}, RowLoop{&pool});
    QVERIFY(sameNonRgbBytes(out, src));
    const Cmp c = compareRgb(out, hsvToRgbVectorPath(hsv));
    if (c.differing)
        qInfo("%s: %ld of %ld values differ, max %d", QTest::currentDataTag(), c.differing, c.n, c.max);
    // Without FMA (OpenCV's SSE4.1 build) 1758 of the 11.8M HSV triples move by one.
    QVERIFY(openCvUsesFma() ? c.max == 0 : c.max <= 1 && c.fraction() < 1e-3);

    // A plain cv::cvtColor rounds the last (width mod 16 or 32) pixels of each row: only those
    // may be one level off.
    cv::Mat direct;
    cv::cvtColor(hsv, direct, cv::COLOR_HSV2RGB);
    const Cmp d = compareRgb(out, direct);
    if (d.differing)
        qInfo("%s: plain cvtColor: %ld values (row tails) differ", QTest::currentDataTag(), d.differing);
    QVERIFY(d.max <= 1);
    if (openCvUsesFma()) QCOMPARE(compareRgb(out, direct, src.width - src.width % 64).max, 0);
}

// rgbToHsv8 and grayOf over all 2^24 colours, hsvToRgb8 over every 8-bit HSV triple (H 0..179),
// against cv::cvtColor (rows of 4096 and 256 pixels: all in OpenCV's vector loop).
void TestColourOps::conversionsExhaustive() {
    cv::Mat rgb(4096, 4096, CV_8UC3), hsv, gray, ourHsv(rgb.size(), CV_8UC3), ourGray(rgb.size(), CV_8U);
    rgb.forEach<cv::Vec3b>([&](cv::Vec3b& p, const int* yx) {
        const int i = yx[0] * 4096 + yx[1];
        p = cv::Vec3b(std::uint8_t(i >> 16), std::uint8_t(i >> 8), std::uint8_t(i));
        int h, s, v;
        rgbToHsv8(p[0], p[1], p[2], h, s, v);
        ourHsv.at<cv::Vec3b>(yx[0], yx[1]) = cv::Vec3b(std::uint8_t(h), std::uint8_t(s), std::uint8_t(v));
        ourGray.at<std::uint8_t>(yx[0], yx[1]) = grayOf(p[0], p[1], p[2]);
    });
    cv::cvtColor(rgb, hsv, cv::COLOR_RGB2HSV);
    cv::cvtColor(rgb, gray, cv::COLOR_RGB2GRAY);
    QCOMPARE(cv::norm(ourHsv, hsv, cv::NORM_INF), 0.0);
    QCOMPARE(cv::norm(ourGray, gray, cv::NORM_INF), 0.0);

    cv::Mat all(180 * 256, 256, CV_8UC3), back, ours(all.size(), CV_8UC3), d;
    all.forEach<cv::Vec3b>([&](cv::Vec3b& p, const int* yx) {
        p = cv::Vec3b(std::uint8_t(yx[0] >> 8), std::uint8_t(yx[0]), std::uint8_t(yx[1]));
        int r, g, b;
        hsvToRgb8(p[0], p[1], p[2], r, g, b);
        ours.at<cv::Vec3b>(yx[0], yx[1]) = cv::Vec3b(std::uint8_t(r), std::uint8_t(g), std::uint8_t(b));
    });
    cv::cvtColor(all, back, cv::COLOR_HSV2RGB);
    cv::absdiff(ours, back, d);
    const int bad = cv::countNonZero(d.reshape(1)), maxDiff = int(cv::norm(d, cv::NORM_INF));
    if (bad) qInfo("hsvToRgb8: %d values of %d triples differ, max %d", bad, 180 * 65536, maxDiff);
    QVERIFY(openCvUsesFma() ? bad == 0 : maxDiff <= 1 && bad <= 2000);
}

// Lab8 against cv::cvtColor: RGB2LAB on all 2^24 colours, LAB2RGB on every 8-bit Lab triple.
void TestColourOps::labExhaustive() {
    const Lab8& lab = Lab8::tables();
    cv::Mat all(4096, 4096, CV_8UC3), ref, ours(all.size(), CV_8UC3);
    all.forEach<cv::Vec3b>([&](cv::Vec3b& p, const int* yx) {
        const int i = yx[0] * 4096 + yx[1];
        p = cv::Vec3b(std::uint8_t(i >> 16), std::uint8_t(i >> 8), std::uint8_t(i));
    });
    ours.forEach<cv::Vec3b>([&](cv::Vec3b& o, const int* yx) {
        const cv::Vec3b p = all.at<cv::Vec3b>(yx[0], yx[1]);
        int L, a, b;
        lab.fromRgb(p[0], p[1], p[2], L, a, b);
        o = cv::Vec3b(std::uint8_t(L), std::uint8_t(a), std::uint8_t(b));
    });
    cv::cvtColor(all, ref, cv::COLOR_RGB2Lab);
    cv::Mat d;
    cv::absdiff(ours, ref, d);
    QCOMPARE(cv::countNonZero(d.reshape(1)), 0);

    // The same image read as Lab: every (L, a, b) triple once.
    ours.forEach<cv::Vec3b>([&](cv::Vec3b& o, const int* yx) {
        const cv::Vec3b p = all.at<cv::Vec3b>(yx[0], yx[1]);
        int r, g, b;
        lab.toRgb(p[0], p[1], p[2], r, g, b);
        o = cv::Vec3b(std::uint8_t(r), std::uint8_t(g), std::uint8_t(b));
    });
    cv::cvtColor(all, ref, cv::COLOR_Lab2RGB);
    cv::absdiff(ours, ref, d);
    QCOMPARE(cv::countNonZero(d.reshape(1)), 0);
}

// symmetricEigen3 against cv::eigen (OpenCV's own Jacobi, an independent implementation): random
// symmetric matrices (some with equal or tiny eigenvalues) and the colour covariances of the photos.
void TestColourOps::symmetricEigen() {
    std::mt19937 rng(17);
    std::normal_distribution<double> normal;
    std::vector<std::array<double, 9>> cases;
    for (int i = 0; i < 500; ++i) {
        std::array<double, 9> m{};
        for (int r = 0; r < 3; ++r)
            for (int c = r; c < 3; ++c) m[std::size_t(3 * r + c)] = m[std::size_t(3 * c + r)] = normal(rng);
        cases.push_back(m);
    }
    cases.push_back({2, 0, 0, 0, 2, 0, 0, 0, 1});                                   // a repeated eigenvalue
    cases.push_back({1e-12, 0, 0, 0, 3, 1, 0, 1, 3});                               // one nearly zero
    cases.push_back({0.05, 0.049, 0.048, 0.049, 0.05, 0.049, 0.048, 0.049, 0.05});  // a photo-like spread
    for (const std::array<double, 9>& m : cases) {
        std::array<double, 3> values{};
        std::array<double, 9> vectors{};
        symmetricEigen3(m, values, vectors);
        cv::Mat cvValues, cvVectors;  // rows are the eigenvectors, values descending
        cv::eigen(cv::Mat(3, 3, CV_64F, const_cast<double*>(m.data())), cvValues, cvVectors);
        const double scale = std::max({std::abs(values[0]), std::abs(values[2]), 1e-300});
        for (int i = 0; i < 3; ++i) {
            QVERIFY(std::abs(values[std::size_t(i)] - cvValues.at<double>(i)) <= 1e-12 * scale);
            if (i > 0) QVERIFY(values[std::size_t(i)] <= values[std::size_t(i - 1)]);
            // A = V diag(values) V^T, column i a unit vector whose largest component is positive.
            double norm = 0, big = 0;
            for (int r = 0; r < 3; ++r) {
                const double v = vectors[std::size_t(3 * r + i)];
                norm += v * v;
                if (std::abs(v) > std::abs(big)) big = v;
            }
            QVERIFY(std::abs(norm - 1) < 1e-12);
            QVERIFY(big > 0);
        }
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                double a = 0;
                for (int k = 0; k < 3; ++k)
                    a += vectors[std::size_t(3 * r + k)] * values[std::size_t(k)] *
                         vectors[std::size_t(3 * c + k)];
                QVERIFY(std::abs(a - m[std::size_t(3 * r + c)]) <= 1e-12 * std::max(scale, 1.0));
            }
    }
}

// A BlurStep with gaussianTaps8u against cv::GaussianBlur(ksize, sigma 0) on 8-bit photos (OpenCV's
// fixed-point path, as Albumentations' RandomFog calls it): the same sums, so only exact halves may
// round apart (to even here, up there). Measured: 2.9% of the values for size 3, 0.18% for 5, 0.013%
// for 7, under 0.001% from 9 on.
void TestColourOps::gaussianTaps8u() {
    for (int k : {3, 5, 7, 9, 11, 15, 21, 33}) {
        const std::vector<double> taps = auglab::gaussianTaps8u(k);
        double sum = 0;
        for (double t : taps) {
            QCOMPARE(t * 256, std::round(t * 256));  // multiples of 1/256
            sum += t;
        }
        QCOMPARE(sum, 1.0);
        long differing = 0, values = 0;
        for (const QString& f : kSamples) {
            const Image src = loadSample(f);
            cv::Mat ref;
            cv::GaussianBlur(rgbMat(src), ref, cv::Size(k, k), 0);
            Image out = src;
            ThreadPool pool(2);
            applyPixelStep(out, BlurStep{std::vector<float>(taps.begin(), taps.end())}, RowLoop{&pool});
            const Cmp c = compareRgb(out, ref);
            QVERIFY2(c.max <= 1, qPrintable(QString("ksize %1, %2: max %3").arg(k).arg(f).arg(c.max)));
            differing += c.differing;
            values += c.n;
        }
        qInfo("ksize %d: %ld of %ld values a level apart (exact halves)", k, differing, values);
        // Halves are frequent with the small binomial taps (sums of multiples of 1/16 for size 3),
        // rare from size 9 on.
        if (k >= 9) QVERIFY(double(differing) < 1e-4 * double(values));
    }
}

// FancyPcaStep does not depend on the thread count (its sums go row by row), keeps alpha, and with
// weights of zero leaves the image as it is.
void TestColourOps::fancyPcaThreads() {
    const Image src = rgbaPadded(loadSample("coffee.png"), 9);
    const FancyPcaStep step{{0.9f, -1.3f, 0.4f}};
    Image one = src, three = src, none = src;
    ThreadPool pool1(1), pool3(3);
    applyPixelStep(one, step, RowLoop{&pool1});
    applyPixelStep(three, step, RowLoop{&pool3});
    QVERIFY(one.pixels == three.pixels);
    QVERIFY(one.pixels != src.pixels);
    QVERIFY(sameNonRgbBytes(one, src));
    applyPixelStep(none, FancyPcaStep{}, RowLoop{&pool3});
    QVERIFY(none.pixels == src.pixels);
}

void TestColourOps::clahe_data() {
    // Grids that divide the size, grids that need the reflect_101 padding (OpenCV's own path: both
    // sides padded, by a whole tile where a side divides), grids larger than the image, clip limits
    // at the library's bounds and between, RGBA.
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("width");  // a crop of the photo's top left: 0 is the whole photo
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("tilesX");
    QTest::addColumn<int>("tilesY");
    QTest::addColumn<double>("clip");
    QTest::addColumn<bool>("rgba");
    QTest::newRow("astronaut 8x8 clip 4") << "astronaut.png" << 0 << 0 << 8 << 8 << 4.0 << false;
    QTest::newRow("chelsea 8x8 clip 1") << "chelsea.png" << 0 << 0 << 8 << 8 << 1.0 << false;
    QTest::newRow("coffee 3x5 clip 2.37") << "coffee.png" << 0 << 0 << 3 << 5 << 2.37 << false;
    QTest::newRow("rocket 16x4 clip 40, rgba") << "rocket.jpg" << 0 << 0 << 16 << 4 << 40.0 << true;
    QTest::newRow("rocket 640x427 8x8 clip 4: the width divides")
        << "rocket.jpg" << 0 << 0 << 8 << 8 << 4.0 << false;
    QTest::newRow("300x427 7x7 clip 2: the height divides")
        << "rocket.jpg" << 300 << 427 << 7 << 7 << 2.0 << false;
    QTest::newRow("333x201 7x9 clip 3.3") << "chelsea.png" << 333 << 201 << 7 << 9 << 3.3 << false;
    QTest::newRow("1x1 grid clip 1.5") << "coffee.png" << 250 << 130 << 1 << 1 << 1.5 << false;
    QTest::newRow("5x3 image, 8x8 grid") << "astronaut.png" << 5 << 3 << 8 << 8 << 4.0 << false;
    QTest::newRow("1x1 image") << "rocket.jpg" << 1 << 1 << 2 << 3 << 2.0 << true;
}

// ClaheStep against the library's arithmetic done by OpenCV itself: cv::cvtColor to Lab,
// cv::createCLAHE on L, cv::cvtColor back (Albumentations' clahe).
void TestColourOps::clahe() {
    QFETCH(QString, file);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, tilesX);
    QFETCH(int, tilesY);
    QFETCH(double, clip);
    QFETCH(bool, rgba);
    Image full = loadSample(file);
    if (width) {
        Image c;
        c.width = width;
        c.height = height;
        c.channels = 3;
        c.stride = std::size_t(width) * 3;
        c.pixels.resize(c.stride * std::size_t(height));
        for (int y = 0; y < height; ++y) std::memcpy(c.row(y), full.row(y), c.stride);
        full = c;
    }
    const Image src = rgba ? rgbaPadded(full, 5) : full;
    cv::Mat lab, ref;
    cv::cvtColor(rgbMat(src), lab, cv::COLOR_RGB2Lab);
    std::vector<cv::Mat> planes;
    cv::split(lab, planes);
    cv::createCLAHE(clip, cv::Size(tilesX, tilesY))->apply(planes[0], planes[0]);
    cv::merge(planes, lab);
    cv::cvtColor(lab, ref, cv::COLOR_Lab2RGB);
    for (int threads : {1, 3}) {
        Image out = src;
        ThreadPool pool(threads);
        applyPixelStep(out, ClaheStep{clip, tilesX, tilesY}, RowLoop{&pool});
        const Cmp c = compareRgb(out, ref);
        if (c.differing) qInfo("%ld of %ld values differ, max %d", c.differing, c.n, c.max);
        QCOMPARE(c.max, 0);
        QVERIFY(sameNonRgbBytes(out, src));
    }
}

void TestColourOps::toGray_data() {
    QTest::addColumn<QString>("file");
    for (const QString& f : kSamples) QTest::newRow(qPrintable(f)) << f;
}

void TestColourOps::toGray() {
    QFETCH(QString, file);
    for (bool rgba : {false, true}) {
        const Image src = rgba ? rgbaPadded(loadSample(file), 11) : loadSample(file);
        cv::Mat gray, ref;
        cv::cvtColor(rgbMat(src), gray, cv::COLOR_RGB2GRAY);
        cv::cvtColor(gray, ref, cv::COLOR_GRAY2RGB);  // written to all three channels
        Image out = src;
        ThreadPool pool(2);
        applyPixelStep(out, GrayStep{}, RowLoop{&pool});
        QCOMPARE(compareRgb(out, ref).max, 0);
        QVERIFY(sameNonRgbBytes(out, src));
    }
}

void TestColourOps::channelMatrix_data() {
    // ToSepia's matrix (float64 in the library: cv::transform converts it to float), one whose sums
    // go negative (the shift floors them before the saturation), and a permutation.
    QTest::addColumn<QVector<double>>("matrix");
    QTest::newRow("sepia") << QVector<double>{0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131};
    QTest::newRow("negative and half-way")
        << QVector<double>{1.5, -0.75, 0.0009765625 * 1.5, -0.2, 1.0, 0.2, 0.00048828125, -1.25, 2.0};
    QTest::newRow("permutation") << QVector<double>{0, 0, 1, 1, 0, 0, 0, 1, 0};
}

void TestColourOps::channelMatrix() {
    // cv::transform on 8-bit RGB (the function Albumentations' ToSepia calls), on every photo, with
    // alpha kept; and every one of the 2^24 colours once.
    QFETCH(QVector<double>, matrix);
    const cv::Mat m(3, 3, CV_64F, matrix.data());
    std::array<float, 9> mf{};
    for (std::size_t i = 0; i < 9; ++i) mf[i] = static_cast<float>(matrix[qsizetype(i)]);
    const ChannelMatrixStep step = ChannelMatrixStep::fromFloat(mf);
    ThreadPool pool(2);
    for (const QString& f : kSamples)
        for (bool rgba : {false, true}) {
            const Image src = rgba ? rgbaPadded(loadSample(f), 11) : loadSample(f);
            cv::Mat ref;
            cv::transform(rgbMat(src), ref, m);
            Image out = src;
            applyPixelStep(out, step, RowLoop{&pool});
            QVERIFY2(compareRgb(out, ref).max == 0, qPrintable(f));
            QVERIFY(sameNonRgbBytes(out, src));
        }
    Image all(4096, 4096, 3);
    for (int y = 0; y < 4096; ++y)
        for (int x = 0; x < 4096; ++x) {
            const int v = y * 4096 + x;
            std::uint8_t* p = all.at(x, y);
            p[0] = std::uint8_t(v >> 16);
            p[1] = std::uint8_t(v >> 8);
            p[2] = std::uint8_t(v);
        }
    cv::Mat ref;
    cv::transform(rgbMat(all), ref, m);
    applyPixelStep(all, step, RowLoop{&pool});
    QCOMPARE(compareRgb(all, ref).max, 0);
}

void TestColourOps::gaussianKernel_data() {
    QTest::addColumn<double>("sigma");
    for (double s : {0.2, 0.285, 0.3, 0.5, 0.75, 1.0, 1.3, 2.0, 2.9, 3.0, 4.4, 7.0})
        QTest::newRow(qPrintable(QString::number(s))) << s;
}

void TestColourOps::gaussianKernel() {
    QFETCH(double, sigma);
    const std::vector<double> k = auglab::gaussianKernel(sigma);
    const int ksize = int(sigma * 3.5) * 2 + 1;
    QCOMPARE(int(k.size()), ksize);
    const cv::Mat ref =
        ksize == 1 ? cv::Mat(1, 1, CV_64F, cv::Scalar(1.0)) : cv::getGaussianKernel(ksize, sigma, CV_64F);
    double maxErr = 0, sum = 0;
    for (int i = 0; i < ksize; ++i) {
        maxErr = std::max(maxErr, std::abs(k[std::size_t(i)] - ref.at<double>(i)));
        sum += k[std::size_t(i)];
    }
    QVERIFY2(maxErr <= 1e-12, qPrintable(QString::number(maxErr)));
    QVERIFY(std::abs(sum - 1.0) <= 1e-12);
}

void TestColourOps::blurOnPhotos_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<double>("sigma");
    for (const QString& f : kSamples)
        for (double s : {0.5, 1.0, 1.7, 3.0})
            QTest::newRow(qPrintable(f + " sigma " + QString::number(s))) << f << s;
}

void TestColourOps::blurOnPhotos() {
    QFETCH(QString, file);
    QFETCH(double, sigma);
    const std::vector<double> kd = auglab::gaussianKernel(sigma);
    const std::vector<float> kf(kd.begin(), kd.end());
    const Image src = rgbaPadded(loadSample(file), 13);
    Image out = src, outPool = src;
    applyPixelStep(out, BlurStep{kf}, RowLoop{});
    ThreadPool pool(2);
    applyPixelStep(outPool, BlurStep{kf}, RowLoop{&pool});
    QVERIFY(samePixels(out, outPool));  // the thread count never changes a value
    QVERIFY(sameNonRgbBytes(out, src));

    // The same float kernel through cv::sepFilter2D: it adds symmetric taps in pairs (and with
    // SIMD), so a sum within float rounding of .5 may round the other way.
    const int ks = int(kf.size());
    const cv::Mat rgb = rgbMat(src), kernel(ks, 1, CV_32F, const_cast<float*>(kf.data()));
    cv::Mat sep, gauss;
    cv::sepFilter2D(rgb, sep, -1, kernel, kernel, cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101);
    const Cmp c = compareRgb(out, sep);
    // cv::GaussianBlur on 8-bit data takes OpenCV's bit-exact fixed-point path, its taps rounded to
    // 1/256 (ufixedpoint16): values near a .5 boundary move by one, a few percent of them.
    cv::GaussianBlur(rgb, gauss, cv::Size(ks, ks), sigma, sigma, cv::BORDER_REFLECT_101);
    const Cmp g = compareRgb(out, gauss);
    qInfo("%s: sepFilter2D %ld/%ld differ (%.5f%%) max %d; GaussianBlur %ld differ (%.3f%%) max %d",
          QTest::currentDataTag(), c.differing, c.n, 100 * c.fraction(), c.max, g.differing,
          100 * g.fraction(), g.max);
    QVERIFY(c.max <= 1 && c.fraction() <= 1e-4);  // measured at most 0.001%
    QVERIFY(g.max <= 1 && g.fraction() <= 0.05);  // measured 0.56-3.0%
}

void TestColourOps::blurEdges_data() {
    QTest::addColumn<int>("w");
    QTest::addColumn<int>("h");
    QTest::addColumn<double>("sigma");
    const int sizes[][2] = {{1, 1}, {2, 3}, {7, 1}, {1, 9}, {5, 5}, {13, 7}, {3, 17}, {31, 2}, {4097, 3}};
    for (const auto& s : sizes)
        for (double sigma : {0.5, 1.0, 3.0})  // kernels of 3, 7 and 21 taps
            QTest::newRow(qPrintable(QString("%1x%2 sigma %3").arg(s[0]).arg(s[1]).arg(sigma)))
                << s[0] << s[1] << sigma;
}

// Tiny and odd sizes, kernels longer than the image (reflect_101 folds several times), against a
// naive double-precision 2D filter.
void TestColourOps::blurEdges() {
    QFETCH(int, w);
    QFETCH(int, h);
    QFETCH(double, sigma);
    const std::vector<double> kd = auglab::gaussianKernel(sigma);
    const int ks = int(kd.size()), r = ks / 2;
    const cv::Mat k = cv::getGaussianKernel(ks, sigma, CV_64F);
    for (int cn : {3, 4}) {
        Image src(w, h, cn);
        std::mt19937 rng(unsigned(w * 131 + h * 7 + cn));
        for (auto& v : src.pixels) v = std::uint8_t(rng());
        Image out = src;
        applyPixelStep(out, BlurStep{std::vector<float>(kd.begin(), kd.end())}, RowLoop{});
        QVERIFY(sameNonRgbBytes(out, src));
        double maxErr = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < 3; ++c) {
                    double acc = 0;
                    for (int j = 0; j < ks; ++j)
                        for (int i = 0; i < ks; ++i)
                            acc += k.at<double>(j) * k.at<double>(i) *
                                   src.at(fold101(x + i - r, w), fold101(y + j - r, h))[c];
                    maxErr = std::max(maxErr, std::abs(out.at(x, y)[c] - acc));
                }
        // A correctly rounded value is within 0.5 (so within 1 of any rounding of the exact
        // value); float accumulation adds about 1e-5.
        QVERIFY2(maxErr <= 0.501, qPrintable(QString("max |out - exact| %1").arg(maxErr)));
    }
}

void TestColourOps::boxBlurIsCvBlur_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("w");
    QTest::addColumn<int>("h");
    QTest::addColumn<int>("k");
    for (int k : {3, 5, 7, 9, 11, 13, 15, 17, 21, 31})
        QTest::newRow(qPrintable(QString("photo k %1").arg(k))) << kSamples[k % kSamples.size()] << 0 << 0 << k;
    // Sizes under the window (reflect_101 folds several times), one row, one column.
    const int sizes[][2] = {{1, 1}, {2, 3}, {7, 1}, {1, 9}, {13, 7}, {4097, 3}};
    for (const auto& sz : sizes)
        for (int k : {3, 15, 17})
            QTest::newRow(qPrintable(QString("%1x%2 k %3").arg(sz[0]).arg(sz[1]).arg(k))) << QString() << sz[0]
                                                                                             << sz[1] << k;
}

// box_blur at full size (k taps of 1/k) runs as integer window sums divided as OpenCV divides them:
// cv::blur's bytes exactly, on photos and random pixels, 3 and 4 channels (alpha kept), with and
// without threads.
void TestColourOps::boxBlurIsCvBlur() {
    QFETCH(QString, file);
    QFETCH(int, w);
    QFETCH(int, h);
    QFETCH(int, k);
    for (int cn : {3, 4}) {
        Image src;
        if (!file.isEmpty()) {
            src = cn == 4 ? rgbaPadded(loadSample(file), 5) : loadSample(file);
        } else {
            src = Image(w, h, cn);
            std::mt19937 rng(unsigned(w * 131 + h * 7 + cn + k));
            for (auto& v : src.pixels) v = std::uint8_t(rng());
        }
        const BlurStep box{std::vector<float>(std::size_t(k), 1.0f / float(k))};
        Image out = src, outPool = src;
        applyPixelStep(out, box, RowLoop{});
        ThreadPool pool(2);
        applyPixelStep(outPool, box, RowLoop{&pool});
        QVERIFY(samePixels(out, outPool));
        QVERIFY(sameNonRgbBytes(out, src));
        cv::Mat want;
        cv::blur(rgbMat(src), want, cv::Size(k, k), cv::Point(-1, -1), cv::BORDER_REFLECT_101);
        const Cmp c = compareRgb(out, want);
        QVERIFY2(c.differing == 0, qPrintable(QString("%1 channels: %2 of %3 values differ, max %4")
                                                  .arg(cn).arg(c.differing).arg(c.n).arg(c.max)));
    }
}

void TestColourOps::noiseExactCases_data() {
    QTest::addColumn<double>("mean");
    QTest::addColumn<int>("delta");
    const double means[] = {0.0, 10.7, -10.7, 0.99, -0.99, 300.0, -300.0};
    for (double m : means) QTest::newRow(qPrintable(QString::number(m))) << m << int(m);
}

// std 0: every value moves by trunc(mean) and clips; mean 0 too: the image is unchanged.
void TestColourOps::noiseExactCases() {
    QFETCH(double, mean);
    QFETCH(int, delta);
    const Image src = rgbaPadded(loadSample("chelsea.png"), 17);
    for (bool perChannel : {true, false}) {
        Image out = src;
        applyPixelStep(out, NoiseStep{float(mean), 0.0f, perChannel, 99}, RowLoop{});
        if (delta == 0) QVERIFY(samePixels(out, src));
        cv::Mat ref;
        rgbMat(src).convertTo(ref, CV_8U, 1.0, delta);  // saturating
        QCOMPARE(compareRgb(out, ref).max, 0);
        QVERIFY(sameNonRgbBytes(out, src));
    }
}

void TestColourOps::noiseStatistics_data() {
    QTest::addColumn<double>("mean255");
    QTest::addColumn<double>("std255");
    QTest::addColumn<bool>("perChannel");
    QTest::newRow("std 0.05") << 0.0 << 0.05 * 255 << true;
    QTest::newRow("std 0.02") << 0.0 << 0.02 * 255 << true;
    QTest::newRow("std 0.1 shared") << 0.0 << 0.1 * 255 << false;
    QTest::newRow("mean 0.1 std 0.05") << 0.1 * 255 << 0.05 * 255 << true;
    QTest::newRow("mean -0.05 std 0.02 shared") << -0.05 * 255 << 0.02 * 255 << false;
}

// On flat mid-grey the differences are trunc(N(mean, std)); their moments are computed exactly
// here (truncation toward zero shrinks the spread: std 12.75 gives 12.36, std 5.1 gives 4.72).
void TestColourOps::noiseStatistics() {
    QFETCH(double, mean255);
    QFETCH(double, std255);
    QFETCH(bool, perChannel);
    Image grey(512, 512, 3);
    std::fill(grey.pixels.begin(), grey.pixels.end(), std::uint8_t(128));
    const NoiseStep step{float(mean255), float(std255), perChannel, 0x1234567890abcdefull};
    Image out = grey, outPool = grey, other = grey;
    applyPixelStep(out, step, RowLoop{});
    ThreadPool pool(2);
    applyPixelStep(outPool, step, RowLoop{&pool});
    QVERIFY(samePixels(out, outPool));  // same seed, any thread count: the same noise
    NoiseStep otherSeed = step;
    otherSeed.seed += 1;
    applyPixelStep(other, otherSeed, RowLoop{});
    QVERIFY(!samePixels(out, other));

    // Moments of the differences; per_channel=false draws one value per pixel: n samples, not 3n.
    const double n = 512.0 * 512.0, samples = perChannel ? 3 * n : n;
    double s[3] = {}, ss[3][3] = {};
    long sharedMismatch = 0;
    for (int y = 0; y < 512; ++y)
        for (int x = 0; x < 512; ++x) {
            const std::uint8_t* p = out.at(x, y);
            sharedMismatch += p[0] != p[1] || p[1] != p[2];
            for (int a = 0; a < 3; ++a) {
                s[a] += p[a] - 128.0;
                for (int b = 0; b < 3; ++b) ss[a][b] += (p[a] - 128.0) * (p[b] - 128.0);
            }
        }
    const auto [expMean, expStd] = truncNormalMoments(mean255, std255);
    const double mean = (s[0] + s[1] + s[2]) / (3 * n);
    const double stdv = std::sqrt((ss[0][0] + ss[1][1] + ss[2][2]) / (3 * n) - mean * mean);
    const auto cov = [&](int a, int b) { return ss[a][b] / n - s[a] * s[b] / (n * n); };
    double maxCorr = 0;
    for (auto [a, b] : {std::pair{0, 1}, {0, 2}, {1, 2}})
        maxCorr = std::max(maxCorr, std::abs(cov(a, b) / std::sqrt(cov(a, a) * cov(b, b))));
    qInfo("%s: mean %.4f (expected %.4f), std %.4f (expected %.4f), max |corr| %.4f", QTest::currentDataTag(),
          mean, expMean, stdv, expStd, maxCorr);
    QVERIFY(std::abs(mean - expMean) <= 5 * expStd / std::sqrt(samples));  // 5 standard errors
    QVERIFY(std::abs(stdv - expStd) <= 0.01 * expStd);                     // >= 7 standard errors
    // Independent channels: the standard error of a correlation is 1/sqrt(n) = 0.002.
    QVERIFY(perChannel ? maxCorr < 0.01 : sharedMismatch == 0);
}

void TestColourOps::pixelDropout_data() {
    QTest::addColumn<double>("prob");
    QTest::addColumn<bool>("perChannel");
    QTest::newRow("whole pixels, 0.01") << 0.01 << false;
    QTest::newRow("whole pixels, 0.3") << 0.3 << false;
    QTest::newRow("per channel, 0.2") << 0.2 << true;
    QTest::newRow("none") << 0.0 << false;
    QTest::newRow("every pixel") << 1.0 << true;
}

// PixelDropoutStep on a photo with alpha: a value either stays or becomes the step's value; the
// share dropped is the probability (5 standard errors); whole pixels drop together, or each value on
// its own with independent channels (the share of pixels with exactly one value dropped is
// 3 p (1 - p)^2); the same pixels on any thread count; alpha kept; another seed, other pixels.
void TestColourOps::pixelDropout() {
    QFETCH(double, prob);
    QFETCH(bool, perChannel);
    const Image rgb = loadSample("astronaut.png");
    Image photo(rgb.width, rgb.height, 4);
    for (int y = 0; y < rgb.height; ++y)
        for (int x = 0; x < rgb.width; ++x) {
            for (int c = 0; c < 3; ++c) photo.at(x, y)[c] = rgb.at(x, y)[c];
            photo.at(x, y)[3] = std::uint8_t(x ^ y);
        }
    PixelDropoutStep step;
    step.threshold = pixelDropThreshold(prob);
    step.perChannel = perChannel;
    step.seed = 0x51ed27ull;
    step.value = {7, 250, 0};
    Image out = photo, outPool = photo, other = photo;
    applyPixelStep(out, step, RowLoop{});
    ThreadPool pool(3);
    applyPixelStep(outPool, step, RowLoop{&pool});
    QVERIFY(samePixels(out, outPool));
    PixelDropoutStep otherSeed = step;
    otherSeed.seed += 1;
    applyPixelStep(other, otherSeed, RowLoop{});
    if (prob > 0 && prob < 1) QVERIFY(!samePixels(out, other));
    // Which values dropped, from the definition (pixelDropRow), and the output against it.
    double dropped = 0, oneOfThree = 0;
    std::vector<std::uint8_t> drop(3 * std::size_t(photo.width));
    for (int y = 0; y < photo.height; ++y) {
        pixelDropRow(step, y, 0, photo.width, drop.data());
        for (int x = 0; x < photo.width; ++x) {
            int n = 0;
            for (int c = 0; c < 3; ++c) {
                const bool d = drop[3 * std::size_t(x) + c] != 0;
                n += d;
                const std::uint8_t want = d ? step.value[std::size_t(c)] : photo.at(x, y)[c];
                if (out.at(x, y)[c] != want) QFAIL(qPrintable(QString("(%1, %2, %3)").arg(x).arg(y).arg(c)));
            }
            if (out.at(x, y)[3] != photo.at(x, y)[3]) QFAIL("alpha changed");
            if (!perChannel) QVERIFY(n == 0 || n == 3);
            dropped += n;
            oneOfThree += n == 1;
        }
    }
    // A row's pixels drawn at another offset are the same draws.
    std::vector<std::uint8_t> part(3 * 37);
    pixelDropRow(step, 11, 100, 37, part.data());
    pixelDropRow(step, 11, 0, photo.width, drop.data());
    QVERIFY(std::equal(part.begin(), part.end(), drop.begin() + 300));
    const double values = 3.0 * photo.width * photo.height, share = dropped / values;
    const double se = std::sqrt(prob * (1 - prob) / (perChannel ? values : values / 3));
    qInfo("%s: %.5f of the values dropped (p %.5f, standard error %.5f)", QTest::currentDataTag(), share, prob, se);
    QVERIFY(std::abs(share - prob) <= 5 * se + 1e-12);
    if (perChannel) {
        const double pixels = double(photo.width) * photo.height, q = 3 * prob * (1 - prob) * (1 - prob);
        QVERIFY(std::abs(oneOfThree / pixels - q) <= 5 * std::sqrt(q * (1 - q) / pixels) + 1e-12);
    }
}

void TestColourOps::dropout_data() {
    QTest::addColumn<int>("mode");
    QTest::addColumn<QList<QRect>>("holes");
    const std::pair<const char*, QList<QRect>> cases[] = {
        {"inside", {QRect(10, 20, 30, 40)}},
        {"overlapping", {QRect(5, 5, 50, 50), QRect(30, 30, 60, 20), QRect(40, 0, 10, 100)}},
        {"clipped", {QRect(-8, -3, 20, 12), QRect(440, 290, 40, 40), QRect(-5, 100, 500, 3)}},
        {"degenerate",
         {QRect(100, 100, 0, 10), QRect(460, 10, 5, 5), QRect(10, -20, 5, 10), QRect(200, 50, 1, 1)}},
        {"whole", {QRect(-1, -1, 1000, 1000)}}};
    const char* modes[] = {"constant", "random", "random_uniform"};
    for (int m = 0; m < 3; ++m)
        for (const auto& [name, holes] : cases)
            QTest::newRow(qPrintable(QString("%1 %2").arg(modes[m], name))) << m << holes;
}

void TestColourOps::dropout() {
    QFETCH(int, mode);
    QFETCH(QList<QRect>, holes);
    const Image src = rgbaPadded(loadSample("chelsea.png"), 19);  // 451x300
    DropoutStep step;
    step.mode = mode == 0 ? Fill::Mode::Constant : mode == 1 ? Fill::Mode::Random : Fill::Mode::RandomUniform;
    step.fill = {12, 200, 77};
    step.seed = 4242;
    for (int i = 0; i < int(holes.size()); ++i) {
        step.holes.push_back(Hole{holes[i].x(), holes[i].y(), holes[i].width(), holes[i].height()});
        step.colours.push_back(
            Rgb{std::uint8_t(40 * i + 3), std::uint8_t(255 - 30 * i), std::uint8_t(90 + i)});
    }
    Image out = src, again = src, whole = src, reseeded = src;
    applyPixelStep(out, step, RowLoop{});
    QVERIFY(sameNonRgbBytes(out, src));
    applyPixelStep(again, step, RowLoop{});
    QVERIFY(samePixels(again, out));
    // Random fill: noise keyed by (seed, x, y), whichever hole covers the pixel.
    DropoutStep all = step, other = step;
    all.holes = {Hole{0, 0, src.width, src.height}};
    applyPixelStep(whole, all, RowLoop{});
    other.seed = 4243;
    applyPixelStep(reseeded, other, RowLoop{});

    // Reference: paint each hole in order, clipped to the image.
    long inHole = 0, outsideChanged = 0, fillMismatch = 0, sameAsSrc = 0, notWhole = 0, sameReseeded = 0;
    double sum = 0;
    for (int y = 0; y < src.height; ++y)
        for (int x = 0; x < src.width; ++x) {
            int last = -1;
            for (int i = 0; i < int(holes.size()); ++i)
                if (holes[i].contains(x, y)) last = i;
            const std::uint8_t *o = out.at(x, y), *s = src.at(x, y);
            if (last < 0) {
                outsideChanged += std::memcmp(o, s, 3) != 0;
            } else if (mode == 1) {
                ++inHole;
                sameAsSrc += std::memcmp(o, s, 3) == 0;
                notWhole += std::memcmp(o, whole.at(x, y), 3) != 0;
                sameReseeded += std::memcmp(o, reseeded.at(x, y), 3) == 0;
                sum += o[0] + o[1] + o[2];
            } else {
                const Rgb& want = mode == 0 ? step.fill : step.colours[std::size_t(last)];
                fillMismatch += o[0] != want[0] || o[1] != want[1] || o[2] != want[2];
            }
        }
    QCOMPARE(outsideChanged, 0L);
    QCOMPARE(fillMismatch, 0L);
    QCOMPARE(notWhole, 0L);
    QVERIFY(sameAsSrc <= inHole / 1000 + 1);  // 3 random bytes equal the photo's: 6e-8 per pixel
    QVERIFY(sameReseeded <= inHole / 1000 + 1);
    // Uniform bytes: standard deviation 73.9 per value; allow 5 standard errors.
    if (inHole)
        QVERIFY(std::abs(sum / (3.0 * double(inHole)) - 127.5) <= 5 * 73.9 / std::sqrt(3.0 * double(inHole)));
}

void TestColourOps::compression_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<QRect>("crop");  // empty: the whole photo
    QTest::addColumn<bool>("webp");
    QTest::addColumn<int>("quality");
    QTest::addColumn<bool>("rgba");
    for (const QString& sample : {QString("chelsea.png"), QString("rocket.jpg")})
        for (const QRect& crop : {QRect(), QRect(5, 7, 53, 37), QRect(3, 2, 1, 1), QRect(0, 9, 17, 1)}) {
            for (int q : {1, 13, 50, 95, 100})
                for (bool rgba : {false, true})
                    QTest::addRow("%s %dx%d jpeg %d%s", qPrintable(sample), crop.width(), crop.height(), q,
                                  rgba ? " rgba" : "")
                        << sample << crop << false << q << rgba;
            for (int q : {1, 60, 100})
                QTest::addRow("%s %dx%d webp %d", qPrintable(sample), crop.width(), crop.height(), q)
                    << sample << crop << true << q << (q == 60);
        }
}

void TestColourOps::compression() {
    // Albumentations' ImageCompression calls cv2.imencode then cv2.imdecode on its RGB array, which
    // OpenCV takes for BGR: OpenCV's C++ API on the same bytes is the reference.
    QFETCH(QString, sample);
    QFETCH(QRect, crop);
    QFETCH(bool, webp);
    QFETCH(int, quality);
    QFETCH(bool, rgba);
    Image src = loadSample(sample);
    if (!crop.isEmpty()) {
        Image part(crop.width(), crop.height(), 3);
        for (int y = 0; y < crop.height(); ++y)
            std::memcpy(part.row(y), src.at(crop.x(), crop.y() + y), std::size_t(crop.width()) * 3);
        src = part;
    }
    if (rgba) src = rgbaPadded(src, 7);
    std::vector<std::uint8_t> bytes;
    const std::vector<int> params{webp ? cv::IMWRITE_WEBP_QUALITY : cv::IMWRITE_JPEG_QUALITY, quality};
    QVERIFY(cv::imencode(webp ? ".webp" : ".jpg", rgbMat(src), bytes, params));
    const cv::Mat ref = cv::imdecode(bytes, cv::IMREAD_UNCHANGED);
    QCOMPARE(ref.type(), CV_8UC3);

    Image out = src;
    applyPixelStep(out, CompressStep{webp ? CompressStep::Codec::Webp : CompressStep::Codec::Jpeg, quality},
                   RowLoop{});
    const Cmp c = compareRgb(out, ref);
    QVERIFY2(c.max == 0,
             qPrintable(QString("%1 of %2 values differ, by up to %3").arg(c.differing).arg(c.n).arg(c.max)));
    QVERIFY(sameNonRgbBytes(out, src));  // alpha and row padding kept
    // Not an identity: below quality 100 the codecs change the photo.
    if (quality < 95 && src.width * src.height > 100) QVERIFY(compareRgb(src, ref).differing > 0);
}

QTEST_APPLESS_MAIN(TestColourOps)
#include "test_colour_ops.moc"
