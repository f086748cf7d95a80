// The GL backend against the CPU reference, under Xvfb (Mesa llvmpipe in CI): every op, both
// interpolations, every border, sizes that hit edges, RGB and RGBA, a whole grid; and the fallback:
// a GL backend whose shader does not compile leaves the work to the CPU, with a message.

#include <QGuiApplication>
#include <QtTest>

#include "backend_registry.h"
#include "contact_sheet.h"
#include "cpu_backend.h"
#include "error.h"
#include "fallback_backend.h"
#include "gl_backend.h"
#include "test_support.h"

using namespace auglab;
using namespace auglab::testing;

namespace {

OpConfig op(const char* name) {
    return OpConfig::withDefaults(name);
}

// How closely GL must follow the CPU for a pipeline: bit for bit where the arithmetic is the same
// integers (warp, LUTs, gray, cutout); SPEC §2's linear bounds where float maths runs on the GPU
// (HSV's conversion back to RGB, blur sums, the noise's log/sin/cos).
enum class Expect { Exact, Bounded };

}  // namespace

class TestGl : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void opsMatchCpu_data();
    void opsMatchCpu();
    void bordersAndInterpolations_data();
    void bordersAndInterpolations();
    void gridMatchesCpu();
    void mixMatchesCpu();
    void brokenShaderNamesFileAndLine();
    void brokenShaderFallsBackToCpu();

private:
    GlProbe probe_;
};

void TestGl::initTestCase() {
    probe_ = probeGl();
    if (!probe_.available)
        QSKIP(qPrintable("no OpenGL 3.3 context here: " + QString::fromStdString(probe_.detail)));
    qInfo("GL renderer: %s", probe_.detail.c_str());
}

void TestGl::opsMatchCpu_data() {
    QTest::addColumn<QString>("opName");
    QTest::addColumn<int>("expect");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("channels");
    const QList<std::tuple<const char*, Expect>> ops{{"affine", Expect::Exact},
                                                     {"horizontal_flip", Expect::Exact},
                                                     {"vertical_flip", Expect::Exact},
                                                     {"coarse_dropout", Expect::Exact},
                                                     {"dropout_random", Expect::Exact},
                                                     {"dropout_uniform", Expect::Exact},
                                                     {"grid_dropout", Expect::Exact},
                                                     {"grid_random_uniform", Expect::Exact},
                                                     {"random_resized_crop", Expect::Exact},
                                                     {"resize", Expect::Exact},
                                                     {"resize_nearest", Expect::Exact},
                                                     {"longest_max_size", Expect::Exact},
                                                     {"random_rotate90", Expect::Exact},
                                                     {"transpose", Expect::Exact},
                                                     {"d4", Expect::Exact},
                                                     {"pad_if_needed", Expect::Exact},
                                                     {"random_crop", Expect::Exact},
                                                     {"crop", Expect::Exact},
                                                     {"random_sized_crop", Expect::Exact},
                                                     {"random_scale", Expect::Exact},
                                                     {"channel_dropout", Expect::Exact},
                                                     {"random_tone_curve", Expect::Exact},
                                                     {"frames_after_pixel_ops", Expect::Bounded},
                                                     {"deotte_affine", Expect::Exact},
                                                     {"perspective", Expect::Exact},
                                                     {"brightness_contrast", Expect::Exact},
                                                     {"brightness_mean", Expect::Exact},
                                                     {"to_gray", Expect::Exact},
                                                     {"rgb_shift", Expect::Exact},
                                                     {"hue_saturation_value", Expect::Bounded},
                                                     {"color_jitter", Expect::Bounded},
                                                     {"equalize", Expect::Exact},
                                                     {"iso_noise", Expect::Exact},
                                                     {"clahe", Expect::Exact},
                                                     {"fancy_pca", Expect::Exact},
                                                     {"random_fog", Expect::Bounded},
                                                     {"random_shadow", Expect::Exact},
                                                     {"random_rain", Expect::Exact},
                                                     {"random_sun_flare", Expect::Exact},
                                                     {"equalize_luma_pil", Expect::Exact},
                                                     {"color_jitter_contrast", Expect::Exact},
                                                     {"gaussian_blur", Expect::Bounded},
                                                     {"box_blur", Expect::Bounded},
                                                     {"median_blur", Expect::Exact},
                                                     {"motion_blur", Expect::Bounded},
                                                     {"defocus", Expect::Bounded},
                                                     {"ringing_overshoot", Expect::Bounded},
                                                     {"advanced_blur", Expect::Bounded},
                                                     {"sharpen", Expect::Bounded},
                                                     {"emboss", Expect::Bounded},
                                                     {"gauss_noise", Expect::Bounded},
                                                     {"salt_and_pepper", Expect::Exact},
                                                     {"planckian_jitter", Expect::Exact},
                                                     {"image_compression", Expect::Exact},
                                                     {"image_compression_webp", Expect::Exact},
                                                     {"to_sepia", Expect::Exact},
                                                     {"channel_shuffle", Expect::Exact},
                                                     {"multiplicative_noise", Expect::Exact},
                                                     {"xy_masking", Expect::Exact},
                                                     {"pixel_dropout", Expect::Exact},
                                                     {"safe_rotate", Expect::Exact},
                                                     {"grid_distortion", Expect::Exact},
                                                     {"optical_distortion", Expect::Exact},
                                                     {"elastic_transform", Expect::Exact},
                                                     {"random_grid_shuffle", Expect::Exact},
                                                     {"downscale", Expect::Exact},
                                                     {"downscale_linear", Expect::Exact}};
    const QList<QSize> sizes{{1, 1}, {7, 5}, {64, 37}, {301, 207}, {4097, 3}};
    for (const auto& [name, expect] : ops)
        for (const QSize& s : sizes)
            for (int c : {3, 4}) {
                if (c == 4 && s.width() != 64) continue;  // RGBA once per op
                const QByteArray row = QByteArray(name) + " " + QByteArray::number(s.width()) + "x" +
                                       QByteArray::number(s.height()) + (c == 4 ? " rgba" : "");
                QTest::newRow(row.constData())
                    << QString(name) << int(expect) << s.width() << s.height() << c;
            }
}

