// Plans and rendering: fusion of geometric ops, stage order, tiles from pre-filtered levels,
// determinism across threads and grid sizes, tile i == apply(i), replay == apply bit for bit.

#include <QtTest>

#include <opencv2/imgproc.hpp>
#include <random>
#include <set>

#include "contact_sheet.h"
#include "cpu_backend.h"
#include "error.h"
#include "fallback_backend.h"
#include "geometry.h"
#include "host_steps.h"
#include "plan_builder.h"
#include "preset.h"
#include "realism.h"
#include "sampler.h"
#include "test_support.h"

using namespace auglab;
using namespace auglab::testing;

namespace {

OpConfig op(const char* name) {
    return OpConfig::withDefaults(name);
}

std::vector<OpConfig> busyPipeline() {
    OpConfig affine = op("affine");
    affine.set("rotate_deg", Range{-30, 30});
    affine.set("border", std::string("reflect_101"));
    OpConfig flip = op("horizontal_flip");
    flip.p = 0.5;
    OpConfig drop = op("coarse_dropout");
    drop.set("fill", Fill{Fill::Mode::RandomUniform, {}});
    return {affine, flip, drop, op("brightness_contrast"), op("hue_saturation_value"), op("gauss_noise")};
}

Image crop(const Image& img, int x0, int y0, int w, int h) {
    Image out(w, h, img.channels);
    for (int y = 0; y < h; ++y)
        std::copy(img.at(x0, y0 + y), img.at(x0, y0 + y) + w * img.channels, out.row(y));
    return out;
}

}  // namespace

class TestRender : public QObject {
    Q_OBJECT

private slots:
    void geometricOpsFuseIntoOneWarp();
    void pixelOpBetweenWarpsKeepsOrder();
    void tilesReadPrefilteredLevels_data();
    void tilesReadPrefilteredLevels();
    void tileLooksLikeAreaDownscale();
    void sameOutputForAnyThreadCount();
    void tileDoesNotDependOnGridSize();
    void tileEqualsApplyReplay();
    void replayReproducesApply();
    void alphaTravelsWithGeometry();
    void datasetModePagesThroughImages();
    void compareModePairsOriginals();
    void degeneratePerspectiveIsAnError();
    void replayForAnotherSizeIsAnError();
    void randomResizedCropResizesTheCrop();
    void frameChangesAfterPixelOps();
    void quarterTurnsAndTransposeAreExact();
    void resizesAsOpenCvResizes();
    void paddingAndCropsAsOpenCv();
    void trainingTailIsNotPreviewed();
    void deotteFollowsTheNotebook_data();
    void deotteFollowsTheNotebook();
    void failingBackendFallsThroughToCpu();
    void tablesInARowComposeIntoOne();
    void wholePixelRemapsAreCopies();
    void wholeNumberMapsAsIntegers();
    void hostStepsSplitTheirPlans();
    void sourceRegionHoldsEveryTap_data();
    void sourceRegionHoldsEveryTap();
};

void TestRender::geometricOpsFuseIntoOneWarp() {
    const std::vector<OpConfig> p{op("affine"), op("horizontal_flip"), op("vertical_flip"),
                                  op("brightness_contrast")};
    const Replay r = samplePipeline(p, 1, 0, 400, 300);
    const Plan plan = buildPlan(r, 400, 300, 400, 300);
    QCOMPARE(plan.stages.size(), std::size_t(1));
    QCOMPARE(plan.stages[0].ops.size(), std::size_t(1));
    // The fused inverse equals (V * H * A)^-1.
    const Matrix3 fwd = verticalFlipMatrix(300) * horizontalFlipMatrix(400) *
                        affineMatrix(std::get<AffineParams>(r.ops[0].params), 400, 300);
    const Matrix3 inv = fwd.inverse();
    const auto& w = plan.stages[0].warp.inverse;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) QVERIFY(std::abs(w[std::size_t(i * 3 + j)] - inv(i, j)) < 1e-9);
}

