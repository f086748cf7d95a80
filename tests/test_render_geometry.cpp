// The geometry of frames against OpenCV (crops, pads, resizes, quarter turns, a frame that changes
// after pixel ops, whole-pixel remaps as integers) and the source region a plan reads
// (planSourceRegion, which lets a decoder skip the rest). Plans and rendering: test_render.cpp.

#include <QtTest>

#include <opencv2/imgproc.hpp>
#include <random>
#include <set>

#include "contact_sheet.h"
#include "cpu_backend.h"
#include "error.h"
#include "geometry.h"
#include "ops/rotate90.h"
#include "plan_builder.h"
#include "preset.h"
#include "realism.h"
#include "render_test_support.h"
#include "sampler.h"
#include "test_support.h"
#include "thread_pool.h"

using namespace auglab;
using namespace auglab::testing;

class TestRenderGeometry : public QObject {
    Q_OBJECT

private slots:
    void randomResizedCropResizesTheCrop();
    void frameChangesAfterPixelOps();
    void quarterTurnsAndTransposeAreExact();
    void resizesAsOpenCvResizes();
    void paddingAndCropsAsOpenCv();
    void wholePixelRemapsAreCopies();
    void flipsReadUpwardStripByStrip();
    void wholeNumberMapsAsIntegers();
    void sourceRegionHoldsEveryTap_data();
    void sourceRegionHoldsEveryTap();
};

void TestRenderGeometry::randomResizedCropResizesTheCrop() {
    // The crop of the image resized to `size`, against OpenCV's cv::resize of the same crop
    // (INTER_LINEAR, what Albumentations calls) within SPEC §2's linear bounds; the ops after it
    // work at the new size; the replay reproduces it; a tile keeps the output's aspect.
    const Image photo = loadImage(samplePath("chelsea.png")).image;  // 451 x 300
    SourceLevels src(photo);
    OpConfig c = op("random_resized_crop");
    c.set("size", Size2{150, 200});
    c.set("scale", Range{0.2, 0.9});
    OpConfig flip = op("horizontal_flip");
    CpuBackend cpu(2);
    int upscaled = 0, downscaled = 0;
    for (std::uint64_t i = 0; i < 12; ++i) {
        Replay r;
        const Image out = renderSample({c}, src, 5, i, cpu, &r);
        QCOMPARE(out.width, 200);
        QCOMPARE(out.height, 150);
        const auto& p = std::get<CropParams>(r.ops[0].params);
        cv::Mat expected;
        cv::resize(toMat(photo)(cv::Rect(p.x, p.y, p.width, p.height)), expected, cv::Size(200, 150), 0, 0,
                   cv::INTER_LINEAR);
        const Diff d = compare(out, fromMat(expected));
        const QByteArray where =
            QByteArray::number(p.width) + "x" + QByteArray::number(p.height) + ": " + d.describe();
        qInfo("crop %s", where.constData());
        QVERIFY2(d.withinLinearBounds(), where.constData());
        upscaled += p.width < 200;
        downscaled += p.width > 200;
        QVERIFY(samePixels(renderReplay(parseReplay(serializeReplay(r)), src, cpu), out));
        // A flip after the crop mirrors the crop's output (one fused warp: the 1/32-pixel rounding
        // of mirrored positions may differ by a level).
        const Image flipped = renderSample({c, flip}, src, 5, i, cpu);
        cv::Mat mirrored;
        cv::flip(toMat(out), mirrored, 1);
        const Diff f = compare(flipped, fromMat(mirrored));
        QVERIFY2(f.maxAbs <= 2 && f.meanAbs < 0.1, f.describe().constData());
    }
    QVERIFY(upscaled > 0 && downscaled > 0);
    SheetOptions o;
    o.rows = o.cols = 2;
    o.tile = 100;
    const Sheet sheet = renderSheet({c}, {&src}, o, cpu);
    QCOMPARE(QSize(sheet.tiles[0].width, sheet.tiles[0].height), QSize(100, 75));

    // A crop shrunk by more than 2x (512 -> 224): full resolution is still plain cv::resize of the
    // source (the library's pixels), not a pre-filtered level; tiles do read one.
    const Image big = loadImage(samplePath("astronaut.png")).image;
    SourceLevels bigSrc(big);
    OpConfig shrink = op("random_resized_crop");
    shrink.set("size", Size2{224, 224});
    shrink.set("scale", Range{0.9, 1.0});
    for (std::uint64_t i = 0; i < 6; ++i) {
        Replay r;
        const Image out = renderSample({shrink}, bigSrc, 9, i, cpu, &r);
        QCOMPARE(buildFullPlan(r, 512, 512).stages[0].warp.sourceLevel, 0);
        QVERIFY(buildPlan(r, 512, 512, 224, 224).stages[0].warp.sourceLevel >= 1);
        const auto& p = std::get<CropParams>(r.ops[0].params);
        QVERIFY(p.width > 2 * 224);
        cv::Mat expected;
        cv::resize(toMat(big)(cv::Rect(p.x, p.y, p.width, p.height)), expected, cv::Size(224, 224), 0, 0,
                   cv::INTER_LINEAR);
        const Diff d = compare(out, fromMat(expected));
        QVERIFY2(d.withinLinearBounds(), d.describe().constData());
    }
}


