// The importer op by op: each transform as A.save of Albumentations 2.0.8 writes it and as older
// versions wrote it (old key names, 1.x defaults, values the library's validator turns into ranges),
// what has no AugLab equivalent left out and reported, and the library's own validation errors
// with their JSON paths. The whole-file rules (real pipelines, round trips, strictness) are
// test_import.cpp's.

#include <QtTest>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "colour.h"
#include "import_test_support.h"
#include "ops/affine.h"
#include "ops/gaussian_blur.h"
#include "sampler.h"

using namespace auglab;
using namespace auglab::testing;

class TestImportOps : public QObject {
    Q_OBJECT

private slots:
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
    }

    void affineShiftsInPixels() {
        // Affine's translate_px (issue 33): shifts in whole pixels, randint over both ends per axis
        // (the library's _get_translate_params), written back as translate_px; zero shifts read as
        // no shift; the runtimes that cannot write it leave the op out and say so.
        const ImportResult r = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "Affine", "p": 1.0, "rotate": [-5, 5], "translate_percent": null,
               "translate_px": {"x": [-4, 2], "y": [3, 3]}},
              {"__class_fullname__": "Affine", "p": 0.7, "translate_px": {"x": [0, 0], "y": [0, 0]}}]}})",
                                                    "px.json");
        QVERIFY2(r.warnings.empty() || !warningsOf(r).contains("translate"), qPrintable(warningsOf(r)));
        const OpConfig& a = r.preset.pipeline.at(0);
        QCOMPARE(a.range("translate_x_px"), (Range{-4, 2}));
        QCOMPARE(a.range("translate_y_px"), (Range{3, 3}));
        QVERIFY(!r.preset.pipeline.at(1).has("translate_x_px"));
        std::set<int> xs;
        for (std::uint64_t i = 0; i < 400; ++i) {
            const AffineParams p = std::get<AffineParams>(samplePipeline(r.preset.pipeline, 3, i, 64, 48).ops.at(0).params);
            QVERIFY(p.translate_x_px >= -4 && p.translate_x_px <= 2);
            QCOMPARE(p.translate_y_px, 3);
            xs.insert(p.translate_x_px);
        }
        QCOMPARE(xs.size(), std::size_t(7));  // every integer of [-4, 2], both ends included
        const nlohmann::json out = nlohmann::json::parse(exportAlbumentations(r.preset).text);
        const auto& t = out["transform"]["transforms"][0];
        QVERIFY2(t["translate_percent"].is_null() &&
                     t["translate_px"] == nlohmann::json::parse(R"({"x": [-4, 2], "y": [3, 3]})"),
                 qPrintable(QString::fromStdString(t.dump())));
        const ImportResult back = importAlbumentations(out.dump(), "back.json");
        QVERIFY(back.preset.pipeline == r.preset.pipeline);
        const ExportResult tv = exportPreset(r.preset, "torchvision");
        QVERIFY2(tv.text.find("pipeline[0] affine: not exported") != std::string::npos, tv.text.c_str());
    }

    void gaussianKernelSizes() {
        // GaussianBlur's blur_limit beside sigma_limit (issue 33): the kernel size drawn by randint
        // over the range, an even one made odd by adding 1 (create_gaussian_kernel_1d), the taps
        // those of that size; written back as blur_limit. [0, 0] is the size from sigma.
        const ImportResult r = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "GaussianBlur", "p": 1.0, "blur_limit": [3, 7], "sigma_limit": [0.5, 2.0]},
              {"__class_fullname__": "GaussianBlur", "p": 1.0, "blur_limit": [0, 0], "sigma_limit": [0.5, 2.0]}]}})",
                                                    "blur.json");
        QVERIFY2(r.warnings.empty(), qPrintable(warningsOf(r)));
        QCOMPARE(r.preset.pipeline.at(0).range("kernel_size"), (Range{3, 7}));
        QVERIFY(!r.preset.pipeline.at(1).has("kernel_size"));
        std::map<int, int> sizes;
        for (std::uint64_t i = 0; i < 1000; ++i) {
            const BlurParams b = std::get<BlurParams>(samplePipeline(r.preset.pipeline, 5, i, 64, 48).ops.at(0).params);
            ++sizes[b.ksize];
            QCOMPARE(int(gaussianKernel(b.sigma_px, b.ksize).size()), b.ksize);
        }
        // randint(3, 7): 3 a fifth of the time, 5 (4 or 5) and 7 (6 or 7) two fifths each.
        QCOMPARE(sizes.size(), std::size_t(3));
        QVERIFY2(sizes[3] > 130 && sizes[3] < 270 && sizes[5] > 330 && sizes[7] > 330,
                 qPrintable(QString("%1 %2 %3").arg(sizes[3]).arg(sizes[5]).arg(sizes[7])));
        const nlohmann::json out = nlohmann::json::parse(exportAlbumentations(r.preset).text);
        QCOMPARE(out["transform"]["transforms"][0]["blur_limit"], nlohmann::json::parse("[3, 7]"));
        QCOMPARE(out["transform"]["transforms"][1]["blur_limit"], nlohmann::json::parse("[0, 0]"));
        QVERIFY(importAlbumentations(out.dump(), "back.json").preset.pipeline == r.preset.pipeline);
    }

    void remapFills() {
        // GridDistortion, OpticalDistortion, ElasticTransform and Perspective hand their fill to
        // cv2.remap / cv2.warpPerspective as it is, where one number v is the colour (v, 0, 0): the
        // library paints a red border for fill=200 (measured with 2.0.8 and OpenCV 4.11; Affine,
        // SafeRotate and the dropouts paint grey). Read as the colour painted, with a warning; three
        // numbers as they are; and exported as three numbers, so a grey stays grey (issue 33).
        const ImportResult r = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "GridDistortion", "p": 1, "border_mode": 0, "fill": 200.0},
              {"__class_fullname__": "OpticalDistortion", "p": 1, "border_mode": 0, "fill": [90]},
              {"__class_fullname__": "ElasticTransform", "p": 1, "border_mode": 0, "fill": [200, 200, 200]},
              {"__class_fullname__": "Perspective", "p": 1, "border_mode": 0, "fill": 0.0},
              {"__class_fullname__": "Affine", "p": 1, "border_mode": 0, "fill": 200.0}]}})",
                                                    "fills.json");
        QCOMPARE(r.preset.pipeline.size(), std::size_t(5));
        QCOMPARE(r.preset.pipeline[0].fill("fill").rgb, (std::array<int, 3>{200, 0, 0}));
        QCOMPARE(r.preset.pipeline[1].fill("fill").rgb, (std::array<int, 3>{90, 0, 0}));
        QCOMPARE(r.preset.pipeline[2].fill("fill").rgb, (std::array<int, 3>{200, 200, 200}));
        QCOMPARE(r.preset.pipeline[3].fill("fill").rgb, (std::array<int, 3>{0, 0, 0}));
        QCOMPARE(r.preset.pipeline[4].fill("fill").rgb, (std::array<int, 3>{200, 200, 200}));
        const QString w = warningsOf(r);
        QVERIFY2(w.contains("transform.transforms[0].fill") && w.contains("(200, 0, 0)") &&
                     w.contains("transform.transforms[1].fill") && !w.contains("transform.transforms[2].fill") &&
                     !w.contains("transform.transforms[3].fill") && !w.contains("transform.transforms[4].fill"),
                 qPrintable(w));

        Preset grey;
        for (const char* name : {"grid_distortion", "optical_distortion", "elastic_transform", "perspective", "affine"}) {
            OpConfig op = OpConfig::withDefaults(name);
            op.set("border", std::string("constant"));
            op.set("fill", Fill{Fill::Mode::Constant, {200, 200, 200}});
            grey.pipeline.push_back(op);
        }
        const nlohmann::json out = nlohmann::json::parse(exportAlbumentations(grey).text);
        const auto& transforms = out["transform"]["transforms"];
        QCOMPARE(transforms.size(), std::size_t(5));
        for (std::size_t i = 0; i < 4; ++i)
            QVERIFY2(transforms[i]["fill"] == nlohmann::json::array({200.0, 200.0, 200.0}),
                     qPrintable(QString::fromStdString(transforms[i].dump())));
        QCOMPARE(transforms[4]["fill"], nlohmann::json(200.0));  // Affine paints one number grey

        // A fill of floats (the ImageNet mean in 0-255, as real pipelines write it): the dropouts
        // assign it with numpy, which truncates; the warps and pads hand it to OpenCV, which rounds
        // (tests/python/test_library_arithmetic.py measures both in the library).
        const ImportResult f = importAlbumentations(R"({"__version__": "2.0.8", "transform": {
            "__class_fullname__": "Compose", "p": 1.0, "transforms": [
              {"__class_fullname__": "CoarseDropout", "p": 1, "fill": [103.53, 116.28, 123.675]},
              {"__class_fullname__": "GridDropout", "p": 1, "fill": [103.53, 116.28, 123.675]},
              {"__class_fullname__": "ShiftScaleRotate", "p": 1, "border_mode": 0, "fill": [103.53, 116.28, 123.675]},
              {"__class_fullname__": "PadIfNeeded", "p": 1, "border_mode": 0, "fill": [103.53, 116.28, 123.675],
               "min_height": 64, "min_width": 64}]}})",
                                                    "float-fills.json");
        QCOMPARE(f.preset.pipeline.size(), std::size_t(4));
        QCOMPARE(f.preset.pipeline[0].fill("fill").rgb, (std::array<int, 3>{103, 116, 123}));
        QCOMPARE(f.preset.pipeline[1].fill("fill").rgb, (std::array<int, 3>{103, 116, 123}));
        QCOMPARE(f.preset.pipeline[2].fill("fill").rgb, (std::array<int, 3>{104, 116, 124}));
        QCOMPARE(f.preset.pipeline[3].fill("fill").rgb, (std::array<int, 3>{104, 116, 124}));
        QVERIFY2(warningsOf(f).contains("read as 103 (the library assigns it to the 8-bit image with numpy") &&
                     warningsOf(f).contains("read as 124 (OpenCV rounds it"),
                 qPrintable(warningsOf(f)));
    }

    void colourAndWeather() {
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
        // Edited since its import: written in AugLab's form, saying so.
        QCOMPARE(sunOut.warnings.size(), std::size_t(3));
        QString sunWarnings;
        for (const std::string& w : sunOut.warnings) sunWarnings += QString::fromStdString(w) + "\n";
        QVERIFY2(sunWarnings.contains("edited since it was imported from RandomSunFlare"), qPrintable(sunWarnings));
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
};

QTEST_GUILESS_MAIN(TestImportOps)
#include "test_import_ops.moc"