void TestRender::pixelOpBetweenWarpsKeepsOrder() {
    // Cutout, then a flip: the hole must be flipped with the image. Compare with doing the two
    // steps by hand: cutout on the source, then cv::flip.
    OpConfig drop = op("coarse_dropout");
    drop.set("holes", Range{1, 1});
    drop.set("fill", Fill{Fill::Mode::Constant, {255, 0, 255}});
    const std::vector<OpConfig> p{drop, op("horizontal_flip")};
    const Image src = photoCrop("coffee.png", 200, 120, 3);
    SourceLevels levels(src);
    CpuBackend cpu(1);
    Replay r;
    const Image out = renderSample(p, levels, 4, 0, cpu, &r);
    QCOMPARE(buildPlan(r, 200, 120, 200, 120).stages.size(), std::size_t(2));
    const Hole h = std::get<DropoutParams>(r.ops[0].params).holes.at(0);
    QVERIFY(h.w > 0 && h.h > 0);
    Image expected = src;
    for (int y = h.y; y < h.y + h.h; ++y)
        for (int x = h.x; x < h.x + h.w; ++x) {
            expected.at(x, y)[0] = 255;
            expected.at(x, y)[1] = 0;
            expected.at(x, y)[2] = 255;
        }
    cv::Mat flipped;
    cv::flip(toMat(expected), flipped, 1);
    QVERIFY(samePixels(out, fromMat(flipped)));
}

void TestRender::tilesReadPrefilteredLevels_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("tile");
    QTest::addColumn<int>("level");
    QTest::newRow("4000x3000 to 256") << 4000 << 3000 << 256 << 3;  // 500x375 level >= 256x192 tile
    QTest::newRow("1000x750 to 256") << 1000 << 750 << 256 << 1;
    QTest::newRow("1024x1024 to 256") << 1024 << 1024 << 256 << 2;
    QTest::newRow("512x512 to 512") << 512 << 512 << 512 << 0;
    QTest::newRow("100x80 to 256 (upscale)") << 100 << 80 << 256 << 0;
}

void TestRender::tilesReadPrefilteredLevels() {
    // The work of a tile is bounded by the tile, not the source: the first warp reads a level
    // at most twice the tile's size on each axis.
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, tile);
    QFETCH(int, level);
    int tw = 0, th = 0;
    tileSize(width, height, tile, tw, th);
    const Replay r = samplePipeline({op("affine")}, 1, 0, width, height);
    const Plan plan = buildPlan(r, width, height, tw, th);
    const WarpStep& w = plan.stages.at(0).warp;
    QCOMPARE(w.sourceLevel, level);
    QVERIFY(w.inputWidth >= tw || tw > width);
    QVERIFY(w.inputWidth < 2 * tw + 2 || level == 0);
}

void TestRender::tileLooksLikeAreaDownscale() {
    // With no augmentation, a tile of a photo is close to cv::resize INTER_AREA (no aliasing).
    const Image src = loadImage(samplePath("astronaut.png")).image;  // 512x512
    SourceLevels levels(src);
    OpConfig a = op("affine");
    for (const char* key : {"rotate_deg", "scale_x", "scale_y", "translate_x_frac", "translate_y_frac"})
        a.set(key, Range{key[0] == 's' ? 1.0 : 0.0, key[0] == 's' ? 1.0 : 0.0});
    SheetOptions o;
    o.rows = o.cols = 1;
    o.tile = 96;  // 512 -> 96: level 2 (128) then a 1.33x minification
    o.gap = 0;
    CpuBackend cpu(1);
    const Sheet s = renderSheet({a}, {&levels}, o, cpu);
    cv::Mat area;
    cv::resize(toMat(src), area, cv::Size(96, 96), 0, 0, cv::INTER_AREA);
    const Diff d = compare(crop(s.image, 0, 0, 96, 96), fromMat(area));
    qInfo("96 px tile vs INTER_AREA: %s", d.describe().constData());
    QVERIFY2(d.meanAbs < 4.0, d.describe().constData());
    // Sampling the full-resolution source directly (bilinear, no levels) aliases: further off.
    const Matrix3 inv = resizeMatrix(512, 512, 96, 96).inverse();
    WarpStep direct;
    direct.inverse = {inv(0, 0), inv(0, 1), inv(0, 2), inv(1, 0), inv(1, 1), inv(1, 2)};
    direct.inputWidth = direct.inputHeight = 512;
    Image aliased(96, 96, 3);
    warpRows(src, aliased, direct, 0, 96);
    const Diff da = compare(aliased, fromMat(area));
    qInfo("direct bilinear from full resolution vs INTER_AREA: %s", da.describe().constData());
    QVERIFY(da.meanAbs > 1.5 * d.meanAbs);
}

