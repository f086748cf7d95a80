// The weather steps (RandomShadow's ShadowStep, RandomRain's RainStep, RandomSunFlare's FlareStep)
// on the CPU backend against the library's arithmetic done by OpenCV itself: cv::fillPoly masks and
// the float64 product truncated (add_shadow); cv::polylines, cv::blur, cv::add and cv::multiply
// (add_rain); cv::circle and the float32 weighted sum rounded (add_sun_flare_overlay, whose blends
// each cover the whole image). The same bytes for any thread count; alpha kept.

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>
#include <random>

#include "cpu_backend.h"
#include "keyed_tables.h"
#include "plan.h"
#include "test_support.h"
#include "thread_pool.h"

using namespace auglab;
using namespace auglab::testing;

namespace {

bool sameRgb(const Image& a, const cv::Mat& b) {
    for (int y = 0; y < a.height; ++y)
        for (int x = 0; x < a.width; ++x)
            for (int c = 0; c < 3; ++c)
                if (a.at(x, y)[c] != b.ptr<std::uint8_t>(y)[x * b.channels() + c]) return false;
    return true;
}

bool sameAlpha(const Image& a, const Image& b) {
    for (int y = 0; y < a.height; ++y)
        for (int x = 0; x < a.width; ++x)
            if (a.channels == 4 && a.at(x, y)[3] != b.at(x, y)[3]) return false;
    return true;
}

std::vector<cv::Point> cvPoints(const std::vector<std::array<int, 2>>& v) {
    std::vector<cv::Point> out;
    for (const auto& p : v) out.emplace_back(p[0], p[1]);
    return out;
}

// The image through `step` with one thread and with three: the same bytes, returned.
Image throughBoth(const Image& src, const PixelStep& step) {
    Image one = src, three = src;
    ThreadPool pool1(1), pool3(3);
    applyPixelStep(one, step, RowLoop{&pool1});
    applyPixelStep(three, step, RowLoop{&pool3});
    if (one.pixels != three.pixels) qFatal("the thread count changed the output");
    return one;
}

}  // namespace

class TestWeather : public QObject {
    Q_OBJECT

private slots:
    void shadow_data() {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<int>("channels");
        QTest::addColumn<int>("seed");
        QTest::newRow("640x427") << 640 << 427 << 3 << 1;
        QTest::newRow("301x207 rgba") << 301 << 207 << 4 << 2;
        QTest::newRow("7x5") << 7 << 5 << 3 << 3;
        QTest::newRow("1x1") << 1 << 1 << 3 << 4;
    }

