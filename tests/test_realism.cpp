// The realism meter: the invented-pixel share computed from the plan against pixel counts on
// renders whose invented pixels have a colour the image does not have (a constant border and
// dropout fill of pure magenta, nearest interpolation so no pixel blends it), for the affine,
// perspective, crops and dropouts; "find the edge" against a brute-force scan.

#include <QtTest>

#include <cmath>

#include "contact_sheet.h"
#include "cpu_backend.h"
#include "error.h"
#include "realism.h"
#include "sampler.h"
#include "test_support.h"

using namespace auglab;
using namespace auglab::testing;

namespace {

const Fill kMagenta{Fill::Mode::Constant, {255, 0, 255}};

// A photo without a single magenta pixel.
Image photoWithoutMagenta(int w, int h) {
    Image img = photoCrop("chelsea.png", w, h, 3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            std::uint8_t* p = img.at(x, y);
            if (p[0] == 255 && p[1] == 0 && p[2] == 255) p[1] = 1;
        }
    return img;
}

OpConfig withFill(const char* name) {
    OpConfig c = OpConfig::withDefaults(name);
    if (c.desc().param("interpolation")) c.set("interpolation", std::string("nearest"));
    if (c.desc().param("border")) c.set("border", std::string("constant"));
    c.set("fill", kMagenta);
    return c;
}

}  // namespace

class TestRealism : public QObject {
    Q_OBJECT

private slots:
    void maskMatchesFilledPixels_data();
    void maskMatchesFilledPixels();
    void reflectionCountsAsInvented();
    void shareIsTheMasksCount();
    void findTheEdgeMatchesABruteForceScan();
};

void TestRealism::shareIsTheMasksCount() {
    // inventedShare counts a one-stage affine plan row by row (augment computes it for every
    // output); it must be the mask's count exactly, holes and pastes painted in their order, for
    // every kind of plan the mask covers.
    const int W = 181, H = 133;
    OpConfig affine = withFill("affine");
    affine.set("rotate_deg", Range{-40, 40});
    affine.set("scale_x", Range{0.6, 1.2});
    affine.set("translate_x_frac", Range{-0.3, 0.3});
    OpConfig crop = OpConfig::withDefaults("random_resized_crop");
    crop.set("size", Size2{90, 120});
    OpConfig drop = OpConfig::withDefaults("coarse_dropout");
    drop.set("holes", Range{2, 6});
    OpConfig cutmix = OpConfig::withDefaults("cutmix");
    const OpConfig flip = OpConfig::withDefaults("horizontal_flip");
    const OpConfig grid = OpConfig::withDefaults("grid_dropout");
    const OpConfig perspective = withFill("perspective");
    const std::vector<std::vector<OpConfig>> pipelines = {
        {affine}, {crop, flip}, {drop}, {affine, drop}, {crop, drop}, {affine, cutmix, drop}, {drop, cutmix},
        {grid, affine}, {affine, grid}, {perspective, drop}, {crop, affine}, {flip}};
    int rowsCounted = 0;
    for (std::size_t k = 0; k < pipelines.size(); ++k)
        for (std::uint64_t i = 0; i < 40; ++i) {
            const Replay r = samplePipeline(pipelines[k], 5, i, W, H);
            const Plan plan = buildFullPlan(r, W, H);
            const std::vector<std::uint8_t> mask = inventedMask(plan);
            const double expected = static_cast<double>(std::count(mask.begin(), mask.end(), std::uint8_t{1})) /
                                    static_cast<double>(mask.size());
            QVERIFY2(inventedShare(plan) == expected,
                     qPrintable(QString("pipeline %1 sample %2: %3, the mask counts %4")
                                    .arg(k)
                                    .arg(i)
                                    .arg(inventedShare(plan))
                                    .arg(expected)));
            rowsCounted += plan.stages.size() == 1 && !plan.stages[0].warp.projective && expected > 0;
        }
    QVERIFY(rowsCounted > 100);  // the row-by-row count was exercised where pixels are invented
}

void TestRealism::maskMatchesFilledPixels_data() {
    QTest::addColumn<QString>("name");
    for (const char* n :
         {"affine", "perspective", "crop then affine", "dropout", "affine then dropout", "tile"})
        QTest::newRow(n) << QString(n);
}