void TestRender::sameOutputForAnyThreadCount() {
    const Image src = loadImage(samplePath("chelsea.png")).image;
    SourceLevels levels(src);
    SheetOptions o;
    o.rows = o.cols = 4;
    o.tile = 64;
    o.seed = 77;
    CpuBackend one(1), two(2), three(3);
    const Sheet a = renderSheet(busyPipeline(), {&levels}, o, one);
    QVERIFY(samePixels(a.image, renderSheet(busyPipeline(), {&levels}, o, two).image));
    QVERIFY(samePixels(a.image, renderSheet(busyPipeline(), {&levels}, o, three).image));
    // Full resolution uses row parallelism: the same there.
    const Image f1 = renderSample(busyPipeline(), levels, 77, 5, one);
    QVERIFY(samePixels(f1, renderSample(busyPipeline(), levels, 77, 5, two)));
}

void TestRender::tileDoesNotDependOnGridSize() {
    const Image src = loadImage(samplePath("rocket.jpg")).image;
    SourceLevels levels(src);
    CpuBackend cpu(2);
    SheetOptions small, large;
    small.rows = small.cols = 2;
    large.rows = large.cols = 5;
    small.tile = large.tile = 80;
    small.seed = large.seed = 9;
    const Sheet a = renderSheet(busyPipeline(), {&levels}, small, cpu);
    const Sheet b = renderSheet(busyPipeline(), {&levels}, large, cpu);
    // Sample 3 is tile 3 in both grids.
    const SheetTile& ta = a.tiles[3];
    const SheetTile& tb = b.tiles[3];
    QCOMPARE(ta.sampleIndex, tb.sampleIndex);
    QCOMPARE(ta.replay, tb.replay);
    QVERIFY(samePixels(crop(a.image, ta.x, ta.y, ta.width, ta.height),
                       crop(b.image, tb.x, tb.y, tb.width, tb.height)));
    // Page 1 of the 2x2 grid starts at sample 4, which is tile 4 of the 5x5 grid.
    small.page = 1;
    const Sheet c = renderSheet(busyPipeline(), {&levels}, small, cpu);
    QCOMPARE(c.tiles[0].sampleIndex, std::uint64_t(4));
    QCOMPARE(c.tiles[0].replay, b.tiles[4].replay);
}