void TestRenderGeometry::frameChangesAfterPixelOps() {
    // Each plan stage has its own size: a crop or a resize after pixel ops leaves them at the size
    // before it, so the pipeline renders as its ops applied one after the other.
    const Image photo = photoCrop("rocket.jpg", 64, 48, 3);
    SourceLevels src(photo);
    CpuBackend cpu(1);
    OpConfig blur = op("box_blur");
    blur.set("kernel_size", Range{3, 3});
    OpConfig crop = op("random_resized_crop");
    crop.set("size", Size2{40, 30});  // height, width
    OpConfig sharpen = op("sharpen");
    OpConfig resize = op("resize");
    resize.set("size", Size2{20, 50});
    const std::vector<OpConfig> pipeline{blur, crop, sharpen, resize};
    std::string why;
    QCOMPARE(pipelineOrderError(pipeline, why), -1);
    QCOMPARE(pipelineOrderError({crop, op("affine"), crop, resize}, why), -1);  // several, too
    const Replay r = samplePipeline(pipeline, 3, 0, 64, 48);
    for (const ConcreteOp& o : r.ops) QVERIFY(o.applied);

    const Plan full = buildFullPlan(r, 64, 48);
    QCOMPARE(full.stages.size(), std::size_t(3));  // blur | crop + sharpen | resize
    const std::vector<std::pair<int, int>> fullSizes{{64, 48}, {30, 40}, {50, 20}};
    for (std::size_t s = 0; s < full.stages.size(); ++s) {
        QCOMPARE(full.stages[s].width, fullSizes[s].first);
        QCOMPARE(full.stages[s].height, fullSizes[s].second);
    }
    const Image whole = executePlanCpu(src, full, RowLoop{});
    QCOMPARE(whole.width, 50);
    QCOMPARE(whole.height, 20);

    // The same ops one at a time, each on the previous one's output.
    Image current = photo;
    for (const ConcreteOp& o : r.ops) {
        Replay one;
        one.imageWidth = current.width;
        one.imageHeight = current.height;
        one.ops = {o};
        SourceLevels levels(current);
        current = executePlanCpu(levels, buildFullPlan(one, current.width, current.height), RowLoop{});
    }
    QVERIFY(samePixels(whole, current));
    QCOMPARE(inventedShare(full), 0.0);  // crops and resizes invent nothing

    // A tile at half the final size: every stage at half its frame's size, the last one the tile's.
    const Plan tile = buildPlan(r, 64, 48, 25, 10);
    const std::vector<std::pair<int, int>> tileSizes{{32, 24}, {15, 20}, {25, 10}};
    QCOMPARE(tile.stages.size(), std::size_t(3));
    for (std::size_t s = 0; s < tile.stages.size(); ++s) {
        QCOMPARE(tile.stages[s].width, tileSizes[s].first);
        QCOMPARE(tile.stages[s].height, tileSizes[s].second);
        if (s > 0) {
            QCOMPARE(tile.stages[s].warp.inputWidth, tileSizes[s - 1].first);
            QCOMPARE(tile.stages[s].warp.inputHeight, tileSizes[s - 1].second);
        }
    }
    const Image small = executePlanCpu(src, tile, RowLoop{});
    QCOMPARE(small.width, 25);
    QCOMPARE(small.height, 10);

    // Replays with frame changes after pixel ops read back as they were written.
    QVERIFY(parseReplay(serializeReplay(r), "replay") == r);
}

