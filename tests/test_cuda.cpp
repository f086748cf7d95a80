// The CUDA backend against the CPU reference (SPEC §2 "Equivalence"), in three layers:
//  - always: cudaBackendInfo() is honest about this build and this machine, and createCudaBackend()
//    without a device is a RuntimeError, not a crash;
//  - in a CUDA build, GPU or not ("host emulation" rows): the kernels' per-pixel maths
//    (core/cuda/cuda_pixel.cuh) and the batch layout (cuda_batch.cpp) run on the host, launch by
//    launch as the device runs them, and must equal the CPU backend bit for bit;
//  - on a GPU ("device" rows): the same comparisons through the real backend. Without a device those
//    rows skip, saying why.
// The warp and the pointwise ops are exact by construction (the same fixed-point and float32
// steps); Gaussian noise on the device may differ by one level where its log/sin/cos (CUDA's
// libdevice, not glibc) round differently, so rows with noise allow that on the device only.

#include <algorithm>
#include <cstring>
#include <random>

#include <QtTest>

#include "contact_sheet.h"
#include "cpu_backend.h"
#include "cuda_backend.h"
#include "error.h"
#include "geometry.h"
#include "host_steps.h"
#include "ops/distortion.h"
#include "plan_builder.h"
#include "sampler.h"
#include "test_support.h"

#if defined(AUGLAB_HAVE_CUDA)
#include "cuda_batch.h"
#include "cuda_pixel.cuh"
#include "cuda_resources.h"
#endif

using namespace auglab;
using namespace auglab::testing;

#if defined(AUGLAB_HAVE_CUDA)
constexpr bool kCudaBuilt = true;
#else
constexpr bool kCudaBuilt = false;
#endif

namespace {

enum Engine { kHostEmulation = 0, kDevice = 1 };

#if defined(AUGLAB_HAVE_CUDA)

/// The CUDA backend's batch layout and per-pixel maths, executed on the host: each launch's passes
/// one after the other, every pixel of a pass by the same function the kernel calls. The arena
/// starts filled with a junk pattern, so reading memory the device would not have written shows.
class HostEmulatedCudaBackend final : public Backend {
public:
    explicit HostEmulatedCudaBackend(std::size_t batchBudget = std::size_t(512) << 20)
        : budget_(batchBudget) {}
    std::string name() const override { return "cuda (host emulation)"; }

    void render(std::span<RenderJob> jobs) override {
        // Compression runs on the host between the device's parts of the plan, as CudaBackend does it.
        if (std::none_of(jobs.begin(), jobs.end(), [](const RenderJob& j) { return hasHostStep(j.plan); }))
            return renderBatches(jobs);
        HostStepResolver host;
        std::vector<RenderJob> resolved =
            host.resolve(jobs, [this](std::span<RenderJob> part) { renderBatches(part); });
        renderBatches(resolved);
    }

    void renderBatches(std::span<RenderJob> jobs) {
        using namespace auglab::cuda;
        for (std::span<RenderJob> batch : splitBatches(jobs, budget_)) {
            ++batches;
            const DeviceBatch b = buildDeviceBatch(batch);
            std::vector<unsigned char> arena = run(b);
            unsigned char* a = arena.data();
            // The download, as the backend does it: the output region in one piece.
            const std::vector<unsigned char> outputs(a + b.outputBase, a + b.outputBase + b.outputBytes);
            for (const OutputDownload& o : b.outputs) {
                if (!o.rendered) {
                    *o.output = Image();
                    continue;
                }
                if (o.offset < b.outputBase || o.offset + o.bytes() > b.outputBase + b.outputBytes)
                    throw std::logic_error("an output lies outside the output region");
                Image out(o.width, o.height, o.channels);
                if (o.bytes())
                    std::memcpy(out.pixels.data(), outputs.data() + (o.offset - b.outputBase), o.bytes());
                *o.output = std::move(out);
            }
        }
    }

