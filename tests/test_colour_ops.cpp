// The colour ops of SPEC §3 on the CPU backend, each against a reference written here (scalar
// formulas) and against OpenCV: the LUTs of brightness_contrast, OpenCV's 8-bit HSV round trip, Lab
// and CLAHE, FancyPCA's eigen decomposition, RGB2GRAY and the channel matrices. The blurs, noise,
// dropouts and compression are test_filter_ops'. Alpha and row padding come through every op
// untouched.

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
#include "pixel_ops_support.h"

using namespace auglab;
using namespace auglab::testing;

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

QTEST_APPLESS_MAIN(TestColourOps)
#include "test_colour_ops.moc"
