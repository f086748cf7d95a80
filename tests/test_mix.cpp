// mixup and cutmix: partners drawn from the pool (never the sample's own image), lambda's Beta
// distribution against its closed-form moments, cutmix's box as torchvision's v2.CutMix draws it,
// the blend and the paste against written-out references with the partner resized by OpenCV,
// replays that name the partner and are read strictly, and sheets whose tiles mix within the pool.

#include <QtTest>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <map>

#include "contact_sheet.h"
#include "cpu_backend.h"
#include "error.h"
#include "ops/op_list.h"
#include "partners.h"
#include "sampler.h"
#include "test_support.h"

using namespace auglab;
using namespace auglab::testing;

namespace {

OpConfig mixOp(const char* name, double alpha) {
    OpConfig c = OpConfig::withDefaults(name);
    c.set("alpha", alpha);
    return c;
}

std::shared_ptr<SourceLevels> unowned(SourceLevels& s) {
    return {&s, [](SourceLevels*) {}};
}

const MixParams& mixOf(const Replay& r, std::size_t op = 0) {
    return std::get<MixParams>(r.ops[op].params);
}

}  // namespace

class TestMix : public QObject {
    Q_OBJECT

private slots:
    void partnerIsAnotherImageOfThePool();
    void lambdaHasTheBetaMoments_data();
    void lambdaHasTheBetaMoments();
    void cutmixBoxIsTorchvisions();
    void partnerIsResizedAsOpenCvDoes();
    void mixupBlendsThePartner();
    void cutmixPastesTheBox();
    void replayNamesThePartnerAndIsStrict();
    void replayRendersWithItsPartner();
    void sheetTilesMixWithinThePool();
    void unreadablePartnerEmptiesOnlyItsTile();
};

void TestMix::partnerIsAnotherImageOfThePool() {
    const std::vector<OpConfig> p{mixOp("mixup", 0.4)};
    std::map<std::uint64_t, int> counts;
    const int n = 5000;
    for (int i = 0; i < n; ++i) {
        const Replay r = samplePipeline(p, 9, std::uint64_t(i), 64, 48, PartnerPool{5, 2});
        QCOMPARE(mixOf(r).partners, std::uint64_t{5});
        ++counts[mixOf(r).partner];
    }
    QCOMPARE(counts.count(2), std::size_t(0));  // never the sample's own image
    QCOMPARE(counts.size(), std::size_t(4));
    // Uniform over the four others: each count within 5 standard deviations of n / 4.
    const double sd = std::sqrt(n * 0.25 * 0.75);
    for (const auto& [partner, count] : counts)
        QVERIFY2(std::abs(count - n / 4.0) < 5 * sd,
                 qPrintable(QString("partner %1: %2 of %3").arg(partner).arg(count).arg(n)));
    // A pool of one: the image itself.
    QCOMPARE(mixOf(samplePipeline(p, 9, 0, 64, 48)).partner, std::uint64_t{0});
    QVERIFY_THROWS_EXCEPTION(InputError, samplePipeline(p, 9, 0, 64, 48, PartnerPool{3, 3}));
    QVERIFY_THROWS_EXCEPTION(InputError, samplePipeline(p, 9, 0, 64, 48, PartnerPool{0, 0}));
}

void TestMix::lambdaHasTheBetaMoments_data() {
    QTest::addColumn<QString>("opName");
    QTest::addColumn<double>("alpha");
    QTest::newRow("mixup 0.4") << "mixup" << 0.4;
    QTest::newRow("mixup 2") << "mixup" << 2.0;
    QTest::newRow("cutmix 1") << "cutmix" << 1.0;
}

void TestMix::lambdaHasTheBetaMoments() {
    // Beta(a, a): mean 1/2, variance 1 / (4 (2a + 1)), fourth central moment 3 / (16 (2a + 1)(2a + 3)).
    QFETCH(QString, opName);
    QFETCH(double, alpha);
    const std::vector<OpConfig> p{mixOp(qPrintable(opName), alpha)};
    const int n = 8000;
    double sum = 0, sum2 = 0;
    for (int i = 0; i < n; ++i) {
        const double l = mixOf(samplePipeline(p, 3, std::uint64_t(i), 100, 80, PartnerPool{2, 0})).lambda;
        QVERIFY(l >= 0 && l <= 1);
        sum += l;
        sum2 += (l - 0.5) * (l - 0.5);
    }
    const double var = 1 / (4 * (2 * alpha + 1));
    const double m4 = 3 / (16 * (2 * alpha + 1) * (2 * alpha + 3));
    const double mean = sum / n, sampleVar = sum2 / n;
    // Five standard errors of each estimate.
    QVERIFY2(std::abs(mean - 0.5) < 5 * std::sqrt(var / n), qPrintable(QString::number(mean)));
    QVERIFY2(std::abs(sampleVar - var) < 5 * std::sqrt((m4 - var * var) / n),
             qPrintable(QString("variance %1, expected %2").arg(sampleVar).arg(var)));
}

