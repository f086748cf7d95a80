// Groups (one_of, some_of, sequential, random_order): the pipeline's edits keep them consistent, the
// sampler runs them as Albumentations 2.0.8's OneOf, SomeOf, Sequential and RandomOrder do (the
// frequencies below follow from the weights, n and p alone), replays record which children ran and
// reproduce the pixels, and the Albumentations exports carry them exactly.

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <QtTest>

#include "contact_sheet.h"
#include "cpu_backend.h"
#include "error.h"
#include "export/exporter.h"
#include "image_io.h"
#include "preset.h"
#include "sampler.h"

using namespace auglab;

namespace {

OpConfig op(const char* name, double p = 1.0) {
    OpConfig c = OpConfig::withDefaults(name);
    c.p = p;
    return c;
}

Preset presetOf(const std::string& pipeline) {
    return parsePreset(R"({"format": "auglab-preset", "version": 1, "seed": 11, "pipeline": [)" + pipeline +
                       "]}");
}

/// The ops (pipeline positions) that ran in a replay, in the order they ran.
std::vector<std::uint32_t> ran(const Replay& r) {
    std::vector<std::uint32_t> out;
    for (const ConcreteOp& c : r.ops)
        if (c.applied) out.push_back(c.position);
    return out;
}

/// |count - n p| within 5 standard deviations of a binomial(n, p) count.
bool nearBinomial(double count, double n, double p) {
    return std::abs(count - n * p) <= 5.0 * std::sqrt(n * p * (1 - p)) + 1e-9;
}

constexpr int kSamples = 6000;

}  // namespace