    /// CudaBackend::renderSheet on the host: the gap fill, then batch by batch the passes and the
    /// placement kernel's texels, into an RGBA image standing for the surface (a texel's word is
    /// little-endian, R first, as on the device).
    Image renderSheetTexture(SheetLayout& layout) {
        using namespace auglab::cuda;
        Image texture(layout.width, layout.height, 4);
        auto put = [&](int x, int y, std::uint32_t texel) {
            if (x < 0 || y < 0 || x >= texture.width || y >= texture.height)
                throw std::logic_error("a texel outside the grid texture");
            std::memcpy(texture.at(x, y), &texel, 4);
        };
        for (int y = 0; y < layout.height; ++y)
            for (int x = 0; x < layout.width; ++x)
                put(x, y, packTexel(kSheetGapGray, kSheetGapGray, kSheetGapGray, 255));
        const std::vector<std::array<int, 2>> positions = jobPositions(layout);
        std::size_t first = 0;
        for (std::span<RenderJob> batch : splitBatches(layout.jobs, budget_)) {
            ++batches;
            DeviceBatch b = buildDeviceBatch(batch);
            const PlacementLaunch launch = addPlacements(b, std::span(positions).subspan(first, batch.size()),
                                                         layout.width, layout.height);
            first += batch.size();
            std::vector<unsigned char> arena = run(b);
            const auto* placements =
                reinterpret_cast<const DevicePlacement*>(arena.data() + launch.placements);
            for (int i = 0; i < launch.count; ++i) {
                const DevicePlacement& p = placements[i];
                if (p.width > launch.maxWidth || p.height > launch.maxHeight)
                    throw std::logic_error("a placement larger than its launch");
                for (int y = 0; y < p.height; ++y)
                    for (int x = 0; x < p.width; ++x)
                        put(p.x + x, p.y + y, placedTexel(arena.data(), p, x, y));
            }
        }
        return texture;
    }

    int batches = 0;

private:
    /// The upload and the launches of one batch; returns the arena as the device leaves it.
    static std::vector<unsigned char> run(const cuda::DeviceBatch& b) {
        using namespace auglab::cuda;
        std::vector<unsigned char> arena(b.arenaBytes, 0xA5);
        for (const LevelUpload& l : b.levels) {
            const std::size_t rowBytes = std::size_t(l.image->width) * std::size_t(l.image->channels);
            for (int y = 0; y < l.image->height; ++y)
                std::memcpy(arena.data() + l.offset + std::size_t(y) * rowBytes, l.image->row(y), rowBytes);
        }
        if (!b.blob.empty()) std::memcpy(arena.data() + b.blobOffset, b.blob.data(), b.blob.size());
        if (b.scratchBytes) std::memset(arena.data() + b.scratch, 0, b.scratchBytes);
        unsigned char* a = arena.data();
        for (const DeviceLaunch& l : b.launches) {
            const auto* passes = reinterpret_cast<const DevicePass*>(a + l.passes);
            for (int i = 0; i < l.count; ++i) {
                const DevicePass& p = passes[i];
                std::uint64_t sum = 0;
                if (l.kind == kMeanLut) {
                    for (int v = 0; v < 256; ++v) meanLutEntry(a, p, v);
                    continue;
                }
                if (l.kind == kEqualizeLut) {
                    for (int c = 0; c < (p.equalizeByChannels ? 3 : 1); ++c) equalizeTable(a, p, c);
                    continue;
                }
                for (int y = 0; y < p.height; ++y)
                    for (int x = 0; x < p.width; ++x) {
                        if (l.kind == kSegment)
                            segmentPixel(a, p, x, y);
                        else if (l.kind == kBlurRows)
                            blurRowPixel(a, p, x, y);
                        else if (l.kind == kBlurColumns)
                            blurColumnPixel(a, p, x, y);
                        else if (l.kind == kMedian)
                            medianPixel(a, p, x, y);
                        else if (l.kind == kConvolve)
                            convolvePixel(a, p, x, y);
                        else if (l.kind == kStoreFloats)
                            storeFloatsPixel(a, p, x, y);
                        else if (l.kind == kHistogram) {
                            int bins[3];
                            const int n = histogramBins(a, p, x, y, bins);
                            for (int i = 0; i < n; ++i) ++at<std::uint32_t>(a, p.sum)[bins[i]];
                        } else
                            sum += std::uint64_t(rgbSumOf(a, p, x, y));
                    }
                if (l.kind == kMeanSum) *at<std::uint64_t>(a, p.sum) += sum;
            }
        }
        return arena;
    }