void TestRender::tileEqualsApplyReplay() {
    const Image src = loadImage(samplePath("coffee.png")).image;
    SourceLevels levels(src);
    CpuBackend cpu(2);
    SheetOptions o;
    o.rows = o.cols = 3;
    o.tile = 64;
    o.seed = 1234;
    const Sheet s = renderSheet(busyPipeline(), {&levels}, o, cpu);
    for (std::uint64_t i = 0; i < 9; ++i) {
        Replay r;
        const Image applied = renderSample(busyPipeline(), levels, 1234, i, cpu, &r);
        const SheetTile& t = s.tiles[std::size_t(i)];
        QCOMPARE(t.replay, r);
        // The pixels: the tile is apply's output at tile size. Colour ops, noise and holes work per
        // tile pixel, so compare the geometry alone against apply resized by OpenCV's INTER_AREA.
        // The tile is drawn from a pre-filtered level with bilinear taps, another filter (2.8
        // levels of mean difference on this photo for the identity, about 4 rotated), so the check
        // is that it is much closer to its own sample than to the next one.
        const std::vector<OpConfig> geometry{busyPipeline()[0], busyPipeline()[1]};
        SheetOptions one = o;
        one.rows = one.cols = 1;
        one.page = i;
        const Sheet g = renderSheet(geometry, {&levels}, one, cpu);
        const SheetTile& gt = g.tiles[0];
        Image tile(gt.width, gt.height, 3);
        for (int y = 0; y < gt.height; ++y)
            std::copy(g.image.at(gt.x, gt.y + y), g.image.at(gt.x + gt.width, gt.y + y), tile.row(y));
        const auto resizedApply = [&](std::uint64_t index) {
            cv::Mat resized;
            cv::resize(toMat(renderSample(geometry, levels, 1234, index, cpu)), resized,
                       cv::Size(gt.width, gt.height), 0, 0, cv::INTER_AREA);
            return fromMat(resized);
        };
        const Diff same = compare(tile, resizedApply(i)), other = compare(tile, resizedApply(i + 1));
        QVERIFY2(same.meanAbs < 6.0 && other.meanAbs > 2 * same.meanAbs,
                 ("own sample " + same.describe() + "; next sample " + other.describe()).constData());
        QVERIFY(t.width == gt.width && t.height == gt.height);
        (void)applied;
    }
    // A tile as large as the image is apply's output, bit for bit: same plan, same pixels.
    o.rows = o.cols = 2;
    o.tile = std::max(src.width, src.height);
    const Sheet big = renderSheet(busyPipeline(), {&levels}, o, cpu);
    for (std::uint64_t i = 0; i < 4; ++i) {
        const Image applied = renderSample(busyPipeline(), levels, 1234, i, cpu);
        const SheetTile& t = big.tiles[std::size_t(i)];
        QCOMPARE(QSize(t.width, t.height), QSize(applied.width, applied.height));
        Image tile(t.width, t.height, 3);
        for (int y = 0; y < t.height; ++y)
            std::copy(big.image.at(t.x, t.y + y), big.image.at(t.x + t.width, t.y + y), tile.row(y));
        QVERIFY(samePixels(tile, applied));
    }
}

void TestRender::replayReproducesApply() {
    const Image src = loadImage(samplePath("astronaut.png")).image;
    SourceLevels levels(src);
    CpuBackend cpu(2);
    for (std::uint64_t i = 0; i < 4; ++i) {
        Replay r;
        const Image applied = renderSample(busyPipeline(), levels, 5, i, cpu, &r);
        const Replay parsed = parseReplay(serializeReplay(r));
        QCOMPARE(parsed, r);
        QVERIFY(samePixels(renderReplay(parsed, levels, cpu), applied));
    }
}

void TestRender::alphaTravelsWithGeometry() {
    // RGBA: colour ops leave alpha alone; a flip moves it with the pixels.
    const Image src = photoCrop("chelsea.png", 120, 80, 4);
    SourceLevels levels(src);
    CpuBackend cpu(1);
    const Image out =
        renderSample({op("horizontal_flip"), op("brightness_contrast"), op("to_gray")}, levels, 3, 0, cpu);
    QCOMPARE(out.channels, 4);
    for (int y = 0; y < 80; ++y)
        for (int x = 0; x < 120; ++x) QCOMPARE(out.at(x, y)[3], src.at(119 - x, y)[3]);
}

void TestRender::datasetModePagesThroughImages() {
    std::vector<std::unique_ptr<SourceLevels>> images;
    std::vector<SourceLevels*> ptrs;
    for (const char* f : {"astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg"}) {
        images.push_back(std::make_unique<SourceLevels>(loadImage(samplePath(f)).image));
        ptrs.push_back(images.back().get());
    }
    SheetOptions o;
    o.rows = 1;
    o.cols = 3;
    o.tile = 32;
    o.mode = SheetMode::Dataset;
    CpuBackend cpu(1);
    const Sheet p0 = renderSheet(busyPipeline(), ptrs, o, cpu);
    QCOMPARE(p0.tiles[0].sourceIndex, 0);
    QCOMPARE(p0.tiles[2].sourceIndex, 2);
    QCOMPARE(p0.tiles[1].replay.imageWidth, 451);
    // Page 1 gets that page's images; its sample indices continue from page 0.
    o.page = 1;
    const Sheet p1 = renderSheet(busyPipeline(), {ptrs[3]}, o, cpu);
    QCOMPARE(p1.tiles[0].sourceIndex, 0);
    QCOMPARE(p1.tiles[0].sampleIndex, std::uint64_t(3));
    QCOMPARE(p1.tiles[0].replay.imageWidth, 640);
    QCOMPARE(p1.tiles[1].sourceIndex, -1);  // past the end: an empty cell
}

