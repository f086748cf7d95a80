// The CPU backend's pointwise SIMD kernels (core/cpu, Google Highway with run-time dispatch) against
// their scalar definitions, on every SIMD target this CPU runs (cpu::forEachSimdTarget holds
// Highway's dispatch to each in turn): the target choice itself, table lookups, the colour kernels
// over every colour, remap positions, the training tail's lookups and float programs, the sun
// flare's blends, and the kernels drawn from Philox (pixel dropout's flags, Gaussian and ISO noise,
// their normals). The window kernels are test_cpu_window_kernels'; the ops these kernels serve are
// checked against OpenCV and their formulas in test_colour_ops and test_filter_ops.

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

class TestCpuKernels : public QObject {
    Q_OBJECT

private slots:
    void targetChoiceIsHighways() {
        // core/cpu/simd_runtime.cpp answers Highway's "which targets does this CPU run" instead of
        // libhwy.so (whose load costs 4.4 ms): the engine must not load the library, and its
        // answer must be the library's own on this machine for every target the kernels are
        // compiled for, never claiming one the library does not (AVX3_DL, not compiled, may be
        // claimed less often: it also asks for AVX-VNNI).
        QVERIFY2(dlopen("libhwy.so.1", RTLD_NOW | RTLD_NOLOAD) == nullptr,
                 "libhwy.so.1 is loaded: something links it again");
        void* library = dlopen("libhwy.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!library) QSKIP(qPrintable(QStringLiteral("no libhwy.so.1 to compare with: %1").arg(dlerror())));
        using Supported = std::int64_t (*)();
        const auto theirs = reinterpret_cast<Supported>(dlsym(library, "_ZN3hwy16SupportedTargetsEv"));
        QVERIFY2(theirs, "libhwy.so.1 has no hwy::SupportedTargets()");
        const std::int64_t library_answer = theirs(), ours = hwy::SupportedTargets();
        const std::int64_t compiled = HWY_TARGETS | HWY_EMU128 | HWY_SCALAR;
        qInfo("targets: ours %llx, libhwy %llx, compiled %llx", static_cast<unsigned long long>(ours),
              static_cast<unsigned long long>(library_answer), static_cast<unsigned long long>(compiled));
        QCOMPARE(ours & compiled, library_answer & compiled);
        QCOMPARE(ours & ~library_answer, std::int64_t{0});
        // A test's narrowing holds, and is undone.
        hwy::SetSupportedTargetsForTest(HWY_EMU128);
        QCOMPARE(hwy::SupportedTargets(), std::int64_t{HWY_EMU128});
        hwy::SetSupportedTargetsForTest(0);
        QCOMPARE(hwy::SupportedTargets(), ours);
        dlclose(library);
    }

    void inversionTablesAreTheTables() {
        // A table mapping v to 255 - v runs as an exclusive or (lut.cpp): the same bytes as the
        // table read one byte at a time, alpha kept, in place and not, nothing past the end
        // written; a table that differs from it in one entry still goes through the lookup.
        cpu::Table inversion;
        for (int v = 0; v < 256; ++v) inversion[std::size_t(v)] = std::uint8_t(255 - v);
        cpu::Table almost = inversion;
        almost[77] = 3;
        std::mt19937 rng(11);
        for (const cpu::Table* table : {&inversion, &almost})
            for (std::size_t n = 0; n < 200; n += 7) {
                std::vector<std::uint8_t> in(4 * n + 8), out(4 * n + 8, 0xAB);
                for (auto& v : in) v = static_cast<std::uint8_t>(rng());
                cpu::lookup(in.data(), out.data(), n, *table);
                for (std::size_t i = 0; i < n; ++i) QCOMPARE(out[i], (*table)[in[i]]);
                QCOMPARE(out[n], std::uint8_t(0xAB));
                for (int channels : {3, 4}) {
                    std::vector<std::uint8_t> same = in;
                    cpu::lookupChannels(same.data(), same.data(), n, channels, {*table, *table, *table});
                    for (std::size_t p = 0; p < n; ++p)
                        for (int c = 0; c < channels; ++c) {
                            const std::size_t i = p * std::size_t(channels) + std::size_t(c);
                            QCOMPARE(same[i], c == 3 ? in[i] : (*table)[in[i]]);
                        }
                    QCOMPARE(same[n * std::size_t(channels)], in[n * std::size_t(channels)]);
                }
            }
    }

    void remapPositionsAreCvRound() {
        // cv2.remap's fixed-point positions of float maps (remap_rows.cpp), on every SIMD target,
        // against the scalar definition value by value, and that definition against OpenCV's own
        // cvRound where the value is inside a short's range: random values, ties at every
        // fraction, NaN, the infinities, values past int's and short's ranges, and lengths around
        // every vector's.
        const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
        std::vector<float> special = {0.0f, -0.0f, nan, -nan, inf, -inf, 3e9f, -3e9f, 2147483520.0f, 2147483648.0f,
                                      -2147483648.0f, -2147483904.0f, 32767.0f, 32767.99f, 32768.0f, -32768.0f,
                                      -32768.5f, -32769.0f, 1e-30f, -1e-30f, 67108864.0f, -67108864.0f};
        for (int k = -70; k <= 70; ++k) special.push_back(static_cast<float>(k) / 64.0f);  // ties at 32 and 1
        std::mt19937 rng(5);
        std::uniform_real_distribution<float> wide(-70000.0f, 70000.0f), narrow(-3.0f, 600.0f);
        std::vector<float> mx(1200), my(1200);
        for (std::size_t i = 0; i < mx.size(); ++i) {
            mx[i] = i < special.size() ? special[i] : (i % 2 ? wide(rng) : narrow(rng));
            my[i] = i < special.size() ? special[special.size() - 1 - i] : narrow(rng);
        }
        for (const float v : special)
            if (std::isfinite(v) && std::abs(v) < 1000) {
                QCOMPARE(cpu::remapPosition(v, 0), cvRound(v));
                const int r = cvRound(v * 32.0f);
                QCOMPARE(cpu::remapPosition(v, 5), ((r >> 5) << 5) + (r & 31));
            }
        int targets = 0;
        cpu::forEachSimdTarget([&](const char* target) {
            ++targets;
            for (const int bits : {0, 5})
                for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(15),
                                      std::size_t(16), std::size_t(17), std::size_t(33), mx.size()}) {
                    std::vector<int> xy(2 * n + 2, 12345);
                    cpu::remapPositions(mx.data(), my.data(), n, bits, xy.data());
                    for (std::size_t i = 0; i < n; ++i)
                        if (xy[2 * i] != cpu::remapPosition(mx[i], bits) ||
                            xy[2 * i + 1] != cpu::remapPosition(my[i], bits))
                            QFAIL(qPrintable(QString("%1, bits %2, n %3: value %4 (%5, %6) gave (%7, %8), not (%9, %10)")
                                                 .arg(target).arg(bits).arg(n).arg(i).arg(mx[i]).arg(my[i])
                                                 .arg(xy[2 * i]).arg(xy[2 * i + 1])
                                                 .arg(cpu::remapPosition(mx[i], bits))
                                                 .arg(cpu::remapPosition(my[i], bits))));
                    QCOMPARE(xy[2 * n], 12345);  // nothing past the end
                }
        });
        QVERIFY(targets >= 1);
    }

    void tableLookupsAreTheTables() {
        // The lookup kernels (64 bytes a step where the CPU has AVX-512 VBMI) against the tables
        // read one byte at a time: random tables and bytes, every length around the vector's 64
        // bytes, 3 and 4 channels (alpha kept), in place and not; nothing past the end is written.
        std::mt19937 rng(7);
        std::array<cpu::Table, 3> tables;
        for (auto& t : tables)
            for (auto& v : t) v = static_cast<std::uint8_t>(rng());
        for (std::size_t n = 0; n < 300; ++n) {
            std::vector<std::uint8_t> in(n + 8), out(n + 8, 0xAB), same;
            for (auto& v : in) v = static_cast<std::uint8_t>(rng());
            cpu::lookup(in.data(), out.data(), n, tables[0]);
            for (std::size_t i = 0; i < n; ++i) QCOMPARE(out[i], tables[0][in[i]]);
            for (std::size_t i = n; i < n + 8; ++i) QCOMPARE(out[i], std::uint8_t(0xAB));
            same = in;
            cpu::lookup(same.data(), same.data(), n, tables[0]);
            QVERIFY(std::equal(same.begin(), same.begin() + std::ptrdiff_t(n), out.begin()));
            for (int channels : {3, 4}) {
                const std::size_t pixels = n / std::size_t(channels), bytes = pixels * std::size_t(channels);
                std::fill(out.begin(), out.end(), std::uint8_t(0xAB));
                cpu::lookupChannels(in.data(), out.data(), pixels, channels, tables);
                for (std::size_t i = 0; i < bytes; ++i) {
                    const std::size_t c = i % std::size_t(channels);
                    QCOMPARE(out[i], c < 3 ? tables[c][in[i]] : in[i]);
                }
                for (std::size_t i = bytes; i < n + 8; ++i) QCOMPARE(out[i], std::uint8_t(0xAB));
                same = in;
                cpu::lookupChannels(same.data(), same.data(), pixels, channels, tables);
                QVERIFY(std::equal(same.begin(), same.begin() + std::ptrdiff_t(bytes), out.begin()));
            }
        }
        qInfo("table lookups run on %s", cpu::lookupTarget());
    }

    void colourKernelsAreTheirDefinitions() {
        // The vectorised colour kernels against the scalar definitions they stand for (grayOf,
        // grayBlendOf, channelMatrixOf, rgbToHsv8 + tables + hsvToRgb8, the mixing blend), on every
        // SIMD target this CPU runs: all 2^24 colours on the best one, a random million on each
        // other; rows of odd lengths so that every row has a scalar tail; 3 channels, and 4 with
        // alpha kept. Each definition is itself checked against OpenCV in this suite.
        std::vector<std::uint8_t> all(3 * (std::size_t(1) << 24));
        for (std::size_t c = 0; c < (std::size_t(1) << 24); ++c) {
            all[3 * c] = std::uint8_t(c >> 16);
            all[3 * c + 1] = std::uint8_t(c >> 8);
            all[3 * c + 2] = std::uint8_t(c);
        }
        std::mt19937 rng(11);
        std::vector<std::uint8_t> sample(3 * 1000003);
        for (auto& v : sample) v = static_cast<std::uint8_t>(rng());
        const std::array<std::int32_t, 9> sepia = ChannelMatrixStep::fromFloat(
            {0.393f, 0.769f, 0.189f, 0.349f, 0.686f, 0.168f, 0.272f, 0.534f, 0.131f}).m;
        const std::array<std::int32_t, 9> mixed{-300, 1500, 200, 1024, 0, 0, 700, -900, 1300};
        const std::array<std::int32_t, 9> swap{0, 0, 1024, 1024, 0, 0, 0, 1024, 0};
        HsvParams shift;
        shift.hue_shift_deg = 37;
        shift.sat_shift = -20;
        shift.val_shift = 15;
        const HsvLuts luts = hsvLuts(shift);
        cpu::HsvTables32 shifted, wild;
        for (std::size_t k = 0; k < 256; ++k) {
            shifted.hue[k] = luts.hue[k];
            shifted.sat[k] = luts.sat[k];
            shifted.val[k] = luts.val[k];
            wild.hue[k] = static_cast<std::int32_t>(rng() % 256);  // hues past 179 too: sectors 6..8
            wild.sat[k] = static_cast<std::int32_t>(rng() % 256);
            wild.val[k] = static_cast<std::int32_t>(rng() % 256);
        }
        // The same tables with their forms found (a rotation of hue, saturation and value shifted
        // and clamped: computed in registers, not gathered), and a hue rotation alone (color_jitter's
        // hue step: saturation and value tables the identity).
        cpu::HsvTables32 computed = shifted, hueOnly = shifted;
        cpu::analyseHsvTables(computed);
        QCOMPARE(computed.hueRotation, shifted.hue[0]);
        QCOMPARE(computed.satAdd, -20);
        QVERIFY(computed.satKeepsZero);
        QCOMPARE(computed.valAdd, 15);
        for (std::size_t k = 0; k < 256; ++k) hueOnly.sat[k] = hueOnly.val[k] = static_cast<std::int32_t>(k);
        cpu::analyseHsvTables(hueOnly);
        QVERIFY(hueOnly.hueRotation > 0 && hueOnly.satAdd == 0 && hueOnly.valAdd == 0);
        // A positive saturation shift: the table keeps 0 (gray stays gray), the rest shifted.
        HsvParams up;
        up.hue_shift_deg = -53;
        up.sat_shift = 30;
        up.val_shift = -12;
        const HsvLuts upLuts = hsvLuts(up);
        cpu::HsvTables32 raised;
        for (std::size_t k = 0; k < 256; ++k) {
            raised.hue[k] = upLuts.hue[k];
            raised.sat[k] = upLuts.sat[k];
            raised.val[k] = upLuts.val[k];
        }
        cpu::analyseHsvTables(raised);
        QVERIFY(raised.hueRotation >= 0 && raised.satAdd == 30 && raised.satKeepsZero && raised.valAdd == -12);
        cpu::HsvTables32 wildAnalysed = wild;
        cpu::analyseHsvTables(wildAnalysed);
        QVERIFY(wildAnalysed.hueRotation < 0 && wildAnalysed.satAdd == cpu::HsvTables32::kNoAdd &&
                wildAnalysed.valAdd == cpu::HsvTables32::kNoAdd);
        struct Kernel {
            const char* name;
            std::function<void(std::uint8_t*, std::size_t, int)> run;
            std::function<void(std::uint8_t*)> definition;  // one pixel, in place
        };
        const auto blendOf = [](float a, float b) {
            return [a, b](std::uint8_t* q) {
                const int g = grayOf(q[0], q[1], q[2]);
                for (int c = 0; c < 3; ++c) q[c] = std::uint8_t(grayBlendOf(GrayBlendStep{a, b}, q[c], g));
            };
        };
        const auto matrixOf = [](std::array<std::int32_t, 9> m) {
            return [m](std::uint8_t* q) {
                ChannelMatrixStep s;
                s.m = m;
                const int r = q[0], g = q[1], b = q[2];
                for (int c = 0; c < 3; ++c) q[c] = std::uint8_t(channelMatrixOf(s, c, r, g, b));
            };
        };
        const auto hsvOf = [](const cpu::HsvTables32& t) {
            return [&t](std::uint8_t* q) {
                int h, sat, v, r, g, b;
                rgbToHsv8(q[0], q[1], q[2], h, sat, v);
                hsvToRgb8(t.hue[std::size_t(h)], t.sat[std::size_t(sat)], t.val[std::size_t(v)], r, g, b);
                q[0] = std::uint8_t(r), q[1] = std::uint8_t(g), q[2] = std::uint8_t(b);
            };
        };
        const std::vector<Kernel> kernels{
            {"gray", [](std::uint8_t* p, std::size_t n, int cn) { cpu::grayPixels(p, p, n, cn); },
             [](std::uint8_t* q) { q[0] = q[1] = q[2] = grayOf(q[0], q[1], q[2]); }},
            {"gray from another row", [](std::uint8_t* p, std::size_t n, int cn) {
                 const std::vector<std::uint8_t> src(p, p + n * std::size_t(cn));
                 std::fill(p, p + n * std::size_t(cn), std::uint8_t(0x5A));
                 cpu::grayPixels(src.data(), p, n, cn);
             },
             [](std::uint8_t* q) { q[0] = q[1] = q[2] = grayOf(q[0], q[1], q[2]); }},
            {"gray blend 0.3", [](std::uint8_t* p, std::size_t n, int cn) { cpu::grayBlendPixels(p, n, cn, 0.3f, 0.7f); },
             blendOf(0.3f, 0.7f)},
            {"gray blend 1.7", [](std::uint8_t* p, std::size_t n, int cn) { cpu::grayBlendPixels(p, n, cn, 1.7f, -0.7f); },
             blendOf(1.7f, -0.7f)},
            {"sepia", [&](std::uint8_t* p, std::size_t n, int cn) { cpu::channelMatrixPixels(p, p, n, cn, sepia); },
             matrixOf(sepia)},
            {"sepia from another row", [&](std::uint8_t* p, std::size_t n, int cn) {
                 const std::vector<std::uint8_t> src(p, p + n * std::size_t(cn));
                 std::fill(p, p + n * std::size_t(cn), std::uint8_t(0x5A));
                 cpu::channelMatrixPixels(src.data(), p, n, cn, sepia);
             },
             matrixOf(sepia)},
            {"mixed matrix", [&](std::uint8_t* p, std::size_t n, int cn) { cpu::channelMatrixPixels(p, p, n, cn, mixed); },
             matrixOf(mixed)},
            {"channel swap", [&](std::uint8_t* p, std::size_t n, int cn) { cpu::channelMatrixPixels(p, p, n, cn, swap); },
             matrixOf(swap)},
            {"channel swap from another row", [&](std::uint8_t* p, std::size_t n, int cn) {
                 const std::vector<std::uint8_t> src(p, p + n * std::size_t(cn));
                 std::fill(p, p + n * std::size_t(cn), std::uint8_t(0x5A));
                 cpu::channelMatrixPixels(src.data(), p, n, cn, swap);
             },
             matrixOf(swap)},
            {"hsv shift", [&](std::uint8_t* p, std::size_t n, int cn) { cpu::hsvPixels(p, n, cn, shifted); },
             hsvOf(shifted)},
            {"hsv shift computed", [&](std::uint8_t* p, std::size_t n, int cn) { cpu::hsvPixels(p, n, cn, computed); },
             hsvOf(shifted)},
            {"hsv raised saturation", [&](std::uint8_t* p, std::size_t n, int cn) { cpu::hsvPixels(p, n, cn, raised); },
             hsvOf(raised)},
            {"hsv hue rotation", [&](std::uint8_t* p, std::size_t n, int cn) { cpu::hsvPixels(p, n, cn, hueOnly); },
             hsvOf(hueOnly)},
            {"hsv random tables", [&](std::uint8_t* p, std::size_t n, int cn) { cpu::hsvPixels(p, n, cn, wild); },
             hsvOf(wild)},
        };
        // Checks `kernel` on the colours of `rgb` in rows of `row` pixels, as 3 and 4 channels.
        const auto check = [&](const Kernel& kernel, const std::vector<std::uint8_t>& rgb, const char* target) {
            const std::size_t pixels = rgb.size() / 3;
            for (int cn : {3, 4}) {
                const std::size_t step = cn == 3 ? pixels : std::min<std::size_t>(pixels, 300007);
                std::vector<std::uint8_t> got(step * std::size_t(cn)), want;
                for (std::size_t i = 0; i < step; ++i) {
                    std::copy_n(rgb.data() + 3 * i, 3, got.data() + std::size_t(cn) * i);
                    if (cn == 4) got[4 * i + 3] = std::uint8_t(i * 7);
                }
                want = got;
                for (std::size_t at = 0, row = 1; at < step; at += row, row = row % 997 + 13)
                    kernel.run(got.data() + at * std::size_t(cn), std::min(row, step - at), cn);
                for (std::size_t i = 0; i < step; ++i) {
                    std::uint8_t* q = want.data() + std::size_t(cn) * i;
                    kernel.definition(q);
                    if (!std::equal(q, q + cn, got.data() + std::size_t(cn) * i))
                        QFAIL(qPrintable(QString("%1 on %2, %3 channels: pixel %4 (%5 %6 %7) gives %8 %9 %10, "
                                                 "the definition %11 %12 %13")
                                             .arg(kernel.name, target).arg(cn).arg(i)
                                             .arg(rgb[3 * i]).arg(rgb[3 * i + 1]).arg(rgb[3 * i + 2])
                                             .arg(got[std::size_t(cn) * i]).arg(got[std::size_t(cn) * i + 1])
                                             .arg(got[std::size_t(cn) * i + 2]).arg(q[0]).arg(q[1]).arg(q[2])));
                }
            }
        };
        bool best = true;
        QStringList targets;
        cpu::forEachSimdTarget([&](const char* target) {
            targets << target;
            QCOMPARE(QString(cpu::colourTarget()), QString(target));
            for (const Kernel& k : kernels) check(k, best ? all : sample, target);
            // The mixing blend: random bytes and weights, odd lengths.
            std::vector<std::uint8_t> a(4099), b(4099);
            for (std::uint32_t w : {0u, 1u, 32768u, 40000u, 65535u, 65536u})
                for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(17), std::size_t(4099)}) {
                    for (auto& v : a) v = static_cast<std::uint8_t>(rng());
                    for (auto& v : b) v = static_cast<std::uint8_t>(rng());
                    std::vector<std::uint8_t> got = a;
                    cpu::blendBytes(got.data(), b.data(), n, w);
                    for (std::size_t i = 0; i < a.size(); ++i)
                        QCOMPARE(got[i], i < n ? std::uint8_t((w * a[i] + (65536u - w) * b[i] + 32768u) >> 16) : a[i]);
                }
            // Sums of bytes, and the means of MeanBrightnessStep (of R + G + B, and of gray) they make.
            for (std::size_t n : {std::size_t(0), std::size_t(7), std::size_t(64), std::size_t(4099)}) {
                std::vector<std::uint8_t> bytes(n);
                std::uint64_t want = 0;
                for (auto& v : bytes) want += v = static_cast<std::uint8_t>(rng());
                QCOMPARE(cpu::sumBytes(bytes.data(), n), want);
            }
            for (int cn : {3, 4}) {
                Image img(37, 11, cn);
                for (auto& v : img.pixels) v = static_cast<std::uint8_t>(rng());
                std::uint64_t colours = 0, grays = 0;
                for (int y = 0; y < img.height; ++y)
                    for (int x = 0; x < img.width; ++x) {
                        const std::uint8_t* q = img.at(x, y);
                        colours += q[0] + q[1] + q[2];
                        grays += grayOf(q[0], q[1], q[2]);
                    }
                MeanBrightnessStep mean;
                QCOMPARE(stepMean(img, mean), double(colours) / (3.0 * 37 * 11));
                mean.gray = true;
                QCOMPARE(stepMean(img, mean), double(grays) / (37.0 * 11));
            }
            // The blur's and the convolution's rows: taps summed in order, odd lengths.
            for (std::size_t n : {std::size_t(1), std::size_t(15), std::size_t(16), std::size_t(1001)}) {
                const int taps = int(1 + rng() % 9);
                const std::size_t count = static_cast<std::size_t>(taps);
                std::vector<std::vector<std::uint8_t>> bytes(count, std::vector<std::uint8_t>(n));
                std::vector<std::vector<float>> floats(count, std::vector<float>(n));
                std::vector<const std::uint8_t*> byteRows;
                std::vector<const float*> floatRows;
                std::vector<float> k(count);
                for (int t = 0; t < taps; ++t) {
                    k[std::size_t(t)] = std::uniform_real_distribution<float>(-1.5f, 1.5f)(rng);
                    for (auto& v : bytes[std::size_t(t)]) v = static_cast<std::uint8_t>(rng());
                    cpu::bytesToFloats(bytes[std::size_t(t)].data(), floats[std::size_t(t)].data(), n);
                    for (std::size_t i = 0; i < n; ++i) QCOMPARE(floats[std::size_t(t)][i], float(bytes[std::size_t(t)][i]));
                    byteRows.push_back(bytes[std::size_t(t)].data());
                    floatRows.push_back(floats[std::size_t(t)].data());
                }
                std::vector<float> sum(n);
                std::vector<std::uint8_t> rounded(n), convolved(n);
                cpu::weightedSum(floatRows.data(), k.data(), taps, sum.data(), n);
                cpu::floatsToBytes(sum.data(), rounded.data(), n);
                const bool fused = cpu::fusedConvolveBytes(byteRows.data(), k.data(), taps, convolved.data(), n);
                for (std::size_t i = 0; i < n; ++i) {
                    float want = k[0] * floats[0][i], f = 0.0f;
                    for (int t = 1; t < taps; ++t) want += k[std::size_t(t)] * floats[std::size_t(t)][i];
                    QCOMPARE(sum[i], want);
                    QCOMPARE(int(rounded[i]), std::clamp(int(std::nearbyint(want)), 0, 255));
                    for (int t = 0; t < taps; ++t) f = std::fma(k[std::size_t(t)], floats[std::size_t(t)][i], f);
                    if (fused) QCOMPARE(int(convolved[i]), std::clamp(int(std::nearbyint(f)), 0, 255));
                }
            }
            best = false;
        });
        QVERIFY(!targets.isEmpty());
        qInfo("colour kernels checked on %s (now dispatching to %s)", qPrintable(targets.join(", ")),
              cpu::colourTarget());
    }

    /// The training tail's lookups (core/cpu/tail_rows.h) give each byte its channel's table entry,
    /// interleaved and in planes, on every SIMD target, for lengths around every vector width.
    void tailLookupsAreTheTables() {
        std::mt19937 rng(11);
        std::vector<float> tables(4 * 256);
        for (float& v : tables) v = std::uniform_real_distribution<float>(-3, 3)(rng);
        QStringList targets;
        cpu::forEachSimdTarget([&](const char* target) {
            targets << target;
            QCOMPARE(QString(cpu::tailTarget()), QString(target));
            for (int cn : {3, 4})
                for (std::size_t pixels : {0, 1, 5, 15, 16, 17, 33, 64, 67, 1000}) {
                    std::vector<std::uint8_t> src(pixels * cn);
                    for (auto& v : src) v = static_cast<std::uint8_t>(rng());
                    std::vector<float> hwc(src.size() + 3, 99.0f);
                    cpu::lookUpFloats(src.data(), pixels, cn, tables.data(), hwc.data());
                    const std::size_t plane = pixels + 2;
                    std::vector<float> chw(plane * cn, 99.0f);
                    cpu::lookUpFloatsPlanar(src.data(), pixels, cn, tables.data(), chw.data(), plane);
                    for (std::size_t x = 0; x < pixels; ++x)
                        for (int c = 0; c < cn; ++c) {
                            const float want = tables[256 * c + src[x * cn + c]];
                            QVERIFY2(hwc[x * cn + c] == want && chw[c * plane + x] == want,
                                     qPrintable(QString("%1: %2 channels, %3 pixels, pixel %4 channel %5")
                                                    .arg(target).arg(cn).arg(pixels).arg(x).arg(c)));
                        }
                    for (std::size_t i = src.size(); i < hwc.size(); ++i) QCOMPARE(hwc[i], 99.0f);
                    for (int c = 0; c < cn; ++c)
                        for (std::size_t x = pixels; x < plane; ++x) QCOMPARE(chw[c * plane + x], 99.0f);
                    // The float programs (standard normalisation, to_float then it): each value the
                    // scalar steps' value, which is the normalisation's float32 formula.
                    cpu::FloatProgram normalize, scaled;
                    normalize.steps[0] = {cpu::FloatProgram::Op::Sub, {123.675f, 116.28f, 103.53f, 7.5f}};
                    normalize.steps[1] = {cpu::FloatProgram::Op::Mul, {1 / 58.395f, 1 / 57.12f, 1 / 57.375f, 0.25f}};
                    normalize.count = 2;
                    scaled.steps[0] = {cpu::FloatProgram::Op::Div, {255.0f, 255.0f, 255.0f, 255.0f}};
                    scaled.steps[1] = normalize.steps[0];
                    scaled.steps[2] = normalize.steps[1];
                    scaled.count = 3;
                    for (const cpu::FloatProgram* prog : {&normalize, &scaled}) {
                        std::fill(hwc.begin(), hwc.end(), 99.0f);
                        std::fill(chw.begin(), chw.end(), 99.0f);
                        cpu::runFloatProgram(src.data(), pixels, cn, *prog, hwc.data());
                        cpu::runFloatProgramPlanar(src.data(), pixels, cn, *prog, chw.data(), plane);
                        for (std::size_t x = 0; x < pixels; ++x)
                            for (int c = 0; c < cn; ++c) {
                                float want = src[x * cn + c];
                                if (prog == &scaled) want = want / 255.0f;
                                want = (want - normalize.steps[0].c[c]) * normalize.steps[1].c[c];
                                QCOMPARE(cpu::floatProgramValue(*prog, c, src[x * cn + c]), want);
                                QVERIFY2(hwc[x * cn + c] == want && chw[c * plane + x] == want,
                                         qPrintable(QString("%1: program, %2 channels, %3 pixels, pixel %4")
                                                        .arg(target).arg(cn).arg(pixels).arg(x)));
                            }
                        for (std::size_t i = src.size(); i < hwc.size(); ++i) QCOMPARE(hwc[i], 99.0f);
                        for (int c = 0; c < cn; ++c)
                            for (std::size_t x = pixels; x < plane; ++x) QCOMPARE(chw[c * plane + x], 99.0f);
                    }
                }
        });
        QVERIFY2(!targets.isEmpty(), "no SIMD target ran");
    }

    /// The sun flare's overlay blends (core/cpu/flare_rows.h) on every SIMD target: the scalar
    /// definition's bytes (test_weather checks that against OpenCV) for rows of random pixels and
    /// discs that overlap, cover nothing or the whole row, with the sun's restart, 3 and 4 channels.
    void flareRowsAreTheirDefinition() {
        std::mt19937 rng(23);
        QStringList targets;
        cpu::forEachSimdTarget([&](const char* target) {
            targets << target;
            for (int trial = 0; trial < 200; ++trial) {
                const int cn = trial % 2 ? 4 : 3, w = 1 + int(rng() % 97);
                const std::size_t count = rng() % 9;
                std::vector<std::int32_t> x0(count), x1(count), r(count), g(count), b(count);
                std::vector<float> alpha(count), beta(count);
                for (std::size_t i = 0; i < count; ++i) {
                    x0[i] = int(rng() % unsigned(w + 4)) - 2;
                    x1[i] = rng() % 5 == 0 ? -1 : x0[i] + int(rng() % unsigned(w));
                    r[i] = int(rng() % 256), g[i] = int(rng() % 256), b[i] = int(rng() % 256);
                    alpha[i] = std::uniform_real_distribution<float>(0, 1)(rng);
                    beta[i] = rng() % 3 == 0 ? 1 - alpha[i] : std::uniform_real_distribution<float>(0, 1.2f)(rng);
                }
                const cpu::FlareDiscs discs{x0.data(), x1.data(), r.data(), g.data(), b.data(), alpha.data(),
                                            beta.data(), count, rng() % (count + 1)};
                std::vector<std::uint8_t> row(std::size_t(w) * cn);
                for (auto& v : row) v = static_cast<std::uint8_t>(rng());
                const int lo = int(rng() % unsigned(w)), hi = lo + int(rng() % unsigned(w - lo));
                std::vector<std::uint8_t> want = row, got = row;
                cpu::flareOverlayRowScalar(want.data(), cn, lo, hi, discs);
                cpu::flareOverlayRow(got.data(), cn, lo, hi, discs);
                QVERIFY2(got == want, qPrintable(QString("%1: trial %2 (%3 px, %4 discs)").arg(target).arg(trial).arg(w).arg(count)));
            }
        });
        QVERIFY2(!targets.isEmpty(), "no SIMD target ran");
    }

    /// PixelDropoutStep's drop flags (core/cpu/noise_rows.h pixelDrops) on every SIMD target against
    /// pixelDropRow, the definition: rows starting anywhere (inside a block of four or not), every
    /// length up to 200 (vector tails), probabilities 0, 1 and between, per channel and not.
    void pixelDropsAreTheirDefinition() {
        std::mt19937 rng(41);
        QStringList targets;
        cpu::forEachSimdTarget([&](const char* target) {
            targets << target;
            for (int trial = 0; trial < 400; ++trial) {
                PixelDropoutStep s;
                s.seed = (std::uint64_t(rng()) << 32) | rng();
                s.perChannel = trial % 2 == 1;
                s.threshold = trial % 7 == 0 ? 0 : trial % 7 == 1 ? (std::uint64_t{1} << 32) : rng();
                const int x0 = int(rng() % 3000), y = int(rng() % 3000);
                const std::size_t n = rng() % 201;
                std::vector<std::uint8_t> want(3 * n + 1, 9), got(3 * n + 1, 9);
                pixelDropRow(s, y, x0, int(n), want.data());
                cpu::pixelDrops(s.seed, s.threshold, s.perChannel, x0, y, n, got.data());
                QVERIFY2(got == want, qPrintable(QString("%1: trial %2 (%3 px at %4, %5)").arg(target).arg(trial).arg(n).arg(x0).arg(y)));
            }
        });
        QVERIFY2(!targets.isEmpty(), "no SIMD target ran");
    }

    /// The pixel keys (salt_and_pepper's) on every SIMD target: pixelKeyRow's words for rows at random
    /// places and lengths (heads before a block of four, tails after the last whole vector), nothing
    /// written past the row; and the word pixel dropout compares (its flag is key < threshold).
    void pixelKeysAreTheirDefinition() {
        std::mt19937 rng(43);
        QStringList targets;
        cpu::forEachSimdTarget([&](const char* target) {
            targets << target;
            for (int trial = 0; trial < 400; ++trial) {
                const std::uint64_t seed = (std::uint64_t(rng()) << 32) | rng();
                const int x0 = int(rng() % 3000), y = int(rng() % 3000);
                const std::size_t n = rng() % 201;
                std::vector<std::uint32_t> want(n + 1, 7), got(n + 1, 7);
                pixelKeyRow(seed, y, x0, int(n), want.data());
                cpu::pixelKeys(seed, x0, y, n, got.data());
                QVERIFY2(got == want, qPrintable(QString("%1: trial %2 (%3 px at %4, %5)").arg(target).arg(trial).arg(n).arg(x0).arg(y)));
                PixelDropoutStep s;
                s.seed = seed;
                s.threshold = rng();
                std::vector<std::uint8_t> drop(3 * n + 1);
                pixelDropRow(s, y, x0, int(n), drop.data());
                for (std::size_t i = 0; i < n; ++i) QCOMPARE(drop[3 * i], std::uint8_t(want[i] < s.threshold));
            }
        });
        QVERIFY2(!targets.isEmpty(), "no SIMD target ran");
    }

    /// Gaussian noise (core/cpu/noise_rows.h) on every SIMD target: the scalar definition's bytes
    /// for rows of random pixels at random places, seeds, means and spreads (clipping both ways),
    /// per channel and shared, 3 and 4 channels (alpha kept).
    void gaussNoiseIsItsDefinition() {
        std::mt19937 rng(31);
        QStringList targets;
        cpu::forEachSimdTarget([&](const char* target) {
            targets << target;
            for (int trial = 0; trial < 300; ++trial) {
                const int cn = trial % 2 ? 4 : 3, x0 = int(rng() % 5000) - 100, y = int(rng() % 5000);
                const std::size_t n = rng() % 70;
                const std::uint64_t seed = (std::uint64_t(rng()) << 32) | rng();
                const float mean = std::uniform_real_distribution<float>(-80, 80)(rng);
                const float spread = trial % 7 == 0 ? 0.0f : std::uniform_real_distribution<float>(0, 300)(rng);
                const bool perChannel = trial % 3 != 0;
                std::vector<std::uint8_t> want(n * std::size_t(cn));
                for (auto& v : want) v = std::uint8_t(rng());
                std::vector<std::uint8_t> got = want;
                cpu::gaussNoisePixelsScalar(want.data(), x0, y, n, cn, seed, mean, spread, perChannel);
                cpu::gaussNoisePixels(got.data(), x0, y, n, cn, seed, mean, spread, perChannel);
                QVERIFY2(got == want, qPrintable(QString("%1: trial %2 (%3 px at %4, %5)").arg(target).arg(trial).arg(n).arg(x0).arg(y)));
            }
        });
        QVERIFY2(!targets.isEmpty(), "no SIMD target ran");
    }

    /// labPlanes (CLAHE's Lab) against Lab8::fromRgb on every colour, 3 and 4 channels, on every
    /// SIMD target.
    void labPlanesAreLab8() {
        const Lab8& lab = Lab8::tables();
        QStringList targets;
        cpu::forEachSimdTarget([&](const char* target) {
            targets << target;
            for (const int cn : {3, 4}) {
                constexpr std::size_t n = 1 << 16;  // one red value's G x B square a row
                std::vector<std::uint8_t> px(n * std::size_t(cn)), L(n), a(n), b(n);
                for (int r = 0; r < 256; r += cn == 3 ? 1 : 5) {
                    for (std::size_t i = 0; i < n; ++i) {
                        px[i * std::size_t(cn)] = std::uint8_t(r);
                        px[i * std::size_t(cn) + 1] = std::uint8_t(i >> 8);
                        px[i * std::size_t(cn) + 2] = std::uint8_t(i);
                        if (cn == 4) px[i * 4 + 3] = std::uint8_t(i * 7);
                    }
                    // An odd count leaves a tail for the scalar path.
                    cpu::labPlanes(px.data(), n - 3, cn, L.data(), a.data(), b.data());
                    for (std::size_t i = 0; i < n - 3; ++i) {
                        int wl, wa, wb;
                        lab.fromRgb(r, int(i >> 8), int(i & 255), wl, wa, wb);
                        if (L[i] != wl || a[i] != wa || b[i] != wb)
                            QFAIL(qPrintable(QString("%1, %2 channels: RGB (%3, %4, %5) gave Lab (%6, %7, %8), not (%9, %10, %11)")
                                                 .arg(target).arg(cn).arg(r).arg(i >> 8).arg(i & 255).arg(L[i]).arg(a[i])
                                                 .arg(b[i]).arg(wl).arg(wa).arg(wb)));
                    }
                }
            }
        });
        QVERIFY2(!targets.isEmpty(), "no SIMD target ran");
    }

    /// ISONoise's tabled thresholds give shared::isoNoiseCount's counts (the inversion summed per
    /// pixel), for rates from none to far above the op's range, at every threshold, a word either
    /// side of it, and random words.
    void isoNoiseThresholdsAreTheCount() {
        std::mt19937 rng(43);
        for (const double lambda : {0.0, 1e-9, 1e-4, 0.02, 0.3, 1.0, 2.5, 5.0, 40.0}) {
            const double p0 = std::exp(-lambda);
            const std::vector<std::uint32_t> t = cpu::isoNoiseThresholds(lambda, p0);
            std::vector<std::uint32_t> words = {0u, 1u, 0xFFFFFFFFu, 0xFFFFFFFEu};
            for (const std::uint32_t v : t)
                for (const std::uint32_t w : {v - 1, v, v + 1}) words.push_back(w);
            for (int i = 0; i < 20000; ++i) words.push_back(rng());
            for (const std::uint32_t w : words) {
                int count = 0;
                while (std::size_t(count) < t.size() && w >= t[std::size_t(count)]) ++count;
                QVERIFY2(count == shared::isoNoiseCount(w, lambda, p0),
                         qPrintable(QString("lambda %1, word %2: %3 by the table, %4 summed")
                                        .arg(lambda).arg(w).arg(count).arg(shared::isoNoiseCount(w, lambda, p0))));
            }
            if (lambda == 0) QVERIFY(t.empty());
        }
    }

    /// isoNoisePixels against its scalar definition on every SIMD target that runs it vectorised:
    /// every colour (each red step a row), then rows of random pixels at random places, rates, hue
    /// spreads and intensities, 3 and 4 channels (alpha kept).
    void isoNoiseIsItsDefinition() {
        std::mt19937 rng(47);
        QStringList targets;
        cpu::forEachSimdTarget([&](const char* target) {
            targets << target;
            const std::vector<std::uint32_t> some = cpu::isoNoiseThresholds(0.3, std::exp(-0.3));
            cpu::IsoNoiseRows rows{12345, some.data(), some.size(), 0.7f, 0.8f};
            constexpr std::size_t n = 1 << 16;
            std::vector<std::uint8_t> want(n * 3);
            for (int r = 0; r < 256; r += 3) {
                for (std::size_t i = 0; i < n; ++i) {
                    want[3 * i] = std::uint8_t(r);
                    want[3 * i + 1] = std::uint8_t(i >> 8);
                    want[3 * i + 2] = std::uint8_t(i);
                }
                std::vector<std::uint8_t> got = want;
                cpu::isoNoisePixelsScalar(want.data(), 0, r, n, 3, rows);
                cpu::isoNoisePixels(got.data(), 0, r, n, 3, rows);
                QVERIFY2(got == want, qPrintable(QString("%1: the colours of red %2").arg(target).arg(r)));
            }
            for (int trial = 0; trial < 300; ++trial) {
                const int cn = trial % 2 ? 4 : 3, x0 = int(rng() % 5000), y = int(rng() % 5000);
                const std::size_t count = rng() % 70;
                const double lambda = std::uniform_real_distribution<double>(0, 3)(rng);
                const std::vector<std::uint32_t> t = cpu::isoNoiseThresholds(lambda, std::exp(-lambda));
                const cpu::IsoNoiseRows trialRows{(std::uint64_t(rng()) << 32) | rng(), t.data(), t.size(),
                                                  std::uniform_real_distribution<float>(0, 30)(rng),
                                                  std::uniform_real_distribution<float>(0, 5)(rng)};
                std::vector<std::uint8_t> expect(count * std::size_t(cn));
                for (auto& v : expect) v = std::uint8_t(rng());
                std::vector<std::uint8_t> got = expect;
                cpu::isoNoisePixelsScalar(expect.data(), x0, y, count, cn, trialRows);
                cpu::isoNoisePixels(got.data(), x0, y, count, cn, trialRows);
                QVERIFY2(got == expect, qPrintable(QString("%1: trial %2 (%3 px at %4, %5)").arg(target).arg(trial).arg(count).arg(x0).arg(y)));
            }
        });
        QVERIFY2(!targets.isEmpty(), "no SIMD target ran");
    }

    /// The noise's normals (philox.h boxMuller: polynomial log, sin and cos in float32) against
    /// Box-Muller in float64 with the C library's log, cos and sin, over every exponent of u1 and
    /// angles all round the turn: within a few float32 ulps of the radius.
    void normalsAreBoxMuller() {
        std::mt19937 rng(37);
        double worst = 0;
        for (int i = 0; i < 2000000; ++i) {
            std::uint32_t w0 = rng(), w1 = rng();
            if (i < 4096) w0 = std::uint32_t(i) << 8;  // u1 from 2^-24 up, exactly
            if (i % 1000 == 1) w0 = 0xFFFFFFFFu;         // u1 = 1: radius 0
            float n0, n1;
            boxMuller(w0, w1, n0, n1);
            const double u1 = ((w0 >> 8) + 1.0) / 16777216.0, t = 6.283185307179586 * (w1 >> 8) / 16777216.0;
            const double r = std::sqrt(-2.0 * std::log(u1));
            const double err = std::max(std::abs(n0 - r * std::cos(t)), std::abs(n1 - r * std::sin(t)));
            worst = std::max(worst, err / std::max(r, 1.0));
            if (w0 == 0xFFFFFFFFu) QVERIFY(n0 == 0.0f && n1 == 0.0f);
        }
        qInfo("largest error of a normal: %.3g of max(radius, 1)", worst);
        QVERIFY2(worst < 1e-6, qPrintable(QString("error %1").arg(worst)));  // float32's ulp of 1 is 1.2e-7
    }
};

QTEST_APPLESS_MAIN(TestCpuKernels)
#include "test_cpu_kernels.moc"