void TestGl::opsMatchCpu() {
    QFETCH(QString, opName);
    QFETCH(int, expect);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, channels);
    OpConfig c = op(opName.startsWith("dropout_")                               ? "coarse_dropout"
                    : opName.startsWith("grid_") && opName != "grid_distortion" ? "grid_dropout"
                    : opName == "brightness_mean"                               ? "brightness_contrast"
                    : opName.startsWith("resize")                               ? "resize"
                    : opName.startsWith("image_compression")                    ? "image_compression"
                    : opName.startsWith("downscale")                            ? "downscale"
                    : opName.startsWith("color_jitter")                         ? "color_jitter"
                    : opName.startsWith("equalize")                             ? "equalize"
                    : opName == "frames_after_pixel_ops"                        ? "sharpen"
                                                                                : qPrintable(opName));
    if (opName == "dropout_random") c.set("fill", Fill{Fill::Mode::Random, {}});
    if (opName == "dropout_uniform") c.set("fill", Fill{Fill::Mode::RandomUniform, {}});
    if (opName.startsWith("dropout") || opName == "coarse_dropout") c.set("holes", Range{3, 12});
    if (opName == "grid_random_uniform") {
        c.set("fill", Fill{Fill::Mode::RandomUniform, {}});
        // The largest unit stays below the shorter side (Albumentations refuses more); the 1x1 and
        // 7x5 images, too small for a unit range, keep the default unit.
        if (std::min(width, height) > 3)
            c.set("unit_size_px", Range{2, double(std::min(30, std::min(width, height) - 1))});
    }
    if (opName == "brightness_mean") c.set("brightness_by_max", false);
    if (opName == "equalize_luma_pil") {
        c.set("mode", std::string("pil"));
        c.set("by_channels", false);
    }
    if (opName == "color_jitter") {  // factors up to 1: a level the shaders may round otherwise stays one
        c.set("brightness", Range{0.5, 1});
        c.set("contrast", Range{0.3, 1});
        c.set("saturation", Range{0, 1});
    }
    if (opName == "color_jitter_contrast") {  // the gray mean's table alone: exact
        c.set("contrast", Range{0, 2});
        c.set("brightness", Range{0.5, 2});
        c.set("saturation", Range{1, 1});
        c.set("hue", Range{0, 0});
    }
    if (opName == "affine") c.set("rotate_deg", Range{-40, 40});
    if (opName == "random_resized_crop") c.set("size", Size2{std::max(1, height * 2 / 3), width + 5});
    if (opName.startsWith("resize")) c.set("size", Size2{std::max(1, height * 2 / 3), width + 5});
    if (opName == "resize_nearest") c.set("interpolation", std::string("nearest"));
    if (opName == "longest_max_size") c.set("max_size", Range{20, 90});
    if (opName == "pad_if_needed") {  // reflect_101, more than the image's size on small ones
        c.set("min_size", Size2{height * 2 + 3, width + 9});
        c.set("position", std::string("random"));
    }
    if (opName == "random_crop") {  // a window partly past the image: padded with wrap
        c.set("size", Size2{height + 4, std::max(1, width / 2)});
        c.set("pad_if_needed", true);
        c.set("border", std::string("wrap"));
    }
    if (opName == "crop") {  // a window past the image's end: padded (reflect, placed at random)
        c.set("top_left", Size2{height / 3, width / 4});
        c.set("bottom_right", Size2{height + 3, width / 4 + 1 + width / 2});
        c.set("pad_if_needed", true);
        c.set("pad_position", std::string("random"));
        c.set("border", std::string("reflect"));
    }
    if (opName == "random_sized_crop") {
        c.set("min_max_height", Range{1, double(height + 2)});
        c.set("w2h_ratio", 1.7);
        c.set("size", Size2{std::max(1, height / 2), width + 3});
    }
    if (opName == "random_scale")  // a 1x1 image scaled below 1 would have no pixels (an error)
        c.set("scale_limit", std::min(width, height) < 2 ? Range{0, 0.6} : Range{-0.4, 0.6});
    if (opName == "random_tone_curve") c.set("per_channel", true);
    if (opName == "safe_rotate") c.set("limit", Range{-170, 170});
    if (opName == "grid_distortion") {  // cells wider than the image on one side, reflected borders
        c.set("num_steps", Range{1, 9});
        c.set("distort_limit", Range{-0.9, 0.9});
        c.set("normalized", false);
        c.set("border", std::string("reflect_101"));
    }
    if (opName == "optical_distortion") c.set("distort_limit", Range{-2, 2});
    if (opName.startsWith("downscale")) c.set("scale_range", Range{0.05, 0.9});
    if (opName == "downscale_linear") {
        c.set("down_interpolation", std::string("linear"));
        c.set("up_interpolation", std::string("linear"));
    }
    if (opName == "random_grid_shuffle") c.set("grid", Size2{5, 7});  // more cells than a 1x1 image has
    if (opName == "elastic_transform") {  // large displacements, a uniform field
        c.set("alpha", 80.0);
        c.set("sigma", 3.0);
        c.set("noise_distribution", std::string("uniform"));
    }
    if (opName == "xy_masking") {  // stripes up to the whole side, random colours
        c.set("num_masks_x", Range{1, 3});
        c.set("num_masks_y", Range{0, 2});
        c.set("mask_x_length", Range{0, double(width)});
        c.set("mask_y_length", Range{1, double(height)});
        c.set("fill", Fill{Fill::Mode::RandomUniform, {}});
    }
    if (opName == "multiplicative_noise") {  // products past 255 and below 1
        c.set("multiplier", Range{0.3, 1.9});
        c.set("per_channel", true);
    }
    if (opName.startsWith("image_compression")) {  // read back, compressed on the host, uploaded
        c.set("quality_range", Range{5, 60});
        if (opName.endsWith("webp")) c.set("compression_type", std::string("webp"));
    }
    if (opName == "channel_dropout") {
        c.set("channel_drop_range", Range{1, 2});
        c.set("fill", 200.5);
    }
    if (opName == "deotte_affine") height = width;  // square images only
    std::vector<OpConfig> pipeline{c};
    if (opName == "frames_after_pixel_ops") {
        // Stages of other sizes: a resize, quarter turns and a transpose between pixel ops.
        OpConfig resize = op("resize"), blur = op("box_blur");
        resize.set("size", Size2{std::max(1, height / 2), std::max(1, width * 3 / 2)});
        blur.set("kernel_size", Range{3, 3});
        pipeline = {blur, resize, c, op("random_rotate90"), op("transpose"), blur};
    }
    SourceLevels source(photoCrop("chelsea.png", width, height, channels));
    CpuBackend cpu(1);
    auto gl = createGlBackend();
    for (std::uint64_t i = 0; i < 3; ++i) {
        const Image a = renderSample(pipeline, source, 17, i, cpu);
        const Image b = renderSample(pipeline, source, 17, i, *gl);
        const Diff d = compare(b, a);
        const QByteArray where = "sample " + QByteArray::number(qulonglong(i)) + ": " + d.describe();
        if (Expect(expect) == Expect::Exact) {
            QVERIFY2(d.maxAbs == 0, where.constData());
        } else {
            // What the shaders promise (and the CUDA test demands): float maths without fma and
            // the GPU's log/sin/cos may round a rare value differently, by one level; never more.
            QVERIFY2(d.maxAbs <= 1 && double(d.pixelsDiffering) <= std::max(1.0, 5e-3 * double(d.pixels)),
                     where.constData());
        }
    }
}