void TestMix::cutmixBoxIsTorchvisions() {
    // torchvision.transforms.v2.CutMix.make_params: centre (r_x, r_y) uniform over the pixels,
    // half-sides int(0.5 sqrt(1 - lambda) W) and int(... H), clamped to the image; the label weight
    // is 1 - box area / image area.
    const int W = 200, H = 120;
    const std::vector<OpConfig> p{mixOp("cutmix", 1.0)};
    int clipped = 0;
    for (int i = 0; i < 2000; ++i) {
        const MixParams m = mixOf(samplePipeline(p, 5, std::uint64_t(i), W, H, PartnerPool{4, 1}));
        QVERIFY(m.box.x >= 0 && m.box.y >= 0 && m.box.x + m.box.w <= W && m.box.y + m.box.h <= H);
        const int halfW = int(0.5 * std::sqrt(1 - m.lambda) * W),
                  halfH = int(0.5 * std::sqrt(1 - m.lambda) * H);
        QVERIFY(m.box.w <= 2 * halfW && m.box.h <= 2 * halfH);
        const bool inside = m.box.x > 0 && m.box.y > 0 && m.box.x + m.box.w < W && m.box.y + m.box.h < H;
        if (inside) {
            QCOMPARE(m.box.w, 2 * halfW);
            QCOMPARE(m.box.h, 2 * halfH);
        } else {
            ++clipped;
        }
        QCOMPARE(m.effectiveLambda, 1.0 - double(m.box.w) * m.box.h / (double(W) * H));
    }
    QVERIFY(clipped > 100);  // a uniform centre clips many boxes
}

void TestMix::partnerIsResizedAsOpenCvDoes() {
    // cv2.resize INTER_LINEAR: AugLab resizes with the warp's fixed point (5-bit positions, as
    // cv2.warpAffine), OpenCV's resize with 11-bit weights: SPEC §2's linear bounds, at most two
    // levels apart (measured: mean 0.17, max 2 at 160x120).
    SourceLevels partner(photoCrop("coffee.png", 93, 71, 3));
    for (const QSize out : {QSize(160, 120), QSize(40, 30), QSize(93, 71)}) {
        const Image ours = resizePartner(partner, out.width(), out.height(), 3, SourceSampling::Source);
        cv::Mat ref;
        cv::resize(toMat(partner.level(0)), ref, cv::Size(out.width(), out.height()), 0, 0, cv::INTER_LINEAR);
        const Diff d = compare(ours, fromMat(ref));
        qInfo("%dx%d: %s", out.width(), out.height(), d.describe().constData());
        QVERIFY2(d.withinLinearBounds() && d.maxAbs <= 2, d.describe().constData());
    }
    // Channels follow the output: RGBA gets an opaque alpha, RGB drops it.
    const Image rgba = resizePartner(partner, 20, 10, 4, SourceSampling::Source);
    QCOMPARE(rgba.channels, 4);
    QCOMPARE(int(rgba.at(3, 4)[3]), 255);
}

void TestMix::mixupBlendsThePartner() {
    SourceLevels a(photoCrop("chelsea.png", 160, 120, 3));
    SourceLevels b(photoCrop("coffee.png", 93, 71, 3));
    CpuBackend cpu(2);
    const Partners partners{PartnerPool{2, 0},
                            [&](std::uint64_t i, int, int) { return unowned(i == 1 ? b : a); }};
    int ties = 0;
    for (std::uint64_t index = 0; index < 4; ++index) {
        Replay r;
        const Image out = renderSample({mixOp("mixup", 0.4)}, a, 11, index, cpu, &r, partners);
        const double l = mixOf(r).lambda;
        QCOMPARE(mixOf(r).partner, std::uint64_t{1});
        const Image bb = resizePartner(b, 160, 120, 3, SourceSampling::Source);
        for (int y = 0; y < 120; ++y)
            for (int x = 0; x < 160; ++x)
                for (int c = 0; c < 3; ++c) {
                    const double v = l * a.level(0).at(x, y)[c] + (1 - l) * bb.at(x, y)[c];
                    const int expected = int(std::floor(v + 0.5));
                    const int got = out.at(x, y)[c];
                    if (got == expected) continue;
                    // lambda is applied in 1/65536: only a value within 0.002 of a half may round the other
                    // way.
                    QVERIFY2(std::abs(v - std::floor(v) - 0.5) < 0.002 && std::abs(got - expected) == 1,
                             qPrintable(QString("(%1, %2, %3): %4, expected %5 (lambda %6)")
                                            .arg(x)
                                            .arg(y)
                                            .arg(c)
                                            .arg(got)
                                            .arg(v)
                                            .arg(l)));
                    ++ties;
                }
    }
    QVERIFY(ties < 50);
}

