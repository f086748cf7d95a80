#pragma once
// What tests/test_cuda.cpp compares: the engines of this run (host emulation, device) and how to
// reach them, the rendering helper and the equality it demands, and the plans, pipelines and images
// the comparisons are made with.

#include <algorithm>
#include <memory>
#include <vector>

#include <QtTest>

#include "contact_sheet.h"
#include "cpu_backend.h"
#include "cuda_backend.h"
#include "cuda_emulation.h"
#include "geometry.h"
#include "ops/distortion.h"
#include "plan_builder.h"
#include "sampler.h"
#include "test_support.h"

namespace auglab::testing {

enum Engine { kHostEmulation = 0, kDevice = 1 };

/// The backend under test, or null with the reason it is not here (the test then skips with it).
inline std::unique_ptr<Backend> makeEngine(int engine, QByteArray& whyNot) {
#if defined(AUGLAB_HAVE_CUDA)
    if (engine == kHostEmulation) return std::make_unique<HostEmulatedCudaBackend>();
#endif
    const BackendInfo info = cudaBackendInfo();
    if (engine == kDevice && info.available) return createCudaBackend();
    whyNot = QByteArray::fromStdString(info.detail);
    return nullptr;
}

/// The device rows run as a ctest test of their own (test_cuda.device: AUGLAB_TEST_CUDA_ROWS=device,
/// the device functions named), which ctest reports as skipped, with the reason, when there is no
/// device; test_cuda runs everything else.
inline bool deviceRowsOnly() {
    static const bool device = qEnvironmentVariable("AUGLAB_TEST_CUDA_ROWS") == "device";
    return device;
}

/// Rows for each engine of this run: "host emulation: ..." in test_cuda (a CUDA build), "device:
/// ..." in test_cuda.device. A build without CUDA has no host emulation: its device rows stay in
/// test_cuda and say why they cannot run.
inline QList<int> enginesOfThisBuild() {
    if (deviceRowsOnly()) return {kDevice};
#if defined(AUGLAB_HAVE_CUDA)
    return {kHostEmulation};
#else
    return {kDevice};
#endif
}

/// In test_cuda of a CUDA build, a function that only a device can run says where it runs.
#if defined(AUGLAB_HAVE_CUDA)
#define DEVICE_FUNCTION_ONLY() \
    if (!deviceRowsOnly()) QSKIP("runs on a device, in test_cuda.device")
#else
#define DEVICE_FUNCTION_ONLY()
#endif
inline QByteArray engineName(int engine) {
    return engine == kHostEmulation ? "host emulation: " : "device: ";
}

inline Image render(Backend& backend, SourceLevels& source, const Plan& plan) {
    Image out;
    RenderJob job{&source, plan, &out};
    backend.render(std::span<RenderJob>(&job, 1));
    return out;
}

inline WarpStep warpStep(const Matrix3& forward, int inW, int inH, int outW, int outH, Interpolation interp,
                         BorderMode border, Rgb fill) {
    return warpStepOf(forward, inW, inH, outW, outH, interp, border, fill);
}

/// Equal to the CPU: bit for bit, or (noise on the device) within one level on a few pixels. A noise
/// value one level apart is rare (ISONoise's exp(-lambda) in libdevice), but a blur after the noise
/// spreads it over the kernel's footprint (up to 21 x 21 pixels in these tests, sigma 3): at most
/// 0.5% of the pixels, and never fewer than one footprint, may differ, by one level.
inline bool matchesCpu(const Diff& d, bool allowNoiseRounding) {
    if (!allowNoiseRounding) return d.maxAbs == 0;
    return d.maxAbs <= 1 && double(d.pixelsDiffering) <= std::max(21.0 * 21.0, 5e-3 * double(d.pixels));
}

inline const QList<BorderMode> kBorders{BorderMode::Constant, BorderMode::Replicate, BorderMode::Reflect,
                                        BorderMode::Reflect101, BorderMode::Wrap};

inline std::vector<float> blurKernel(double sigma) {
    const std::vector<double> k = gaussianKernel(sigma);
    return std::vector<float>(k.begin(), k.end());
}

inline DropoutStep dropout(Fill::Mode mode, int w, int h) {
    DropoutStep d;
    // Overlapping holes, one partly outside the image and one of zero width.
    d.holes = {{-3, -2, 10, 8}, {w / 2, h / 3, w, h / 2}, {1, 1, 2, 2}, {w / 3, 0, 0, h}};
    d.mode = mode;
    d.fill = {255, 0, 128};
    d.colours = {{10, 20, 30}, {200, 100, 0}, {0, 255, 255}, {1, 2, 3}};
    d.seed = 0x1234567890abcdefull;
    return d;
}

/// A plan exercising `op` after a mild rotation (so the ops run fused with a real warp).
inline Plan pixelPlan(const QByteArray& op, int w, int h) {
    Plan plan;
    plan.width = w;
    plan.height = h;
    AffineParams a;
    a.rotate_deg = 7;
    a.scale_x = a.scale_y = 1.05;
    PlanStage stage;
    stage.width = w;
    stage.height = h;
    stage.warp =
        warpStep(affineMatrix(a, w, h), w, h, w, h, Interpolation::Linear, BorderMode::Reflect101, {});
    const HsvLuts hsv = hsvLuts(HsvParams{33, -17.5, 12.3});
    const NoiseStep noise{3.0f, 20.0f, true, 987654321ull};
    if (op == "lut") stage.ops = {LutStep{brightnessContrastLut(1.2f, 20.0f)}};
    if (op == "channel_lut")  // a table per channel (rgb_shift, channel dropout)
        stage.ops = {
            LutStep(std::array<Lut, 3>{brightnessContrastLut(1.2f, 20.0f), brightnessContrastLut(0.7f, -9.0f),
                                       brightnessContrastLut(1.0f, 33.0f)})};
    if (op == "mean_brightness") stage.ops = {MeanBrightnessStep{0.9f, 0.15}};
    if (op == "gray_mean")  // color_jitter's contrast: the mean of the gray, then rounded (contrast 0)
        stage.ops = {MeanBrightnessStep{1.7f, 1.0 - 1.7, true, false},
                     MeanBrightnessStep{0.0f, 1.0, true, true}};
    if (op == "iso_noise")  // a host step of its own kind between device ops
        stage.ops = {LutStep{brightnessContrastLut(0.9f, 10.0f)}, IsoNoiseStep{0.3, 1.5, 4242}, HsvStep{hsv}};
    if (op == "clahe")  // a host step after device ops, then another kind of host step
        stage.ops = {LutStep{brightnessContrastLut(0.8f, 12.0f)}, ClaheStep{2.5, 3, 5},
                     IsoNoiseStep{0.1, 0.4, 77}, ClaheStep{40, 1, 1}};
    if (op ==
        "fog")  // particles (a host step; some past the edges, overlapping), then their blur on the device
        stage.ops = {FogStep{0.06f, 0.94f, {{0, 0, 3}, {-2, 4, 5}, {3, 2, 2}, {100, 60, 40}, {299, 206, 1}}},
                     BlurStep{{0.25f, 0.5f, 0.25f}}};
    if (op == "weather") {  // shadows, rain and both flares (host steps) between device ops
        FlareStep overlay;
        overlay.circles = {{5, 4, 27, {250, 200, 180}, 0.12f, 0.88f},
                           {-3, 60, 8, {240, 240, 255}, 0.2f, 0.8f}};
        overlay.sun = {{20, 10, 1, {255, 255, 230}, 0.5f, 0.5f}, {20, 10, 30, {255, 255, 230}, 0.02f, 0.98f}};
        FlareStep physics = overlay;
        physics.physics = true;
        physics.x = 30;
        physics.y = 2;
        physics.radius = 12;
        physics.colour = {255, 240, 200};
        stage.ops = {
            ShadowStep{
                {{{{0, 0}, {200, 3}, {40, 150}, {3, 90}}, 0.45}, {{{-10, 5}, {10, 5}, {0, 900}}, 0.8}}},
            LutStep{brightnessContrastLut(1.1f, -5.0f)},
            RainStep{{{0, 0, -3, 20}, {50, 30, 58, 60}, {299, 100, 310, 130}}, 2, {200, 210, 220}, 4, 0.8},
            HsvStep{hsv},
            overlay,
            physics};
    }
    if (op == "fancy_pca")  // a host step between device ops
        stage.ops = {HsvStep{hsv}, FancyPcaStep{{0.8f, -1.5f, 2.0f}},
                     LutStep{brightnessContrastLut(1.1f, -5.0f)}};
    if (op == "equalize")  // every kind of table, one after another
        stage.ops = {EqualizeStep{false, true}, EqualizeStep{true, false}, EqualizeStep{false, false},
                     EqualizeStep{true, true}};
    if (op == "gray_blend")  // color_jitter's saturation, up and down
        stage.ops = {GrayBlendStep{1.7f, static_cast<float>(1.0 - 1.7)}, GrayBlendStep{0.35f, 0.65f}};
    if (op == "hsv") stage.ops = {HsvStep{hsv}};
    if (op == "gray") stage.ops = {GrayStep{}};
    if (op == "channel_matrix")  // to_sepia's matrix (sums past 255), then a permutation
        stage.ops = {ChannelMatrixStep::fromFloat(
                         {0.393f, 0.769f, 0.189f, 0.349f, 0.686f, 0.168f, 0.272f, 0.534f, 0.131f}),
                     ChannelMatrixStep{{0, 0, 1024, 1024, 0, 0, 0, 1024, 0}}};
    if (op == "compression")  // a host step between device ops (host_steps.h)
        stage.ops = {LutStep{brightnessContrastLut(1.2f, 20.0f)}, CompressStep{CompressStep::Codec::Jpeg, 30},
                     HsvStep{hsv}};
    if (op == "blur_small") stage.ops = {BlurStep{blurKernel(0.8)}};
    if (op == "blur_large") stage.ops = {BlurStep{blurKernel(3.0)}};
    if (op == "median_small") stage.ops = {MedianStep{3}};
    if (op == "median_large") stage.ops = {MedianStep{9}};
    if (op == "convolve") {  // a motion blur's line, and weights that sum above one
        ConvolveStep c{7, std::vector<float>(49, 0.0f)};
        for (int i = 0; i < 7; ++i) c.kernel[std::size_t(i * 7 + (i + 2) / 2 + 1)] = 1.0f / 7.0f;
        c.kernel[24] = 0.4f;
        stage.ops = {c};
    }
    if (op == "noise_per_channel") stage.ops = {noise};
    if (op == "noise_shared") stage.ops = {NoiseStep{-2.0f, 35.0f, false, 42}};
    if (op == "dropout_constant") stage.ops = {dropout(Fill::Mode::Constant, w, h)};
    if (op == "dropout_random") stage.ops = {dropout(Fill::Mode::Random, w, h)};
    if (op == "dropout_random_uniform") stage.ops = {dropout(Fill::Mode::RandomUniform, w, h)};
    if (op == "everything")
        stage.ops = {dropout(Fill::Mode::RandomUniform, w, h),
                     LutStep{brightnessContrastLut(0.8f, -10.0f)},
                     HsvStep{hsv},
                     MeanBrightnessStep{1.1f, -0.1},
                     noise,
                     BlurStep{blurKernel(1.5)},
                     GrayStep{},
                     MedianStep{5},
                     dropout(Fill::Mode::Random, w, h),
                     MeanBrightnessStep{1.0f, 0.2}};
    plan.stages.push_back(stage);
    if (op == "three_stages") {
        plan.stages[0].ops = {LutStep{brightnessContrastLut(1.3f, 5.0f)}};
        // The middle stage has a size of its own (a resize between pixel ops): about 2/3 x 1/2.
        PlanStage flip;
        flip.width = std::max(1, 2 * w / 3);
        flip.height = std::max(1, h / 2);
        flip.warp = warpStep(resizeMatrix(w, h, flip.width, flip.height) * horizontalFlipMatrix(w), w, h,
                             flip.width, flip.height, Interpolation::Linear, BorderMode::Replicate, {});
        flip.warp.sourceLevel = -1;
        flip.ops = {HsvStep{hsv}, BlurStep{blurKernel(1.0)}, MedianStep{3}};
        PlanStage turn;
        turn.width = w;
        turn.height = h;
        a.rotate_deg = -40;
        turn.warp = warpStep(affineMatrix(a, w, h) * resizeMatrix(flip.width, flip.height, w, h), flip.width,
                             flip.height, w, h, Interpolation::Nearest, BorderMode::Constant, {9, 8, 7});
        turn.warp.sourceLevel = -1;
        turn.ops = {GrayStep{}};
        plan.stages.push_back(flip);
        plan.stages.push_back(turn);
    }
    return plan;
}

/// Whether a plan draws noise per pixel (Gaussian noise, ISONoise), whose ISONoise rate's exp on the
/// device is libdevice's, not glibc's (see matchesCpu).
inline bool hasNoise(const Plan& plan) {
    for (const PlanStage& s : plan.stages)
        for (const PixelStep& step : s.ops)
            if (std::holds_alternative<NoiseStep>(step) || std::holds_alternative<IsoNoiseStep>(step))
                return true;
    return false;
}

/// An image holding every RGB colour once (4096 x 4096).
inline Image everyColour() {
    Image img(4096, 4096, 3);
    for (int i = 0; i < 1 << 24; ++i) {
        std::uint8_t* p = img.at(i % 4096, i / 4096);
        p[0] = std::uint8_t(i >> 16);
        p[1] = std::uint8_t(i >> 8);
        p[2] = std::uint8_t(i);
    }
    return img;
}

inline OpConfig op(const char* name) {
    return OpConfig::withDefaults(name);
}

inline std::vector<OpConfig> busyPipeline(bool withNoise) {
    OpConfig affine = op("affine");
    affine.set("rotate_deg", Range{-30, 30});
    affine.set("border", std::string("reflect_101"));
    OpConfig flip = op("horizontal_flip");
    flip.p = 0.5;
    OpConfig vflip = op("vertical_flip");
    vflip.p = 0.3;
    OpConfig drop = op("coarse_dropout");
    drop.set("fill", Fill{Fill::Mode::RandomUniform, {}});
    OpConfig bc = op("brightness_contrast");
    bc.set("brightness_by_max", false);
    OpConfig blur = op("gaussian_blur");
    blur.p = 0.5;
    OpConfig noise = op("gauss_noise");
    noise.p = 0.5;
    OpConfig gray = op("to_gray");
    gray.p = 0.2;
    OpConfig nearest = op("affine");  // a second warp after pixel ops: a second stage
    nearest.set("interpolation", std::string("nearest"));
    nearest.set("border", std::string("wrap"));
    nearest.p = 0.5;
    OpConfig perspective = op("perspective");  // fused with the affine: a projective warp
    perspective.p = 0.5;
    OpConfig crop = op("random_resized_crop");  // outputs of two sizes in one batch
    crop.p = 0.5;
    crop.set("size", Size2{300, 420});
    OpConfig mixup =
        op("mixup");  // partners: another image of the dataset, resized and of the job's channels
    mixup.p = 0.5;
    OpConfig cutmix = op("cutmix");
    cutmix.p = 0.5;
    OpConfig distort = op("grid_distortion");  // a remap stage of its own
    distort.p = 0.5;
    distort.set("distort_limit", Range{-0.6, 0.6});
    std::vector<OpConfig> p{crop,  affine, perspective, flip,    drop, bc,     op("hue_saturation_value"),
                            mixup, blur,   vflip,       nearest, gray, cutmix, distort};
    if (withNoise) p.push_back(noise);
    return p;
}

/// The images of the grid tests: one 1024x1024 photo, or (dataset mode) photos of mixed sizes and
/// channels, down to 1x1.
struct GridSources {
    SourceLevels photo{photoCrop("astronaut.png", 1024, 1024, 3)};
    SourceLevels wide{photoCrop("coffee.png", 257, 129, 3)}, tall{photoCrop("chelsea.png", 90, 200, 4)},
        dot{photoCrop("rocket.jpg", 1, 1, 3)};
    std::vector<SourceLevels*> forMode(SheetMode mode) {
        if (mode == SheetMode::Dataset) return {&wide, &tall, &dot, &photo};
        return {&photo};
    }
};

/// The grid texture a GpuSheetRenderer promises (backend.h), built from the CPU backend's tiles:
/// RGBA, each tile at its place with its alpha (255 for RGB tiles), the gaps kSheetGapGray.
inline Image expectedSheetTexture(const std::vector<OpConfig>& pipeline,
                                  const std::vector<SourceLevels*>& sources, const SheetOptions& options) {
    CpuBackend cpu(0);
    SheetLayout layout = layoutSheet(pipeline, sources, options);
    cpu.render(layout.jobs);
    Image texture(layout.width, layout.height, 4);
    for (int y = 0; y < texture.height; ++y)
        for (int x = 0; x < texture.width; ++x) {
            std::uint8_t* t = texture.at(x, y);
            t[0] = t[1] = t[2] = kSheetGapGray;
            t[3] = 255;
        }
    for (std::size_t k = 0; k < layout.jobs.size(); ++k) {
        const SheetTile& tile = layout.tiles[std::size_t(layout.jobTiles[k])];
        const Image& out = *layout.jobs[k].output;
        for (int y = 0; y < out.height; ++y)
            for (int x = 0; x < out.width; ++x) {
                std::uint8_t* t = texture.at(tile.x + x, tile.y + y);
                const std::uint8_t* o = out.at(x, y);
                for (int c = 0; c < 3; ++c) t[c] = o[c];
                t[3] = out.channels == 4 ? o[3] : 255;
            }
    }
    return texture;
}

}  // namespace auglab::testing