void TestRenderGeometry::quarterTurnsAndTransposeAreExact() {
    // np.rot90's quarter turns and the transpose, against OpenCV's cv::rotate and cv::transpose on a
    // non-square photo: bit for bit, alone and after a pixel op (a stage of another size before them).
    const Image photo = loadImage(samplePath("chelsea.png")).image;  // 451 x 300
    SourceLevels src(photo);
    CpuBackend cpu(2);
    OpConfig blur = op("box_blur");
    blur.set("kernel_size", Range{5, 5});
    const Image blurred = renderSample({blur}, src, 1, 0, cpu);
    std::set<int> seen;
    for (std::uint64_t i = 0; i < 24; ++i) {
        Replay r;
        const Image out = renderSample({blur, op("random_rotate90")}, src, 9, i, cpu, &r);
        const int k = std::get<Rot90Params>(r.ops[1].params).factor;
        seen.insert(k);
        cv::Mat expected = toMat(blurred).clone();
        if (k == 1) cv::rotate(toMat(blurred), expected, cv::ROTATE_90_COUNTERCLOCKWISE);
        if (k == 2) cv::rotate(toMat(blurred), expected, cv::ROTATE_180);
        if (k == 3) cv::rotate(toMat(blurred), expected, cv::ROTATE_90_CLOCKWISE);
        QVERIFY2(samePixels(out, fromMat(expected)), qPrintable("k = " + QString::number(k)));
        QVERIFY(samePixels(renderReplay(parseReplay(serializeReplay(r)), src, cpu), out));
    }
    QCOMPARE(seen, (std::set<int>{0, 1, 2, 3}));
    cv::Mat transposed;
    cv::transpose(toMat(photo), transposed);
    QVERIFY(samePixels(renderSample({op("transpose")}, src, 1, 0, cpu), fromMat(transposed)));
    // A tile of the transposed photo is tall: the frame's sides swapped before the tile was fitted.
    SheetOptions o;
    o.rows = o.cols = 1;
    o.tile = 90;
    const Sheet sheet = renderSheet({op("transpose")}, {&src}, o, cpu);
    QCOMPARE(sheet.tiles[0].width, 60);
    QCOMPARE(sheet.tiles[0].height, 90);
}

void TestRenderGeometry::resizesAsOpenCvResizes() {
    // resize against cv::resize: INTER_NEAREST bit for bit (floor(x * old / new)), INTER_LINEAR within
    // SPEC §2's linear bounds, down and up; the max-size ops' sizes as Albumentations rounds them.
    const Image photo = loadImage(samplePath("chelsea.png")).image;  // 451 x 300
    SourceLevels src(photo);
    CpuBackend cpu(2);
    for (const Size2 size : {Size2{120, 200}, Size2{517, 640}, Size2{300, 451}, Size2{37, 1000}}) {
        OpConfig r = op("resize");
        r.set("size", size);
        cv::Mat linear, nearest;
        cv::resize(toMat(photo), linear, cv::Size(size.width, size.height), 0, 0, cv::INTER_LINEAR);
        cv::resize(toMat(photo), nearest, cv::Size(size.width, size.height), 0, 0, cv::INTER_NEAREST);
        const Diff d = compare(renderSample({r}, src, 1, 0, cpu), fromMat(linear));
        qInfo("resize to %dx%d, linear: %s", size.width, size.height, d.describe().constData());
        QVERIFY2(d.withinLinearBounds(), d.describe().constData());
        r.set("interpolation", std::string("nearest"));
        QVERIFY(samePixels(renderSample({r}, src, 1, 0, cpu), fromMat(nearest)));
    }
    OpConfig longest = op("longest_max_size"), smallest = op("smallest_max_size");
    longest.set("max_size", Range{300, 300});
    smallest.set("max_size", Range{256, 256});
    // 451 x 300: scale 300/451 -> 300 x round(199.56) = 200; 256/300 -> round(384.85) = 385 x 256.
    const Image l = renderSample({longest}, src, 1, 0, cpu), s = renderSample({smallest}, src, 1, 0, cpu);
    QCOMPARE(l.width, 300);
    QCOMPARE(l.height, 200);
    QCOMPARE(s.width, 385);
    QCOMPARE(s.height, 256);
}