void TestMix::cutmixPastesTheBox() {
    SourceLevels a(photoCrop("chelsea.png", 160, 120, 4));
    SourceLevels b(photoCrop("astronaut.png", 200, 150, 3));
    CpuBackend cpu(1);
    const Partners partners{PartnerPool{3, 2},
                            [&](std::uint64_t i, int, int) { return unowned(i == 2 ? a : b); }};
    for (std::uint64_t index = 0; index < 6; ++index) {
        Replay r;
        const Image out = renderSample({mixOp("cutmix", 1.0)}, a, 4, index, cpu, &r, partners);
        const MixParams& m = mixOf(r);
        QVERIFY(m.partner != 2);
        const Image bb = resizePartner(b, 160, 120, 4, SourceSampling::Source);
        for (int y = 0; y < 120; ++y)
            for (int x = 0; x < 160; ++x) {
                const bool inBox =
                    x >= m.box.x && x < m.box.x + m.box.w && y >= m.box.y && y < m.box.y + m.box.h;
                const std::uint8_t* want = inBox ? bb.at(x, y) : a.level(0).at(x, y);
                QVERIFY(std::equal(want, want + 4, out.at(x, y)));
            }
    }
}

void TestMix::replayNamesThePartnerAndIsStrict() {
    Replay r = samplePipeline({mixOp("mixup", 0.4), mixOp("cutmix", 1.0)}, 7, 3, 64, 48, PartnerPool{6, 0});
    namePartners(r, [](std::uint64_t i) { return "images/" + std::to_string(i) + ".png"; });
    const nlohmann::ordered_json j = replayToJson(r);
    const auto& cut = j["ops"][1];
    QCOMPARE(cut["partners"].get<int>(), 6);
    QCOMPARE(QString::fromStdString(cut["partner_path"].get<std::string>()),
             QString("images/%1.png").arg(mixOf(r, 1).partner));
    QCOMPARE(cut["box_px"].size(), std::size_t(4));
    QCOMPARE(cut["lambda"].get<double>(), mixOf(r, 1).lambda);
    QVERIFY(parseReplay(serializeReplay(r)) == r);
    auto broken = [&](const std::function<void(nlohmann::ordered_json&)>& edit, const char* expected) {
        nlohmann::ordered_json k = j;
        edit(k);
        try {
            (void)parseReplay(k.dump());
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(expected), e.what());
            return;
        }
        QFAIL(qPrintable(QString("accepted: ") + expected));
    };
    broken([](auto& k) { k["ops"][0]["partner"] = 6; }, "ops[0].partner");
    broken([](auto& k) { k["ops"][1]["box_px"] = {0, 0, 65, 10}; }, "ops[1].box_px");
    broken([](auto& k) { k["ops"][1]["effective_lambda"] = 0.123; }, "ops[1].effective_lambda");
    broken([](auto& k) { k["ops"][0]["lambda"] = 1.5; }, "ops[0].lambda");
    broken([](auto& k) { k["ops"][0]["box_px"] = {0, 0, 1, 1}; }, "box_px");  // mixup has no box
}

void TestMix::replayRendersWithItsPartner() {
    SourceLevels a(photoCrop("chelsea.png", 90, 60, 3));
    SourceLevels b(photoCrop("rocket.jpg", 70, 70, 3));
    CpuBackend cpu(1);
    const PartnerLoader load = [&](std::uint64_t i, int, int) { return unowned(i == 1 ? b : a); };
    const std::vector<OpConfig> p{OpConfig::withDefaults("horizontal_flip"), mixOp("mixup", 1.0),
                                  mixOp("cutmix", 1.0)};
    Replay r;
    const Image out = renderSample(p, a, 2, 1, cpu, &r, Partners{PartnerPool{2, 0}, load});
    QVERIFY(samePixels(renderReplay(parseReplay(serializeReplay(r)), a, cpu, load), out));
    // Without a loader the pool is the image itself: another output.
    QVERIFY(!samePixels(renderReplay(r, a, cpu), out));
    // A partner that cannot be read is an error naming it.
    const PartnerLoader missing = [](std::uint64_t, int, int) -> std::shared_ptr<SourceLevels> {
        throw InputError("b.png: no such file");
    };
    try {
        (void)renderReplay(r, a, cpu, missing);
        QFAIL("rendered without its partner");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains("partner image 1") && QString(e.what()).contains("b.png"),
                 e.what());
    }
}

