// The neighbourhood, noise and dropout ops of SPEC §3 on the CPU backend, each against a reference
// written here (a naive double-precision blur, analytic noise moments, the pixel dropout's
// definition) and against OpenCV: the Gaussian kernel and the separable blur with reflect_101 at
// sizes that hit every edge, cv2.blur, gauss_noise, pixel_dropout, coarse_dropout fills and the
// JPEG/WebP round trip; the kernels advanced_blur and ringing_overshoot build, against their formulas. Alpha and row padding come through every op untouched.

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
#include "ops/advanced_blur.h"
#include "ops/hue_saturation_value.h"
#include "ops/ringing_overshoot.h"
#include "image_io.h"
#include "plan.h"
#include "thread_pool.h"
#include "pixel_ops_support.h"

using namespace auglab;
using namespace auglab::testing;

Q_DECLARE_METATYPE(QList<QRect>)

class TestFilterOps : public QObject {
    Q_OBJECT

private slots:
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
    void drawnKernelsFollowTheirDefinition();
    void saltAndPepperCounts_data();
    void saltAndPepperCounts();
};
void TestFilterOps::gaussianKernel_data() {
    QTest::addColumn<double>("sigma");
    for (double s : {0.2, 0.285, 0.3, 0.5, 0.75, 1.0, 1.3, 2.0, 2.9, 3.0, 4.4, 7.0})
        QTest::newRow(qPrintable(QString::number(s))) << s;
}

void TestFilterOps::gaussianKernel() {
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

void TestFilterOps::blurOnPhotos_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<double>("sigma");
    for (const QString& f : kSamples)
        for (double s : {0.5, 1.0, 1.7, 3.0})
            QTest::newRow(qPrintable(f + " sigma " + QString::number(s))) << f << s;
}

