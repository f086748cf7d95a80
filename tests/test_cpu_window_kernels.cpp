// The CPU backend's window kernels (core/cpu and the AVX2 / FMA convolution rows) against their
// definitions, on every SIMD target this CPU runs (cpu::forEachSimdTarget): the box filter's rows,
// the median networks (by the 0-1 principle) and rows (against std::nth_element and
// cv::medianBlur), CLAHE's row, and the convolution rows against cv::filter2D.

#include <QtTest>
#include <algorithm>
#include <dlfcn.h>
#include <hwy/targets.h>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <opencv2/imgproc.hpp>
#include <random>

#include "colour.h"
#include "cpu/box_rows.h"
#include "cpu/colour_rows.h"
#include "cpu/flare_rows.h"
#include "cpu/lab_rows.h"
#include "cpu/lut.h"
#include "cpu/median_network.h"
#include "cpu/median_rows.h"
#include "cpu/noise_rows.h"
#include "cpu/pixel_rows.h"
#include "cpu/remap_rows.h"
#include "cpu/simd_targets.h"
#include "cpu/tail_rows.h"
#include "cpu_backend.h"
#include "cpu_convolve_fma.h"
#include "cpu_drawn_ops.h"
#include "image_io.h"
#include "ops/hue_saturation_value.h"
#include "philox.h"
#include "plan.h"
#include "shared_maths.h"
#include "thread_pool.h"

#include "pixel_ops_support.h"

using namespace auglab;
using namespace auglab::testing;

class TestCpuWindowKernels : public QObject {
    Q_OBJECT

private slots:
    /// The box blur's row kernels (core/cpu/box_rows.h) and the saturated add on every SIMD target:
    /// their scalar definitions on random rows of every length up to a few vectors; the 16-bit
    /// division equal to OpenCV's fixed point (BoxDivider) for every sum of every k up to 15.
    void boxRowsAreTheirDefinitions() {
        for (int k = 2; k <= cpu::kBoxMaxK16; ++k) {
            const cpu_drawn::BoxDivider divider(k);
            const auto q = cpu::boxDivision16(divider.scale(), divider.delta(), std::uint32_t(255 * k * k));
            QVERIFY2(q, qPrintable(QString("k %1: no 16-bit division").arg(k)));
            for (std::uint32_t v = 0; v <= std::uint32_t(255 * k * k); ++v)
                QVERIFY2((*q)(std::uint16_t(v)) == divider(v), qPrintable(QString("k %1, sum %2").arg(k).arg(v)));
        }
        std::mt19937 rng(29);
        QStringList targets;
        cpu::forEachSimdTarget([&](const char* target) {
            targets << target;
            for (std::size_t n = 0; n < 200; ++n) {
                const int k = 1 + 2 * int(rng() % 8), step = 1 + int(rng() % 4);
                const auto bytes = [&](std::size_t count) {
                    std::vector<std::uint8_t> v(count);
                    for (auto& b : v) b = std::uint8_t(rng());
                    return v;
                };
                const std::vector<std::uint8_t> in = bytes(n), out = bytes(n);
                std::vector<std::uint16_t> wide(n), acc(n), want(n), padded(n + std::size_t(step * (k - 1)));
                cpu::widenBytes16(in.data(), wide.data(), n);
                for (std::size_t i = 0; i < n; ++i) QCOMPARE(wide[i], std::uint16_t(in[i]));
                for (auto& v : padded) v = std::uint16_t(rng() % 256 * 15);
                cpu::windowSums16(padded.data(), acc.data(), n, k, step);
                for (std::size_t i = 0; i < n; ++i) {
                    unsigned sum = 0;
                    for (int t = 0; t < k; ++t) sum += padded[i + std::size_t(step * t)];
                    QCOMPARE(acc[i], std::uint16_t(sum));
                }
                // A 15 x 15 window moving on: sums from 0 to 225 * 255 as a row enters and one leaves.
                for (std::size_t i = 0; i < n; ++i) acc[i] = want[i] = std::uint16_t(255 + rng() % (223 * 255 + 1));
                std::vector<std::uint16_t> in16(in.begin(), in.end()), out16(out.begin(), out.end());
                cpu::add16(acc.data(), in16.data(), n);
                for (std::size_t i = 0; i < n; ++i) want[i] = std::uint16_t(want[i] + in[i]);
                QVERIFY(acc == want);
                const cpu_drawn::BoxDivider divider(15);
                const auto q = *cpu::boxDivision16(divider.scale(), divider.delta(), 255 * 225);
                std::vector<std::uint8_t> quotients(n);
                cpu::slideDivide16(acc.data(), out16.data(), in16.data(), quotients.data(), n, q);
                for (std::size_t i = 0; i < n; ++i) {
                    want[i] = std::uint16_t(want[i] + out[i] - in[i]);
                    QCOMPARE(quotients[i], divider(want[i]));
                }
                QVERIFY(acc == want);
                cpu::slide16(acc.data(), in16.data(), out16.data(), n);
                std::fill(quotients.begin(), quotients.end(), 0);
                cpu::divide16(acc.data(), quotients.data(), n, q);
                for (std::size_t i = 0; i < n; ++i) {
                    want[i] = std::uint16_t(want[i] + in[i] - out[i]);
                    QCOMPARE(quotients[i], divider(want[i]));
                }
                std::vector<std::uint8_t> sum = in;
                cpu::addSaturated(sum.data(), out.data(), n);
                for (std::size_t i = 0; i < n; ++i) QCOMPARE(int(sum[i]), std::min(255, in[i] + out[i]));
            }
        });
        QVERIFY2(!targets.isEmpty(), "no SIMD target ran");
    }