void TestGl::mixMatchesCpu() {
    // mixup and cutmix with partners from the other images of a dataset (other sizes, RGB and
    // RGBA): the partner is a second texture of the output's size; integer maths, exact.
    SourceLevels a(photoCrop("chelsea.png", 120, 90, 3)), b(photoCrop("coffee.png", 77, 101, 4)),
        c(photoCrop("astronaut.png", 64, 64, 3));
    OpConfig affine = op("affine");
    affine.set("rotate_deg", Range{-30, 30});
    OpConfig mixup = op("mixup"), cutmix = op("cutmix");
    mixup.p = cutmix.p = 0.7;
    const std::vector<OpConfig> p{affine, mixup, op("brightness_contrast"), cutmix};
    SheetOptions o;
    o.rows = 2;
    o.cols = 3;
    o.tile = 80;
    o.mode = SheetMode::Dataset;
    CpuBackend cpu(1);
    auto gl = createGlBackend();
    const Diff d =
        compare(renderSheet(p, {&a, &b, &c}, o, *gl).image, renderSheet(p, {&a, &b, &c}, o, cpu).image);
    QVERIFY2(d.maxAbs == 0, d.describe().constData());
    const Partners partners{PartnerPool{3, 0}, [&](std::uint64_t i, int, int) {
                                return std::shared_ptr<SourceLevels>(i == 1 ? &b : &c, [](SourceLevels*) {});
                            }};
    for (std::uint64_t i = 0; i < 4; ++i) {
        const Diff f = compare(renderSample(p, a, 5, i, *gl, nullptr, partners),
                               renderSample(p, a, 5, i, cpu, nullptr, partners));
        QVERIFY2(f.maxAbs == 0, f.describe().constData());
    }
}