void TestRenderGeometry::paddingAndCropsAsOpenCv() {
    // pad_if_needed against cv::copyMakeBorder for every border mode (paddings larger than the
    // image too, which reflect more than once), positions as the library places them; crops as
    // windows of the padded image; bit for bit, alone and after a pixel op.
    const Image photo = photoCrop("chelsea.png", 61, 40, 3);
    SourceLevels src(photo);
    CpuBackend cpu(1);
    const std::vector<std::pair<const char*, int>> borders{{"constant", cv::BORDER_CONSTANT},
                                                           {"replicate", cv::BORDER_REPLICATE},
                                                           {"reflect", cv::BORDER_REFLECT},
                                                           {"reflect_101", cv::BORDER_REFLECT_101},
                                                           {"wrap", cv::BORDER_WRAP}};
    for (const auto& [name, cvBorder] : borders)
        for (const Size2 min : {Size2{57, 70}, Size2{150, 200}}) {
            OpConfig pad = op("pad_if_needed");
            pad.set("min_size", min);
            pad.set("border", std::string(name));
            pad.set("fill", Fill{Fill::Mode::Constant, {10, 200, 30}});
            // Centred: int(missing / 2) before, the rest after.
            const int top = (min.height - 40) / 2, left = (min.width - 61) / 2;
            cv::Mat expected;
            cv::copyMakeBorder(toMat(photo), expected, top, min.height - 40 - top, left,
                               min.width - 61 - left, cvBorder, cv::Scalar(10, 200, 30));
            const QByteArray what = QByteArray(name) + " to " + QByteArray::number(min.width) + "x" +
                                    QByteArray::number(min.height);
            QVERIFY2(samePixels(renderSample({pad}, src, 1, 0, cpu), fromMat(expected)), what.constData());
            // A crop of the padded image is that window of it.
            OpConfig crop = op("center_crop");
            crop.set("size", Size2{min.height - 7, min.width - 12});
            const Image cropped = renderSample({pad, crop}, src, 1, 0, cpu);
            const cv::Mat window = expected(cv::Rect(6, 3, min.width - 12, min.height - 7));
            QVERIFY2(samePixels(cropped, fromMat(window.clone())), what.constData());
        }
    // A random crop lies inside the image, each place drawn as int((H - h + 1) u); after a blur.
    OpConfig blur = op("box_blur"), crop = op("random_crop");
    blur.set("kernel_size", Range{3, 3});
    crop.set("size", Size2{25, 30});
    const Image blurred = renderSample({blur}, src, 1, 0, cpu);
    for (std::uint64_t i = 0; i < 6; ++i) {
        Replay r;
        const Image out = renderSample({blur, crop}, src, 4, i, cpu, &r);
        const auto& c = std::get<CropPadParams>(r.ops[1].params);
        QVERIFY(c.x >= 0 && c.x <= 61 - 30 && c.y >= 0 && c.y <= 40 - 25 && !c.padded);
        const cv::Mat window = toMat(blurred)(cv::Rect(c.x, c.y, 30, 25));
        QVERIFY(samePixels(out, fromMat(window.clone())));
        QVERIFY(samePixels(renderReplay(parseReplay(serializeReplay(r)), src, cpu), out));
    }
    // A window larger than the image without padding is refused, naming the op and the sizes.
    crop.set("size", Size2{50, 30});
    try {
        (void)renderSample({crop}, src, 1, 0, cpu);
        QFAIL("a crop larger than the image was made");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find(
                     "random_crop: the window [50, 30] is larger than the 61x40 image") != std::string::npos,
                 e.what());
    }
}


