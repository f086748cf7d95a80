// The Albumentations importer: the real A.save files of 1.4.24, 2.0.8 and AlbumentationsX 2.0.16
// (tests/data/export/reference, copied from shared/reference/albumentations), old key names,
// unmapped keys reported with their JSON paths, strict errors, and the round trip
// preset -> albumentations JSON -> preset as the identity.

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
#include "ops/op_module.h"

using namespace auglab;
using namespace auglab::testing;

namespace {

ImportResult importFile(const char* name) {
    return importAlbumentations(readFileText(kExportData / "reference" / name), name);
}

bool hasWarning(const ImportResult& r, const std::string& part) {
    for (const std::string& w : r.warnings)
        if (w.find(part) != std::string::npos) return true;
    return false;
}

QString warningsOf(const ImportResult& r) {
    QString s;
    for (const std::string& w : r.warnings) s += QString::fromStdString(w) + "\n";
    return s;
}

std::string importError(const std::string& json) {
    try {
        importAlbumentations(json, "t.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return "NO ERROR";
}

}  // namespace

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
        const std::filesystem::path dir =
            std::filesystem::path(AUGLAB_SOURCE_DIR) / "tests/data/import/pipelines";
        std::vector<std::filesystem::path> files;
        for (const auto& e : std::filesystem::directory_iterator(dir))
            if (e.path().extension() == ".json") files.push_back(e.path());
        std::sort(files.begin(), files.end());
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
        QCOMPARE(a.choice("interpolation"), std::string("linear"));
        // bbox_params is read into the preset's targets section.
        QVERIFY(r.preset.targets && r.preset.targets->boxes.format == BoxFormat::Coco);
        for (const char* part :
             {"transform.transforms[0].translate_px: shifts in pixels",
              "transform.transforms[0].interpolation: OpenCV interpolation 2",
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

    void oldCutoutIsCoarseDropout() {
        // Albumentations 1.x Cutout (removed in 2.0): num_holes holes of max_h_size x max_w_size px.
        const ImportResult r = importAlbumentations(R"({"__version__": "1.4.24", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "Cutout", "p": 0.4, "num_holes": 5, "max_h_size": 12, "max_w_size": 20,
               "fill_value": 128},
              {"__class_fullname__": "Cutout", "max_w_size": 3}
            ]}})",
                                                    "cutout.json");
        QCOMPARE(r.preset.pipeline.size(), std::size_t(2));
        const OpConfig& c = r.preset.pipeline[0];
        QCOMPARE(QString::fromStdString(c.name()), QString("coarse_dropout"));
        QCOMPARE(c.p, 0.4);
        QCOMPARE(c.range("holes"), (Range{5, 5}));
        QCOMPARE(c.range("hole_height_px"), (Range{12, 12}));
        QCOMPARE(c.range("hole_width_px"), (Range{20, 20}));
        QCOMPARE(c.fill("fill").rgb, (std::array<int, 3>{128, 128, 128}));
        // Missing keys: 1.4's defaults (8 holes of 8 x 8, black), said as defaults.
        const OpConfig& d = r.preset.pipeline[1];
        QCOMPARE(d.range("holes"), (Range{8, 8}));
        QCOMPARE(d.range("hole_height_px"), (Range{8, 8}));
        QCOMPARE(d.range("hole_width_px"), (Range{3, 3}));
        const QString w = warningsOf(r);
        QVERIFY2(
            w.contains("transform.transforms[0].num_holes: Cutout (Albumentations 1.x) centres its holes"),
            qPrintable(w));
    }

    void compressionOldAndNewNames() {
        // 2.x ImageCompression; 1.x ImageCompression (quality_lower/upper, the enum's value for the
        // codec); 1.x JpegCompression (removed in 2.0).
        const ImportResult r = importAlbumentations(R"({"__version__": "1.4.24", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "ImageCompression", "p": 0.3, "quality_range": [30, 60], "compression_type": "webp"},
              {"__class_fullname__": "ImageCompression", "p": 0.6, "quality_lower": 40, "quality_upper": 80,
               "quality_range": [99, 100], "compression_type": 1},
              {"__class_fullname__": "JpegCompression", "p": 0.2, "quality_lower": 70, "quality_upper": 90},
              {"__class_fullname__": "JpegCompression"}
            ]}})",
                                                    "compression.json");
        QCOMPARE(r.preset.pipeline.size(), std::size_t(4));
        const auto check = [&](std::size_t i, const char* codec, Range q, double p) {
            const OpConfig& c = r.preset.pipeline[i];
            QCOMPARE(QString::fromStdString(c.name()), QString("image_compression"));
            QCOMPARE(QString::fromStdString(c.choice("compression_type")), QString(codec));
            QCOMPARE(c.range("quality_range"), q);
            QCOMPARE(c.p, p);
        };
        check(0, "webp", Range{30, 60}, 0.3);
        check(1, "webp", Range{40, 80}, 0.6);
        check(2, "jpeg", Range{70, 90}, 0.2);
        check(3, "jpeg", Range{99, 100}, 0.5);
        const QString w = warningsOf(r);
        QVERIFY2(w.contains("transform.transforms[3].quality_range: absent"), qPrintable(w));
        QVERIFY2(!w.contains("transforms[1].quality"), qPrintable(w));  // every key read

        // An upper end below the lower one is an error at its path.
        const std::string e = importError(R"({"__version__": "1.4.24", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "JpegCompression", "quality_lower": 70, "quality_upper": 60}]}})");
        QVERIFY2(QString::fromStdString(e).contains("transform.transforms[0].quality_upper"), e.c_str());
    }

    void multiplicativeNoise() {
        // 2.0.8 (a range, per channel) and 1.x (a scalar multiplier is [m, m]); elementwise (a factor
        // per pixel) has no AugLab form: left out, saying so.
        const ImportResult r = importAlbumentations(R"({"__version__": "1.4.24", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "MultiplicativeNoise", "p": 0.4, "multiplier": [0.8, 1.25], "per_channel": true,
               "elementwise": false},
              {"__class_fullname__": "MultiplicativeNoise", "multiplier": 1.3},
              {"__class_fullname__": "MultiplicativeNoise", "multiplier": [0.9, 1.1], "elementwise": true}
            ]}})",
                                                    "multiply.json");
        QCOMPARE(r.preset.pipeline.size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(r.preset.pipeline[0].name()), QString("multiplicative_noise"));
        QCOMPARE(r.preset.pipeline[0].range("multiplier"), (Range{0.8, 1.25}));
        QVERIFY(r.preset.pipeline[0].flag("per_channel"));
        QCOMPARE(r.preset.pipeline[0].p, 0.4);
        QCOMPARE(r.preset.pipeline[1].range("multiplier"), (Range{1.3, 1.3}));
        QVERIFY(!r.preset.pipeline[1].flag("per_channel"));
        const QString w = warningsOf(r);
        QVERIFY2(w.contains("transform.transforms[2].elementwise: a multiplier per pixel"), qPrintable(w));
        QVERIFY2(w.contains("transform.transforms[1].per_channel: absent"), qPrintable(w));
    }

    void xyMasking() {
        // A.save's ranges and the scalar forms (n is [n, n]); a non-integer length is an error at its path.
        const ImportResult r = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "XYMasking", "p": 0.6, "num_masks_x": [1, 3], "num_masks_y": [0, 2],
               "mask_x_length": [5, 40], "mask_y_length": [2, 9], "fill": "random_uniform", "fill_mask": null},
              {"__class_fullname__": "XYMasking", "num_masks_x": 2, "mask_x_length": 10, "fill": [1, 2, 3]}
            ]}})",
                                                    "xy.json");
        QCOMPARE(r.preset.pipeline.size(), std::size_t(2));
        const OpConfig& a = r.preset.pipeline[0];
        QCOMPARE(QString::fromStdString(a.name()), QString("xy_masking"));
        QCOMPARE(a.p, 0.6);
        QCOMPARE(a.range("num_masks_x"), (Range{1, 3}));
        QCOMPARE(a.range("num_masks_y"), (Range{0, 2}));
        QCOMPARE(a.range("mask_x_length"), (Range{5, 40}));
        QCOMPARE(a.range("mask_y_length"), (Range{2, 9}));
        QCOMPARE(int(a.fill("fill").mode), int(Fill::Mode::RandomUniform));
        const OpConfig& b = r.preset.pipeline[1];
        QCOMPARE(b.range("num_masks_x"), (Range{2, 2}));
        QCOMPARE(b.range("mask_x_length"), (Range{10, 10}));
        QCOMPARE(b.range("num_masks_y"), (Range{0, 0}));  // the default
        QCOMPARE(b.fill("fill").rgb, (std::array<int, 3>{1, 2, 3}));
        const QString w = warningsOf(r);
        QVERIFY2(!w.contains("no AugLab equivalent"), qPrintable(w));
        const std::string e = importError(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "XYMasking", "num_masks_x": 1, "mask_x_length": [2.5, 4]}]}})");
        QVERIFY2(QString::fromStdString(e).contains("transform.transforms[0].mask_x_length"), e.c_str());
    }

    void rotateIsAffine() {
        // Rotate (crop_border off) is Affine(rotate=limit) in Albumentations 2.0.8 and 1.4.24: the
        // same draw, pixels, boxes and keypoints (measured with OpenCV 4.11, every border and both
        // interpolations: not one value apart). A scalar limit L is [-L, L]; 1.x reflected at the
        // border by default. crop_border changes the size: left out, saying so.
        const ImportResult r = importAlbumentations(R"({"__version__": "1.4.24", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "Rotate", "p": 0.3, "limit": 25, "interpolation": 0, "border_mode": 0,
               "value": [10, 20, 30], "mask_value": 0},
              {"__class_fullname__": "Rotate"},
              {"__class_fullname__": "Rotate", "limit": [-10, 10], "crop_border": true}
            ]}})",
                                                    "rotate.json");
        QCOMPARE(r.preset.pipeline.size(), std::size_t(2));
        const OpConfig& a = r.preset.pipeline[0];
        QCOMPARE(QString::fromStdString(a.name()), QString("affine"));
        QCOMPARE(a.p, 0.3);
        QCOMPARE(a.range("rotate_deg"), (Range{-25, 25}));
        QCOMPARE(a.range("scale_x"), (Range{1, 1}));
        QCOMPARE(a.range("shear_y_deg"), (Range{0, 0}));
        QCOMPARE(a.range("translate_x_frac"), (Range{0, 0}));
        QCOMPARE(QString::fromStdString(a.choice("interpolation")), QString("nearest"));
        QCOMPARE(QString::fromStdString(a.choice("border")), QString("constant"));
        QCOMPARE(a.fill("fill").rgb, (std::array<int, 3>{10, 20, 30}));
        const OpConfig& b = r.preset.pipeline[1];
        QCOMPARE(b.range("rotate_deg"), (Range{-90, 90}));
        QCOMPARE(QString::fromStdString(b.choice("border")), QString("reflect_101"));
        const QString w = warningsOf(r);
        QVERIFY2(w.contains("transform.transforms[2].crop_border: crop_border crops"), qPrintable(w));
        QVERIFY2(w.contains("transform.transforms[2]: Rotate left out"), qPrintable(w));
        QVERIFY2(!w.contains("no AugLab equivalent"), qPrintable(w));  // every key read
    }

    void safeRotate() {
        // A.save's 2.0.8 SafeRotate, and 1.x's (value for fill, reflect_101 by default).
        const ImportResult r = importAlbumentations(R"({"__version__": "1.4.24", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "SafeRotate", "p": 0.4, "limit": [-20, 35], "interpolation": 0, "border_mode": 1,
               "fill": 0.0, "fill_mask": 0.0, "rotate_method": "largest_box", "mask_interpolation": 0},
              {"__class_fullname__": "SafeRotate", "limit": 15, "value": [9, 8, 7]}
            ]}})",
                                                    "safe.json");
        QCOMPARE(r.preset.pipeline.size(), std::size_t(2));
        const OpConfig& a = r.preset.pipeline[0];
        QCOMPARE(QString::fromStdString(a.name()), QString("safe_rotate"));
        QCOMPARE(a.p, 0.4);
        QCOMPARE(a.range("limit"), (Range{-20, 35}));
        QCOMPARE(QString::fromStdString(a.choice("interpolation")), QString("nearest"));
        QCOMPARE(QString::fromStdString(a.choice("border")), QString("replicate"));
        const OpConfig& b = r.preset.pipeline[1];
        QCOMPARE(b.range("limit"), (Range{-15, 15}));
        QCOMPARE(QString::fromStdString(b.choice("border")), QString("reflect_101"));
        QCOMPARE(b.fill("fill").rgb, (std::array<int, 3>{9, 8, 7}));
        QVERIFY2(!warningsOf(r).contains("no AugLab equivalent"), qPrintable(warningsOf(r)));

        // What A.save of 2.0.8 writes (SafeRotate's Affine arguments too): every key read, no warning.
        const ImportResult saved = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "SafeRotate", "p": 0.4, "balanced_scale": false, "border_mode": 1, "fill": 0.0,
               "fill_mask": 0.0, "fit_output": true, "interpolation": 0, "keep_ratio": false, "limit": [-20.0, 35.0],
               "mask_interpolation": 0, "rotate": [-20.0, 35.0], "rotate_method": "largest_box",
               "scale": {"x": [1.0, 1.0], "y": [1.0, 1.0]}, "shear": {"x": [0.0, 0.0], "y": [0.0, 0.0]},
               "translate_percent": null, "translate_px": {"x": [0, 0], "y": [0, 0]}}]}})",
                                                        "saved.json");
        QCOMPARE(saved.preset.pipeline.size(), std::size_t(1));
        QCOMPARE(saved.preset.pipeline[0].range("limit"), (Range{-20, 35}));
        QVERIFY2(saved.warnings.empty(), qPrintable(warningsOf(saved)));
    }

    void distortions() {
        // What A.save of 2.0.8 writes for GridDistortion and OpticalDistortion (the OCR pipelines'
        // INTER_AREA, which cv2.remap runs as linear: read as linear without a word), and 1.x's (value for
        // fill, reflect_101 by default, OpticalDistortion's shift_limit, rounded to whole pixels there).
        const ImportResult r = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "GridDistortion", "p": 0.3, "border_mode": 0, "distort_limit": [-0.1, 0.1],
               "fill": [255.0, 255.0, 255.0], "fill_mask": 0.0, "interpolation": 3, "keypoint_remapping_method": "direct",
               "mask_interpolation": 0, "normalized": false, "num_steps": 7},
              {"__class_fullname__": "OpticalDistortion", "p": 0.5, "border_mode": 4, "distort_limit": [-2.0, 2.0],
               "fill": 0.0, "fill_mask": 0.0, "interpolation": 0, "keypoint_remapping_method": "mask",
               "mask_interpolation": 0, "mode": "fisheye"}]}})",
                                                    "distortions.json");
        QVERIFY2(r.warnings.empty(), qPrintable(warningsOf(r)));
        QCOMPARE(r.preset.pipeline.size(), std::size_t(2));
        const OpConfig& g = r.preset.pipeline[0];
        QCOMPARE(QString::fromStdString(g.name()), QString("grid_distortion"));
        QCOMPARE(g.p, 0.3);
        QCOMPARE(g.range("num_steps"), (Range{7, 7}));
        QCOMPARE(g.range("distort_limit"), (Range{-0.1, 0.1}));
        QVERIFY(!g.flag("normalized"));
        QCOMPARE(QString::fromStdString(g.choice("interpolation")), QString("linear"));
        QCOMPARE(QString::fromStdString(g.choice("keypoint_remapping")), QString("direct"));
        QCOMPARE(g.fill("fill").rgb, (std::array<int, 3>{255, 255, 255}));
        const OpConfig& o = r.preset.pipeline[1];
        QCOMPARE(QString::fromStdString(o.name()), QString("optical_distortion"));
        QCOMPARE(o.range("distort_limit"), (Range{-2, 2}));
        QCOMPARE(QString::fromStdString(o.choice("mode")), QString("fisheye"));
        QCOMPARE(QString::fromStdString(o.choice("interpolation")), QString("nearest"));
        QCOMPARE(QString::fromStdString(o.choice("border")), QString("reflect_101"));

        const ImportResult old = importAlbumentations(R"({"__version__": "1.4.24", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "GridDistortion", "num_steps": 4, "distort_limit": 0.5, "value": [1, 2, 3]},
              {"__class_fullname__": "OpticalDistortion", "distort_limit": 0.3, "shift_limit": 0.2},
              {"__class_fullname__": "OpticalDistortion", "distort_limit": 1, "shift_limit": 0.5, "interpolation": 2}
            ]}})",
                                                      "old.json");
        QCOMPARE(old.preset.pipeline.size(), std::size_t(3));
        QCOMPARE(old.preset.pipeline[0].range("distort_limit"), (Range{-0.5, 0.5}));
        QCOMPARE(QString::fromStdString(old.preset.pipeline[0].choice("border")), QString("reflect_101"));
        QCOMPARE(old.preset.pipeline[0].fill("fill").rgb, (std::array<int, 3>{1, 2, 3}));
        QCOMPARE(old.preset.pipeline[1].range("distort_limit"), (Range{-0.3, 0.3}));
        const QString w = warningsOf(old);
        QVERIFY2(!w.contains("transform.transforms[1].shift_limit"), qPrintable(w));  // below half a pixel
        QVERIFY2(w.contains("transform.transforms[2].shift_limit") && w.contains("lens centre"),
                 qPrintable(w));
        QVERIFY2(w.contains("transform.transforms[2].interpolation") && w.contains("OpenCV interpolation 2"),
                 qPrintable(w));

        // ElasticTransform as A.save of 2.0.8 writes it (the pneumothorax pipeline's), and 1.x's with
        // alpha_affine, which 2.0 dropped: reported.
        const ImportResult elastic = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "ElasticTransform", "p": 0.5, "alpha": 120.0, "approximate": false, "border_mode": 4,
               "fill": 0.0, "fill_mask": 0.0, "interpolation": 1, "keypoint_remapping_method": "mask",
               "mask_interpolation": 0, "noise_distribution": "uniform", "same_dxdy": true, "sigma": 6.0}]}})",
                                                          "elastic.json");
        QVERIFY2(elastic.warnings.empty(), qPrintable(warningsOf(elastic)));
        const OpConfig& e = elastic.preset.pipeline.at(0);
        QCOMPARE(QString::fromStdString(e.name()), QString("elastic_transform"));
        QCOMPARE(e.number("alpha"), 120.0);
        QCOMPARE(e.number("sigma"), 6.0);
        QVERIFY(e.flag("same_dxdy") && !e.flag("approximate"));
        QCOMPARE(QString::fromStdString(e.choice("noise_distribution")), QString("uniform"));
        QCOMPARE(QString::fromStdString(e.choice("border")), QString("reflect_101"));
        const ImportResult oldElastic = importAlbumentations(R"({"__version__": "1.4.24", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "ElasticTransform", "alpha": 1, "sigma": 50, "alpha_affine": 50}]}})",
                                                             "old-elastic.json");
        QCOMPARE(oldElastic.preset.pipeline.size(), std::size_t(1));
        QVERIFY2(warningsOf(oldElastic).contains("transform.transforms[0].alpha_affine"),
                 qPrintable(warningsOf(oldElastic)));

        const ImportResult shuffle = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "RandomGridShuffle", "p": 0.5, "grid": [4, 2]},
              {"__class_fullname__": "RandomGridShuffle", "p": 0.5, "grid": [100, 3]}]}})",
                                                          "shuffle.json");
        QCOMPARE(shuffle.preset.pipeline.size(), std::size_t(2));
        QCOMPARE(shuffle.preset.pipeline[0].size("grid"), (Size2{4, 2}));
        QCOMPARE(shuffle.preset.pipeline[1].size("grid"), (Size2{64, 3}));
        QVERIFY2(warningsOf(shuffle).contains("transform.transforms[1].grid[0]: 100 cells limited to 64"),
                 qPrintable(warningsOf(shuffle)));

        // Downscale as 2.0.8 writes it (the sign-language pipeline's), and 1.x's scale_min/scale_max with
        // one interpolation for both; INTER_AREA (3) has no AugLab equivalent: linear, reported.
        const ImportResult down = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "Downscale", "p": 0.3, "interpolation_pair": {"upscale": 1, "downscale": 0},
               "scale_range": [0.3, 0.6]}]}})",
                                                       "down.json");
        QVERIFY2(down.warnings.empty(), qPrintable(warningsOf(down)));
        const OpConfig& d = down.preset.pipeline.at(0);
        QCOMPARE(d.range("scale_range"), (Range{0.3, 0.6}));
        QCOMPARE(QString::fromStdString(d.choice("down_interpolation")), QString("nearest"));
        QCOMPARE(QString::fromStdString(d.choice("up_interpolation")), QString("linear"));
        const ImportResult oldDown = importAlbumentations(R"({"__version__": "1.4.24", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "Downscale", "scale_min": 0.5, "scale_max": 0.75, "interpolation": 3}]}})",
                                                          "old-down.json");
        QCOMPARE(oldDown.preset.pipeline.at(0).range("scale_range"), (Range{0.5, 0.75}));
        QCOMPARE(QString::fromStdString(oldDown.preset.pipeline.at(0).choice("up_interpolation")),
                 QString("linear"));
        QVERIFY2(
            warningsOf(oldDown).contains("transform.transforms[0].interpolation: OpenCV interpolation 3"),
            qPrintable(warningsOf(oldDown)));

        // ColorJitter as 2.0.8 writes it (yolov5-classify's), and the numbers the library's validator
        // turns into ranges: v is [max(0, 1 - v), 1 + v] for a factor and [-v, v] for the hue; a missing
        // key is the writing version's default (noted).
        const ImportResult jitter = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "ColorJitter", "p": 0.5, "brightness": [0.6, 1.4], "contrast": [0.6, 1.4],
               "hue": [0.0, 0.0], "saturation": [0.6, 1.4]},
              {"__class_fullname__": "ColorJitter", "p": 1.0, "brightness": 0.3, "contrast": 1.5, "hue": 0.1}]}})",
                                                         "jitter.json");
        QCOMPARE(jitter.preset.pipeline.size(), std::size_t(2));
        const OpConfig& j0 = jitter.preset.pipeline[0];
        QCOMPARE(j0.p, 0.5);
        QCOMPARE(j0.range("brightness"), (Range{0.6, 1.4}));
        QCOMPARE(j0.range("saturation"), (Range{0.6, 1.4}));
        QCOMPARE(j0.range("hue"), (Range{0, 0}));
        const OpConfig& j1 = jitter.preset.pipeline[1];
        QCOMPARE(j1.range("brightness"), (Range{0.7, 1.3}));
        QCOMPARE(j1.range("contrast"), (Range{0, 2.5}));
        QCOMPARE(j1.range("hue"), (Range{-0.1, 0.1}));
        QCOMPARE(j1.range("saturation"), (Range{0.8, 1.2}));
        QVERIFY2(warningsOf(jitter).contains("transform.transforms[1]") &&
                     warningsOf(jitter).contains("saturation"),
                 qPrintable(warningsOf(jitter)));

        // Equalize as 2.0.8 writes it; a mask (here an array) has no AugLab equivalent: left out, said.
        const ImportResult eq = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "Equalize", "p": 0.2, "by_channels": false, "mask": null, "mode": "pil"},
              {"__class_fullname__": "Equalize", "p": 1.0, "by_channels": true, "mask": [[1, 0], [0, 1]], "mode": "cv"}]}})",
                                                     "equalize.json");
        QCOMPARE(eq.preset.pipeline.size(), std::size_t(1));
        QCOMPARE(eq.preset.pipeline[0].p, 0.2);
        QCOMPARE(eq.preset.pipeline[0].choice("mode"), std::string("pil"));
        QVERIFY(!eq.preset.pipeline[0].flag("by_channels"));
        QVERIFY2(warningsOf(eq).contains("transform.transforms[1].mask: a mask"), qPrintable(warningsOf(eq)));

        // CLAHE as 2.0.8 writes it (a kaggle pipeline's, with an uneven grid), and 1.4.24's number for the
        // clip limit (the upper end; the lower is 1). The library's tile_grid_size is OpenCV's Size,
        // [across, down]: AugLab's tile_grid is [rows, columns], so [4, 6] is read as 6 rows of 4, and
        // written back as it came.
        const char* claheJson = R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "CLAHE", "p": 0.7, "clip_limit": [1.0, 4.0], "tile_grid_size": [4, 6]},
              {"__class_fullname__": "CLAHE", "p": 1.0, "clip_limit": 2.5, "tile_grid_size": [8, 8]}]}})";
        const ImportResult cl = importAlbumentations(claheJson, "clahe.json");
        QVERIFY2(cl.warnings.empty(), qPrintable(warningsOf(cl)));
        QCOMPARE(cl.preset.pipeline.size(), std::size_t(2));
        QCOMPARE(cl.preset.pipeline[0].range("clip_limit"), (Range{1, 4}));
        QCOMPARE(cl.preset.pipeline[0].size("tile_grid"), (Size2{6, 4}));
        QCOMPARE(cl.preset.pipeline[1].range("clip_limit"), (Range{1, 2.5}));
        const nlohmann::json clBack = nlohmann::json::parse(exportAlbumentations(cl.preset).text);
        QCOMPARE(clBack["transform"]["transforms"][0]["tile_grid_size"], nlohmann::json::parse("[4, 6]"));
        QCOMPARE(clBack["transform"]["transforms"][0]["p"], nlohmann::json(0.7));
        const std::string clErr = importError(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "CLAHE", "p": 1.0, "clip_limit": [1.0, 4.0], "tile_grid_size": [8]}]}})");
        QVERIFY2(QString::fromStdString(clErr).contains("transform.transforms[0].tile_grid_size"),
                 clErr.c_str());

        // RandomFog as 2.0.8 writes it (the table-extraction pipeline's), and 1.4's lower and upper ends.
        const ImportResult fog = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "RandomFog", "p": 0.5, "alpha_coef": 0.08, "fog_coef_range": [0.05, 0.3]}]}})",
                                                      "fog.json");
        QVERIFY2(fog.warnings.empty(), qPrintable(warningsOf(fog)));
        QCOMPARE(fog.preset.pipeline.at(0).range("fog_coef"), (Range{0.05, 0.3}));
        QCOMPARE(fog.preset.pipeline.at(0).number("alpha_coef"), 0.08);
        const ImportResult oldFog = importAlbumentations(R"({"__version__": "1.4.24", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "RandomFog", "p": 0.5, "alpha_coef": 0.1, "fog_coef_lower": 0.2, "fog_coef_upper": 0.6}]}})",
                                                         "old-fog.json");
        QVERIFY2(oldFog.warnings.empty(), qPrintable(warningsOf(oldFog)));
        QCOMPARE(oldFog.preset.pipeline.at(0).range("fog_coef"), (Range{0.2, 0.6}));

        // FancyPCA as 2.0.8 writes it; a negative alpha is the library's validation error.
        const ImportResult pca = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "FancyPCA", "p": 0.3, "alpha": 0.25}]}})",
                                                      "pca.json");
        QVERIFY2(pca.warnings.empty(), qPrintable(warningsOf(pca)));
        QCOMPARE(pca.preset.pipeline.at(0).number("alpha"), 0.25);
        QCOMPARE(pca.preset.pipeline.at(0).p, 0.3);
        const std::string pcaErr = importError(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [{"__class_fullname__": "FancyPCA", "alpha": -1}]}})");
        QVERIFY2(QString::fromStdString(pcaErr).contains("transform.transforms[0].alpha"), pcaErr.c_str());

        // The weather as 2.0.8's A.save writes it (RandomRain with its defaults; the others changed):
        // read without a warning, and written back entry for entry as it came.
        const char* weatherJson = R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "RandomRain", "p": 0.5, "blur_value": 7, "brightness_coefficient": 0.7, "drop_color": [200, 200, 200], "drop_length": null, "drop_width": 1, "rain_type": "default", "slant_range": [-10.0, 10.0]},
              {"__class_fullname__": "RandomRain", "p": 0.2, "blur_value": 4, "brightness_coefficient": 0.9, "drop_color": [10, 20, 30], "drop_length": 15, "drop_width": 2, "rain_type": "heavy", "slant_range": [-3.0, 7.5]},
              {"__class_fullname__": "RandomShadow", "p": 0.4, "num_shadows_limit": [2, 5], "shadow_dimension": 7, "shadow_intensity_range": [0.3, 0.6], "shadow_roi": [0.1, 0.2, 0.9, 0.95]},
              {"__class_fullname__": "RandomSunFlare", "p": 0.3, "angle_range": [0.25, 0.5], "flare_roi": [0.1, 0.0, 0.8, 0.4], "method": "physics_based", "num_flare_circles_range": [3, 8], "src_color": [255, 230, 180], "src_radius": 250}]}})";
        const ImportResult weather = importAlbumentations(weatherJson, "weather.json");
        QVERIFY2(weather.warnings.empty(), qPrintable(warningsOf(weather)));
        QCOMPARE(weather.preset.pipeline.size(), std::size_t(4));
        const OpConfig& rain = weather.preset.pipeline[1];
        QCOMPARE(rain.number("drop_length"), 15.0);
        QVERIFY(!weather.preset.pipeline[0].has("drop_length"));  // None: height // 8
        QCOMPARE(rain.range("slant"), (Range{-3, 7.5}));
        QCOMPARE(rain.choice("rain_type"), std::string("heavy"));
        QCOMPARE(rain.fill("drop_color").rgb, (std::array<int, 3>{10, 20, 30}));
        const OpConfig& shadow = weather.preset.pipeline[2];
        QCOMPARE(shadow.range("roi_x"), (Range{0.1, 0.9}));
        QCOMPARE(shadow.range("roi_y"), (Range{0.2, 0.95}));
        QCOMPARE(shadow.range("num_shadows"), (Range{2, 5}));
        QCOMPARE(shadow.number("shadow_dimension"), 7.0);
        const OpConfig& flare = weather.preset.pipeline[3];
        QCOMPARE(flare.range("roi_y"), (Range{0, 0.4}));
        QCOMPARE(flare.choice("method"), std::string("physics_based"));
        QCOMPARE(flare.number("src_radius"), 250.0);
        const nlohmann::json weatherIn = nlohmann::json::parse(weatherJson);
        const nlohmann::json weatherBack = nlohmann::json::parse(exportAlbumentations(weather.preset).text);
        for (std::size_t i = 0; i < 4; ++i)
            QCOMPARE(QString::fromStdString(weatherBack["transform"]["transforms"][i].dump()),
                     QString::fromStdString(weatherIn["transform"]["transforms"][i].dump()));
        // 1.4.24: a drop length of 20 and no rain type by default; its rain is read with 2.0.8's meaning,
        // which the importer says. Deprecated lower/upper keys of older files are read too.
        const ImportResult oldWeather = importAlbumentations(R"({"__version__": "1.4.24", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "RandomRain", "p": 0.5, "slant_range": [-10, 10], "drop_length": 20, "drop_width": 1, "drop_color": [200, 200, 200], "blur_value": 7, "brightness_coefficient": 0.7, "rain_type": null},
              {"__class_fullname__": "RandomShadow", "p": 0.5, "shadow_roi": [0, 0.5, 1, 1], "num_shadows_lower": 1, "num_shadows_upper": 3, "shadow_dimension": 5, "shadow_intensity_range": [0.5, 0.5]},
              {"__class_fullname__": "RandomSunFlare", "p": 0.5, "flare_roi": [0, 0, 1, 0.5], "angle_lower": 0.1, "angle_upper": 0.3, "num_flare_circles_lower": 4, "num_flare_circles_upper": 7, "src_radius": 100, "src_color": [255, 255, 255]}]}})",
                                                             "old-weather.json");
        QCOMPARE(oldWeather.preset.pipeline.size(), std::size_t(3));
        QCOMPARE(oldWeather.preset.pipeline[0].number("drop_length"), 20.0);
        QCOMPARE(oldWeather.preset.pipeline[0].choice("rain_type"), std::string("default"));
        QCOMPARE(oldWeather.preset.pipeline[1].range("num_shadows"), (Range{1, 3}));
        QCOMPARE(oldWeather.preset.pipeline[2].range("angle"), (Range{0.1, 0.3}));
        QCOMPARE(oldWeather.preset.pipeline[2].range("num_flare_circles"), (Range{4, 7}));
        QCOMPARE(oldWeather.preset.pipeline[2].choice("method"), std::string("overlay"));
        QVERIFY2(oldWeather.warnings.size() == 2 && warningsOf(oldWeather).contains("2.0.8's meaning") &&
                     warningsOf(oldWeather).contains("transforms[2].method: absent"),
                 qPrintable(warningsOf(oldWeather)));
        // A sun at a fixed place (equal ends, which AugLab takes) is written a millionth apart, saying so:
        // the library refuses equal ends.
        Preset fixedSun = weather.preset;
        fixedSun.pipeline[3].set("roi_x", Range{1, 1});
        fixedSun.pipeline[3].set("roi_y", Range{0.25, 0.25});
        const ExportResult sunOut = exportAlbumentations(fixedSun);
        QCOMPARE(QString::fromStdString(
                     nlohmann::json::parse(sunOut.text)["transform"]["transforms"][3]["flare_roi"].dump()),
                 QString("[0.999999,0.25,1.0,0.250001]"));
        QCOMPARE(sunOut.warnings.size(), std::size_t(2));
        // The library's own validation: a flare region without width, drops of an unknown kind.
        const std::string flareErr = importError(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [{"__class_fullname__": "RandomSunFlare", "flare_roi": [0.5, 0, 0.5, 1]}]}})");
        QVERIFY2(QString::fromStdString(flareErr).contains("transform.transforms[0].flare_roi"),
                 flareErr.c_str());
        const std::string rainErr = importError(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [{"__class_fullname__": "RandomRain", "rain_type": "snow"}]}})");
        QVERIFY2(QString::fromStdString(rainErr).contains("transform.transforms[0].rain_type"),
                 rainErr.c_str());
    }

    void oldFlipIsOneOfThree() {
        // Albumentations 1.x Flip (removed in 2.0): d = randint(-1, 1) picks a vertical flip, a
        // horizontal one or both, each a third of the time, with Flip's own p.
        const ImportResult r = importAlbumentations(R"({"__version__": "1.4.24", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "RandomGamma", "p": 0.2, "gamma_limit": [80, 120]},
              {"__class_fullname__": "Flip", "p": 0.7},
              {"__class_fullname__": "Flip"}
            ]}})",
                                                    "flip.json");
        const Pipeline& ops = r.preset.pipeline;
        QCOMPARE(ops.size(), std::size_t(9));
        const char* expected[] = {"random_gamma",    "horizontal_flip", "vertical_flip",
                                  "horizontal_flip", "vertical_flip",   "horizontal_flip",
                                  "vertical_flip",   "horizontal_flip", "vertical_flip"};
        for (std::size_t i = 0; i < ops.size(); ++i) {
            QCOMPARE(QString::fromStdString(ops[i].name()), QString(expected[i]));
            if (i > 0) QCOMPARE(ops[i].p, 1.0);
        }
        const std::vector<OpGroup>& g = ops.groups();
        QCOMPARE(g.size(), std::size_t(4));
        QCOMPARE(int(g[0].kind), int(GroupKind::OneOf));
        QCOMPARE(g[0].first, std::size_t(1));
        QCOMPARE(g[0].count, std::size_t(4));
        QCOMPARE(g[0].p, 0.7);
        QCOMPARE(int(g[1].kind), int(GroupKind::Sequential));
        QCOMPARE(g[1].first, std::size_t(3));
        QCOMPARE(g[1].count, std::size_t(2));
        QCOMPARE(g[1].p, 1.0);
        QCOMPARE(g[2].first, std::size_t(5));
        QCOMPARE(g[2].p, 0.5);  // Flip's default p
        QCOMPARE(g[3].first, std::size_t(7));
        const QString w = warningsOf(r);
        QVERIFY2(w.contains("transform.transforms[1]: Flip (Albumentations 1.x) read as a one_of"),
                 qPrintable(w));
        QVERIFY2(w.contains("transform.transforms[2].p: absent"), qPrintable(w));
        QVERIFY2(!w.contains("no AugLab equivalent"), qPrintable(w));  // every key read

        // Written back as the library's OneOf of the three, which 2.x loads.
        const nlohmann::json back = nlohmann::json::parse(exportAlbumentations(r.preset).text);
        const nlohmann::json& oneOf = back["transform"]["transforms"][1];
        QCOMPARE(QString::fromStdString(oneOf["__class_fullname__"].get<std::string>()), QString("OneOf"));
        QCOMPARE(oneOf["transforms"].size(), std::size_t(3));
        QCOMPARE(QString::fromStdString(oneOf["transforms"][2]["__class_fullname__"].get<std::string>()),
                 QString("Sequential"));

        const std::string e = importError(R"({"__version__": "1.4.24", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [{"__class_fullname__": "Flip", "p": 2}]}})");
        QVERIFY2(QString::fromStdString(e).contains("transform.transforms[0].p"), e.c_str());
    }

    void gridDropout() {
        // unit_size_range is numpy's [low, high): AugLab's inclusive range is [low, high - 1].
        const ImportResult r = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "GridDropout", "p": 0.3, "ratio": 0.25, "unit_size_range": [10, 21],
               "holes_number_xy": null, "random_offset": true, "shift_xy": [3, 4], "fill": "random", "fill_mask": null},
              {"__class_fullname__": "GridDropout", "p": 1.0, "ratio": 0.5, "unit_size_range": [16, 16],
               "holes_number_xy": [4, 5], "random_offset": false, "shift_xy": [2, 0], "fill": [1, 2, 3], "fill_mask": 7}
            ]}})",
                                                    "grid.json");
        const QString w = warningsOf(r);
        QCOMPARE(r.preset.pipeline.size(), std::size_t(2));
        const OpConfig& a = r.preset.pipeline[0];
        QCOMPARE(a.p, 0.3);
        QCOMPARE(a.number("ratio"), 0.25);
        QCOMPARE(a.range("unit_size_px"), (Range{10, 20}));
        QVERIFY(a.flag("random_offset"));
        QCOMPARE(a.fill("fill").mode, Fill::Mode::Random);
        QVERIFY2(!w.contains("transforms[0]"), qPrintable(w));  // the shift is unused with random offsets
        const OpConfig& b = r.preset.pipeline[1];
        QCOMPARE(b.range("unit_size_px"), (Range{16, 16}));
        QVERIFY(!b.flag("random_offset"));
        QCOMPARE(b.fill("fill").rgb, (std::array<int, 3>{1, 2, 3}));
        for (const char* part :
             {"transform.transforms[1].unit_size_range: an empty range",
              "transform.transforms[1].holes_number_xy: a fixed number of grid cells",
              "transform.transforms[1].shift_xy: a shift", "transform.transforms[1].fill_mask"})
            QVERIFY2(w.contains(part), qPrintable(QString(part) + " not in:\n" + w));
        // A ratio Albumentations refuses is an error with its path.
        const std::string error =
            importError(R"({"transform": {"__class_fullname__": "Compose", "transforms": [
            {"__class_fullname__": "GridDropout", "p": 1, "ratio": 0}]}})");
        QVERIFY2(error.find("transform.transforms[0].ratio: ratio must be in (0, 1]") != std::string::npos,
                 error.c_str());
    }

    void randomResizedCrop() {
        // 2.0's size [height, width]; a 1.4 file's height and width; crops stay where they are, after
        // colour ops too, and a second one is kept (each plan stage has its own size).
        const ImportResult r = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "HorizontalFlip", "p": 0.5},
              {"__class_fullname__": "ToGray", "p": 0.2},
              {"__class_fullname__": "RandomResizedCrop", "p": 1.0, "size": [160, 240], "scale": [0.25, 0.9],
               "ratio": [0.5, 1.5], "interpolation": 0, "mask_interpolation": 0, "area_for_downscale": "image"},
              {"__class_fullname__": "RandomResizedCrop", "p": 1.0, "size": [10, 10]}
            ]}})",
                                                    "crop.json");
        const QString w = warningsOf(r);
        QCOMPARE(r.preset.pipeline.size(), std::size_t(4));
        QCOMPARE(r.preset.pipeline[0].name(), std::string("horizontal_flip"));
        QCOMPARE(r.preset.pipeline[1].name(), std::string("to_gray"));
        const OpConfig& c = r.preset.pipeline[2];
        QCOMPARE(c.name(), std::string("random_resized_crop"));
        QCOMPARE(c.size("size"), (Size2{160, 240}));
        QCOMPARE(c.range("scale"), (Range{0.25, 0.9}));
        QCOMPARE(c.range("ratio"), (Range{0.5, 1.5}));
        QCOMPARE(c.choice("interpolation"), std::string("nearest"));
        QCOMPARE(r.preset.pipeline[3].size("size"), (Size2{10, 10}));
        QVERIFY2(w.contains("transform.transforms[2].area_for_downscale: INTER_AREA"), qPrintable(w));
        QVERIFY2(!w.contains("left out") && !w.contains("moved"), qPrintable(w));
        std::string why;
        QCOMPARE(pipelineOrderError(r.preset.pipeline, why), -1);
        const ImportResult old = importAlbumentations(R"({"__version__": "1.4.24", "transform": {
            "__class_fullname__": "Compose", "transforms": [
              {"__class_fullname__": "RandomResizedCrop", "height": 64, "width": 32, "scale": [0.08, 1.0],
               "ratio": [0.75, 1.3333333333333333], "interpolation": 1, "p": 1.0}]}})",
                                                      "old.json");
        QCOMPARE(old.preset.pipeline.at(0).size("size"), (Size2{64, 32}));
        QVERIFY2(old.warnings.empty(), qPrintable(warningsOf(old)));
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
        // Exported again: the tail's entries as the library wrote them (ToFloat's max_value None is
        // the uint8 maximum, written out).
        const nlohmann::ordered_json back =
            nlohmann::ordered_json::parse(exportAlbumentations(r.preset).text);
        const auto& in = doc["transform"]["transforms"];
        const auto& out = back["transform"]["transforms"];
        QCOMPARE(out.size(), in.size());
        for (std::size_t i = 1; i < in.size(); ++i) {
            nlohmann::ordered_json expected = in[i];
            if (expected["__class_fullname__"] == "ToFloat") expected["max_value"] = 255.0;
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