class TestGroups : public QObject {
    Q_OBJECT

private slots:
    void insertAndEraseFollowGroups() {
        Pipeline p{op("horizontal_flip"), op("vertical_flip"), op("to_gray"), op("invert_img"),
                   op("solarize")};
        QCOMPARE(p.addGroup(GroupKind::OneOf, 1, 2), 0);
        QCOMPARE(p.groups()[0].first, std::size_t(1));
        QCOMPARE(p.groups()[0].count, std::size_t(2));
        QCOMPARE(p.groups()[0].p, 0.5);  // OneOf's default
        QCOMPARE(p.path(2), std::string("pipeline[1].children[1]"));
        QCOMPARE(p.path(3), std::string("pipeline[2]"));
        // Strictly inside: joins the group; at its ends: stays outside.
        p.insert(p.begin() + 2, op("posterize"));
        QCOMPARE(p.groups()[0].count, std::size_t(3));
        p.insert(p.begin() + 1, op("random_gamma"));
        QCOMPARE(p.groups()[0].first, std::size_t(2));
        p.insert(p.begin() + 5, op("to_gray"));  // right after the group's last op
        QCOMPARE(p.groups()[0].end(), std::size_t(5));
        QCOMPARE(p.groupOf(5), -1);
        // A nested group, then erasing its only op removes it and leaves the outer one.
        QCOMPARE(p.addGroup(GroupKind::Sequential, 3, 1), 1);
        QCOMPARE(p.parentGroup(1), 0);
        QCOMPARE(p.path(3), std::string("pipeline[2].children[1].children[0]"));
        p.erase(p.begin() + 3);
        QCOMPARE(p.groups().size(), std::size_t(1));
        QCOMPARE(p.groups()[0].count, std::size_t(2));
        // Ranges that cut a group are refused.
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, p.addGroup(GroupKind::SomeOf, 1, 2));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, p.insertInto(0, op("posterize"), 0));
        // Moving into a group and out of it.
        p.moveInto(0, 2, 0);
        QCOMPARE(p.groups()[0].first, std::size_t(1));
        QCOMPARE(p.groups()[0].count, std::size_t(3));
        QCOMPARE(p[2].name(), std::string("horizontal_flip"));
        p.moveInto(2, p.size() - 1, -1);
        QCOMPARE(p.groups()[0].count, std::size_t(2));
        QCOMPARE(p.back().name(), std::string("horizontal_flip"));
        // A group around a group of the same ops wraps it.
        QCOMPARE(p.addGroup(GroupKind::RandomOrder, 1, 2), 0);
        QCOMPARE(p.parentGroup(1), 0);
        QCOMPARE(p.groups()[1].kind, GroupKind::OneOf);
        p.removeGroup(0);
        QCOMPARE(p.groups().size(), std::size_t(1));
        QVERIFY(groupsError(p.groups(), p.size()).empty());
        // Erasing every op of a group removes it; a some_of that loses children draws fewer.
        Pipeline q{op("horizontal_flip"), op("vertical_flip"), op("to_gray")};
        q.addGroup(GroupKind::SomeOf, 0, 3);
        q.group(0).n = 3;
        q.erase(q.begin());
        QCOMPARE(q.groups()[0].n, 2);
        erase_if(q, [](const OpConfig&) { return true; });
        QVERIFY(q.groups().empty());
    }

    void arrowsStepInAndOutOfGroups() {
        // a [b c] d: d steps up into the group (its last child), then past c, then b steps up out of it.
        Pipeline p{op("horizontal_flip"), op("vertical_flip"), op("to_gray"), op("invert_img")};
        p.addGroup(GroupKind::OneOf, 1, 2);
        QCOMPARE(p.stepOp(3, -1), 3);
        QCOMPARE(p.groups()[0].count, std::size_t(3));
        QCOMPARE(p.stepOp(3, -1), 2);
        QCOMPARE(p[2].name(), std::string("invert_img"));
        QCOMPARE(p.stepOp(1, -1), 1);  // vertical_flip was the first child: now before the group
        QCOMPARE(p.groupOf(1), -1);
        QCOMPARE(p.groups()[0].first, std::size_t(2));
        // Down: a steps past b, then into the group at its start; the last child steps out below.
        QCOMPARE(p.stepOp(0, 1), 1);
        QCOMPARE(p.stepOp(1, 1), 1);
        QCOMPARE(p.groupOf(1), 0);
        QCOMPARE(p.groups()[0].first, std::size_t(1));
        QCOMPARE(p.stepOp(3, 1), 3);
        QCOMPARE(p.groupOf(3), -1);
        QCOMPARE(p.stepOp(3, 1), -1);  // the last op at the top level
        // A group of one op: stepping its op out leaves it empty, so it goes.
        Pipeline q{op("horizontal_flip"), op("vertical_flip")};
        q.addGroup(GroupKind::Sequential, 1, 1);
        QCOMPARE(q.stepOp(1, -1), 1);
        QVERIFY(q.groups().empty());
        // Nested: one level per step.
        Pipeline n{op("horizontal_flip"), op("vertical_flip"), op("to_gray")};
        n.addGroup(GroupKind::OneOf, 0, 2);
        n.addGroup(GroupKind::Sequential, 1, 1);
        QCOMPARE(n.stepOp(2, -1), 2);  // into the outer group only
        QCOMPARE(n.groupOf(2), 0);
        QCOMPARE(n.stepOp(2, -1), 2);  // then into the inner one
        QCOMPARE(n.groupOf(2), 1);
        QVERIFY(groupsError(n.groups(), n.size()).empty());
    }

    void badGroupsAreRefused() {
        std::vector<OpGroup> g(2);
        g[0].first = 0;
        g[0].count = 2;
        g[1].first = 1;
        g[1].count = 2;  // overlaps without nesting
        QVERIFY(groupsError(g, 4).find("overlaps") != std::string::npos);
        g[1].count = 0;
        QVERIFY(groupsError(g, 4).find("holds no op") != std::string::npos);
        g[1].count = 1;
        g[0].first = 2;  // out of order
        QVERIFY(groupsError(g, 4).find("out of order") != std::string::npos);
        Pipeline p{op("horizontal_flip")};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, p.setGroups(g));
    }

    void oneOfChoosesOneChildByItsWeight() {
        // Weights 0.6 : 0.2 : 0.2 (the children's p); the chosen child runs for sure, so to_gray's
        // own p of 0.2 does not make it rarer still. The group runs with p 0.8.
        const Preset preset = presetOf(R"({"group": "one_of", "p": 0.8, "children": [
            {"op": "horizontal_flip", "p": 0.6}, {"op": "vertical_flip", "p": 0.2}, {"op": "to_gray", "p": 0.2}]})");
        std::map<std::uint32_t, int> counts;
        int none = 0;
        for (int i = 0; i < kSamples; ++i) {
            const Replay r = samplePipeline(preset.pipeline, preset.seed, std::uint64_t(i), 64, 48);
            QCOMPARE(r.ops.size(), std::size_t(3));  // every op listed, in pipeline order
            for (std::size_t k = 0; k < 3; ++k) QCOMPARE(r.ops[k].position, std::uint32_t(k));
            const auto run = ran(r);
            QVERIFY(run.size() <= 1);
            if (run.empty())
                ++none;
            else
                ++counts[run.front()];
        }
        QVERIFY2(nearBinomial(none, kSamples, 0.2), qPrintable(QString::number(none)));
        QVERIFY(nearBinomial(counts[0], kSamples, 0.8 * 0.6));
        QVERIFY(nearBinomial(counts[1], kSamples, 0.8 * 0.2));
        QVERIFY(nearBinomial(counts[2], kSamples, 0.8 * 0.2));
    }

    void sequentialGatesThenEachChild() {
        const Preset preset = presetOf(R"({"group": "sequential", "p": 0.3, "children": [
            {"op": "horizontal_flip", "p": 1}, {"op": "vertical_flip", "p": 0.5}]}, {"op": "to_gray", "p": 0.5})");
        int first = 0, second = 0, secondAlone = 0, outside = 0;
        for (int i = 0; i < kSamples; ++i) {
            const Replay r = samplePipeline(preset.pipeline, preset.seed, std::uint64_t(i), 64, 48);
            first += r.ops[0].applied;
            second += r.ops[1].applied;
            secondAlone += r.ops[1].applied && !r.ops[0].applied;
            outside += r.ops[2].applied;
        }
        QVERIFY(nearBinomial(first, kSamples, 0.3));
        QVERIFY(nearBinomial(second, kSamples, 0.15));
        QCOMPARE(secondAlone, 0);
        QVERIFY(nearBinomial(outside, kSamples, 0.5));
    }

    void someOfDrawsUniformlyAndRunsInOrder() {
        // n = 2 of 3 without replacement: each pair with chance 1/3, run in pipeline order.
        const Preset preset = presetOf(R"({"group": "some_of", "n": 2, "children": [
            {"op": "horizontal_flip"}, {"op": "vertical_flip"}, {"op": "to_gray"}]})");
        std::map<std::vector<std::uint32_t>, int> pairs;
        for (int i = 0; i < kSamples; ++i) {
            const Replay r = samplePipeline(preset.pipeline, preset.seed, std::uint64_t(i), 64, 48);
            const auto run = ran(r);
            QCOMPARE(run.size(), std::size_t(2));
            QVERIFY(run[0] < run[1]);
            ++pairs[run];
        }
        QCOMPARE(pairs.size(), std::size_t(3));
        for (const auto& [pair, count] : pairs) QVERIFY(nearBinomial(count, kSamples, 1.0 / 3));

        // With replacement: a child drawn twice runs twice in a row, with draws of its own.
        const Preset twice = presetOf(R"({"group": "some_of", "n": 2, "replace": true, "children": [
            {"op": "affine", "rotate_deg": [-30, 30]}, {"op": "vertical_flip"}, {"op": "to_gray"}]})");
        int doubles = 0, affineTwice = 0;
        for (int i = 0; i < kSamples; ++i) {
            const Replay r = samplePipeline(twice.pipeline, twice.seed, std::uint64_t(i), 64, 48);
            const auto run = ran(r);
            QCOMPARE(run.size(), std::size_t(2));
            QVERIFY(run[0] <= run[1]);
            if (run[0] != run[1]) continue;
            ++doubles;
            if (run[0] != 0) continue;
            ++affineTwice;
            const auto entries = entriesOf(r, 0);
            QCOMPARE(entries.size(), std::size_t(2));
            QVERIFY(!(entries[0]->params == entries[1]->params));
        }
        QVERIFY(nearBinomial(doubles, kSamples, 1.0 / 3));
        QVERIFY(nearBinomial(affineTwice, kSamples, 1.0 / 9));
    }

    void randomOrderPermutesUniformly() {
        const Preset preset = presetOf(R"({"group": "random_order", "n": 3, "children": [
            {"op": "horizontal_flip"}, {"op": "vertical_flip"}, {"op": "to_gray"}]}, {"op": "invert_img"})");
        std::map<std::vector<std::uint32_t>, int> orders;
        for (int i = 0; i < kSamples; ++i) {
            const Replay r = samplePipeline(preset.pipeline, preset.seed, std::uint64_t(i), 64, 48);
            const auto run = ran(r);
            QCOMPARE(run.size(), std::size_t(4));
            QCOMPARE(run.back(), std::uint32_t(3));  // the op after the group still comes after it
            ++orders[{run[0], run[1], run[2]}];
        }
        QCOMPARE(orders.size(), std::size_t(6));
        for (const auto& [order, count] : orders) QVERIFY(nearBinomial(count, kSamples, 1.0 / 6));
    }

    void someOfKeepsItsGateInsideOneOf() {
        // Albumentations' SomeOf and RandomOrder ignore force_apply: chosen by a OneOf (weight 0.5),
        // a SomeOf still runs with its own p (0.5 again: 1/4 in all), while a chosen Sequential runs
        // for sure (1/2).
        const Preset preset = presetOf(R"({"group": "one_of", "p": 1, "children": [
            {"group": "some_of", "p": 0.5, "children": [{"op": "horizontal_flip"}]},
            {"group": "sequential", "p": 0.5, "children": [{"op": "vertical_flip"}]}]})");
        int flips = 0, vflips = 0;
        for (int i = 0; i < kSamples; ++i) {
            const Replay r = samplePipeline(preset.pipeline, preset.seed, std::uint64_t(i), 64, 48);
            flips += r.ops[0].applied;
            vflips += r.ops[1].applied;
        }
        QVERIFY(nearBinomial(flips, kSamples, 0.25));
        QVERIFY(nearBinomial(vflips, kSamples, 0.5));
    }

    void disabledChildIsAbsent() {
        Preset preset = presetOf(R"({"group": "one_of", "p": 1, "children": [
            {"op": "horizontal_flip", "enabled": false}, {"op": "vertical_flip", "p": 0.01}]})");
        for (int i = 0; i < 500; ++i) {
            const Replay r = samplePipeline(preset.pipeline, preset.seed, std::uint64_t(i), 64, 48);
            QVERIFY(!r.ops[0].applied && r.ops[1].applied);
        }
        preset.pipeline.group(0).enabled = false;
        for (int i = 0; i < 100; ++i)
            QVERIFY(ran(samplePipeline(preset.pipeline, preset.seed, std::uint64_t(i), 64, 48)).empty());
    }

    void groupingKeepsTheOpsDraws() {
        // Wrapping ops in a sequential group that always runs changes none of their draws.
        const Preset flat =
            presetOf(R"({"op": "affine", "rotate_deg": [-30, 30]}, {"op": "brightness_contrast"},
            {"op": "coarse_dropout", "p": 0.5})");
        Preset grouped = flat;
        grouped.pipeline.addGroup(GroupKind::Sequential, 1, 2);
        grouped.pipeline.group(0).p = 1.0;
        for (int i = 0; i < 50; ++i)
            QCOMPARE(samplePipeline(grouped.pipeline, 3, std::uint64_t(i), 300, 200),
                     samplePipeline(flat.pipeline, 3, std::uint64_t(i), 300, 200));
    }

    void replaysReproduceGroupedSamples() {
        const Preset preset = loadPreset(AUGLAB_SOURCE_DIR "/tests/data/presets/valid/groups.auglab.json");
        const LoadedImage loaded = loadImage(AUGLAB_SOURCE_DIR "/resources/samples/chelsea.png");
        SourceLevels source(loaded.image);
        CpuBackend cpu(1);
        int reordered = 0, repeated = 0;
        for (std::uint64_t index = 0; index < 12; ++index) {
            Replay replay;
            const Image direct = renderSample(preset.pipeline, source, preset.seed, index, cpu, &replay);
            // Every op at least once; positions written where the order differs, read back the same.
            std::set<std::uint32_t> seen;
            for (std::size_t k = 0; k < replay.ops.size(); ++k) {
                seen.insert(replay.ops[k].position);
                reordered += replay.ops[k].position != k;
            }
            QCOMPARE(seen.size(), preset.pipeline.size());
            repeated += replay.ops.size() > preset.pipeline.size();
            const std::string text = serializeReplay(replay);
            const Replay back = parseReplay(text);
            QCOMPARE(back, replay);
            const Image again = renderReplay(back, source, cpu);
            QCOMPARE(again.width, direct.width);
            QCOMPARE(again.height, direct.height);
            for (int y = 0; y < direct.height; ++y)
                QVERIFY(std::equal(again.row(y), again.row(y) + std::size_t(direct.width) * direct.channels,
                                   direct.row(y)));
        }
        // The preset's random_order (n 3, with replacement) reorders and repeats in these samples.
        QVERIFY(reordered > 0);
        QVERIFY(repeated > 0);
    }

    void albumentationsExportRoundTrips() {
        // Every group kind, nested, with a disabled op inside a group and a disabled group: the JSON
        // export imports back as the same preset; the Python export writes the same structure.
        Preset preset = loadPreset(AUGLAB_SOURCE_DIR "/tests/data/presets/valid/groups.auglab.json");
        const int inner = preset.pipeline.addGroup(GroupKind::Sequential, 2, 2);  // gaussian_blur, to_gray
        preset.pipeline.group(std::size_t(inner)).enabled = false;
        const ExportResult json = exportAlbumentations(preset);
        const ImportResult back = importAlbumentations(json.text, "groups.json");
        QVERIFY2(back.preset.pipeline == preset.pipeline,
                 qPrintable(QString::fromStdString(serializePreset(back.preset))));
        QVERIFY(json.text.find("\"__class_fullname__\": \"RandomOrder\"") != std::string::npos);
        bool disabledGroupWarned = false;
        for (const std::string& w : json.warnings)
            disabledGroupWarned =
                disabledGroupWarned || w.find("(sequential) is disabled") != std::string::npos;
        QVERIFY(disabledGroupWarned);
        const std::string py = exportPreset(preset, "albumentations-py").text;
        for (const char* part :
             {"A.OneOf(\n", "A.SomeOf(\n", "A.RandomOrder(\n", "A.Sequential(\n", "n=2,", "replace=True,"})
            QVERIFY2(py.find(part) != std::string::npos, part);
        // torchvision, Keras, tf-deotte and DALI write them (the runtimes' suites run them).
        const std::string tv = exportPreset(preset, "torchvision").text;
        for (const char* part : {"v2.RandomChoice([", "], p=[0.75, 0.25]),", "SomeOf([", "ordered=False),"})
            QVERIFY2(tv.find(part) != std::string::npos, part);
        const std::string keras = exportPreset(preset, "keras").text;
        for (const char* part : {"class OneOf(keras.layers.Layer)", "    OneOf([",
                                 "], weights=[0.25], p=0.5)", "SomeOf([", "ordered=False),"})
            QVERIFY2(keras.find(part) != std::string::npos, part);
        const std::string deotte = exportPreset(preset, "tf-deotte").text;
        for (const char* part : {"    def _group", "tf.switch_case(picks[j], [", "lambda: _group"})
            QVERIFY2(deotte.find(part) != std::string::npos, part);
        const std::string dali = exportPreset(preset, "dali").text;
        for (const char* part : {"enable_conditionals=True)", "    if _chance(0.8):\n",
                                 "_one_of(images, [_step0, _step1], weights=[0.75, 0.25])",
                                 "n=2, replace=False, in_order=True)", "n=3, replace=True, in_order=False)"})
            QVERIFY2(dali.find(part) != std::string::npos, part);
    }

    void importReadsLibraryGroups() {
        // A pipeline as A.save writes it: OneOf of blurs (GlassBlur and Superpixels, which AugLab does
        // not have: reported), every kind nested, n clamped as the library clamps it.
        const ImportResult r = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "OneOf", "p": 0.5, "transforms": [
                {"__class_fullname__": "GaussianBlur", "p": 0.5, "blur_limit": [0, 0], "sigma_limit": [0.5, 3.0]},
                {"__class_fullname__": "GlassBlur", "p": 0.5},
                {"__class_fullname__": "ToGray", "p": 0.5, "num_output_channels": 3, "method": "weighted_average"}]},
              {"__class_fullname__": "HorizontalFlip", "p": 0.5},
              {"__class_fullname__": "SomeOf", "p": 1, "n": 3, "replace": false, "transforms": [
                {"__class_fullname__": "InvertImg", "p": 0.5}, {"__class_fullname__": "Superpixels", "p": 0.5},
                {"__class_fullname__": "Sequential", "p": 0.5, "transforms": [{"__class_fullname__": "VerticalFlip", "p": 0.3}]}]},
              {"__class_fullname__": "RandomOrder", "p": 0.7, "n": 1, "replace": true, "transforms": [
                {"__class_fullname__": "Solarize", "p": 0.5, "threshold_range": [0.5, 0.5]}]}],
            "bbox_params": null, "keypoint_params": null, "additional_targets": {}, "is_check_shapes": true}})",
                                                    "issue.json");
        const Pipeline& p = r.preset.pipeline;
        QCOMPARE(p.size(), std::size_t(6));
        QCOMPARE(p.groups().size(), std::size_t(4));
        QCOMPARE(p.groups()[0].kind, GroupKind::OneOf);
        QCOMPARE(p.groups()[0].count, std::size_t(2));
        QCOMPARE(p.groups()[1].kind, GroupKind::SomeOf);
        QCOMPARE(p.groups()[1].n, 2);  // Superpixels is left out: 2 children
        QCOMPARE(p.groups()[2].kind, GroupKind::Sequential);
        QCOMPARE(p.groups()[3].kind, GroupKind::RandomOrder);
        QCOMPARE(p.groups()[3].p, 0.7);
        QVERIFY(p.groups()[3].replace);
        std::string w;
        for (const std::string& s : r.warnings) w += s + "\n";
        for (const char* part :
             {"transform.transforms[0].transforms[1]: GlassBlur", "transform.transforms[2].n: 3 is more"})
            QVERIFY2(w.find(part) != std::string::npos, qPrintable(QString::fromStdString(w)));
        // What it means is what the preset now says: export again, import again, the same.
        QCOMPARE(importAlbumentations(exportAlbumentations(r.preset).text).preset.pipeline, p);
    }
};

QTEST_GUILESS_MAIN(TestGroups)
#include "test_groups.moc"