void TestRenderGeometry::flipsReadUpwardStripByStrip() {
    // A map that reads the source from the bottom up (a vertical flip, a half turn) is written
    // strip by strip from the last strip (cpu::readsUpward): every output row is still the source
    // row the flip names, on one thread and on four, for heights of many strips and a partial one.
    ThreadPool pool(4);
    for (const int h : {1, 37, 300})
        for (const char* name : {"vertical_flip", "rotate_180"}) {
            const Image src = photoCrop("coffee.png", 97, h, 3);
            SourceLevels levels(src);
            OpConfig flip = op(std::string(name) == "rotate_180" ? "random_rotate90" : name);
            flip.p = 1;
            Replay r = samplePipeline(std::vector<OpConfig>{flip}, 5, 0, 97, h);
            if (std::string(name) == "rotate_180") {  // the draw that turns twice
                for (std::uint64_t i = 1; std::get<Rot90Params>(r.ops[0].params).factor != 2; ++i)
                    r = samplePipeline(std::vector<OpConfig>{flip}, 5, i, 97, h);
            }
            const Plan plan = buildFullPlan(r, 97, h);
            for (const RowLoop& loop : {RowLoop{nullptr}, RowLoop{&pool}}) {
                const Image out = executePlanCpu(levels, plan, loop);
                QCOMPARE(out.height, h);
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < 97; ++x) {
                        const int sx = std::string(name) == "rotate_180" ? 96 - x : x;
                        if (std::memcmp(out.at(x, y), src.at(sx, h - 1 - y), 3) != 0)
                            QFAIL(qPrintable(QString("%1, height %2: pixel (%3, %4) is not the source's (%5, %6)")
                                                 .arg(name).arg(h).arg(x).arg(y).arg(sx).arg(h - 1 - y)));
                    }
            }
        }
}

void TestRenderGeometry::wholePixelRemapsAreCopies() {
    // RandomGridShuffle's remap moves whole pixels: its map says so, and the copies it then runs
    // as give the bilinear remap's bytes (the same plan with the flag cleared), on sizes the grid
    // does not divide, 3 and 4 channels. An elastic transform's remap is not whole.
    for (int channels : {3, 4}) {
        OpConfig shuffle = op("random_grid_shuffle");
        shuffle.p = 1;
        const Image src = photoCrop("coffee.png", 161, 121, channels);
        SourceLevels levels(src);
        const Replay r = samplePipeline(std::vector<OpConfig>{shuffle}, 5, 0, 161, 121);
        const Plan plan = buildFullPlan(r, 161, 121);
        QCOMPARE(plan.stages.size(), std::size_t(1));
        QVERIFY(plan.stages[0].warp.remap && plan.stages[0].warp.remap->whole);
        Plan generic = plan;
        auto map = std::make_shared<RemapMap>(*plan.stages[0].warp.remap);
        map->whole = false;
        generic.stages[0].warp.remap = map;
        const Image fast = executePlanCpu(levels, plan, RowLoop{nullptr});
        QVERIFY(samePixels(fast, executePlanCpu(levels, generic, RowLoop{nullptr})));
        QVERIFY(!samePixels(fast, src));
    }
    OpConfig elastic = op("elastic_transform");
    elastic.p = 1;
    const Plan bent = buildFullPlan(samplePipeline(std::vector<OpConfig>{elastic}, 5, 0, 161, 121), 161, 121);
    QVERIFY(bent.stages.back().warp.remap && !bent.stages.back().warp.remap->whole);
}