void TestMix::sheetTilesMixWithinThePool() {
    // Dataset mode: tile i's partner is another image of the page; tile i equals apply(i) resized
    // to the tile within SPEC §2's tile bounds is covered by the render suite; here, the tiles
    // are the mix of the tile-sized images.
    SourceLevels s0(photoCrop("chelsea.png", 120, 90, 3)), s1(photoCrop("coffee.png", 100, 100, 3)),
        s2(photoCrop("astronaut.png", 80, 120, 4));
    const std::vector<SourceLevels*> sources{&s0, &s1, &s2};
    SheetOptions o;
    o.rows = 1;
    o.cols = 3;
    o.tile = 64;
    o.mode = SheetMode::Dataset;
    o.seed = 8;
    CpuBackend cpu(1);
    const SheetLayout layout = layoutSheet({mixOp("cutmix", 1.0)}, sources, o);
    QCOMPARE(layout.jobs.size(), std::size_t(3));
    for (std::size_t k = 0; k < 3; ++k) {
        const SheetTile& t = layout.tiles[std::size_t(layout.jobTiles[k])];
        const MixParams& m = mixOf(t.replay);
        QVERIFY(m.partner != std::uint64_t(t.sourceIndex));
        QCOMPARE(m.partners, std::uint64_t{3});
        const MixStep& step = std::get<MixStep>(layout.jobs[k].plan.stages[0].ops[0]);
        QVERIFY(step.partner);
        QCOMPARE(step.partner->width, t.width);
        QCOMPARE(step.partner->channels, sources[std::size_t(t.sourceIndex)]->channels());
    }
    // A pool larger than the page (a folder): the partners come from the loader.
    o.partnerPool = 10;
    o.partnerFirst = 4;
    SheetLayout page =
        layoutSheet({mixOp("mixup", 1.0)}, {SheetSource{120, 90, {}}, SheetSource{100, 100, {}}}, o);
    bindSources(page, {&s0, &s1});
    std::vector<std::uint64_t> asked;
    bindSheetPartners(page, [&](std::uint64_t i, int, int) {
        asked.push_back(i);
        return unowned(s2);
    });
    QCOMPARE(asked.size(), std::size_t(2));
    for (std::size_t k = 0; k < 2; ++k) {
        const SheetTile& t = page.tiles[std::size_t(page.jobTiles[k])];
        QVERIFY(mixOf(t.replay).partner != 4 + std::uint64_t(t.sourceIndex));
        QVERIFY(mixOf(t.replay).partner < 10);
    }
    (void)renderLayout(std::move(page), cpu);
}

void TestMix::unreadablePartnerEmptiesOnlyItsTile() {
    SourceLevels s0(photoCrop("chelsea.png", 120, 90, 3)), s1(photoCrop("coffee.png", 100, 100, 3));
    SheetOptions o;
    o.rows = 1;
    o.cols = 2;
    o.tile = 48;
    o.mode = SheetMode::Dataset;
    o.partnerPool = 2;
    SheetLayout layout =
        layoutSheet({mixOp("mixup", 1.0)}, {SheetSource{120, 90, {}}, SheetSource{100, 100, {}}}, o);
    bindSources(layout, {&s0, &s1});
    bindSheetPartners(layout, [&](std::uint64_t i, int, int) {
        if (i == 1) throw InputError("coffee.png: truncated");
        return unowned(s0);
    });
    // Tile 0's partner is image 1 (unreadable): its tile is empty with the reason; tile 1 renders.
    QCOMPARE(layout.jobs.size(), std::size_t(1));
    QVERIFY2(QString::fromStdString(layout.tiles[0].error).contains("coffee.png: truncated"),
             layout.tiles[0].error.c_str());
    QVERIFY(layout.tiles[1].error.empty());
}

QTEST_GUILESS_MAIN(TestMix)
#include "test_mix.moc"