void TestRender::compareModePairsOriginals() {
    const Image src = loadImage(samplePath("chelsea.png")).image;
    SourceLevels levels(src);
    SheetOptions o;
    o.rows = 2;
    o.cols = 2;
    o.tile = 48;
    o.mode = SheetMode::Compare;
    o.page = 3;
    CpuBackend cpu(1);
    const Sheet s = renderSheet(busyPipeline(), {&levels}, o, cpu);
    // Cells 0 and 1: original and sample 6 (two samples a page); cells 2 and 3: sample 7.
    QVERIFY(s.tiles[0].original && !s.tiles[1].original);
    QCOMPARE(s.tiles[1].sampleIndex, std::uint64_t(6));
    QCOMPARE(s.tiles[3].sampleIndex, std::uint64_t(7));
    for (const ConcreteOp& op : s.tiles[0].replay.ops) QVERIFY(!op.applied);
    QCOMPARE(s.tiles[1].replay, samplePipeline(busyPipeline(), 0, 6, src.width, src.height));
}

void TestRender::randomResizedCropResizesTheCrop() {
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

void TestRender::trainingTailIsNotPreviewed() {
    // normalize, to_float, from_float and to_tensor draw nothing that moves the earlier ops' draws and
    // render nothing: the sample and the grid are the image the training tail receives.
    std::vector<OpConfig> tail = busyPipeline();
    for (const char* name : {"normalize", "to_float", "from_float", "to_tensor"}) tail.push_back(op(name));
    const Image src = photoCrop("coffee.png", 160, 120, 3);
    SourceLevels levels(src);
    CpuBackend cpu(1);
    Replay withTail, without;
    const Image a = renderSample(tail, levels, 9, 3, cpu, &withTail);
    const Image b = renderSample(busyPipeline(), levels, 9, 3, cpu, &without);
    QVERIFY(samePixels(a, b));
    QCOMPARE(withTail.ops.size(), without.ops.size() + 4);
    for (std::size_t i = without.ops.size(); i < withTail.ops.size(); ++i) QVERIFY(withTail.ops[i].applied);
    SheetOptions o;
    o.cols = 3;
    o.rows = 2;
    o.tile = 64;
    QVERIFY(samePixels(renderSheet(tail, {&levels}, o, cpu).image,
                       renderSheet(busyPipeline(), {&levels}, o, cpu).image));
}

void TestRender::frameChangesAfterPixelOps() {
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

void TestRender::quarterTurnsAndTransposeAreExact() {
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

void TestRender::resizesAsOpenCvResizes() {
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

void TestRender::paddingAndCropsAsOpenCv() {
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

void TestRender::deotteFollowsTheNotebook_data() {
    QTest::addColumn<int>("dim");
    QTest::newRow("256 (even)") << 256;
    QTest::newRow("331 (odd: the notebook's XDIM fix)") << 331;
    QTest::newRow("7") << 7;
}

void TestRender::deotteFollowsTheNotebook() {
    // The notebook's transform written out here from its text, in float32: m = R SH Z SF, destination
    // indices x = DIM//2 - row, y = col - ceil(DIM/2), source index = int32(m . [x, y, 1]) clipped to
    // [-DIM//2 + XDIM + 1, DIM//2], pixel (row DIM//2 - i0, column DIM//2 - 1 + i1).
    QFETCH(int, dim);
    const Image photo = photoCrop("astronaut.png", dim, dim, 3);
    SourceLevels src(photo);
    CpuBackend cpu(2);
    OpConfig d = op("deotte_affine");
    d.set("rotation_std_deg", 40.0);  // wide draws: strong rotations, edges clamped
    d.set("zoom_std", 0.25);
    for (std::uint64_t i = 0; i < 6; ++i) {
        Replay r;
        const Image out = renderSample({d}, src, 11, i, cpu, &r);
        const auto& p = std::get<DeotteParams>(r.ops[0].params);
        const float pi = 3.14159265358979323846f;
        const float rot = pi * float(p.rotation_deg) / 180.0f, shr = pi * float(p.shear_deg) / 180.0f;
        const float c1 = std::cos(rot), s1 = std::sin(rot), c2 = std::cos(shr), s2 = std::sin(shr);
        const float iz = 1.0f / float(p.height_zoom), jz = 1.0f / float(p.width_zoom);
        const float hs = float(p.height_shift_px), ws = float(p.width_shift_px);
        // R SH = [[c1, c1 s2 + s1 c2], [-s1, -s1 s2 + c1 c2]]; Z SF = [[iz, 0, iz hs], [0, jz, jz ws]].
        const float rs01 = c1 * s2 + s1 * c2, rs11 = -s1 * s2 + c1 * c2;
        const float zs02 = iz * hs, zs12 = jz * ws;
        const float m00 = c1 * iz, m01 = rs01 * jz, m02 = c1 * zs02 + rs01 * zs12;
        const float m10 = -s1 * iz, m11 = rs11 * jz, m12 = -s1 * zs02 + rs11 * zs12;
        const int half = dim / 2, lo = -((dim + 1) / 2) + dim % 2 + 1, hi = half;
        auto index = [&](float v) { return std::clamp(int(v), lo, hi); };
        Image expected(dim, dim, 3);
        for (int row = 0; row < dim; ++row)
            for (int col = 0; col < dim; ++col) {
                const float x = float(half - row), y = float(col - (dim + 1) / 2);
                const int i0 = index(m00 * x + m01 * y + m02), i1 = index(m10 * x + m11 * y + m12);
                std::copy_n(photo.at(half - 1 + i1, half - i0), 3, expected.at(col, row));
            }
        const Diff diff = compare(out, expected);
        QVERIFY2(diff.maxAbs == 0, diff.describe().constData());
    }
    // Tiles render at tile size; a non-square image is refused with a clear error.
    SheetOptions o;
    o.rows = o.cols = 2;
    o.tile = 64;
    const Sheet sheet = renderSheet({d}, {&src}, o, cpu);
    QCOMPARE(sheet.tiles[1].width, 64);
    SourceLevels wide(photoCrop("rocket.jpg", 40, 30, 3));
    try {
        renderSample({d}, wide, 1, 0, cpu);
        QFAIL("deotte_affine rendered a non-square image");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("square images only; this one is 40x30") != std::string::npos,
                 e.what());
    }
    // In a dataset grid the non-square image's cell stays empty with the reason; the others render.
    o.mode = SheetMode::Dataset;
    const Sheet mixed = renderSheet({d}, {&wide, &src}, o, cpu);
    QVERIFY(mixed.tiles[0].error.find("square images only") != std::string::npos);
    QVERIFY(mixed.tiles[1].error.empty());
    const SheetTile& empty = mixed.tiles[0];
    for (int y = empty.y; y < empty.y + empty.height; ++y)
        for (int x = empty.x; x < empty.x + empty.width; ++x)
            QCOMPARE(int(mixed.image.at(x, y)[0]), int(kSheetGapGray));
    QVERIFY(!samePixels(crop(mixed.image, mixed.tiles[1].x, mixed.tiles[1].y, 64, 64),
                        Image(64, 64, 3, kSheetGapGray)));
    try {
        renderSheet({d}, {&wide}, o, cpu);
        QFAIL("a grid where no image can take the pipeline rendered");
    } catch (const InputError& e) {
        QVERIFY(std::string(e.what()).find("square images only") != std::string::npos);
    }
}

void TestRender::degeneratePerspectiveIsAnError() {
    // A 2x1 image with fit_output: the rounded target collapses (three corners on one line, as in
    // Albumentations, whose map is then singular): an error naming the op for that sample, not a crash.
    OpConfig p = op("perspective");
    p.set("fit_output", true);
    p.set("scale", Range{0.1, 0.3});
    SourceLevels tiny(Image(2, 1, 3, 120));
    CpuBackend cpu(1);
    int errors = 0;
    for (std::uint64_t i = 0; i < 8; ++i) {
        try {
            (void)renderSample({p}, tiny, 1, i, cpu);
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("perspective: the moved corners of this 2x1 image") !=
                         std::string::npos,
                     e.what());
            ++errors;
        }
    }
    QVERIFY(errors > 0);
}

void TestRender::replayForAnotherSizeIsAnError() {
    const Replay r = samplePipeline({op("affine")}, 1, 0, 100, 100);
    SourceLevels levels(Image(50, 50, 3));
    CpuBackend cpu(1);
    QVERIFY_THROWS_EXCEPTION(InputError, renderReplay(r, levels, cpu));
}

namespace {
// A backend that fails at run time, as a GPU does on a lost context or an out-of-memory error.
class FailingBackend final : public Backend {
public:
    std::string name() const override { return "failing"; }
    void render(std::span<RenderJob>) override { throw RuntimeError("device lost"); }
};
}  // namespace

void TestRender::failingBackendFallsThroughToCpu() {
    int created = 0;
    FallbackBackend chain({{"gpu",
                            [&created] {
                                ++created;
                                return std::make_unique<FailingBackend>();
                            }},
                           {"cpu", [] { return std::make_unique<CpuBackend>(1); }}});
    SourceLevels levels(loadImage(samplePath("chelsea.png")).image);
    CpuBackend cpu(1);
    const Image out = renderSample(busyPipeline(), levels, 1, 2, chain);
    QVERIFY(samePixels(out, renderSample(busyPipeline(), levels, 1, 2, cpu)));  // the same frame, by the CPU
    QCOMPARE(QString::fromStdString(chain.name()), QString("cpu"));
    QCOMPARE(chain.messages().size(), std::size_t(1));
    QVERIFY(QString::fromStdString(chain.messages()[0]).contains("device lost"));
    renderSample(busyPipeline(), levels, 1, 3, chain);
    QCOMPARE(created, 1);  // disabled for the session: never tried again
}

namespace {
// What the CUDA backend does with compression: the plans' host steps resolved on the host around a
// device that has no such step (here the CPU backend, refusing any plan that still has one).
class DeviceWithoutHostSteps final : public Backend {
public:
    std::string name() const override { return "device"; }
    void render(std::span<RenderJob> jobs) override {
        HostStepResolver host;
        std::vector<RenderJob> resolved =
            host.resolve(jobs, [this](std::span<RenderJob> part) { device(part); });
        device(resolved);
    }
    int calls = 0;
    std::size_t jobs = 0;

private:
    void device(std::span<RenderJob> part) {
        for (const RenderJob& j : part)
            if (hasHostStep(j.plan)) throw RuntimeError("a host step reached the device");
        ++calls;
        jobs += part.size();
        cpu_.render(part);
    }
    CpuBackend cpu_{1};
};
}  // namespace

void TestRender::hostStepsSplitTheirPlans() {
    // Compression between a frame change and kernels, twice, in different stages.
    OpConfig resize = op("resize"), jpeg = op("image_compression"), webp = op("image_compression");
    OpConfig blur = op("box_blur"), turn = op("random_rotate90");
    resize.set("size", Size2{170, 230});
    jpeg.set("quality_range", Range{10, 40});
    webp.set("compression_type", std::string("webp"));
    webp.set("quality_range", Range{30, 70});
    blur.set("kernel_size", Range{5, 5});
    turn.p = 1;
    const std::vector<OpConfig> pipeline{op("brightness_contrast"), resize, jpeg, blur, turn, webp,
                                         op("gauss_noise")};
    SourceLevels levels(loadImage(samplePath("chelsea.png")).image);
    CpuBackend cpu(1);
    DeviceWithoutHostSteps device;
    for (std::uint64_t i = 0; i < 3; ++i) {
        const Image a = renderSample(pipeline, levels, 9, i, cpu);
        QVERIFY(samePixels(renderSample(pipeline, levels, 9, i, device), a));
    }
    QCOMPARE(device.calls, 3 * 3);  // before the JPEG, before the WebP, the rest
    // A grid: the tiles' plans resolved together, one device call per round.
    SheetOptions o;
    o.rows = 3;
    o.cols = 4;
    o.tile = 96;
    o.seed = 5;
    device.calls = 0;
    device.jobs = 0;
    QVERIFY(samePixels(renderSheet(pipeline, {&levels}, o, device).image,
                       renderSheet(pipeline, {&levels}, o, cpu).image));
    QCOMPARE(device.calls % 3, 0);               // three rounds per render call
    QCOMPARE(device.jobs, std::size_t(3 * 12));  // each tile's plan in three parts

    // The split itself: the part before ends at the step's stage and size, the rest starts with a copy.
    Plan plan;
    plan.stages.resize(2);
    plan.stages[0].width = 40;
    plan.stages[0].height = 30;
    plan.stages[0].ops = {GrayStep{}, CompressStep{CompressStep::Codec::Jpeg, 20}, MedianStep{3}};
    plan.stages[1].width = plan.width = 20;
    plan.stages[1].height = plan.height = 15;
    plan.stages[1].warp.inputWidth = 40;
    plan.stages[1].warp.inputHeight = 30;
    Plan before, after;
    PixelStep step;
    QVERIFY(splitAtHostStep(plan, before, step, after));
    QCOMPARE(before.stages.size(), std::size_t(1));
    QCOMPARE(before.stages[0].ops.size(), std::size_t(1));
    QCOMPARE(before.width, 40);
    QCOMPARE(std::get<CompressStep>(step).quality, 20);
    QCOMPARE(after.stages.size(), std::size_t(2));
    QVERIFY(after.stages[0].warp.copy);
    QCOMPARE(after.stages[0].warp.inputWidth, 40);
    QCOMPARE(after.stages[0].ops.size(), std::size_t(1));
    QCOMPARE(after.width, 20);
    QVERIFY(!splitAtHostStep(after, before, step, plan));
}

void TestRender::tablesInARowComposeIntoOne() {
    // Four table ops in a row (one of them a table per channel) are one lookup in the plan, and
    // that lookup gives what the four give one after the other: each op's own plan rendered on the
    // previous one's output. A geometric op before them keeps its stage; a blur ends the run.
    std::vector<OpConfig> p{op("horizontal_flip"), op("brightness_contrast"), op("random_gamma"), op("rgb_shift"),
                            op("invert_img"), op("gaussian_blur"), op("posterize")};
    for (OpConfig& o : p) o.p = 1;
    const Image src = photoCrop("coffee.png", 160, 120, 3);
    SourceLevels levels(src);
    CpuBackend cpu(1);
    Replay r;
    const Image out = renderSample(p, levels, 9, 0, cpu, &r);
    const Plan plan = buildFullPlan(r, 160, 120);
    QCOMPARE(plan.stages.size(), std::size_t(1));
    QCOMPARE(plan.stages[0].ops.size(), std::size_t(3));  // one table, the blur, posterize's table
    QVERIFY(std::holds_alternative<LutStep>(plan.stages[0].ops[0]));
    QVERIFY(std::holds_alternative<BlurStep>(plan.stages[0].ops[1]));
    Image expected = src;
    QCOMPARE(r.ops.size(), p.size());
    for (std::size_t k = 0; k < r.ops.size(); ++k) {
        Replay one = r;
        one.ops = {r.ops[k]};
        const Plan single = buildFullPlan(one, 160, 120);
        QCOMPARE(single.stages.back().ops.size(), std::size_t(k == 0 ? 0 : 1));  // the flip: a warp only
        SourceLevels in(expected);
        expected = executePlanCpu(in, single, RowLoop{nullptr});
    }
    QVERIFY(samePixels(out, expected));
    QVERIFY(!samePixels(out, src));
}

void TestRender::wholePixelRemapsAreCopies() {
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

void TestRender::wholeNumberMapsAsIntegers() {
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

void TestRender::sourceRegionHoldsEveryTap_data() {
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

void TestRender::sourceRegionHoldsEveryTap() {
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

QTEST_APPLESS_MAIN(TestRender)
#include "test_render.moc"