void TestGl::bordersAndInterpolations_data() {
    QTest::addColumn<QString>("border");
    QTest::addColumn<QString>("interpolation");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    for (const std::string& b : kBorderChoices)
        for (const std::string& i : kInterpolationChoices)
            for (const QSize& s : {QSize(1, 1), QSize(7, 5), QSize(123, 77)}) {
                const QByteArray row = QByteArray::fromStdString(b + " " + i + " ") +
                                       QByteArray::number(s.width()) + "x" + QByteArray::number(s.height());
                QTest::newRow(row.constData())
                    << QString::fromStdString(b) << QString::fromStdString(i) << s.width() << s.height();
            }
}

void TestGl::bordersAndInterpolations() {
    QFETCH(QString, border);
    QFETCH(QString, interpolation);
    QFETCH(int, width);
    QFETCH(int, height);
    OpConfig a = op("affine");
    a.set("rotate_deg", Range{-180, 180});
    a.set("keep_ratio", false);
    a.set("scale_x", Range{0.4, 1.6});
    a.set("scale_y", Range{0.4, 1.6});
    a.set("shear_x_deg", Range{-20, 20});
    a.set("translate_x_frac", Range{-0.5, 0.5});
    a.set("border", border.toStdString());
    a.set("interpolation", interpolation.toStdString());
    a.set("fill", Fill{Fill::Mode::Constant, {250, 20, 90}});
    SourceLevels source(photoCrop("coffee.png", width, height, 3));
    CpuBackend cpu(1);
    auto gl = createGlBackend();
    for (std::uint64_t i = 0; i < 4; ++i) {
        const Diff d = compare(renderSample({a}, source, 3, i, *gl), renderSample({a}, source, 3, i, cpu));
        // The same fixed-point integers on both sides: identical.
        QVERIFY2(d.maxAbs == 0, d.describe().constData());
    }
}