void TestRealism::maskMatchesFilledPixels() {
    QFETCH(QString, name);
    const int W = 181, H = 133;
    SourceLevels source(photoWithoutMagenta(W, H));
    OpConfig affine = withFill("affine");
    affine.set("rotate_deg", Range{-40, 40});
    affine.set("scale_x", Range{0.6, 1.2});
    affine.set("translate_x_frac", Range{-0.2, 0.2});
    OpConfig perspective = withFill("perspective");
    perspective.set("scale", Range{0.1, 0.2});
    perspective.set("fit_output", true);  // the whole quad shows: a border around it
    OpConfig crop = OpConfig::withDefaults("random_resized_crop");
    crop.set("size", Size2{90, 120});
    crop.set("interpolation", std::string("nearest"));
    OpConfig drop = OpConfig::withDefaults("coarse_dropout");
    drop.set("fill", kMagenta);
    drop.set("holes", Range{2, 6});
    std::vector<OpConfig> p;
    if (name == "affine" || name == "tile") p = {affine};
    if (name == "perspective") p = {perspective};
    if (name == "crop then affine") p = {crop, affine};
    if (name == "dropout") p = {drop};
    if (name == "affine then dropout") p = {affine, drop};
    CpuBackend cpu(1);
    double sumShare = 0;
    for (std::uint64_t i = 0; i < 6; ++i) {
        const Replay r = samplePipeline(p, 21, i, W, H);
        int fw = 0, fh = 0;
        frameSize(r, r.ops.size(), fw, fh);
        // Full resolution, or a tile read from a pre-filtered level (the mask follows the tile's plan).
        const int outW = name == "tile" ? 64 : fw, outH = name == "tile" ? 47 : fh;
        const Plan plan = buildPlan(r, W, H, outW, outH,
                                    name == "tile" ? SourceSampling::Prefiltered : SourceSampling::Source);
        Image out;
        RenderJob job{&source, plan, &out};
        cpu.render(std::span<RenderJob>(&job, 1));
        const std::vector<std::uint8_t> mask = inventedMask(plan);
        int disagree = 0, magenta = 0;
        for (int y = 0; y < outH; ++y)
            for (int x = 0; x < outW; ++x) {
                const std::uint8_t* q = out.at(x, y);
                const bool isMagenta = q[0] == 255 && q[1] == 0 && q[2] == 255;
                magenta += isMagenta;
                disagree += isMagenta != (mask[std::size_t(y) * outW + x] != 0);
            }
        // Positions exactly on a pixel boundary may round either way in OpenCV's fixed point (1/1024
        // pixel): at most a few pixels along the image's edges.
        const int allowed = (outW + outH) / 50 + 1;
        QVERIFY2(disagree <= allowed,
                 qPrintable(QString("sample %1: %2 pixels disagree (%3 magenta, share %4)")
                                .arg(i)
                                .arg(disagree)
                                .arg(magenta)
                                .arg(inventedShare(plan))));
        sumShare += inventedShare(plan);
    }
    if (name != "crop then affine") QVERIFY(sumShare > 0.05);  // the check saw invented pixels
}

void TestRealism::reflectionCountsAsInvented() {
    // A reflected border shows image pixels, but none of them is where the image is: invented.
    OpConfig affine = OpConfig::withDefaults("affine");
    affine.set("translate_x_frac", Range{0.25, 0.25});
    affine.set("translate_y_frac", Range{0, 0});
    affine.set("rotate_deg", Range{0, 0});
    affine.set("scale_x", Range{1, 1});
    affine.set("border", std::string("reflect_101"));
    const Replay r = samplePipeline({affine}, 1, 0, 200, 100);
    const Plan plan = buildFullPlan(r, 200, 100);
    QCOMPARE(inventedShare(plan), 0.25);  // a shift by a quarter of the width: the left quarter
}

void TestRealism::findTheEdgeMatchesABruteForceScan() {
    // A horizontal shift with a constant border: each sample's invented share is its shift, so
    // the share of samples past the threshold grows with the range (a monotone case, where the
    // bisection and a scan must agree).
    OpConfig affine = OpConfig::withDefaults("affine");
    for (const char* k : {"rotate_deg", "translate_y_frac"}) affine.set(k, Range{0, 0});
    affine.set("scale_x", Range{1, 1});
    affine.set("translate_x_frac", Range{-0.02, 0.02});
    const std::vector<OpConfig> p{affine};
    const int W = 160, H = 120, samples = 48;
    const double threshold = 0.1, allowed = 0.25;
    const Range edge = findTheEdge(p, 0, "translate_x_frac", 5, W, H, threshold, allowed, samples, 64);
    QVERIFY(edge.max > 0.02 && std::abs(edge.min + edge.max) < 1e-12);
    double bruteForce = 0.02;
    for (double a = 0.02; a <= 1.0; a += 0.002) {
        std::vector<OpConfig> q = p;
        q[0].set("translate_x_frac", Range{-a, a});
        if (shareOverThreshold(q, 5, W, H, threshold, samples, 64) <= allowed)
            bruteForce = a;
        else
            break;
    }
    qInfo("find the edge: +-%.4f; brute force (steps of 0.002): +-%.3f", edge.max, bruteForce);
    QVERIFY2(edge.max >= bruteForce - 1e-9 && edge.max < bruteForce + 0.002,
             qPrintable(QString("%1 vs %2").arg(edge.max).arg(bruteForce)));
    // Already past the edge: the range is kept.
    std::vector<OpConfig> wide = p;
    wide[0].set("translate_x_frac", Range{-0.6, 0.6});
    const Range kept = findTheEdge(wide, 0, "translate_x_frac", 5, W, H, threshold, allowed, samples, 64);
    QCOMPARE(kept.max, 0.6);
    QVERIFY_THROWS_EXCEPTION(InputError, findTheEdge(p, 0, "interpolation", 5, W, H, threshold, allowed));
}

QTEST_GUILESS_MAIN(TestRealism)
#include "test_realism.moc"