void TestRenderGeometry::wholeNumberMapsAsIntegers() {
    // remapStageTiles (RandomGridShuffle's maps at full resolution, given as moved rectangles) makes
    // the stage remapStage makes of the same positions as floats: rectangles moved inside and
    // far outside the image, linear and nearest, for images and for masks.
    const int w = 37, h = 23;
    std::mt19937 rng(3);
    for (bool inside : {true, false})
        for (auto interp : {Interpolation::Linear, Interpolation::Nearest})
            for (bool masks : {false, true}) {
                // A 3 x 4 grid of rectangles of uneven sides, each moved by its own offset.
                const int xs[] = {0, 9, 20, 37}, ys[] = {0, 5, 11, 16, 23};
                std::vector<RemapMap::Tile> tiles;
                std::vector<float> mx(std::size_t(w) * h), my(mx.size());
                for (int r = 0; r < 4; ++r)
                    for (int c = 0; c < 3; ++c) {
                        RemapMap::Tile t{xs[c], ys[r], xs[c + 1] - xs[c], ys[r + 1] - ys[r], 0, 0};
                        t.dx = inside ? int(rng() % unsigned(w - t.w + 1)) - t.x : int(rng() % 60000) - 30000;
                        t.dy = inside ? int(rng() % unsigned(h - t.h + 1)) - t.y : int(rng() % 61) - 30;
                        tiles.push_back(t);
                        for (int y = t.y; y < t.y + t.h; ++y)
                            for (int x = t.x; x < t.x + t.w; ++x) {
                                mx[std::size_t(y) * w + x] = float(x + t.dx);
                                my[std::size_t(y) * w + x] = float(y + t.dy);
                            }
                    }
                auto builder = [&] {
                    return masks ? PlanBuilder::forMasks(w, h, w, h, 7)
                                 : PlanBuilder(w, h, w, h, SourceSampling::Source);
                };
                PlanBuilder a = builder(), b = builder();
                a.remapStage(mx, my, interp, BorderMode::Reflect101, Rgb{1, 2, 3});
                b.remapStageTiles(tiles, interp, BorderMode::Reflect101, Rgb{1, 2, 3});
                const Plan pa = a.finish(), pb = b.finish();
                QCOMPARE(pa.stages.size(), pb.stages.size());
                const WarpStep &wa = pa.stages.back().warp, &wb = pb.stages.back().warp;
                QVERIFY(wa.remap && wb.remap);
                QVERIFY(wb.remap->xy.empty());  // made only when read
                QVERIFY(wa.remap->positions() == wb.remap->positions());
                QCOMPARE(wa.remap->whole, wb.remap->whole);
                QCOMPARE(wa.remap->whole, inside);
                QCOMPARE(int(wa.interpolation), int(wb.interpolation));
                QCOMPARE(wa.inputWidth, wb.inputWidth);
                QCOMPARE(wa.sourceLevel, wb.sourceLevel);
                QVERIFY(wa.fill == wb.fill && wa.border == wb.border && wa.projective && wb.projective);
            }
}