void TestFilterOps::blurOnPhotos() {
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

void TestFilterOps::blurEdges_data() {
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
void TestFilterOps::blurEdges() {
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

void TestFilterOps::boxBlurIsCvBlur_data() {
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
void TestFilterOps::boxBlurIsCvBlur() {
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

void TestFilterOps::noiseExactCases_data() {
    QTest::addColumn<double>("mean");
    QTest::addColumn<int>("delta");
    const double means[] = {0.0, 10.7, -10.7, 0.99, -0.99, 300.0, -300.0};
    for (double m : means) QTest::newRow(qPrintable(QString::number(m))) << m << int(m);
}

// std 0: every value moves by trunc(mean) and clips; mean 0 too: the image is unchanged.
void TestFilterOps::noiseExactCases() {
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

void TestFilterOps::noiseStatistics_data() {
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
void TestFilterOps::noiseStatistics() {
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

void TestFilterOps::pixelDropout_data() {
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
void TestFilterOps::pixelDropout() {
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

void TestFilterOps::dropout_data() {
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

void TestFilterOps::dropout() {
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

void TestFilterOps::compression_data() {
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

void TestFilterOps::compression() {
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

void TestFilterOps::drawnKernelsFollowTheirDefinition() {
    // advanced_blur, unrotated, beta 1: exp(-x^2 / (2 sx^2) - y^2 / (2 sy^2)) (x along the columns),
    // each tap times its multiplier from the seed's Philox words, normalised.
    AdvancedBlurParams p;
    p.ksize = 7;
    p.sigma_x = 1.3;
    p.sigma_y = 0.6;
    p.noise = {0.5, 1.5};
    p.noise_seed = 42;
    const auto gaussian = [](int t, double power) {
        const double x = t % 7 - 3, y = t / 7 - 3, q = x * x / (1.3 * 1.3) + y * y / (0.6 * 0.6);
        return std::exp(-0.5 * std::pow(q, power));
    };
    std::vector<double> expected(49), multiplier(49);
    double sum = 0;
    for (int t = 0; t < 49; ++t) {
        multiplier[std::size_t(t)] = 0.5 + pixelNoiseWords(42, t % 7, t / 7)[0] / 4294967296.0;
        sum += expected[std::size_t(t)] = gaussian(t, 1) * multiplier[std::size_t(t)];
    }
    const std::vector<float> k = advancedBlurKernel(p);
    QCOMPARE(k.size(), std::size_t(49));
    for (std::size_t t = 0; t < k.size(); ++t)
        QVERIFY2(std::abs(k[t] - expected[t] / sum) <= 1e-6 * (expected[t] / sum) + 1e-9,
                 qPrintable(QString("tap %1: %2 vs %3").arg(t).arg(k[t]).arg(expected[t] / sum)));
    // The multipliers differ from tap to tap, inside the range.
    const auto [lo, hi] = std::minmax_element(multiplier.begin(), multiplier.end());
    QVERIFY(*lo >= 0.5 && *hi <= 1.5 && *hi - *lo > 0.5);
    // A quarter turn swaps the axes' sigmas; beta 2 squares the quadratic form.
    p.noise = {1, 1};
    AdvancedBlurParams turned = p;
    turned.rotate = 90;
    std::swap(turned.sigma_x, turned.sigma_y);
    const std::vector<float> a = advancedBlurKernel(p), b = advancedBlurKernel(turned);
    for (std::size_t t = 0; t < a.size(); ++t) QVERIFY(std::abs(a[t] - b[t]) <= 1e-6);
    p.beta = 2;
    const std::vector<float> squared = advancedBlurKernel(p);
    double s2 = 0;
    for (int t = 0; t < 49; ++t) s2 += gaussian(t, 2);
    for (std::size_t t = 0; t < squared.size(); ++t) QVERIFY(std::abs(squared[t] - gaussian(int(t), 2) / s2) <= 1e-6);

    // ringing_overshoot: cutoff J1(cutoff r) / (2 pi r), J1 from its power series here, the centre
    // cutoff^2 / (4 pi) (the limit), normalised.
    const auto j1 = [](double x) {
        double term = x / 2, total = 0;
        for (int m = 0; m < 60; ++m) {
            total += term;
            term *= -(x / 2) * (x / 2) / ((m + 1.0) * (m + 2.0));
        }
        return total;
    };
    for (const auto& [size, cutoff] : {std::pair{7, 1.1}, std::pair{15, 0.6}, std::pair{3, 3.0}}) {
        const int c = size / 2;
        std::vector<double> want(std::size_t(size * size));
        double total = 0;
        for (int i = 0; i < size; ++i)
            for (int j = 0; j < size; ++j) {
                const double r = std::hypot(i - c, j - c);
                total += want[std::size_t(i * size + j)] =
                    r == 0 ? cutoff * cutoff / (4 * M_PI) : cutoff * j1(cutoff * r) / (2 * M_PI * r);
            }
        const std::vector<float> got = ringingKernel(size, cutoff);
        double gotSum = 0;
        for (std::size_t t = 0; t < got.size(); ++t) {
            gotSum += got[t];
            QVERIFY2(std::abs(got[t] - want[t] / total) <= 1e-6,
                     qPrintable(QString("size %1, tap %2: %3 vs %4").arg(size).arg(t).arg(got[t]).arg(want[t] / total)));
        }
        QVERIFY(std::abs(gotSum - 1) < 1e-5);
        // Past the first zero of J1 (3.83 / cutoff pixels out) the taps turn negative: it rings.
        if (3.8317 / cutoff < c) QVERIFY(*std::min_element(got.begin(), got.end()) < 0);
    }
}

void TestFilterOps::saltAndPepperCounts_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("salt");
    QTest::addColumn<int>("pepper");
    QTest::newRow("photo-sized, 3% salt, 2% pepper") << 451 << 300 << 4059 << 2706;
    QTest::newRow("all salt") << 37 << 23 << 851 << 0;
    QTest::newRow("all pepper") << 37 << 23 << 0 << 851;
    QTest::newRow("none") << 64 << 64 << 0 << 0;
    QTest::newRow("one pixel of each") << 1 << 2 << 1 << 1;
    QTest::newRow("a wide row, most of it") << 5000 << 1 << 2500 << 2499;
}

void TestFilterOps::saltAndPepperCounts() {
    // Exactly `salt` white and `pepper` black pixels (every colour channel; alpha kept), and they are
    // the pixels with the smallest keys: salt the `salt` smallest, pepper the next `pepper` (a sort of
    // every key here, against the step's histogram selection).
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, salt);
    QFETCH(int, pepper);
    const std::uint64_t seed = 0x5a17'9e99e3ULL + std::uint64_t(width);
    const SaltPepperStep step = saltPepperStep(seed, width, height, std::uint64_t(salt), std::uint64_t(pepper));
    Image img(width, height, 4);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            std::uint8_t* p = img.row(y) + 4 * x;
            p[0] = 100, p[1] = 128, p[2] = 150, p[3] = std::uint8_t(x + y);
        }
    applyPixelStep(img, PixelStep{step}, RowLoop{});
    std::vector<std::pair<std::uint32_t, int>> keys;  // (key, pixel index)
    std::vector<std::uint32_t> row(static_cast<std::size_t>(width));
    for (int y = 0; y < height; ++y) {
        pixelKeyRow(seed, y, 0, width, row.data());
        for (int x = 0; x < width; ++x) keys.emplace_back(row[std::size_t(x)], y * width + x);
    }
    std::sort(keys.begin(), keys.end());
    int whites = 0, blacks = 0;
    for (std::size_t r = 0; r < keys.size(); ++r) {
        const int i = keys[r].second, x = i % width, y = i / width;
        const std::uint8_t* p = img.row(y) + 4 * x;
        QCOMPARE(p[3], std::uint8_t(x + y));
        const std::array<std::uint8_t, 3> want = r < std::size_t(salt)          ? std::array<std::uint8_t, 3>{255, 255, 255}
                                                 : r < std::size_t(salt + pepper) ? std::array<std::uint8_t, 3>{0, 0, 0}
                                                                                  : std::array<std::uint8_t, 3>{100, 128, 150};
        QVERIFY2(p[0] == want[0] && p[1] == want[1] && p[2] == want[2],
                 qPrintable(QString("rank %1 (pixel %2, %3)").arg(r).arg(x).arg(y)));
        whites += p[0] == 255;
        blacks += p[0] == 0;
    }
    QCOMPARE(whites, salt);
    QCOMPARE(blacks, pepper);
}

QTEST_APPLESS_MAIN(TestFilterOps)
#include "test_filter_ops.moc"