void TestGl::gridMatchesCpu() {
    SourceLevels source(loadImage(samplePath("astronaut.png")).image);
    SheetOptions o;
    o.rows = o.cols = 4;
    o.tile = 96;
    o.seed = 5;
    std::vector<OpConfig> p{op("affine"), op("horizontal_flip"), op("coarse_dropout"),
                            op("brightness_contrast")};
    p[0].set("border", std::string("reflect_101"));
    CpuBackend cpu(2);
    auto gl = createGlBackend();
    const Diff d = compare(renderSheet(p, {&source}, o, *gl).image, renderSheet(p, {&source}, o, cpu).image);
    QVERIFY2(d.maxAbs == 0, d.describe().constData());
}

void TestGl::brokenShaderNamesFileAndLine() {
    GlBackendOptions broken;
    broken.shaderOverrides["gl_lut.frag"] = "#version 330 core\nvoid main() {\n  this is not GLSL;\n}\n";
    try {
        createGlBackend(broken);
        QFAIL("a shader that does not compile was accepted");
    } catch (const RuntimeError& e) {
        const QString msg = e.what();
        QVERIFY2(msg.contains("shaders/gl_lut.frag") && msg.contains("3"), qPrintable(msg));
    }
}

void TestGl::brokenShaderFallsBackToCpu() {
    GlBackendOptions broken;
    broken.shaderOverrides["gl_warp.frag"] = "#version 330 core\nnot a shader\n";
    FallbackBackend chain({{"gl", [broken] { return createGlBackend(broken); }},
                           {"cpu", [] { return std::make_unique<CpuBackend>(1); }}});
    SourceLevels source(loadImage(samplePath("rocket.jpg")).image);
    SheetOptions o;
    o.rows = o.cols = 3;
    o.tile = 64;
    const std::vector<OpConfig> p{op("affine"), op("brightness_contrast")};
    const Sheet sheet = renderSheet(p, {&source}, o, chain);
    CpuBackend cpu(1);
    QVERIFY(samePixels(sheet.image, renderSheet(p, {&source}, o, cpu).image));  // the grid is still there
    QCOMPARE(QString::fromStdString(chain.name()), QString("cpu"));
    QCOMPARE(chain.messages().size(), std::size_t(1));
    QVERIFY2(QString::fromStdString(chain.messages()[0]).contains("gl_warp.frag"),
             chain.messages()[0].c_str());
}

int main(int argc, char** argv) {
    // Without a display Qt's default platform aborts before any test runs: the offscreen platform
    // starts, and initTestCase skips with the reason (no OpenGL context without a display).
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
        qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    TestGl t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_gl.moc"
