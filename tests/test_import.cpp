// The Albumentations importer: the real A.save files of 1.4.24, 2.0.8 and AlbumentationsX 2.0.16
// (tests/data/export/reference, copied from shared/reference/albumentations), old key names,
// unmapped keys reported with their JSON paths, real pipelines, strict errors, and the round trip
// preset -> albumentations JSON -> preset as the identity (each op's own cases: test_import_ops.cpp).

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include <QRandomGenerator>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "atomic_file.h"
#include "contact_sheet.h"
#include "cpu_backend.h"
#include "error.h"
#include "export_test_support.h"
#include "exporter.h"
#include "image_io.h"
#include "import_test_support.h"
#include "ops/op_module.h"

using namespace auglab;
using namespace auglab::testing;

class TestImport : public QObject {
    Q_OBJECT

private slots:
    void settingsWithoutAnEquivalentLeaveTheTransformOut() {
        // Sharpen's "gaussian" method has no AugLab op: the transform is left out (never imported as
        // the "kernel" method, which would change what training does), saying why and where; the
        // transforms around it are read.
        const ImportResult r = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "Sharpen", "p": 0.5, "alpha": [0.2, 0.5], "kernel_size": 5,
               "lightness": [0.5, 1.0], "method": "gaussian", "sigma": 1.0},
              {"__class_fullname__": "Sharpen", "p": 0.3, "alpha": [0.1, 0.2], "kernel_size": 5,
               "lightness": [0.5, 1.0], "method": "kernel", "sigma": 1.0},
              {"__class_fullname__": "Emboss", "p": 0.5, "alpha": [0.2, 0.5], "strength": [0.2, 0.7]}],
            "bbox_params": null, "keypoint_params": null, "additional_targets": {}, "is_check_shapes": true}})",
                                                    "sharpen.json");
        QCOMPARE(r.preset.pipeline.size(), std::size_t(2));
        QCOMPARE(r.preset.pipeline[0].name(), std::string("sharpen"));
        QCOMPARE(r.preset.pipeline[0].p, 0.3);
        QCOMPARE(r.preset.pipeline[1].name(), std::string("emboss"));
        const QString w = warningsOf(r);
        QVERIFY2(w.contains("transform.transforms[0].method: Sharpen's method \"gaussian\"") &&
                     w.contains("transform.transforms[0]: Sharpen left out"),
                 qPrintable(w));
        QVERIFY2(!w.contains("transforms[1]"), qPrintable(w));
    }

    void lambdaIsReportedByName() {
        // A Lambda is Python code the file names but does not hold: skipped, said by its name (and
        // without one when the file has none); what is around it is read.
        const ImportResult r = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "Lambda", "p": 1.0, "name": "strip_borders"},
              {"__class_fullname__": "HorizontalFlip", "p": 0.5},
              {"__class_fullname__": "albumentations.core.transforms_interface.Lambda", "p": 0.2}],
            "bbox_params": null, "keypoint_params": null, "additional_targets": {}, "is_check_shapes": true}})",
                                                    "lambda.json");
        QCOMPARE(r.preset.pipeline.size(), std::size_t(1));
        QCOMPARE(r.preset.pipeline[0].name(), std::string("horizontal_flip"));
        const QString w = warningsOf(r);
        QVERIFY2(w.contains("transform.transforms[0]: Lambda has no AugLab op (it runs Python code, saved only as "
                            "the name \"strip_borders\", which a preset cannot hold): skipped."),
                 qPrintable(w));
        QVERIFY2(w.contains("transform.transforms[2]: Lambda has no AugLab op (it runs Python code, which a preset "
                            "cannot hold): skipped."),
                 qPrintable(w));
    }

    void realPipelinesKeepWhatAugLabHas() {
        // 27 pipelines from public training code (tests/data/import/pipelines/SOURCES.md: Kaggle
        // solutions, YOLO and mmdetection configs, segmentation, OCR and keypoint projects), saved by
        // Albumentations 2.0.8. Every transform whose class AugLab has (an op's class, a group, a
        // nested Compose) is kept, unless an order rule leaves it out with a warning; every other
        // one is reported with its JSON path. What is kept exports and imports back unchanged, and
        // renders. The share kept is printed (the issue's measure: transforms that survive import).
        std::set<std::string> known{"OneOf", "SomeOf", "Sequential", "RandomOrder", "Compose"};
        for (const OpModule* m : opModules())
            for (const std::string& c : m->albumentationsClasses()) known.insert(c);
        const std::vector<std::filesystem::path> files = realPipelineFiles();
        QVERIFY(files.size() >= 20);
        std::map<std::string, int> missing;
        int total = 0, kept = 0;
        const Image photo = loadImage(samplePath("chelsea.png")).image;
        for (const auto& file : files) {
            const std::string name = file.filename().string();
            const nlohmann::json doc = nlohmann::json::parse(readFileText(file));
            const ImportResult r = importAlbumentations(readFileText(file), name);
            const QString w = warningsOf(r);
            // The file's transforms: groups (nested Composes too) and ops, each with its path.
            int groups = 0, emptyGroups = 0, ops = 0, unknown = 0, inFile = 0;
            const auto hasLine = [&r](const std::string& start) {
                return std::any_of(r.warnings.begin(), r.warnings.end(),
                                   [&](const std::string& line) { return line.rfind(start, 0) == 0; });
            };
            const std::function<void(const nlohmann::json&, const std::string&)> walk =
                [&](const nlohmann::json& list, const std::string& at) {
                    for (std::size_t i = 0; i < list.size(); ++i) {
                        const std::string path = at + "[" + std::to_string(i) + "]";
                        std::string cls = list[i]["__class_fullname__"].get<std::string>();
                        cls = cls.substr(cls.rfind('.') + 1);
                        ++total;
                        ++inFile;
                        if (!known.count(cls)) {
                            ++unknown;
                            ++missing[cls];
                            QVERIFY2(hasLine(path + ": " + cls + " has no AugLab op"),
                                     qPrintable(QString::fromStdString(name + " " + path + " " + cls) +
                                                " not reported"));
                        } else if (list[i].contains("transforms")) {
                            ++groups;
                            emptyGroups += hasLine(path + ": " + (cls == "Compose" ? "Sequential" : cls) +
                                                   " holds no transform AugLab has");
                            walk(list[i]["transforms"], path + ".transforms");
                        } else {
                            ++ops;
                        }
                    }
                };
            walk(doc["transform"]["transforms"], "transform.transforms");
            const int leftByRules = int(w.count(": left out: "));
            QCOMPARE(int(r.preset.pipeline.size()), ops - leftByRules);
            QCOMPARE(int(r.preset.pipeline.groups().size()), groups - emptyGroups);
            kept += int(r.preset.pipeline.size() + r.preset.pipeline.groups().size());
            // Loss-free from here on, and it renders.
            QCOMPARE(importAlbumentations(exportAlbumentations(r.preset).text, name).preset.pipeline,
                     r.preset.pipeline);
            SourceLevels source(photo);
            CpuBackend cpu(1);
            for (std::uint64_t index = 0; index < 3; ++index)
                QVERIFY(renderSample(r.preset.pipeline, source, 1, index, cpu).width > 0);
            qInfo("%s: %d of %d transforms kept (%d without an AugLab op)", name.c_str(),
                  int(r.preset.pipeline.size() + r.preset.pipeline.groups().size()), inFile, unknown);
        }
        QString list;
        for (const auto& [cls, n] : missing)
            list += QString(" %1 x%2").arg(QString::fromStdString(cls)).arg(n);
        qInfo("kept %d of %d transforms (%.0f%%); without an AugLab op:%s", kept, total, 100.0 * kept / total,
              qPrintable(list));
    }

    void referenceExamples_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<double>("holeHeightMin");  // pixels in 1.4.24's example, a fraction in 2.0's
        QTest::newRow("1.4.24") << "example_1.4.24.json" << 8.0;
        QTest::newRow("2.0.8") << "example_2.0.8.json" << 0.05;
        QTest::newRow("AlbumentationsX 2.0.16") << "example_ax_2.0.16.json" << 0.05;
    }

    void importedTransformsComeBackAsWritten() {
        // Every transform of the real pipelines that imports to an op exports again as the file wrote
        // it (its class, e.g. ShiftScaleRotate, and its arguments, the user's spellings: the op keeps
        // the dict as its origin while its parameters are still what the dict reads to). Compared as
        // JSON values, leaf by leaf; the count is printed.
        const std::vector<std::filesystem::path> files = realPipelineFiles();
        const std::function<void(const nlohmann::json&, std::vector<nlohmann::json>&)> leaves =
            [&](const nlohmann::json& t, std::vector<nlohmann::json>& out) {
                if (t.contains("transforms"))
                    for (const auto& c : t["transforms"]) leaves(c, out);
                else
                    out.push_back(t);
            };
        int imported = 0, back = 0, total = 0, whole = 0, sameFiles = 0;
        QStringList lost;
        for (const auto& f : files) {
            const std::string text = readFileText(f);
            const ImportResult r = importAlbumentations(text, f.filename().string());
            // Saved and loaded first: what the preset file keeps is what comes back.
            const Preset saved = parsePreset(serializePreset(r.preset), "saved");
            const nlohmann::json out = nlohmann::json::parse(exportAlbumentations(saved).text);
            const nlohmann::json original = nlohmann::json::parse(text);
            std::vector<nlohmann::json> written, exported;
            leaves(original["transform"], written);
            leaves(out["transform"], exported);
            total += int(written.size());
            int here = 0;
            for (const OpConfig& op : saved.pipeline) {
                if (!op.origin || !op.enabled) continue;
                ++imported;
                ++here;
                if (std::find(exported.begin(), exported.end(), op.origin->transform) != exported.end())
                    ++back;
                else
                    lost << QString::fromStdString(f.filename().string() + ": " + op.origin->transform.dump());
            }
            // A file all of whose transforms became ops comes back whole: the same JSON value (the
            // Compose, nested ones, groups and label settings as the file wrote them).
            const bool same = out["transform"] == original["transform"];
            sameFiles += same;
            if (here == int(written.size())) {
                ++whole;
                if (!same) lost << QString::fromStdString(f.filename().string() + ": not the same file");
            }
        }
        qInfo("%d of the %d transforms of %d files import to an op; %d of them export as the file wrote them; "
              "%d files come back as they were (%d of them are made of transforms AugLab has)",
              imported, total, int(files.size()), back, sameFiles, whole);
        QVERIFY2(lost.isEmpty(), qPrintable(lost.join('\n')));
        QVERIFY(imported > 200 && whole >= 20);

        // One transform by hand: ShiftScaleRotate stays ShiftScaleRotate, also with a new p; an edit
        // of what it does writes AugLab's Affine, saying so; the origin survives the preset's file.
        const std::string ssr = R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "p": 1.0,
            "transforms": [{"__class_fullname__": "ShiftScaleRotate", "p": 0.5, "shift_limit": 0.1,
                            "scale_limit": 0.2, "rotate_limit": 15, "border_mode": 0}]}})";
        ImportResult r = importAlbumentations(ssr, "ssr");
        QCOMPARE(r.preset.pipeline.size(), std::size_t(1));
        QVERIFY(r.preset.pipeline[0].origin);
        const auto firstOf = [](const ExportResult& e) {
            return nlohmann::json::parse(e.text)["transform"]["transforms"][0];
        };
        nlohmann::json t = firstOf(exportAlbumentations(r.preset));
        QCOMPARE(t["__class_fullname__"].get<std::string>(), std::string("ShiftScaleRotate"));
        QCOMPARE(t["rotate_limit"].get<double>(), 15.0);
        QVERIFY(!t.contains("rotate"));
        Preset loaded = parsePreset(serializePreset(r.preset), "saved");
        QVERIFY(loaded.pipeline[0].origin);
        QCOMPARE(loaded.pipeline[0].origin->transform, r.preset.pipeline[0].origin->transform);
        loaded.pipeline[0].p = 0.25;
        t = firstOf(exportAlbumentations(loaded));
        QCOMPARE(t["__class_fullname__"].get<std::string>(), std::string("ShiftScaleRotate"));
        QCOMPARE(t["p"].get<double>(), 0.25);
        loaded.pipeline[0].set("rotate_deg", Range{-30, 30});
        const ExportResult edited = exportAlbumentations(loaded);
        QCOMPARE(firstOf(edited)["__class_fullname__"].get<std::string>(), std::string("Affine"));
        QString said;
        for (const std::string& w : edited.warnings) said += QString::fromStdString(w) + "\n";
        QVERIFY2(said.contains("edited since it was imported from ShiftScaleRotate"), qPrintable(said));
        // Editing it back to what the file says makes the file's transform right again.
        loaded.pipeline[0].set("rotate_deg", r.preset.pipeline[0].range("rotate_deg"));
        QCOMPARE(firstOf(exportAlbumentations(loaded))["__class_fullname__"].get<std::string>(),
                 std::string("ShiftScaleRotate"));
        // AlbumentationsX spells some arguments otherwise: a 2.0.8 file's transform is not written there.
        const nlohmann::json ax = nlohmann::json::parse(
            exportPreset(loaded, "albumentationsx").text)["transform"]["transforms"][0];
        QCOMPARE(ax["__class_fullname__"].get<std::string>(), std::string("Affine"));

        // A nested ReplayCompose with a save_key and the top Compose without keypoint_params come back
        // as they were; a group made a one_of, or label settings edited, are written in AugLab's form.
        const std::string nested = R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "p": 1.0,
            "transforms": [{"__class_fullname__": "ReplayCompose", "p": 0.7, "save_key": "mine",
                            "transforms": [{"__class_fullname__": "HorizontalFlip", "p": 0.5}],
                            "bbox_params": null, "keypoint_params": null, "additional_targets": {},
                            "is_check_shapes": true}],
            "bbox_params": {"format": "coco", "label_fields": ["labels"], "min_area": 4.0, "min_visibility": 0.1,
                            "min_width": 0.0, "min_height": 0.0, "check_each_transform": true, "clip": false,
                            "max_accept_ratio": null},
            "keypoint_params": null, "additional_targets": {}, "is_check_shapes": false}})";
        ImportResult n = importAlbumentations(nested, "nested");
        const nlohmann::json in = nlohmann::json::parse(nested)["transform"];
        nlohmann::json outN = nlohmann::json::parse(exportAlbumentations(n.preset).text)["transform"];
        QCOMPARE(QString::fromStdString(outN.dump()), QString::fromStdString(in.dump()));
        Preset changed = parsePreset(serializePreset(n.preset), "saved");
        changed.targets->boxes.minArea = 9;
        std::vector<OpGroup> groups = changed.pipeline.groups();
        groups[0].kind = GroupKind::OneOf;
        changed.pipeline.setGroups(groups);
        const ExportResult e = exportAlbumentations(changed);
        outN = nlohmann::json::parse(e.text)["transform"];
        QCOMPARE(outN["transforms"][0]["__class_fullname__"].get<std::string>(), std::string("OneOf"));
        QVERIFY(!outN["keypoint_params"].is_null());
        QCOMPARE(outN["bbox_params"]["min_area"].get<double>(), 9.0);
        said.clear();
        for (const std::string& w : e.warnings) said += QString::fromStdString(w) + "\n";
        QVERIFY2(said.contains("no longer the sequential it was imported as (ReplayCompose)") &&
                     said.contains("the label settings changed since the pipeline was imported"),
                 qPrintable(said));
    }

    void replayComposeAndNestedLabelSettings() {
        // A ReplayCompose is a Compose that also records its draws: read as the pipeline (two real
        // pipelines of issue 33's forty were dropped whole), at the top and nested; a nested
        // Compose's bbox_params become the pipeline's when it gives none, and a disagreement is said.
        const ImportResult r = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "ReplayCompose", "p": 1.0, "save_key": "replay", "bbox_params": null,
            "keypoint_params": null, "additional_targets": {}, "is_check_shapes": true, "transforms": [
              {"__class_fullname__": "HorizontalFlip", "p": 0.5},
              {"__class_fullname__": "ReplayCompose", "p": 0.8, "save_key": "replay",
               "bbox_params": {"format": "pascal_voc", "label_fields": ["labels"], "min_visibility": 0.3},
               "transforms": [{"__class_fullname__": "RandomBrightnessContrast", "p": 0.2},
                              {"__class_fullname__": "Blur", "p": 0.1, "blur_limit": [3, 5]}]}]}})",
                                                    "replay.json");
        QCOMPARE(r.preset.pipeline.size(), std::size_t(3));
        QCOMPARE(QString::fromStdString(r.preset.pipeline[0].name()), QString("horizontal_flip"));
        QCOMPARE(QString::fromStdString(r.preset.pipeline[2].name()), QString("box_blur"));
        QCOMPARE(r.preset.pipeline.groups().size(), std::size_t(1));
        QCOMPARE(r.preset.pipeline.groups()[0].p, 0.8);
        QCOMPARE(r.preset.pipeline.groups()[0].count, std::size_t(2));
        QVERIFY(r.preset.targets.has_value());
        QCOMPARE(r.preset.targets->boxes.minVisibility, 0.3);
        const QString w = warningsOf(r);
        QVERIFY2(w.contains("ReplayCompose read as a Compose") &&
                     w.contains("transform.transforms[1].bbox_params: a nested Compose's bbox_params read as the pipeline's"),
                 qPrintable(w));
        QVERIFY2(!w.contains("save_key") && !w.contains("left out"), qPrintable(w));

        // Nested settings equal to the pipeline's say nothing; different ones are reported.
        const auto nested = [](const char* inner) {
            return importAlbumentations(std::string(R"({"__version__": "2.0.8", "transform": {
                "__class_fullname__": "Compose", "p": 1.0,
                "bbox_params": {"format": "coco", "label_fields": ["labels"]}, "transforms": [
                  {"__class_fullname__": "Compose", "p": 1.0, "bbox_params": )") + inner + R"(, "transforms": [
                    {"__class_fullname__": "VerticalFlip", "p": 0.5}]}]}})",
                                        "nested.json");
        };
        QVERIFY2(!warningsOf(nested(R"({"format": "coco", "label_fields": ["labels"]})")).contains("bbox_params"),
                 qPrintable(warningsOf(nested(R"({"format": "coco", "label_fields": ["labels"]})"))));
        QVERIFY2(warningsOf(nested(R"({"format": "yolo", "label_fields": ["labels"]})")).contains("differ from the pipeline's"),
                 qPrintable(warningsOf(nested(R"({"format": "yolo", "label_fields": ["labels"]})"))));
    }

    void referenceExamples() {
        QFETCH(QString, file);
        QFETCH(double, holeHeightMin);
        const ImportResult r = importFile(file.toUtf8().constData());
        QVERIFY2(r.warnings.empty(), qPrintable(warningsOf(r)));
        QCOMPARE(r.preset.pipeline.size(), std::size_t(4));
        const OpConfig& affine = r.preset.pipeline[0];
        QCOMPARE(affine.name(), std::string("affine"));
        QCOMPARE(affine.p, 0.7);
        QCOMPARE(affine.range("rotate_deg"), (Range{-15, 15}));
        QCOMPARE(affine.range("scale_x"), (Range{0.9, 1.1}));
        QCOMPARE(affine.range("shear_y_deg"), (Range{-5, 5}));
        QCOMPARE(affine.range("translate_x_frac"), (Range{-0.0625, 0.0625}));
        QCOMPARE(affine.choice("border"), std::string("constant"));
        QCOMPARE(affine.choice("interpolation"), std::string("linear"));
        QCOMPARE(r.preset.pipeline[1].name(), std::string("horizontal_flip"));
        QCOMPARE(r.preset.pipeline[1].p, 0.5);
        const OpConfig& dropout = r.preset.pipeline[2];
        QCOMPARE(dropout.range("holes"), (Range{1, 8}));
        const bool px = holeHeightMin >= 1;
        QCOMPARE(dropout.has("hole_height_px"), px);
        QCOMPARE(dropout.range(px ? "hole_height_px" : "hole_height_frac").min, holeHeightMin);
        const OpConfig& bc = r.preset.pipeline[3];
        QCOMPARE(bc.range("contrast"), (Range{-0.2, 0.2}));
        QVERIFY(bc.flag("brightness_by_max"));
    }

    void referenceDefaults_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("1.4.24") << "defaults_alb-1.4.24.json";
        QTest::newRow("2.0.8") << "defaults_alb-2.0.8.json";
        QTest::newRow("AlbumentationsX 2.0.16") << "defaults_ax-2.0.16.json";
    }

    void referenceDefaults() {
        QFETCH(QString, file);
        const ImportResult r = importFile(file.toUtf8().constData());
        QVERIFY(!hasWarning(r, "ColorJitter"));
        QVERIFY(!hasWarning(r, "Perspective"));
        QVERIFY(!hasWarning(r, "GridDropout"));
        QCOMPARE(r.preset.pipeline.size(), std::size_t(11));
        // ColorJitter's defaults (transforms[5]): factors (0.8, 1.2), the hue (-0.5, 0.5), p 0.5.
        const OpConfig& jitter = r.preset.pipeline[5];
        QCOMPARE(jitter.name(), std::string("color_jitter"));
        QCOMPARE(jitter.p, 0.5);
        for (const char* key : {"brightness", "contrast", "saturation"})
            QCOMPARE(jitter.range(key), (Range{0.8, 1.2}));
        QCOMPARE(jitter.range("hue"), (Range{-0.5, 0.5}));
        // Perspective's defaults (the file's transforms[9]): scale (0.05, 0.1), keep_size, linear, constant.
        const OpConfig& perspective = r.preset.pipeline[9];
        QCOMPARE(perspective.name(), std::string("perspective"));
        QCOMPARE(perspective.p, 0.5);
        QCOMPARE(perspective.range("scale"), (Range{0.05, 0.1}));
        QVERIFY(perspective.flag("keep_size"));
        QVERIFY(!perspective.flag("fit_output"));
        QCOMPARE(perspective.choice("interpolation"), std::string("linear"));
        QCOMPARE(perspective.choice("border"), std::string("constant"));
        // GridDropout's defaults: ratio 0.5, the unit from the image size, random offsets, black.
        const OpConfig& grid = r.preset.pipeline[10];
        QCOMPARE(grid.name(), std::string("grid_dropout"));
        QCOMPARE(grid.p, 0.5);
        QCOMPARE(grid.number("ratio"), 0.5);
        QVERIFY(!grid.has("unit_size_px"));
        QVERIFY(grid.flag("random_offset"));
        QCOMPARE(grid.fill("fill"), (Fill{Fill::Mode::Constant, {0, 0, 0}}));
        const OpConfig& hsv = r.preset.pipeline[6];
        QCOMPARE(hsv.range("hue_shift_deg"), (Range{-40, 40}));  // 20 OpenCV units = 40 degrees
        const OpConfig& blur = r.preset.pipeline[7];
        const OpConfig& noise = r.preset.pipeline[8];
        QCOMPARE(noise.range("std_frac"), (Range{0.2, 0.44}));
        QCOMPARE(noise.flag("per_channel"), !file.contains("ax"));
        if (file.contains("1.4.24")) {
            // sigma 0 with kernel sizes 3..7: OpenCV's sigma of those sizes, 0.8 and 1.4.
            QVERIFY(hasWarning(r, "sigma_limit: sigma 0"));
            QVERIFY(std::abs(blur.range("sigma_px").min - 0.8) < 1e-12);
            QVERIFY(std::abs(blur.range("sigma_px").max - 1.4) < 1e-12);
            QCOMPARE(r.preset.pipeline[3].range("hole_height_px"), (Range{8, 8}));
        } else {
            QCOMPARE(blur.range("sigma_px"), (Range{0.5, 3.0}));
            QVERIFY2(r.warnings.empty(), qPrintable(warningsOf(r)));
        }
    }

    void oldKeyNamesAndUnmappedKeys() {
        const ImportResult r = importAlbumentations(R"({"__version__": "1.3.1", "transform": {
            "__class_fullname__": "albumentations.core.composition.Compose", "p": 1.0, "bbox_params": {"format": "coco"},
            "transforms": [
              {"__class_fullname__": "Affine", "p": 1.0, "rotate": [-10, 10], "scale": {"x": [0.9, 1.1], "y": [0.9, 1.1]},
               "translate_percent": null, "translate_px": {"x": [-3, 3], "y": [0, 0]}, "shear": 4, "interpolation": 2,
               "mode": 4, "cval": [1, 2, 3], "cval_mask": 7, "fit_output": false, "keep_ratio": false, "rotate_method": "ellipse",
               "balanced_scale": true, "frobnicate": 1},
              {"__class_fullname__": "CoarseDropout", "p": 0.5, "max_holes": 6, "min_holes": null, "max_height": 0.2,
               "min_height": 0.1, "max_width": 0.3, "min_width": null, "fill_value": 255, "mask_fill_value": null},
              {"__class_fullname__": "GaussNoise", "p": 0.3, "var_limit": [100, 400], "mean": 5.1, "per_channel": false,
               "noise_scale_factor": 0.5},
              {"__class_fullname__": "OneOf", "p": 1.0, "transforms": []},
              {"__class_fullname__": "VerticalFlip"}
            ]}})",
                                                    "old.json");
        const QString w = warningsOf(r);
        QCOMPARE(r.preset.pipeline.size(), std::size_t(4));
        const OpConfig& a = r.preset.pipeline[0];
        QCOMPARE(a.choice("border"), std::string("reflect_101"));     // old "mode"
        QCOMPARE(a.fill("fill").rgb, (std::array<int, 3>{1, 2, 3}));  // old "cval"
        QCOMPARE(a.range("shear_x_deg"), (Range{4, 4}));              // a number is a fixed shear
        QCOMPARE(a.range("translate_x_px"), (Range{-3, 3}));          // shifts in whole pixels
        QCOMPARE(a.range("translate_y_px"), (Range{0, 0}));
        QCOMPARE(a.range("translate_x_frac"), (Range{0, 0}));
        QCOMPARE(a.choice("interpolation"), std::string("linear"));
        // bbox_params is read into the preset's targets section.
        QVERIFY(r.preset.targets && r.preset.targets->boxes.format == BoxFormat::Coco);
        for (const char* part :
             {"transform.transforms[0].interpolation: OpenCV interpolation 2",
              "transform.transforms[0].cval_mask: acts on masks", "transforms[0].rotate_method",
              "transform.transforms[0].balanced_scale", "transform.transforms[0].frobnicate",
              "transform.transforms[2].var_limit", "transform.transforms[2].noise_scale_factor",
              "transform.transforms[3]: OneOf holds no transform AugLab has: left out",
              "transform.transforms[4].p: absent"})
            QVERIFY2(w.contains(part), qPrintable(QString(part) + " not in:\n" + w));
        const OpConfig& d = r.preset.pipeline[1];
        QCOMPARE(d.range("holes"), (Range{6, 6}));
        QCOMPARE(d.range("hole_height_frac"), (Range{0.1, 0.2}));
        QCOMPARE(d.range("hole_width_frac"), (Range{0.3, 0.3}));
        QCOMPARE(d.fill("fill").rgb, (std::array<int, 3>{255, 255, 255}));
        const OpConfig& n = r.preset.pipeline[2];
        QCOMPARE(n.range("std_frac"), (Range{10.0 / 255, 20.0 / 255}));  // sqrt of the variance, of 255
        QCOMPARE(n.range("mean_frac"), (Range{5.1 / 255, 5.1 / 255}));
        QCOMPARE(r.preset.pipeline[3].p, 0.5);  // A.load's default when p is missing
    }

    void strictErrors_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("message");
        QTest::newRow("syntax") << "{"
                                << "t.json";
        QTest::newRow("no transform") << R"({"__version__": "2.0.8"})"
                                      << "transform";
        QTest::newRow("range order") << R"({"transform": {"__class_fullname__": "Compose", "transforms": [
            {"__class_fullname__": "Affine", "p": 1, "rotate": [10, -10]}]}})"
                                     << "transform.transforms[0].rotate: min 10 > max -10";
        QTest::newRow("wrong type") << R"({"transform": {"__class_fullname__": "Compose", "transforms": [
            {"__class_fullname__": "HorizontalFlip", "p": "often"}]}})"
                                    << "transform.transforms[0].p";
        QTest::newRow("p out of range") << R"({"transform": {"__class_fullname__": "Compose", "transforms": [
            {"__class_fullname__": "HorizontalFlip", "p": 1.5}]}})"
                                        << "transform.transforms[0].p: p must be in [0, 1]";
        QTest::newRow("transforms not a list")
            << R"({"transform": {"__class_fullname__": "Compose", "transforms": 3}})"
            << "transform.transforms";
    }

    void strictErrors() {
        QFETCH(QString, json);
        QFETCH(QString, message);
        const QString error = QString::fromStdString(importError(json.toStdString()));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    void roundTripBuiltIns() {
        for (const auto& [name, preset] : builtInPresets())
            for (const auto write : {&exportAlbumentations, &exportAlbumentationsX}) {
                const ImportResult r = importAlbumentations(write(preset).text, name);
                QVERIFY2(r.warnings.empty(), qPrintable(warningsOf(r)));
                QVERIFY2(r.preset == preset, name.c_str());
            }
    }

    void roundTripTargets() {
        // The targets section goes out as bbox_params / keypoint_params and comes back the same.
        Preset preset = defaultPreset();
        TargetSettings t;
        t.boxes.format = BoxFormat::Coco;
        t.boxes.labelFields = {"category_ids", "iscrowd"};
        t.boxes.minArea = 12;
        t.boxes.minVisibility = 0.35;
        t.boxes.minWidth = 2;
        t.boxes.minHeight = 3;
        t.boxes.maxAcceptRatio = 6;
        t.boxes.clip = true;
        t.boxes.checkEachTransform = false;
        t.keypoints.format = "xyas";
        t.keypoints.labelFields = {"keypoint_labels"};
        t.keypoints.removeInvisible = false;
        t.keypoints.angleInDegrees = false;
        preset.targets = t;
        const ImportResult r = importAlbumentations(exportAlbumentations(preset).text, "targets");
        QVERIFY2(r.warnings.empty(), qPrintable(warningsOf(r)));
        QVERIFY(r.preset.targets.has_value());
        QVERIFY(*r.preset.targets == t);
        // A file's BboxParams with a value out of range is an error naming its path.
        std::string text = exportAlbumentations(preset).text;
        const std::string was = "\"min_visibility\": 0.35";
        QVERIFY(text.find(was) != std::string::npos);
        text.replace(text.find(was), was.size(), "\"min_visibility\": 1.35");
        try {
            importAlbumentations(text, "bad");
            QFAIL("min_visibility 1.35 was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("transform.bbox_params.min_visibility"), e.what());
        }
    }

    void roundTripGenerated() {
        QRandomGenerator rng(20240531);
        for (int i = 0; i < 300; ++i) {
            const Preset preset = randomPreset(rng, i);
            const ExportResult e = exportAlbumentations(preset);
            const ImportResult r = importAlbumentations(e.text, "generated");
            QVERIFY2(r.warnings.empty(), qPrintable(warningsOf(r)));
            if (!(r.preset == preset))
                QFAIL(("round trip changed preset " + std::to_string(i) + ":\n" + serializePreset(preset) +
                       "\nbecame\n" + serializePreset(r.preset))
                          .c_str());
        }
    }

    void trainingTailRoundTrips() {
        // training-tail.2.0.8.json: A.save of Albumentations 2.0.8 (HorizontalFlip, Normalize,
        // FromFloat, ToFloat), with albumentations.pytorch's ToTensorV2 entry added as 2.0.8 writes it.
        nlohmann::ordered_json doc = nlohmann::ordered_json::parse(
            readFileText(kExportData / "reference" / "training-tail.2.0.8.json"));
        doc["transform"]["transforms"].push_back(
            {{"__class_fullname__", "ToTensorV2"}, {"p", 1.0}, {"transpose_mask", true}});
        const ImportResult r = importAlbumentations(doc.dump(), "tail");
        QVERIFY2(r.warnings.empty(), qPrintable(warningsOf(r)));
        QStringList names;
        for (const OpConfig& op : r.preset.pipeline) names << QString::fromStdString(op.name());
        QCOMPARE(names, (QStringList{"horizontal_flip", "normalize", "from_float", "to_float", "to_tensor"}));
        const OpConfig& n = r.preset.pipeline[1];
        QCOMPARE(n.triple("mean"), (Triple{{0.5, 0.5, 0.5}}));
        QCOMPARE(n.triple("std"), (Triple{{0.25, 0.3, 0.35}}));
        QVERIFY(r.preset.pipeline[4].flag("transpose_mask"));
        // Exported again: the tail's entries exactly as the library wrote them (each op keeps the
        // transform it was imported from: ToFloat's max_value stays None).
        const nlohmann::ordered_json back =
            nlohmann::ordered_json::parse(exportAlbumentations(r.preset).text);
        const auto& in = doc["transform"]["transforms"];
        const auto& out = back["transform"]["transforms"];
        QCOMPARE(out.size(), in.size());
        for (std::size_t i = 1; i < in.size(); ++i) {
            const nlohmann::ordered_json expected = in[i];
            QCOMPARE(QString::fromStdString(nlohmann::json(out[i]).dump()),
                     QString::fromStdString(nlohmann::json(expected).dump()));
        }
        // The Python file imports ToTensorV2 from albumentations.pytorch.
        const std::string py = exportAlbumentationsPython(r.preset).text;
        QVERIFY(py.find("from albumentations.pytorch import ToTensorV2\n") != std::string::npos);
        QVERIFY(py.find("        ToTensorV2(\n            transpose_mask=True,") != std::string::npos);
        // A scalar mean or std is one per channel; normalizations other than standard need neither.
        const ImportResult scalar = importAlbumentations(
            R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "p": 1.0, "transforms": [
                {"__class_fullname__": "Normalize", "p": 1.0, "mean": 0.5, "std": [0.2], "max_pixel_value": 1.0,
                 "normalization": "standard"},
                {"__class_fullname__": "Normalize", "p": 1.0, "mean": null, "std": null, "max_pixel_value": 255.0,
                 "normalization": "min_max"}]}})",
            "scalar");
        QCOMPARE(scalar.preset.pipeline[0].triple("mean"), (Triple{{0.5, 0.5, 0.5}}));
        QCOMPARE(scalar.preset.pipeline[0].triple("std"), (Triple{{0.2, 0.2, 0.2}}));
        QCOMPARE(scalar.preset.pipeline[1].choice("normalization"), std::string("min_max"));
    }

    void trainingOpsEndThePipeline() {
        try {
            parsePreset(R"({"format": "auglab-preset", "version": 1, "pipeline": [
                {"op": "normalize"}, {"op": "horizontal_flip"}]})");
            QFAIL("a flip after normalize was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find(
                         "pipeline[1].op: horizontal_flip must come before the training ops "
                         "(pipeline[0] normalize is before it)") != std::string::npos,
                     e.what());
        }
    }

    void roundTripOfWhatCannotBeHeldIsStated() {
        // Values Albumentations cannot hold come back changed, and the export said so.
        const Preset p = parsePreset(R"({"format": "auglab-preset", "version": 1, "pipeline": [
            {"op": "affine", "keep_ratio": true, "scale_x": [0.9, 1.1], "scale_y": [0.5, 0.6]},
            {"op": "coarse_dropout", "holes": [0, 2]}]})");
        const ExportResult e = exportAlbumentations(p);
        QCOMPARE(e.warnings.size(), std::size_t(2));
        const ImportResult r = importAlbumentations(e.text, "t");
        QCOMPARE(r.preset.pipeline[0].range("scale_y"), (Range{0.9, 1.1}));
        QCOMPARE(r.preset.pipeline[1].range("holes"), (Range{1, 2}));
        QCOMPARE(r.preset.pipeline[1].p, 2.0 / 3);
    }
};

QTEST_GUILESS_MAIN(TestImport)
#include "test_import.moc"