    /// The median networks (core/cpu/median_network.h) by the 0-1 principle: a comparator network
    /// selects rank m of all inputs iff it does for every input of 0s and 1s. Inputs here are windows
    /// with sorted columns (column j: z_j zeros, then ones), every one of the (k + 1)^k for k = 3, 5,
    /// 7, 64 windows a word (min is AND, max is OR); the median is 1 iff more than half are 1s. The
    /// column sorts are checked the same way over all 2^k columns.
    void medianNetworksSelectTheMedian() {
        namespace mn = cpu::median_network;
        const auto run = [](const auto& net, std::vector<std::uint64_t>& v) {
            for (int t = 0; t < net.count; ++t) {
                const mn::Op& op = net.ops[std::size_t(t)];
                const std::uint64_t a = v[std::size_t(op.a)], b = v[std::size_t(op.b)];
                if (op.kind != mn::Kind::Max) v[std::size_t(op.a)] = a & b;
                if (op.kind != mn::Kind::Min) v[std::size_t(op.b)] = a | b;
            }
        };
        const auto check = [&](auto kTag) {
            constexpr int k = decltype(kTag)::value;
            constexpr auto net = mn::medianNetwork<k>();
            constexpr auto columns = mn::sortNetwork<k>();
            // The column sort on every column of k bits.
            for (std::uint32_t bits = 0; bits < (1u << k); ++bits) {
                std::vector<std::uint64_t> v(k);
                for (int i = 0; i < k; ++i) v[std::size_t(i)] = (bits >> i) & 1;
                run(columns, v);
                for (int i = 1; i < k; ++i) QVERIFY2(v[std::size_t(i - 1)] <= v[std::size_t(i)], qPrintable(QString("k %1 column %2").arg(k).arg(bits)));
            }
            std::size_t total = 1;
            for (int j = 0; j < k; ++j) total *= k + 1;
            for (std::size_t first = 0; first < total; first += 64) {
                std::vector<std::uint64_t> v(std::size_t(k * k), 0);
                std::uint64_t want = 0;
                for (std::size_t bit = 0; bit < 64 && first + bit < total; ++bit) {
                    std::size_t code = first + bit;
                    int ones = 0;
                    for (int j = 0; j < k; ++j, code /= std::size_t(k + 1)) {
                        const int zeros = int(code % std::size_t(k + 1));
                        for (int i = zeros; i < k; ++i) v[std::size_t(i * k + j)] |= std::uint64_t{1} << bit;
                        ones += k - zeros;
                    }
                    if (ones > k * k / 2) want |= std::uint64_t{1} << bit;
                }
                run(net, v);
                const std::uint64_t valid = total - first >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (total - first)) - 1;
                QVERIFY2((v[std::size_t(net.out)] & valid) == want, qPrintable(QString("k %1, windows from %2").arg(k).arg(first)));
            }
        };
        check(std::integral_constant<int, 3>{});
        check(std::integral_constant<int, 5>{});
        check(std::integral_constant<int, 7>{});
        qInfo("median networks: %d, %d, %d comparators for 3 x 3, 5 x 5, 7 x 7", mn::medianNetwork<3>().count,
              mn::medianNetwork<5>().count, mn::medianNetwork<7>().count);
    }

    /// medianRow (core/cpu/median_rows.h) on every SIMD target against std::nth_element of each
    /// byte's window: k 3 to 9, 1, 3 and 4 bytes a pixel, widths 1 to 150 (every vector tail), few
    /// values (ties everywhere) and all of them; then the whole step against cv::medianBlur on a photo
    /// (alpha kept).
    void medianRowsAreTheMedian() {
        std::mt19937 rng(11);
        QStringList targets;
        cpu::forEachSimdTarget([&](const char* target) {
            targets << target;
            QCOMPARE(QString(cpu::medianTarget()), QString(target));
            for (int trial = 0; trial < 240; ++trial) {
                const int k = 3 + 2 * (trial % 4), r = k / 2;
                const std::size_t cn = std::size_t(trial % 3 == 0 ? 1 : trial % 3 == 1 ? 3 : 4);
                const std::size_t w = 1 + rng() % 150, n = w * cn, padded = n + 2 * std::size_t(r) * cn;
                const unsigned levels = trial % 2 ? 3 : 256;
                std::vector<std::vector<std::uint8_t>> rows(static_cast<std::size_t>(k));
                for (auto& row : rows) {
                    row.resize(padded);
                    for (auto& v : row) v = std::uint8_t(rng() % levels);
                }
                std::vector<const std::uint8_t*> window;
                for (const auto& row : rows) window.push_back(row.data());
                std::vector<std::uint8_t> scratch(cpu::medianScratchBytes(n, k, cn)), got(n + 1, 77), want(n);
                for (std::size_t x = 0; x < n; ++x) {
                    std::vector<std::uint8_t> values;
                    for (const auto& row : rows)
                        for (int j = 0; j < k; ++j) values.push_back(row[x + std::size_t(j) * cn]);
                    std::nth_element(values.begin(), values.begin() + k * k / 2, values.end());
                    want[x] = values[std::size_t(k * k / 2)];
                }
                cpu::medianRow(window.data(), k, n, cn, scratch.data(), got.data());
                QCOMPARE(got[n], std::uint8_t(77));  // nothing written past the row
                got.pop_back();
                QVERIFY2(got == want, qPrintable(QString("%1: k %2, %3 x %4 bytes, %5 levels").arg(target).arg(k).arg(w).arg(cn).arg(levels)));
            }
            const Image rgb = loadSample("astronaut.png");
            Image photo(rgb.width, rgb.height, 4);
            for (int y = 0; y < rgb.height; ++y)
                for (int x = 0; x < rgb.width; ++x) {
                    for (int c = 0; c < 3; ++c) photo.row(y)[4 * x + c] = rgb.row(y)[rgb.channels * x + c];
                    photo.row(y)[4 * x + 3] = std::uint8_t(rng());
                }
            for (int k : {3, 5, 7, 9}) {
                cv::Mat rgba(photo.height, photo.width, CV_8UC4, photo.row(0), photo.stride), want;
                cv::medianBlur(rgba, want, k);
                Image got = photo;
                ThreadPool pool(3);
                applyPixelStep(got, MedianStep{k}, RowLoop{&pool});
                for (int y = 0; y < photo.height; ++y)
                    for (int x = 0; x < photo.width; ++x)
                        for (int c = 0; c < 4; ++c) {
                            const std::uint8_t expected = c == 3 ? photo.row(y)[4 * x + 3] : want.ptr<std::uint8_t>(y)[4 * x + c];
                            if (got.row(y)[4 * x + c] != expected)
                                QFAIL(qPrintable(QString("%1: k %2 at (%3, %4, %5)").arg(target).arg(k).arg(x).arg(y).arg(c)));
                        }
            }
        });
        QVERIFY2(!targets.isEmpty(), "no SIMD target ran");
    }

    /// claheRow against its definition (claheBlend of the four tables' entries, then labToRgb):
    /// every Lab triple through tables that keep L (the conversion alone), then random tables,
    /// offsets and weights as claheAxis makes them, rows of every length around the vector width,
    /// 3 and 4 channels (alpha kept), on every SIMD target.
    void claheRowIsItsDefinition() {
        const Lab8& lab = Lab8::tables();
        std::mt19937 rng(41);
        QStringList targets;
        cpu::forEachSimdTarget([&](const char* target) {
            targets << target;
            // Every (L, a, b): one L a row, tables of the identity, all weight on the top left.
            {
                constexpr std::size_t n = 1 << 16;
                std::vector<std::int32_t> identity(256), zeros(n, 0);
                for (int v = 0; v < 256; ++v) identity[std::size_t(v)] = v;
                std::vector<float> one(n, 1.0f), none(n, 0.0f);
                std::vector<std::uint8_t> L(n), a(n), b(n), out(n * 3);
                for (std::size_t i = 0; i < n; ++i) {
                    a[i] = std::uint8_t(i >> 8);
                    b[i] = std::uint8_t(i);
                }
                cpu::ClaheRow row{identity.data(), identity.data(), zeros.data(), zeros.data(), none.data(), one.data(), 0.0f, 1.0f};
                for (int l = 0; l < 256; ++l) {
                    std::fill(L.begin(), L.end(), std::uint8_t(l));
                    cpu::claheRow(L.data(), a.data(), b.data(), out.data(), n, 3, row);
                    for (std::size_t i = 0; i < n; ++i) {
                        int r, g, bb;
                        lab.toRgb(l, a[i], b[i], r, g, bb);
                        if (out[3 * i] != r || out[3 * i + 1] != g || out[3 * i + 2] != bb)
                            QFAIL(qPrintable(QString("%1: Lab (%2, %3, %4) gave RGB (%5, %6, %7), not (%8, %9, %10)")
                                                 .arg(target).arg(l).arg(a[i]).arg(b[i]).arg(out[3 * i])
                                                 .arg(out[3 * i + 1]).arg(out[3 * i + 2]).arg(r).arg(g).arg(bb)));
                    }
                }
            }
            // Random tables and weights.
            constexpr int tiles = 8;
            std::vector<std::int32_t> top(tiles * 256), bottom(tiles * 256);
            for (int trial = 0; trial < 400; ++trial) {
                const int cn = trial % 2 ? 4 : 3;
                const std::size_t n = std::size_t(trial % 100);
                for (auto& v : top) v = std::int32_t(rng() % 256);
                for (auto& v : bottom) v = std::int32_t(rng() % 256);
                std::vector<std::int32_t> t1(n), t2(n);
                std::vector<float> xa(n), xa1(n);
                std::vector<std::uint8_t> L(n), a(n), b(n), want(n * std::size_t(cn));
                const int tile = 1 + int(rng() % 80);
                const float inv = 1.0f / float(tile);
                for (std::size_t i = 0; i < n; ++i) {
                    int k1, k2;
                    shared::claheAxis(int(rng() % std::uint32_t(tile * tiles)), inv, tiles, k1, k2, xa[i], xa1[i]);
                    t1[i] = k1 * 256;
                    t2[i] = k2 * 256;
                    L[i] = std::uint8_t(rng());
                    a[i] = std::uint8_t(rng());
                    b[i] = std::uint8_t(rng());
                }
                for (auto& v : want) v = std::uint8_t(rng());
                std::vector<std::uint8_t> got = want;
                float ya, ya1;
                int k1, k2;
                shared::claheAxis(int(rng() % std::uint32_t(tile * tiles)), inv, tiles, k1, k2, ya, ya1);
                cpu::ClaheRow row{top.data(), bottom.data(), t1.data(), t2.data(), xa.data(), xa1.data(), ya, ya1};
                cpu::claheRow(L.data(), a.data(), b.data(), got.data(), n, cn, row);
                for (std::size_t i = 0; i < n; ++i) {
                    const std::size_t i1 = std::size_t(t1[i]) + L[i], i2 = std::size_t(t2[i]) + L[i];
                    const int newL = shared::claheBlend(top[i1], top[i2], bottom[i1], bottom[i2], xa[i], xa1[i], ya, ya1);
                    int r, g, bb;
                    lab.toRgb(newL, a[i], b[i], r, g, bb);
                    std::uint8_t* p = want.data() + i * std::size_t(cn);
                    p[0] = std::uint8_t(r);
                    p[1] = std::uint8_t(g);
                    p[2] = std::uint8_t(bb);
                }
                QVERIFY2(got == want, qPrintable(QString("%1: trial %2 (%3 px, %4 channels)").arg(target).arg(trial).arg(n).arg(cn)));
            }
        });
        QVERIFY2(!targets.isEmpty(), "no SIMD target ran");
    }

    void convolutionMatchesOpenCvOnBothPaths() {
        // ConvolveStep's rows, as the baseline build runs them (std::fma calls) and as the AVX2+FMA
        // build does, give the same bytes, and both are cv::filter2D's (a 5 x 5 kernel of mixed
        // signs with zero taps, a photo crop, RGB): each value fused-multiply-adds its taps in row
        // order, as OpenCV's vector loop does.
        const Image img = loadSample("chelsea.png");  // RGB, 451 x 300
        std::vector<convolve_rows::Tap> taps;
        std::vector<float> kernel(25, 0.0f);
        for (int i = 0; i < 25; ++i)
            if (i % 3 != 1) kernel[std::size_t(i)] = float(((i * 7) % 11) - 4) / 13.0f;
        for (int i = 0; i < 25; ++i)
            if (kernel[std::size_t(i)] != 0.0f)
                taps.push_back({i % 5 - 2, i / 5 - 2, kernel[std::size_t(i)]});
        const int w = img.width, h = img.height, r = 2;
        const auto reflect = [](int p, int len) {
            if (len == 1) return 0;
            while (p < 0 || p >= len) p = p < 0 ? -p : 2 * len - 2 - p;
            return p;
        };
        std::vector<std::uint8_t> padded(std::size_t(w + 2 * r) * 3 * h);
        for (int y = 0; y < h; ++y)
            for (int x = -r; x < w + r; ++x)
                std::memcpy(&padded[(std::size_t(y) * (w + 2 * r) + std::size_t(x + r)) * 3],
                            img.at(reflect(x, w), y), 3);
        const auto row = [&](int y) -> const std::uint8_t* {
            return &padded[std::size_t(y) * (w + 2 * r) * 3];
        };
        Image baseline(w, h, 3), vector(w, h, 3);
        std::vector<float> acc(std::size_t(w) * 3);
        convolve_rows::rows(
            taps, w, h, 3, r, 0, h, row, [&](int y) { return baseline.row(y); }, acc.data(), +reflect);
        if (cpuHasFma())
            convolveRowsFma(
                taps, w, h, 3, r, 0, h, row, [&](int y) { return vector.row(y); }, acc.data(), +reflect);
        else
            vector = baseline;  // this CPU runs the baseline rows only
        QVERIFY(samePixels(baseline, vector));
        cv::Mat src(h, w, CV_8UC3, const_cast<std::uint8_t*>(img.pixels.data()), img.stride), dst;
        cv::filter2D(src, dst, -1, cv::Mat(5, 5, CV_32F, kernel.data()));
        int worst = 0;
        for (int y = 0; y < h; ++y)
            for (int i = 0; i < w * 3; ++i)
                worst = std::max(worst,
                                 std::abs(int(dst.at<cv::Vec3b>(y, i / 3)[i % 3]) - int(baseline.row(y)[i])));
        QCOMPARE(worst, 0);
        // The step as the backend runs it (sums in vector registers over all taps where the CPU
        // fuses multiply-adds), on two threads: the same bytes.
        Image stepped = img;
        ThreadPool pool(2);
        applyPixelStep(stepped, ConvolveStep{5, kernel}, RowLoop{&pool});
        QVERIFY(samePixels(stepped, baseline));
    }
};

QTEST_APPLESS_MAIN(TestCpuWindowKernels)
#include "test_cpu_window_kernels.moc"