    void shadow() {
        // Random polygons of 3 to 9 vertices (crossing themselves, some past the edges), up to five,
        // overlapping: each darkens what cv::fillPoly covers, in order.
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(int, channels);
        QFETCH(int, seed);
        std::mt19937 rng(static_cast<unsigned>(seed));
        for (int round = 0; round < 20; ++round) {
            const Image src = photoCrop("rocket.jpg", width, height, channels);
            ShadowStep step;
            const int n = 1 + int(rng() % 5);
            for (int i = 0; i < n; ++i) {
                ShadowStep::Polygon poly;
                const int k = 3 + int(rng() % 7);
                for (int j = 0; j < k; ++j)
                    poly.vertices.push_back(
                        {int(rng() % unsigned(width + 20)) - 10, int(rng() % unsigned(height + 20)) - 10});
                poly.darkness = 1 - std::uniform_real_distribution<double>(0, 1)(rng);
                step.polygons.push_back(poly);
            }
            const Image ours = throughBoth(src, step);
            cv::Mat ref = toMat(src);
            for (const auto& poly : step.polygons) {
                cv::Mat mask = cv::Mat::zeros(height, width, CV_8UC1);
                cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{cvPoints(poly.vertices)},
                             cv::Scalar(255));
                for (int y = 0; y < height; ++y)
                    for (int x = 0; x < width; ++x)
                        if (mask.at<std::uint8_t>(y, x) == 255)
                            for (int c = 0; c < 3; ++c) {
                                std::uint8_t& v = ref.ptr<std::uint8_t>(y)[x * channels + c];
                                v = static_cast<std::uint8_t>(std::clamp(v * poly.darkness, 0.0, 255.0));
                            }
            }
            QVERIFY2(sameRgb(ours, ref), qPrintable(QString("round %1").arg(round)));
            QVERIFY(sameAlpha(ours, src));
        }
    }

    void rain_data() {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<int>("channels");
        QTest::addColumn<int>("thickness");
        QTest::addColumn<int>("blur");
        QTest::addColumn<double>("brightness");
        QTest::newRow("default: 1 px, blur 7, 0.7") << 640 << 427 << 3 << 1 << 7 << 0.7;
        QTest::newRow("3 px, blur 4 (even), 0.85") << 451 << 300 << 3 << 3 << 4 << 0.85;
        QTest::newRow("2 px, blur 16 (256 pixels)") << 301 << 207 << 3 << 2 << 16 << 0.6;
        QTest::newRow("5 px, blur 17 (past 256)") << 301 << 207 << 4 << 5 << 17 << 0.93;
        QTest::newRow("1 px, blur 1, 1.0") << 120 << 91 << 3 << 1 << 1 << 1.0;
        QTest::newRow("blur 2") << 64 << 37 << 3 << 1 << 2 << 0.5;
        QTest::newRow("blur 25 on 7x5") << 7 << 5 << 3 << 2 << 25 << 0.77;
        QTest::newRow("1x2") << 1 << 2 << 3 << 1 << 3 << 0.7;
        // Dense drops: window sums of every count of covered pixels, where a 16-bit fixed point (the
        // 23 bits OpenCV uses) would round some a level down.
        QTest::newRow("dense, blur 7") << 451 << 300 << 3 << 1 << -7 << 0.7;
        QTest::newRow("dense, blur 13") << 200 << 120 << 3 << 2 << -13 << 0.9;
    }

    void rain() {
        // Random drops (some ends past the image) in a colour, as add_rain draws them: cv::polylines
        // with 4-connected lines on a black layer, cv::blur, cv::add, cv::multiply.
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(int, channels);
        QFETCH(int, thickness);
        QFETCH(int, blur);
        QFETCH(double, brightness);
        const bool dense = blur < 0;  // a negative size in the table: many more drops
        blur = std::abs(blur);
        std::mt19937 rng(static_cast<unsigned>(width * 7 + blur));
        const Image src = photoCrop("chelsea.png", width, height, channels);
        RainStep step;
        step.width = thickness;
        step.blur = blur;
        step.brightness = brightness;
        step.colour = {200, 150, 255};
        std::vector<std::vector<cv::Point>> lines;
        for (int i = 0; i < std::max(1, dense ? height * 6 : height / 3); ++i) {
            const int x = int(rng() % unsigned(width)), y = int(rng() % unsigned(height));
            const int ex = x + int(rng() % 41) - 20, ey = y + 1 + int(rng() % 40);
            step.lines.push_back({x, y, ex, ey});
            lines.push_back({{x, y}, {ex, ey}});
        }
        const Image ours = throughBoth(src, step);
        cv::Mat rgb;
        cv::cvtColor(toMat(src), rgb, channels == 4 ? cv::COLOR_RGBA2RGB : cv::COLOR_RGB2BGR);
        if (channels == 3) cv::cvtColor(rgb, rgb, cv::COLOR_BGR2RGB);
        cv::Mat layer = cv::Mat::zeros(height, width, CV_8UC3);
        cv::polylines(layer, lines, false, cv::Scalar(200, 150, 255), thickness, cv::LINE_4);
        if (blur > 1) cv::blur(layer, layer, cv::Size(blur, blur));
        cv::add(rgb, layer, rgb);
        if (brightness != 1.0) cv::multiply(rgb, cv::Scalar::all(brightness), rgb, 1, CV_8U);
        QVERIFY(sameRgb(ours, rgb));
        QVERIFY(sameAlpha(ours, src));
        // No drops: the library hands the image back as it is (no dimming either).
        RainStep none = step;
        none.lines.clear();
        QVERIFY(throughBoth(src, none).pixels == src.pixels);
    }

    void overlayFlare() {
        // add_sun_flare_overlay's loop in OpenCV terms: cv::circle on the overlay, then the whole image
        // blended (float32 products, rounded), the circles, then the sun's discs on a fresh overlay.
        for (const auto& [file, w, h, channels] :
             {std::tuple{"coffee.png", 400, 300, 3}, std::tuple{"astronaut.png", 97, 131, 4}}) {
            const Image src = photoCrop(file, w, h, channels);
            std::mt19937 rng{static_cast<unsigned>(w)};
            FlareStep step;
            for (int i = 0; i < 9; ++i) {
                const float a = std::uniform_real_distribution<float>(0.05f, 0.2f)(rng);
                const int size = int(std::pow(1 + int(rng() % 4), 3));
                step.circles.push_back({int(rng() % unsigned(w + 60)) - 30,
                                        int(rng() % unsigned(h + 60)) - 30,
                                        size,
                                        {std::uint8_t(rng() % 256), std::uint8_t(rng() % 256), 255},
                                        a,
                                        1 - a});
            }
            for (int i = 0; i < 12; ++i) {
                const float a = std::pow(0.9f * float(11 - i) / 11, 3.0f);
                step.sun.push_back({w / 3, h / 4, 1 + i * 9, {255, 240, 200}, a, 1 - a});
            }
            const Image ours = throughBoth(src, step);
            cv::Mat rgb = toMat(src), out;
            if (channels == 4) cv::cvtColor(rgb, rgb, cv::COLOR_RGBA2RGB);
            out = rgb.clone();
            const auto blend = [](const cv::Mat& over, cv::Mat& result, float a, float b) {
                for (int y = 0; y < result.rows; ++y)
                    for (int i = 0; i < result.cols * 3; ++i) {
                        const float v = float(over.ptr<std::uint8_t>(y)[i]) * a +
                                        float(result.ptr<std::uint8_t>(y)[i]) * b;
                        result.ptr<std::uint8_t>(y)[i] = cv::saturate_cast<std::uint8_t>(std::nearbyint(v));
                    }
            };
            cv::Mat overlay = rgb.clone();
            for (const auto& c : step.circles) {
                cv::circle(overlay, {c.x, c.y}, c.radius, cv::Scalar(c.colour[0], c.colour[1], c.colour[2]),
                           -1);
                blend(overlay, out, c.alpha, c.beta);
            }
            overlay = out.clone();
            for (const auto& c : step.sun) {
                cv::circle(overlay, {c.x, c.y}, c.radius, cv::Scalar(c.colour[0], c.colour[1], c.colour[2]),
                           -1);
                blend(overlay, out, c.alpha, c.beta);
            }
            QVERIFY2(sameRgb(ours, out), file);
            QVERIFY(sameAlpha(ours, src));
            QVERIFY(ours.pixels != src.pixels);
        }
    }

    void keyedTablesMatchTheKernels() {
        // What the GPU backends render for shadows, fog and rain (a key per pixel, a table per key,
        // drawn on the host: keyed_tables.h) against the CPU kernels: random overlapping polygons,
        // past the edges; fog particles of every size, many overlapping, some past the edges; rain.
        std::mt19937 rng(77);
        for (const auto& [w, h, channels] :
             {std::tuple{301, 207, 3}, std::tuple{64, 37, 4}, std::tuple{7, 5, 3}}) {
            const Image src = photoCrop("coffee.png", w, h, channels);
            ShadowStep shadow;
            for (int i = 0; i < 6; ++i) {
                ShadowStep::Polygon poly;
                for (int j = 0; j < 3 + int(rng() % 6); ++j)
                    poly.vertices.push_back(
                        {int(rng() % unsigned(w + 40)) - 20, int(rng() % unsigned(h + 40)) - 20});
                poly.darkness = std::uniform_real_distribution<double>(0, 1)(rng);
                shadow.polygons.push_back(poly);
            }
            FogStep fog{0.07f, 0.93f, {}};
            for (int i = 0; i < 400; ++i)
                fog.particles.push_back({int(rng() % unsigned(w + 10)) - 5, int(rng() % unsigned(h + 10)) - 5,
                                         1 + int(rng() % 30)});
            // Rain: crossing drops past the edges, blurs odd, even, none, and past 256 pixels (OpenCV's
            // float division), dimmed or not.
            std::vector<PixelStep> steps{PixelStep(shadow), PixelStep(fog)};
            for (const auto& [blur, width, brightness] : {std::tuple{7, 1, 0.7}, std::tuple{4, 3, 1.0},
                                                          std::tuple{1, 2, 0.55}, std::tuple{17, 1, 0.9}}) {
                RainStep rain;
                rain.blur = blur;
                rain.width = width;
                rain.brightness = brightness;
                rain.colour = {190, 200, 215};
                for (int i = 0; i < 40; ++i) {
                    const int x = int(rng() % unsigned(w + 10)) - 5, y = int(rng() % unsigned(h + 10)) - 5;
                    rain.lines.push_back({x, y, x + int(rng() % 21) - 10, y + 1 + int(rng() % 30)});
                }
                steps.push_back(rain);
            }
            // Sun flares (overlay): circles crossing each other and the edges, then the sun's nested discs.
            FlareStep flare;
            for (int i = 0; i < 9; ++i) {
                const float alpha = std::uniform_real_distribution<float>(0.05f, 0.9f)(rng);
                flare.circles.push_back({int(rng() % unsigned(w + 20)) - 10,
                                         int(rng() % unsigned(h + 20)) - 10,
                                         1 + int(rng() % 40),
                                         {std::uint8_t(rng()), std::uint8_t(rng()), std::uint8_t(rng())},
                                         alpha,
                                         1.0f - alpha});
            }
            for (int r = 30; r >= 1; r -= 3) {
                const float alpha = float(std::pow((31.0 - r) / 30.0, 3.0));
                flare.sun.push_back({w / 3, h / 2, r, {255, 250, 230}, alpha, 1.0f - alpha});
            }
            steps.push_back(flare);
            for (const PixelStep& step : steps) {
                const Image kernel = throughBoth(src, step);
                const KeyedTables k = keyedTables(step, w, h);
                QCOMPARE(k.keys.size(), std::size_t(w) * std::size_t(h));
                QVERIFY(k.count() > 1);
                Image keyed = src;
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) {
                        const std::uint8_t* t =
                            k.tables.data() + std::size_t(k.keys[std::size_t(y) * w + x]) * 768;
                        for (int c = 0; c < 3; ++c) keyed.at(x, y)[c] = t[256 * c + keyed.at(x, y)[c]];
                    }
                QVERIFY(keyed.pixels == kernel.pixels);
                QVERIFY(w * h < 100 || kernel.pixels != src.pixels);
            }
        }
    }

    void physicsFlare() {
        // The float layer's parts are OpenCV's (the sun's disc, the two-pixel spikes, the circles);
        // its blurs in float64 sums against cv::GaussianBlur's float32 ones. The same bytes for any
        // thread count; within a level of OpenCV's float pipeline on nearly every pixel.
        const Image src = photoCrop("rocket.jpg", 320, 200, 3);
        FlareStep step;
        step.physics = true;
        step.x = 120;
        step.y = 40;
        step.radius = 30;
        step.colour = {255, 250, 220};
        step.circles = {{200, 90, 3, {230, 210, 255}, 0, 1}, {260, 120, 2, {255, 200, 200}, 0, 1}};
        const Image ours = throughBoth(src, step);
        const int w = src.width, h = src.height;
        cv::Mat layer = cv::Mat::zeros(h, w, CV_32FC3);
        const cv::Scalar sun(255, 250, 220);
        cv::circle(layer, {step.x, step.y}, step.radius, sun, -1);
        const double reach = std::max(w, h);
        for (int degrees : {0, 45, 90, 135}) {
            const double a = degrees * CV_PI / 180;
            cv::line(layer, {step.x, step.y},
                     {int(step.x + std::cos(a) * reach), int(step.y + std::sin(a) * reach)}, sun, 2);
        }
        for (const auto& c : step.circles)
            cv::circle(layer, {c.x, c.y}, c.radius, cv::Scalar(c.colour[0], c.colour[1], c.colour[2]), -1);
        cv::GaussianBlur(layer, layer, {0, 0}, 15, 15);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const double d = std::sqrt(double((x - step.x) * (x - step.x) + (y - step.y) * (y - step.y)));
                const double m = 1 - std::clamp(d / (reach * 0.7), 0.0, 1.0);
                for (int c = 0; c < 3; ++c)
                    layer.at<cv::Vec3f>(y, x)[c] = float(layer.at<cv::Vec3f>(y, x)[c] * m);
            }
        std::vector<cv::Mat> planes;
        cv::split(layer, planes);
        cv::GaussianBlur(planes[0], planes[0], {0, 0}, 3, 3);
        cv::GaussianBlur(planes[2], planes[2], {0, 0}, 5, 5);
        cv::merge(planes, layer);
        const cv::Mat rgb = toMat(src);
        int apart = 0, worst = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < 3; ++c) {
                    const float f = layer.at<cv::Vec3f>(y, x)[c];
                    const float v = 255.0f - float(255 - rgb.at<cv::Vec3b>(y, x)[c]) * (255.0f - f) / 255.0f;
                    const int expected = int(std::clamp(v, 0.0f, 255.0f));
                    const int d = std::abs(expected - ours.at(x, y)[c]);
                    worst = std::max(worst, d);
                    apart += d != 0;
                }
        qInfo("physics_based: %d of %d values a level apart from OpenCV's float32 blurs", apart, w * h * 3);
        QVERIFY(worst <= 1);
        QVERIFY(apart < w * h * 3 / 1000);
        QVERIFY(ours.pixels != src.pixels);
    }
};

QTEST_APPLESS_MAIN(TestWeather)
#include "test_weather.moc"
