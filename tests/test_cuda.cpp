// The CUDA backend against the CPU reference (SPEC §2 "Equivalence"), in three layers:
//  - always: cudaBackendInfo() is honest about this build and this machine, and createCudaBackend()
//    without a device is a RuntimeError, not a crash;
//  - in a CUDA build, GPU or not ("host emulation" rows): the kernels' per-pixel maths
//    (core/cuda/cuda_pixel.cuh) and the batch layout (cuda_batch.cpp) run on the host, launch by
//    launch as the device runs them, and must equal the CPU backend bit for bit;
//  - on a GPU ("device" rows): the same comparisons through the real backend. Without a device those
//    rows skip, saying why.
// The warp and the pointwise ops are exact by construction (the same fixed-point and float32
// steps, the noises' log, sin and cos included: polynomials, philox.h); ISONoise on the device
// may differ by one level where its exp(-lambda) (CUDA's libdevice, not glibc) rounds differently,
// so rows with noise allow that on the device only.
// The steps that gather statistics first (mean, histograms, CLAHE's tiles, ISONoise's lambda,
// FancyPCA's mean and covariance) sum in the CPU's orders, so they are exact too.

#include <algorithm>
#include <cstring>
#include <random>

#include <QtTest>

#include "cuda_test_fixtures.h"
#include "error.h"

using namespace auglab;
using namespace auglab::testing;

#if defined(AUGLAB_HAVE_CUDA)
constexpr bool kCudaBuilt = true;
#else
constexpr bool kCudaBuilt = false;
#endif

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
    void deviceImagesMatchDownloads();
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
    const QList<QByteArray> ops{"lut",
                                "channel_lut",
                                "mean_brightness",
                                "hsv",
                                "gray",
                                "blur_small",
                                "blur_large",
                                "noise_per_channel",
                                "noise_shared",
                                "dropout_constant",
                                "dropout_random",
                                "dropout_random_uniform",
                                "median_small",
                                "median_large",
                                "convolve",
                                "everything",
                                "three_stages",
                                "channel_matrix",
                                "compression",
                                "gray_mean",
                                "gray_blend",
                                "equalize",
                                "iso_noise",
                                "clahe",
                                "fancy_pca",
                                "fog",
                                "weather"};
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

void TestCuda::deviceImagesMatchDownloads() {
    // CudaDeviceRenderer (the Python module's DLPack batches): the outputs left on the device, packed
    // back to back, are the bytes render() downloads, for a dataset of mixed sizes and channels
    // (noise included: the same kernels, the same draws).
    DEVICE_FUNCTION_ONLY();
    QByteArray whyNot;
    const std::unique_ptr<Backend> backend = makeEngine(kDevice, whyNot);
    if (!backend) QSKIP(whyNot.constData());
    auto* device = dynamic_cast<CudaDeviceRenderer*>(backend.get());
    QVERIFY2(device, "the CUDA backend is not a CudaDeviceRenderer");
    GridSources grid;
    SheetOptions o;
    o.rows = o.cols = 6;
    o.tile = 80;
    o.seed = 31;
    o.mode = SheetMode::Dataset;
    SheetLayout layout = layoutSheet(busyPipeline(true), grid.forMode(SheetMode::Dataset), o);
    backend->render(layout.jobs);
    std::vector<Image> downloaded;
    for (const RenderJob& j : layout.jobs) downloaded.push_back(*j.output);
    const DeviceImages onDevice = device->renderOnDevice(layout.jobs);
    QCOMPARE(onDevice.items.size(), layout.jobs.size());
    std::size_t next = 0;
    for (std::size_t k = 0; k < onDevice.items.size(); ++k) {
        const DeviceImages::Item& item = onDevice.items[k];
        QCOMPARE(item.offset, next);  // packed: image k+1 starts where image k ends
        next += item.bytes();
        Image copy(item.width, item.height, item.channels);
        copyDeviceToHost(copy.pixels.data(), onDevice.memory.get() + item.offset, item.bytes());
        QCOMPARE(copy.width, downloaded[k].width);
        QCOMPARE(copy.height, downloaded[k].height);
        QCOMPARE(copy.channels, downloaded[k].channels);
        QVERIFY2(copy.pixels == downloaded[k].pixels, QByteArray::number(qulonglong(k)).constData());
    }
}

QTEST_APPLESS_MAIN(TestCuda)
#include "test_cuda.moc"