    std::size_t budget_;
};

#endif

/// The backend under test, or null with the reason it is not here (the test then skips with it).
std::unique_ptr<Backend> makeEngine(int engine, QByteArray& whyNot) {
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
bool deviceRowsOnly() {
    static const bool device = qEnvironmentVariable("AUGLAB_TEST_CUDA_ROWS") == "device";
    return device;
}

/// Rows for each engine of this run: "host emulation: ..." in test_cuda (a CUDA build), "device:
/// ..." in test_cuda.device. A build without CUDA has no host emulation: its device rows stay in
/// test_cuda and say why they cannot run.
QList<int> enginesOfThisBuild() {
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
QByteArray engineName(int engine) {
    return engine == kHostEmulation ? "host emulation: " : "device: ";
}

Image render(Backend& backend, SourceLevels& source, const Plan& plan) {
    Image out;
    RenderJob job{&source, plan, &out};
    backend.render(std::span<RenderJob>(&job, 1));
    return out;
}

WarpStep warpStep(const Matrix3& forward, int inW, int inH, int outW, int outH, Interpolation interp,
                  BorderMode border, Rgb fill) {
    return warpStepOf(forward, inW, inH, outW, outH, interp, border, fill);
}

/// Equal to the CPU: bit for bit, or (noise on the device) within one level on a few pixels. A noise
/// value one level apart is rare (see boxMuller in cuda_pixel.cuh), but a blur after the noise
/// spreads it over the kernel's footprint (up to 21 x 21 pixels in these tests, sigma 3): at most
/// 0.5% of the pixels, and never fewer than one footprint, may differ, by one level.
bool matchesCpu(const Diff& d, bool allowNoiseRounding) {
    if (!allowNoiseRounding) return d.maxAbs == 0;
    return d.maxAbs <= 1 && double(d.pixelsDiffering) <= std::max(21.0 * 21.0, 5e-3 * double(d.pixels));
}

const QList<BorderMode> kBorders{BorderMode::Constant, BorderMode::Replicate, BorderMode::Reflect,
                                 BorderMode::Reflect101, BorderMode::Wrap};

std::vector<float> blurKernel(double sigma) {
    const std::vector<double> k = gaussianKernel(sigma);
    return std::vector<float>(k.begin(), k.end());
}

DropoutStep dropout(Fill::Mode mode, int w, int h) {
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
Plan pixelPlan(const QByteArray& op, int w, int h) {
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

bool hasNoise(const Plan& plan) {
    for (const PlanStage& s : plan.stages)
        for (const PixelStep& step : s.ops)
            if (std::holds_alternative<NoiseStep>(step)) return true;
    return false;
}

/// An image holding every RGB colour once (4096 x 4096).
Image everyColour() {
    Image img(4096, 4096, 3);
    for (int i = 0; i < 1 << 24; ++i) {
        std::uint8_t* p = img.at(i % 4096, i / 4096);
        p[0] = std::uint8_t(i >> 16);
        p[1] = std::uint8_t(i >> 8);
        p[2] = std::uint8_t(i);
    }
    return img;
}

OpConfig op(const char* name) {
    return OpConfig::withDefaults(name);
}

std::vector<OpConfig> busyPipeline(bool withNoise) {
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
Image expectedSheetTexture(const std::vector<OpConfig>& pipeline, const std::vector<SourceLevels*>& sources,
                           const SheetOptions& options) {
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

#if defined(AUGLAB_HAVE_CUDA)
/// A CudaSheetTarget on a plain CUDA array, the kind of array a registered GL texture maps to: the
/// device's grid path without OpenGL. Read back after the render.
class DeviceArrayTarget final : public CudaSheetTarget {
public:
    DeviceArrayTarget() = default;
    DeviceArrayTarget(const DeviceArrayTarget&) = delete;
    DeviceArrayTarget& operator=(const DeviceArrayTarget&) = delete;
    ~DeviceArrayTarget() override { release(); }

    std::uint64_t map(void*, int width, int height) override {
        release();
        const cudaChannelFormatDesc format = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
        cuda::check(cudaMallocArray(&array_, &format, std::size_t(width), std::size_t(height),
                                    cudaArraySurfaceLoadStore),
                    "cudaMallocArray");
        width_ = width;
        height_ = height;
        cudaResourceDesc resource{};
        resource.resType = cudaResourceTypeArray;
        resource.res.array.array = array_;
        cuda::check(cudaCreateSurfaceObject(&surface_, &resource), "cudaCreateSurfaceObject");
        ++maps;
        return surface_;
    }
    void unmap(void*, bool failed) override {
        ++unmaps;
        unmappedAfterFailure = failed;
    }
    Image read() const {
        Image out(width_, height_, 4);
        cuda::check(
            cudaMemcpy2DFromArray(out.pixels.data(), out.stride, array_, 0, 0, std::size_t(width_) * 4,
                                  std::size_t(height_), cudaMemcpyDeviceToHost),
            "cudaMemcpy2DFromArray");
        return out;
    }

    int maps = 0, unmaps = 0;
    bool unmappedAfterFailure = false;

private:
    void release() {
        if (surface_) (void)cudaDestroySurfaceObject(surface_);
        if (array_) (void)cudaFreeArray(array_);
        surface_ = 0;
        array_ = nullptr;
    }
    cudaArray_t array_ = nullptr;
    cudaSurfaceObject_t surface_ = 0;
    int width_ = 0, height_ = 0;
};
#endif

}  // namespace

class TestCuda : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void infoIsHonest();
    void createWithoutDeviceThrows();
#if defined(AUGLAB_HAVE_CUDA)
    void batchesSplitInOrder();
    void hostEmulationSplitsLargeBatches();
#endif
    void warpMatchesCpu_data();
    void warpMatchesCpu();
    void pixelOpsMatchCpu_data();
    void pixelOpsMatchCpu();
    void everyColourMatchesCpu_data();
    void everyColourMatchesCpu();
    void gridMatchesCpu_data();
    void gridMatchesCpu();
    void sheetTextureMatchesCpu_data();
    void sheetTextureMatchesCpu();
    void deotteMatchesCpu_data();
    void deotteMatchesCpu();
    void badPlansAreRuntimeErrors_data();
    void badPlansAreRuntimeErrors();
    void outOfMemoryIsRuntimeError();
};

void TestCuda::initTestCase() {
    if (!deviceRowsOnly()) return;
    const BackendInfo info = cudaBackendInfo();
    if (!info.available) QSKIP(info.detail.c_str());
}

void TestCuda::infoIsHonest() {
    const BackendInfo info = cudaBackendInfo();
    qInfo("cuda: compiled %d, available %d, %s", info.compiled, info.available, info.detail.c_str());
    QCOMPARE(info.name, std::string("cuda"));
    QCOMPARE(info.compiled, kCudaBuilt);
    QVERIFY(!info.detail.empty());
    if (!info.compiled) {
        QVERIFY(!info.available);
        QVERIFY(info.detail.find("built without CUDA") != std::string::npos);
    } else if (info.available) {
        QVERIFY2(info.detail.find("compute capability") != std::string::npos, info.detail.c_str());
    }
    QCOMPARE(cudaBackendInfo().detail, info.detail);  // probed once, the same answer after
}

void TestCuda::createWithoutDeviceThrows() {
    const BackendInfo info = cudaBackendInfo();
    if (info.available) {
        const std::unique_ptr<Backend> b = createCudaBackend();
        QCOMPARE(b->name(), std::string("cuda"));
        return;
    }
    try {
        (void)createCudaBackend();
        QFAIL("createCudaBackend() returned a backend without a usable device");
    } catch (const RuntimeError& e) {
        QVERIFY2(std::string(e.what()).find(info.detail) != std::string::npos, e.what());
    }
}

#if defined(AUGLAB_HAVE_CUDA)

void TestCuda::batchesSplitInOrder() {
    SourceLevels source(Image(100, 100, 3));
    std::vector<Image> outs(10);
    std::vector<RenderJob> jobs;
    for (int i = 0; i < 10; ++i) {
        Plan p;
        p.width = p.height = i == 4 ? 1000 : 100;  // job 4 alone exceeds the budget
        p.stages.push_back(PlanStage{warpStep(Matrix3::identity(), 100, 100, p.width, p.height,
                                              Interpolation::Linear, BorderMode::Constant, {}),
                                     {},
                                     p.width,
                                     p.height});
        jobs.push_back(RenderJob{&source, p, &outs[std::size_t(i)]});
    }
    const auto groups = cuda::splitBatches(jobs, 200000);
    std::size_t next = 0;
    for (const auto& g : groups) {
        QVERIFY(!g.empty());
        QCOMPARE(g.data(), jobs.data() + next);
        if (next <= 4 && 4 < next + g.size())
            QVERIFY2(next == 4 && g.size() == 1, "job 4 is a batch of its own");
        next += g.size();
    }
    QCOMPARE(next, jobs.size());
    QVERIFY(groups.size() >= 3);
}

void TestCuda::hostEmulationSplitsLargeBatches() {
    // A grid rendered in many small batches equals the grid rendered in one.
    SourceLevels source(photoCrop("astronaut.png", 320, 240, 3));
    SheetOptions o;
    o.tile = 48;
    o.seed = 5;
    HostEmulatedCudaBackend one, many(64 << 10);
    const Sheet a = renderSheet(busyPipeline(true), {&source}, o, one);
    const Sheet b = renderSheet(busyPipeline(true), {&source}, o, many);
    QCOMPARE(one.batches, 1);
    QVERIFY2(many.batches > 4, QByteArray::number(many.batches).constData());
    QVERIFY(samePixels(a.image, b.image));
}

#endif

void TestCuda::warpMatchesCpu_data() {
    QTest::addColumn<int>("engine");
    QTest::addColumn<QSize>("in");
    QTest::addColumn<QSize>("out");
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("interp");
    QTest::addColumn<int>("border");
    struct Case {
        QSize in, out;
        int channels;
    };
    const QList<Case> cases{{{1, 1}, {1, 1}, 3},        {{7, 5}, {7, 5}, 3},      {{64, 37}, {64, 37}, 3},
                            {{4097, 3}, {4097, 3}, 3},  {{3, 200}, {3, 200}, 3},  {{301, 207}, {301, 207}, 3},
                            {{301, 207}, {100, 69}, 3}, {{64, 37}, {150, 90}, 3}, {{120, 90}, {120, 90}, 4},
                            {{1, 1}, {5, 3}, 4}};
    for (int engine : enginesOfThisBuild())
        for (const Case& c : cases)
            for (int interp = 0; interp < 2; ++interp)
                for (BorderMode b : kBorders) {
                    const QByteArray name =
                        engineName(engine) + QByteArray::number(c.in.width()) + "x" +
                        QByteArray::number(c.in.height()) + " -> " + QByteArray::number(c.out.width()) + "x" +
                        QByteArray::number(c.out.height()) + (c.channels == 4 ? " rgba" : " rgb") +
                        (interp ? " linear " : " nearest ") + borderName(b);
                    QTest::newRow(name.constData())
                        << engine << c.in << c.out << c.channels << interp << int(b);
                }
}

void TestCuda::warpMatchesCpu() {
    QFETCH(int, engine);
    QFETCH(QSize, in);
    QFETCH(QSize, out);
    QFETCH(int, channels);
    QFETCH(int, interp);
    QFETCH(int, border);
    QByteArray whyNot;
    const std::unique_ptr<Backend> backend = makeEngine(engine, whyNot);
    if (!backend) QSKIP(whyNot.constData());
    CpuBackend cpu(0);
    SourceLevels source(photoCrop("astronaut.png", in.width(), in.height(), channels));
    std::mt19937 rng(77u + unsigned(in.width() * 31 + in.height() * 7 + interp * 3 + border));
    const Matrix3 resize = resizeMatrix(in.width(), in.height(), out.width(), out.height());
    // The identity (the copy path when sizes match), a flip, random affine maps, then projective ones
    // (positions per pixel, WarpStep::projective).
    std::vector<Matrix3> maps{resize, resize * horizontalFlipMatrix(in.width())};
    for (int i = 0; i < 4; ++i) maps.push_back(resize * randomMatrix(rng, in.width(), in.height()));
    for (int i = 0; i < 2; ++i) maps.push_back(resize * randomHomography(rng, in.width(), in.height()));
    for (std::size_t i = 0; i < maps.size(); ++i) {
        Plan plan;
        plan.width = out.width();
        plan.height = out.height();
        plan.stages.push_back(PlanStage{warpStep(maps[i], in.width(), in.height(), out.width(), out.height(),
                                                 Interpolation(interp), BorderMode(border), {200, 30, 90}),
                                        {},
                                        out.width(),
                                        out.height()});
        const Image expected = render(cpu, source, plan);
        const Image actual = render(*backend, source, plan);
        const Diff d = compare(actual, expected);
        const QByteArray what = "map " + QByteArray::number(int(i)) + ": " + d.describe();
        // SPEC §2 first (the contract), then bit-exactness (the design: the same fixed point).
        if (interp)
            QVERIFY2(d.withinLinearBounds(), what.constData());
        else
            QVERIFY2(d.pixelFractionDiffering() <= 0.005, what.constData());
        QVERIFY2(samePixels(actual, expected), what.constData());
    }
    // Remaps (PlanBuilder::remapStage: cv2.remap's positions from float32 maps, read per pixel as a
    // projective warp's), after a resizing stage where the sizes differ: a grid distortion with
    // steps far from 1 and a strong lens distortion, both reaching past the image.
    std::uniform_real_distribution<double> step(0.3, 1.7);
    GridDistortionParams grid;
    grid.numSteps = 4;
    grid.normalized = false;
    for (int i = 0; i <= grid.numSteps; ++i) {
        grid.stepsX.push_back(step(rng));
        grid.stepsY.push_back(step(rng));
    }
    OpticalDistortionParams lens;
    lens.k = -1.3;
    for (const DistortionMaps& m : {gridDistortionMaps(grid, out.width(), out.height()),
                                    opticalDistortionMaps(lens, out.width(), out.height())}) {
        PlanBuilder b(in.width(), in.height(), out.width(), out.height(), SourceSampling::Source);
        b.remapStage(m.x, m.y, Interpolation(interp), BorderMode(border), {200, 30, 90});
        const Plan plan = b.finish();
        QVERIFY(plan.stages.back().warp.remap);
        const Image expected = render(cpu, source, plan);
        const Image actual = render(*backend, source, plan);
        const Diff d = compare(actual, expected);
        QVERIFY2(samePixels(actual, expected), ("remap: " + d.describe()).constData());
    }
}

void TestCuda::pixelOpsMatchCpu_data() {
    QTest::addColumn<int>("engine");
    QTest::addColumn<QByteArray>("op");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<int>("channels");
    const QList<QByteArray> ops{
        "lut",          "channel_lut",      "mean_brightness", "hsv",
        "gray",         "blur_small",       "blur_large",      "noise_per_channel",
        "noise_shared", "dropout_constant", "dropout_random",  "dropout_random_uniform",
        "median_small", "median_large",     "convolve",        "everything",
        "three_stages", "channel_matrix",   "compression",     "gray_mean",
        "gray_blend",   "equalize",         "iso_noise"};
    const QList<QPair<QSize, int>> sizes{
        {{1, 1}, 3}, {{7, 5}, 3}, {{4097, 3}, 3}, {{301, 207}, 3}, {{120, 91}, 4}};
    for (int engine : enginesOfThisBuild())
        for (const QByteArray& o : ops)
            for (const auto& [size, channels] : sizes) {
                const QByteArray name = engineName(engine) + o + " " + QByteArray::number(size.width()) +
                                        "x" + QByteArray::number(size.height()) +
                                        (channels == 4 ? " rgba" : " rgb");
                QTest::newRow(name.constData()) << engine << o << size << channels;
            }
}

void TestCuda::pixelOpsMatchCpu() {
    QFETCH(int, engine);
    QFETCH(QByteArray, op);
    QFETCH(QSize, size);
    QFETCH(int, channels);
    QByteArray whyNot;
    const std::unique_ptr<Backend> backend = makeEngine(engine, whyNot);
    if (!backend) QSKIP(whyNot.constData());
    CpuBackend cpu(0);
    SourceLevels source(photoCrop("chelsea.png", size.width(), size.height(), channels));
    const Plan plan = pixelPlan(op, size.width(), size.height());
    const Image expected = render(cpu, source, plan);
    const Image actual = render(*backend, source, plan);
    const Diff d = compare(actual, expected);
    QVERIFY2(matchesCpu(d, engine == kDevice && hasNoise(plan)), d.describe().constData());
}

void TestCuda::everyColourMatchesCpu_data() {
    QTest::addColumn<int>("engine");
    for (int engine : enginesOfThisBuild())
        QTest::newRow((engineName(engine) + "hsv and gray").constData()) << engine;
}

void TestCuda::everyColourMatchesCpu() {
    // HSV and gray on all 2^24 colours: integer tables and float32 steps, so exact everywhere.
    QFETCH(int, engine);
    QByteArray whyNot;
    const std::unique_ptr<Backend> backend = makeEngine(engine, whyNot);
    if (!backend) QSKIP(whyNot.constData());
    CpuBackend cpu(0);
    SourceLevels source(everyColour());
    Plan plan;
    plan.width = plan.height = 4096;
    plan.stages.push_back(PlanStage{warpStep(Matrix3::identity(), 4096, 4096, 4096, 4096,
                                             Interpolation::Nearest, BorderMode::Constant, {}),
                                    {},
                                    4096,
                                    4096});
    QVERIFY(plan.stages[0].warp.copy);
    const std::vector<std::vector<PixelStep>> opLists{{HsvStep{hsvLuts(HsvParams{-71, 23.9, -18.2})}},
                                                      {HsvStep{hsvLuts(HsvParams{180, -255, 255})}},
                                                      {GrayStep{}}};
    for (const std::vector<PixelStep>& ops : opLists) {
        plan.stages[0].ops = ops;
        const Diff d = compare(render(*backend, source, plan), render(cpu, source, plan));
        QVERIFY2(d.maxAbs == 0, d.describe().constData());
    }
}

void TestCuda::gridMatchesCpu_data() {
    QTest::addColumn<int>("engine");
    QTest::addColumn<int>("mode");
    QTest::addColumn<bool>("noise");
    for (int engine : enginesOfThisBuild()) {
        QTest::newRow((engineName(engine) + "64 samples, no noise").constData())
            << engine << int(SheetMode::Samples) << false;
        QTest::newRow((engineName(engine) + "64 samples with noise").constData())
            << engine << int(SheetMode::Samples) << true;
        QTest::newRow((engineName(engine) + "dataset of mixed sizes and channels").constData())
            << engine << int(SheetMode::Dataset) << true;
    }
}

void TestCuda::gridMatchesCpu() {
    // Whole grids through renderSheet: 64 different plans (stages, ops and sizes vary per sample)
    // rendered by one backend call, the way the GUI renders them.
    QFETCH(int, engine);
    QFETCH(int, mode);
    QFETCH(bool, noise);
    QByteArray whyNot;
    const std::unique_ptr<Backend> backend = makeEngine(engine, whyNot);
    if (!backend) QSKIP(whyNot.constData());
    CpuBackend cpu(0);
    GridSources grid;
    const std::vector<SourceLevels*> sources = grid.forMode(SheetMode(mode));
    SheetOptions o;
    o.rows = o.cols = 8;
    o.tile = 128;
    o.seed = 20200224;
    o.mode = SheetMode(mode);
    const std::vector<OpConfig> pipeline = busyPipeline(noise);
    const Sheet expected = renderSheet(pipeline, sources, o, cpu);
    const Sheet actual = renderSheet(pipeline, sources, o, *backend);
    const Diff d = compare(actual.image, expected.image);
    qInfo("%s", d.describe().constData());
    QVERIFY2(d.withinLinearBounds(), d.describe().constData());
    QVERIFY2(matchesCpu(d, engine == kDevice && noise), d.describe().constData());
}

void TestCuda::sheetTextureMatchesCpu_data() {
    QTest::addColumn<int>("engine");
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("batchBudget");  // host emulation: bytes per batch (0: the backend's)
    for (int engine : enginesOfThisBuild()) {
        QTest::newRow((engineName(engine) + "64 samples").constData())
            << engine << int(SheetMode::Samples) << 0;
        QTest::newRow((engineName(engine) + "dataset of mixed sizes and channels").constData())
            << engine << int(SheetMode::Dataset) << 0;
    }
    if (kCudaBuilt && !deviceRowsOnly())
        QTest::newRow("host emulation: one batch per tile")
            << int(kHostEmulation) << int(SheetMode::Dataset) << 1;
}

void TestCuda::sheetTextureMatchesCpu() {
    // The GUI's grid on the device (CudaSheetRenderer, shown through CUDA-GL interop): rendered,
    // composed and written into an RGBA array by the kernels, it must equal the texture the CPU's
    // tiles make, texel for texel (no noise: every op is exact).
    QFETCH(int, engine);
    QFETCH(int, mode);
    QFETCH(int, batchBudget);
    GridSources grid;
    const std::vector<SourceLevels*> sources = grid.forMode(SheetMode(mode));
    SheetOptions o;
    o.rows = 8;
    o.cols = 7;  // a non-square grid
    o.tile = 96;
    o.seed = 77;
    o.mode = SheetMode(mode);
    const std::vector<OpConfig> pipeline = busyPipeline(false);
    SheetLayout layout = layoutSheet(pipeline, sources, o);
    Image actual;
#if defined(AUGLAB_HAVE_CUDA)
    if (engine == kHostEmulation) {
        HostEmulatedCudaBackend host(batchBudget ? std::size_t(batchBudget) : std::size_t(512) << 20);
        actual = host.renderSheetTexture(layout);
        if (batchBudget) QCOMPARE(host.batches, int(layout.jobs.size()));
        // Positions and outputs must pair up.
        cuda::DeviceBatch b = cuda::buildDeviceBatch(layout.jobs);
        const std::array<int, 2> one{0, 0};
        try {
            (void)cuda::addPlacements(b, std::span(&one, 1), layout.width, layout.height);
            QFAIL("addPlacements accepted one position for a whole grid");
        } catch (const RuntimeError& e) {
            QVERIFY2(std::string(e.what()).find("grid positions") != std::string::npos, e.what());
        }
        // A tile that would not fit the texture is refused before any surface write.
        std::vector<std::array<int, 2>> shifted = cuda::jobPositions(layout);
        shifted.back()[0] = layout.width - 1;  // the last tile sticks out on the right
        try {
            (void)cuda::addPlacements(b, shifted, layout.width, layout.height);
            QFAIL("addPlacements accepted tiles past the texture's edge");
        } catch (const RuntimeError& e) {
            QVERIFY2(std::string(e.what()).find("does not fit") != std::string::npos, e.what());
        }
    } else {
        QByteArray whyNot;
        const std::unique_ptr<Backend> backend = makeEngine(kDevice, whyNot);
        if (!backend) QSKIP(whyNot.constData());
        auto* renderer = dynamic_cast<CudaSheetRenderer*>(backend.get());
        QVERIFY2(renderer, "the CUDA backend is not a CudaSheetRenderer");
        DeviceArrayTarget target;
        renderer->renderSheet(layout, target);
        QCOMPARE(target.maps, 1);
        QCOMPARE(target.unmaps, 1);
        QVERIFY(!target.unmappedAfterFailure);
        actual = target.read();
    }
#else
    (void)batchBudget;  // host emulation rows exist only in CUDA builds
    QByteArray whyNot;
    QVERIFY(!makeEngine(engine, whyNot));
    QSKIP(whyNot.constData());
#endif
    const Image expected = expectedSheetTexture(pipeline, sources, o);
    const Diff d = compare(actual, expected);
    QVERIFY2(d.maxAbs == 0, d.describe().constData());
}

void TestCuda::deotteMatchesCpu_data() {
    QTest::addColumn<int>("engine");
    QTest::addColumn<int>("dim");
    QTest::addColumn<int>("channels");
    for (int engine : enginesOfThisBuild()) {
        QTest::newRow((engineName(engine) + "331, odd").constData()) << engine << 331 << 3;
        QTest::newRow((engineName(engine) + "256, rgba").constData()) << engine << 256 << 4;
    }
}

void TestCuda::deotteMatchesCpu() {
    // deotte_affine's gather (two float32 additions per pixel, then one source pixel) after a crop,
    // and followed by pixel ops in the same pass: bit for bit the CPU's, at full size and in tiles.
    QFETCH(int, engine);
    QFETCH(int, dim);
    QFETCH(int, channels);
    QByteArray whyNot;
    const std::unique_ptr<Backend> backend = makeEngine(engine, whyNot);
    if (!backend) QSKIP(whyNot.constData());
    CpuBackend cpu(0);
    SourceLevels source(photoCrop("astronaut.png", dim + 40, dim, channels));
    OpConfig crop = op("random_resized_crop");  // square from a wide image
    crop.set("size", Size2{dim, dim});
    OpConfig d = op("deotte_affine");
    d.set("rotation_std_deg", 30.0);
    const std::vector<OpConfig> pipeline{crop, d, op("brightness_contrast"), op("to_gray")};
    for (std::uint64_t i = 0; i < 4; ++i) {
        const Diff full = compare(renderSample(pipeline, source, 21, i, *backend),
                                  renderSample(pipeline, source, 21, i, cpu));
        QVERIFY2(full.maxAbs == 0, full.describe().constData());
    }
    SheetOptions o;
    o.rows = o.cols = 3;
    o.tile = 90;
    const Diff grid = compare(renderSheet(pipeline, {&source}, o, *backend).image,
                              renderSheet(pipeline, {&source}, o, cpu).image);
    QVERIFY2(grid.maxAbs == 0, grid.describe().constData());
}

void TestCuda::badPlansAreRuntimeErrors_data() {
    QTest::addColumn<int>("engine");
    for (int engine : enginesOfThisBuild())
        QTest::newRow((engineName(engine) + "size mismatch, no source, no stages").constData()) << engine;
}

void TestCuda::badPlansAreRuntimeErrors() {
    QFETCH(int, engine);
    QByteArray whyNot;
    const std::unique_ptr<Backend> backend = makeEngine(engine, whyNot);
    if (!backend) QSKIP(whyNot.constData());
    SourceLevels source(Image(40, 30, 3));
    Plan plan;
    plan.width = 40;
    plan.height = 30;
    plan.stages.push_back(PlanStage{
        warpStep(Matrix3::identity(), 41, 30, 40, 30, Interpolation::Linear, BorderMode::Constant, {}),
        {},
        40,
        30});
    QVERIFY_THROWS_EXCEPTION(RuntimeError, render(*backend, source, plan));
    Image out;
    RenderJob noSource{nullptr, plan, &out};
    QVERIFY_THROWS_EXCEPTION(RuntimeError, backend->render(std::span<RenderJob>(&noSource, 1)));
    // A plan without stages gives an empty image, as on the CPU.
    CpuBackend cpu(1);
    QVERIFY(samePixels(render(*backend, source, Plan{}), render(cpu, source, Plan{})));
    // The backend still works after the errors.
    plan.stages[0].warp.inputWidth = 40;
    QVERIFY(samePixels(render(*backend, source, plan), render(cpu, source, plan)));
}

void TestCuda::outOfMemoryIsRuntimeError() {
    DEVICE_FUNCTION_ONLY();
    QByteArray whyNot;
    const std::unique_ptr<Backend> backend = makeEngine(kDevice, whyNot);
    if (!backend) QSKIP(whyNot.constData());
#if defined(AUGLAB_HAVE_CUDA)
    cuda::DeviceBuffer huge;
    try {
        huge.reserve(std::size_t(1) << 50);  // a petabyte
        QFAIL("cudaMalloc of a petabyte succeeded");
    } catch (const RuntimeError& e) {
        QVERIFY2(std::string(e.what()).find("cudaMalloc") != std::string::npos, e.what());
    }
    // The failure left no error behind: the backend renders as before.
    CpuBackend cpu(1);
    SourceLevels source(photoCrop("astronaut.png", 64, 48, 3));
    const Plan plan = pixelPlan("everything", 64, 48);
    QVERIFY(matchesCpu(compare(render(*backend, source, plan), render(cpu, source, plan)), true));
#endif
}

QTEST_APPLESS_MAIN(TestCuda)
#include "test_cuda.moc"