void TestRenderGeometry::sourceRegionHoldsEveryTap_data() {
    QTest::addColumn<QString>("ops");
    QTest::addColumn<bool>("partial");  // some samples read only part of the source
    const auto row = [](const char* name, const char* ops, bool partial) {
        QTest::newRow(name) << QString(ops) << partial;
    };
    row("random_resized_crop", R"({"op": "random_resized_crop", "size": [96, 96]})", true);
    row("random_resized_crop nearest", R"({"op": "random_resized_crop", "size": [200, 150], "interpolation": "nearest"})", true);
    row("classification", R"({"op": "random_resized_crop", "size": [64, 64]}, {"op": "horizontal_flip", "p": 0.5},
        {"op": "color_jitter", "p": 0.8}, {"op": "coarse_dropout", "p": 0.5})", true);
    row("random_sized_crop", R"({"op": "random_sized_crop"})", true);
    row("random_crop, flip", R"({"op": "random_crop"}, {"op": "vertical_flip"})", true);
    row("center_crop, transpose", R"({"op": "center_crop"}, {"op": "transpose"})", true);
    row("affine constant", R"({"op": "affine", "scale_x": [1.2, 2.5], "scale_y": [1.2, 2.5], "rotate_deg": [-40, 40], "border": "constant"})", true);
    row("affine replicate", R"({"op": "affine", "scale_x": [1.2, 2.5], "scale_y": [1.2, 2.5], "rotate_deg": [-40, 40], "border": "replicate"})", true);
    row("affine reflect", R"({"op": "affine", "scale_x": [1.5, 3], "scale_y": [1.5, 3], "translate_x_frac": [-0.2, 0.2], "border": "reflect_101"})", true);
    row("affine wrap, shrinking", R"({"op": "affine", "scale_x": [0.5, 0.9], "scale_y": [0.5, 0.9], "border": "wrap"})", false);
    row("perspective", R"({"op": "perspective"}, {"op": "random_crop"})", true);
    // A pad is a stage of its own (the crop reads the padded frame): the whole source is read.
    row("pad (reflected) then crop", R"({"op": "pad_if_needed", "min_size": [700, 700]}, {"op": "random_crop", "size": [150, 200]})", false);
    row("pad (constant) then crop", R"({"op": "pad_if_needed", "min_size": [700, 700], "border": "constant"},
        {"op": "random_crop", "size": [150, 200]})", false);
    row("resize", R"({"op": "resize"}, {"op": "brightness_contrast"})", false);
    row("grid_distortion (a remap)", R"({"op": "grid_distortion"})", false);
    row("mixup (a partner)", R"({"op": "random_resized_crop", "size": [96, 96]}, {"op": "mixup"})", false);
}

void TestRenderGeometry::sourceRegionHoldsEveryTap() {
    // planSourceRegion: a source whose pixels outside the region are noise renders the same bytes
    // as the whole source, for every kind of first warp and border.
    QFETCH(QString, ops);
    QFETCH(bool, partial);
    const Pipeline pipeline = parsePreset(R"({"format": "auglab-preset", "version": 1, "seed": 3, "pipeline": [)" +
                                          ops.toStdString() + "]}")
                                  .pipeline;
    const Image src = loadImage(samplePath("coffee.png")).image;  // 600 x 400
    const PixelRect all{0, 0, src.width, src.height};
    SourceLevels whole(src);
    CpuBackend cpu(1);
    std::mt19937 noise(5);
    int regions = 0, smaller = 0;
    for (std::uint64_t i = 0; i < 40; ++i) {
        const Replay replay = samplePipeline(pipeline, 3, i, src.width, src.height);
        const std::optional<PixelRect> r = planSourceRegion(buildFullPlan(replay, src.width, src.height),
                                                             src.width, src.height);
        if (!r) continue;
        ++regions;
        QVERIFY(!r->empty() && all.contains(*r));
        if (r->width * r->height < src.width * src.height) ++smaller;
        Image poisoned = src;
        for (int y = 0; y < src.height; ++y)
            for (int x = 0; x < src.width; ++x)
                if (x < r->x || y < r->y || x >= r->x + r->width || y >= r->y + r->height)
                    for (int c = 0; c < 3; ++c) poisoned.at(x, y)[c] = static_cast<std::uint8_t>(noise());
        SourceLevels part(std::move(poisoned));
        QVERIFY2(samePixels(renderReplay(replay, part, cpu), renderReplay(replay, whole, cpu)),
                 qPrintable(QString("sample %1, region %2,%3 %4x%5").arg(i).arg(r->x).arg(r->y).arg(r->width).arg(r->height)));
    }
    if (partial) {
        QVERIFY2(smaller >= 10, qPrintable(QString("%1 of 40 samples read part of the source").arg(smaller)));
    } else {
        QCOMPARE(smaller, 0);
    }
    qInfo("%d of 40 samples with a region, %d of them smaller than the source", regions, smaller);
}


QTEST_APPLESS_MAIN(TestRenderGeometry)
#include "test_render_geometry.moc"
