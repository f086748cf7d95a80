// Plans and rendering: fusion of geometric ops, stage order, tiles from pre-filtered levels,
// determinism across threads and grid sizes, tile i == apply(i), replay == apply bit for bit, sheets,
// backends that fail or lack host steps, composed tables. The geometry of single frames against
// OpenCV and the source region a plan reads: test_render_geometry.cpp.

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
#include "render_test_support.h"
#include "sampler.h"
#include "test_support.h"

using namespace auglab;
using namespace auglab::testing;

namespace {

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
    void trainingTailIsNotPreviewed();
    void deotteFollowsTheNotebook_data();
    void deotteFollowsTheNotebook();
    void failingBackendFallsThroughToCpu();
    void tablesInARowComposeIntoOne();
    void hostStepsSplitTheirPlans();
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

QTEST_APPLESS_MAIN(TestRender)
#include "test_render.moc"
