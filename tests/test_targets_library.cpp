// Boxes, keypoints and masks through the ops against the real Albumentations 2.0.8 (build/pyenv,
// installed by the test suite where PyPI is reachable, shared with test_export_library): it runs the
// exported pipeline, with its bbox_params and keypoint_params, on many boxes (leaving the frame, tiny,
// at the min_visibility and min_area edges), keypoints and a mask, fed the concrete parameters of
// AugLab's replay: the same boxes kept, within 0.5 px, keypoints within 0.01 px, masks within SPEC's
// nearest bound. The suite skips, saying why, when pip cannot install the library.

#include <QTemporaryDir>
#include <QtTest>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <fstream>
#include <numbers>
#include <set>

#include "contact_sheet.h"
#include "cpu_backend.h"
#include "error.h"
#include "export_test_support.h"
#include "exporter.h"
#include "image_io.h"
#include "ops/distortion.h"
#include "ops/mosaic.h"
#include "overlay.h"
#include "partners.h"
#include "preset.h"
#include "sampler.h"
#include "source_levels.h"
#include "suite_main.h"
#include "targets.h"
#include "test_support.h"

#include "targets_test_support.h"

using namespace auglab;
using namespace auglab::testing;

class TestTargetsLibrary : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    struct Case {
        const char* name;
        int width, height;
        std::string pipeline;
        std::string targets;
    };

    static QString python() { return QStringLiteral(AUGLAB_PYENV "/bin/python"); }

    /// Boxes of every kind over a w x h image: a grid of sizes, boxes touching and near the edges, tiny
    /// ones, long thin ones.
    static std::vector<Box> manyBoxes(int w, int h) {
        std::vector<Box> out;
        int id = 0;
        for (int gy = 0; gy < 4; ++gy)
            for (int gx = 0; gx < 5; ++gx) {
                const double x0 = 2 + gx * (w - 4) / 5.0 + (gx * 7 % 5),
                             y0 = 1 + gy * (h - 2) / 4.0 + (gy * 3 % 4);
                const double bw = 3 + (gx * 13 + gy * 7) % 37 * (w / 200.0),
                             bh = 2 + (gx * 5 + gy * 11) % 29 * (h / 150.0);
                out.push_back(box(x0, y0, std::min<double>(w, x0 + bw), std::min<double>(h, y0 + bh), id++));
            }
        out.push_back(box(0, 0, w, h, id++));                      // the whole image
        out.push_back(box(0, 0, 6, 5, id++));                      // a corner
        out.push_back(box(w - 9, h - 7, w, h, id++));              // the other corner
        out.push_back(box(w / 2.0, 3, w / 2.0 + 1.5, 4.5, id++));  // tiny
        out.push_back(box(5, h / 2.0, w - 5, h / 2.0 + 2, id++));  // long and thin
        out.push_back(box(10.25, 20.75, 70.5, 33.125, id++));      // fractional edges
        for (Box& b : out) b.label = b.id;
        return out;
    }

    static std::vector<Keypoint> manyKeypoints(int w, int h) {
        std::vector<Keypoint> out;
        int id = 0;
        for (int gy = 0; gy < 5; ++gy)
            for (int gx = 0; gx < 6; ++gx) {
                const double x = std::min(w - 0.25, 0.5 + gx * (w - 1) / 5.0),
                             y = std::min(h - 0.25, gy * (h - 1) / 4.0);
                out.push_back({x, y, wrapAngle((gx * 37 + gy * 53) * kDeg), 1 + 0.25 * gy, id, id, -1});
                ++id;
            }
        return out;
    }

    static nlohmann::json boxesIn(const std::vector<Box>& boxes, BoxFormat f, int w, int h) {
        nlohmann::json out = nlohmann::json::array();
        for (const Box& b : boxes) {
            switch (f) {
                case BoxFormat::PascalVoc:
                    out.push_back({b.x0, b.y0, b.x1, b.y1});
                    break;
                case BoxFormat::Coco:
                    out.push_back({b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0});
                    break;
                case BoxFormat::Yolo:
                    out.push_back(
                        {(b.x0 + b.x1) / 2 / w, (b.y0 + b.y1) / 2 / h, (b.x1 - b.x0) / w, (b.y1 - b.y0) / h});
                    break;
                case BoxFormat::Albumentations:
                    out.push_back({b.x0 / w, b.y0 / h, b.x1 / w, b.y1 / h});
                    break;
            }
        }
        return out;
    }

    static Box boxOut(const nlohmann::json& v, BoxFormat f, int w, int h) {
        const double a = v[0], b = v[1], c = v[2], d = v[3];
        switch (f) {
            case BoxFormat::PascalVoc:
                return box(a, b, c, d);
            case BoxFormat::Coco:
                return box(a, b, a + c, b + d);
            case BoxFormat::Yolo:
                return box((a - c / 2) * w, (b - d / 2) * h, (a + c / 2) * w, (b + d / 2) * h);
            case BoxFormat::Albumentations:
                return box(a * w, b * h, c * w, d * h);
        }
        return {};
    }

    /// The labels of `t` as the Python checkers take them: boxes in `f`, with their labels; keypoints
    /// as [x, y, angle in degrees, scale], with theirs.
    static nlohmann::json labelsJson(const Targets& t, BoxFormat f, int w, int h) {
        nlohmann::json labels = nlohmann::json::array(), kps = nlohmann::json::array(),
                       kpLabels = nlohmann::json::array();
        for (const Box& b : t.boxes) labels.push_back(b.label);
        for (const Keypoint& k : t.keypoints) {
            kps.push_back({k.x, k.y, k.angle / kDeg, k.scale});
            kpLabels.push_back(k.label);
        }
        return {{"bboxes", boxesIn(t.boxes, f, w, h)},
                {"labels", labels},
                {"keypoints", kps},
                {"keypoint_labels", kpLabels}};
    }

    /// What differs between our moved labels and the library's (`lib`: boxes in `f`): the boxes
    /// kept and their order, a box more than 0.5 px away, the keypoints kept, one more than 0.01 px
    /// or 0.01 degree away or its scale off by 1e-4 (relative). Empty when nothing does; the worst
    /// distances in `worstBox` and `worstKeypoint`.
    static QString labelsDiffer(const MovedTargets& ours, const nlohmann::json& lib, BoxFormat f,
                                double& worstBox, double& worstKeypoint) {
        worstBox = worstKeypoint = 0;
        const auto list = [](const auto& items, const auto& text) {
            QString s;
            for (const auto& item : items) s += text(item) + " ";
            return s;
        };
        std::vector<int> ourLabels, libLabels = lib["labels"].get<std::vector<int>>();
        for (const Box& b : ours.boxes) ourLabels.push_back(b.label);
        if (ourLabels != libLabels) {
            const auto number = [](int l) { return QString::number(l); };
            return "kept boxes differ\n ours: " + list(ourLabels, number) +
                   "\n  lib: " + list(libLabels, number);
        }
        for (std::size_t k = 0; k < ours.boxes.size(); ++k) {
            const Box lb = boxOut(lib["bboxes"][k], f, ours.width, ours.height);
            const Box& ob = ours.boxes[k];
            const double d = std::max({std::abs(lb.x0 - ob.x0), std::abs(lb.y0 - ob.y0),
                                       std::abs(lb.x1 - ob.x1), std::abs(lb.y1 - ob.y1)});
            if (d > 0.5)
                return QString("box %1: ours [%2, %3, %4, %5], the library's [%6, %7, %8, %9]")
                    .arg(ob.label)
                    .arg(ob.x0, 0, 'g', 9)
                    .arg(ob.y0, 0, 'g', 9)
                    .arg(ob.x1, 0, 'g', 9)
                    .arg(ob.y1, 0, 'g', 9)
                    .arg(lb.x0, 0, 'g', 9)
                    .arg(lb.y0, 0, 'g', 9)
                    .arg(lb.x1, 0, 'g', 9)
                    .arg(lb.y1, 0, 'g', 9);
            worstBox = std::max(worstBox, d);
        }
        std::vector<int> ourKp, libKp = lib["keypoint_labels"].get<std::vector<int>>();
        for (const Keypoint& k : ours.keypoints) ourKp.push_back(k.label);
        if (ourKp != libKp)
            return "kept keypoints differ\n ours: " +
                   list(ours.keypoints,
                        [](const Keypoint& k) {
                            return QString("%1@(%2,%3)").arg(k.label).arg(k.x).arg(k.y);
                        }) +
                   "\n  lib: " + list(lib["keypoints"], [](const nlohmann::json& l) {
                       return QString("(%1,%2)").arg(double(l[0])).arg(double(l[1]));
                   });
        for (std::size_t k = 0; k < ours.keypoints.size(); ++k) {
            const auto& l = lib["keypoints"][k];
            const Keypoint& o = ours.keypoints[k];
            const double d = std::max(std::abs(double(l[0]) - o.x), std::abs(double(l[1]) - o.y));
            if (d > 0.01)
                return QString("keypoint %1 at (%2, %3), the library's (%4, %5)")
                    .arg(o.label)
                    .arg(o.x)
                    .arg(o.y)
                    .arg(double(l[0]))
                    .arg(double(l[1]));
            double dAngle = std::abs(double(l[2]) - o.angle / kDeg);
            dAngle = std::min(dAngle, 360 - dAngle);
            if (dAngle > 0.01)
                return QString("keypoint %1 angle %2 vs %3")
                    .arg(o.label)
                    .arg(o.angle / kDeg)
                    .arg(double(l[2]));
            if (std::abs(double(l[3]) - o.scale) > 1e-4 * std::max(1.0, o.scale))
                return QString("keypoint %1 scale %2 vs %3").arg(o.label).arg(o.scale).arg(double(l[3]));
            worstKeypoint = std::max(worstKeypoint, d);
        }
        return {};
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const QString why = ensurePythonEnvironment(
            AUGLAB_PYENV, {"albumentations==2.0.8", "opencv-python-headless==4.11.0.86"},
            "import albumentations as A, cv2; assert A.__version__ == '2.0.8' and cv2.__version__ == "
            "'4.11.0'");
        if (!why.isEmpty()) QSKIP(qPrintable(why));
    }

    void pythonExportBuildsTheSameParams() {
        // The albumentations-py file, run by the library, has the JSON export's BboxParams and
        // KeypointParams (A.to_dict of what it built).
        const Preset p =
            targetPreset(R"([{"op": "horizontal_flip", "p": 0.5}])",
                         R"({"boxes": {"format": "coco", "label_fields": ["class_labels", "scores"],
                                         "min_visibility": 0.25, "min_area": 9, "max_accept_ratio": 5, "clip": true},
                                         "keypoints": {"format": "xyas", "label_fields": ["kp"], "remove_invisible": false}})");
        const QString file = dir_.filePath("targets_export.py");
        std::ofstream(file.toStdString()) << exportAlbumentationsPython(p).text;
        const PythonRun run =
            runProcess(python(), {"-c",
                                  "import json, albumentations as A\n"
                                  "exec(open(" +
                                      QString("'%1'").arg(file) +
                                      ").read())\n"
                                      "d = A.to_dict(transform)['transform']\n"
                                      "print(json.dumps([d['bbox_params'], d['keypoint_params']]))"});
        QVERIFY2(run.code == 0, qPrintable(run.err.right(2000)));
        const nlohmann::json built = nlohmann::json::parse(run.out.toStdString());
        const nlohmann::json exported = nlohmann::json::parse(exportAlbumentations(p).text)["transform"];
        QCOMPARE(QString::fromStdString(built[0].dump()),
                 QString::fromStdString(exported["bbox_params"].dump()));
        QCOMPARE(QString::fromStdString(built[1].dump()),
                 QString::fromStdString(exported["keypoint_params"].dump()));
    }

    void sameTargetsAsAlbumentations() {
        const std::string kp = R"("keypoints": {"format": "xyas", "label_fields": ["keypoint_labels"])";
        const std::vector<Case> cases{
            {"affine, constant border, min_visibility 0.3, min_area 20", 200, 150,
             R"([{"op": "affine", "p": 1, "rotate_deg": [30, 30], "scale_x": [1.2, 1.2], "scale_y": [1.2, 1.2],
                 "shear_x_deg": [10, 10], "translate_x_frac": [0.1, 0.1], "translate_y_frac": [-0.05, -0.05]}])",
             R"({"boxes": {"min_visibility": 0.3, "min_area": 20}, )" + kp + "}}"},
            {"affine, reflect_101 (mirrored copies), anisotropic", 200, 150,
             R"([{"op": "affine", "p": 1, "rotate_deg": [-50, -50], "scale_x": [0.7, 0.7], "scale_y": [0.9, 0.9],
                 "keep_ratio": false, "shear_y_deg": [-8, -8], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0],
                 "border": "reflect_101"}])",
             R"({"boxes": {}, )" + kp + "}}"},
            {"affine, reflect, keypoints kept outside", 180, 180,
             R"([{"op": "affine", "p": 1, "rotate_deg": [15, 15], "scale_x": [0.8, 0.8], "scale_y": [0.8, 0.8],
                 "translate_x_frac": [0.2, 0.2], "translate_y_frac": [0, 0], "border": "reflect"}])",
             R"({"boxes": {"format": "coco"}, "keypoints": {"format": "xyas", "label_fields": ["keypoint_labels"],
                 "remove_invisible": false}})"},
            {"flips then rotation, coco, min_width and min_height", 200, 150,
             R"([{"op": "horizontal_flip", "p": 1}, {"op": "vertical_flip", "p": 1},
                 {"op": "affine", "p": 1, "rotate_deg": [90, 90], "scale_x": [1, 1], "scale_y": [1, 1],
                  "translate_x_frac": [0, 0], "translate_y_frac": [0, 0]}])",
             R"({"boxes": {"format": "coco", "min_width": 4, "min_height": 3}, )" + kp + "}}"},
            {"random_resized_crop, yolo, max_accept_ratio", 200, 150,
             R"([{"op": "random_resized_crop", "p": 1, "size": [96, 128], "scale": [0.2, 0.5]},
                 {"op": "affine", "p": 1, "rotate_deg": [10, 10], "scale_x": [1, 1], "scale_y": [1, 1],
                  "translate_x_frac": [0, 0], "translate_y_frac": [0, 0]}])",
             R"({"boxes": {"format": "yolo", "max_accept_ratio": 6}, )" + kp + "}}"},
            {"perspective keep_size", 200, 150, R"([{"op": "perspective", "p": 1, "scale": [0.08, 0.1]}])",
             R"({"boxes": {"min_visibility": 0.2}, )" + kp + "}}"},
            {"perspective fit_output, not keep_size", 200, 150,
             R"([{"op": "perspective", "p": 1, "scale": [0.1, 0.1], "keep_size": false, "fit_output": true}])",
             R"({"boxes": {}, )" + kp + "}}"},
            {"coarse_dropout after affine, min_area 30", 200, 150,
             R"([{"op": "affine", "p": 1, "rotate_deg": [5, 5], "scale_x": [1, 1], "scale_y": [1, 1],
                  "translate_x_frac": [0, 0], "translate_y_frac": [0, 0]},
                 {"op": "coarse_dropout", "p": 1, "holes": [4, 4], "hole_height_px": [20, 30], "hole_width_px": [25, 40]}])",
             R"({"boxes": {"min_area": 30, "min_visibility": 0.5}, )" + kp + "}}"},
            // pascal_voc: Albumentations converts yolo boxes in float32, so an edge on a whole pixel may
            // come out a hair below it and truncate to the pixel before when a hole snaps the boxes.
            {"grid_dropout", 200, 150, R"([{"op": "grid_dropout", "p": 1, "ratio": 0.4}])",
             R"({"boxes": {"format": "pascal_voc", "min_visibility": 0.7}, )" + kp + "}}"},
            {"quarter turns, then a resize", 200, 150,
             R"([{"op": "random_rotate90", "p": 1}, {"op": "resize", "p": 1, "size": [100, 130]}])",
             R"({"boxes": {"min_area": 10}, )" + kp + "}}"},
            {"transpose, blur, longest_max_size, quarter turns, smallest_max_size (coco)", 200, 150,
             R"([{"op": "transpose", "p": 1}, {"op": "gaussian_blur", "p": 1},
                 {"op": "longest_max_size", "p": 1, "max_size": [170, 170]}, {"op": "random_rotate90", "p": 1},
                 {"op": "smallest_max_size", "p": 1, "max_size": [90, 90], "interpolation": "nearest"}])",
             R"({"boxes": {"format": "coco"}, )" + kp + "}}"},
            {"pad_if_needed reflect_101 (mirrored copies), random position", 200, 150,
             R"([{"op": "pad_if_needed", "p": 1, "min_size": [260, 330], "position": "random"}])",
             R"({"boxes": {"min_visibility": 0.1}, )" + kp + "}}"},
            {"random_crop padded (constant, bottom_right), center_crop, pad_if_needed reflect", 200, 150,
             R"([{"op": "random_crop", "p": 1, "size": [180, 150], "pad_if_needed": true, "pad_position": "bottom_right"},
                 {"op": "center_crop", "p": 1, "size": [120, 140]},
                 {"op": "pad_if_needed", "p": 1, "min_size": [300, 300], "border": "reflect"}])",
             R"({"boxes": {"format": "yolo"}, )" + kp + "}}"},
            {"crop padded (reflect_101, random place), random_scale, channel_dropout, random_sized_crop", 200,
             150,
             R"([{"op": "crop", "p": 1, "top_left": [10, 20], "bottom_right": [180, 230], "pad_if_needed": true,
                  "pad_position": "random", "border": "reflect_101"},
                 {"op": "random_scale", "p": 1, "scale_limit": [-0.3, 0.3]}, {"op": "channel_dropout", "p": 1},
                 {"op": "random_sized_crop", "p": 1, "min_max_height": [60, 120], "w2h_ratio": 1.2, "size": [100, 90]}])",
             R"({"boxes": {"min_visibility": 0.1}, )" + kp + "}}"},
            {"d4 eight times (every element seen over the samples), then a resize", 200, 150,
             R"([{"op": "d4", "p": 1}, {"op": "d4", "p": 1}, {"op": "resize", "p": 1, "size": [90, 120]}, {"op": "d4", "p": 1},
                 {"op": "d4", "p": 1}, {"op": "d4", "p": 1}, {"op": "d4", "p": 1}, {"op": "d4", "p": 1}, {"op": "d4", "p": 1}])",
             R"({"boxes": {"format": "coco"}, )" + kp + "}}"},
            {"clip, check only at the end", 200, 150,
             R"([{"op": "affine", "p": 1, "rotate_deg": [40, 40], "scale_x": [1.5, 1.5], "scale_y": [1.5, 1.5],
                  "translate_x_frac": [0, 0], "translate_y_frac": [0, 0]}, {"op": "horizontal_flip", "p": 1}])",
             R"({"boxes": {"clip": true, "check_each_transform": false, "min_visibility": 0.4}, )" + kp +
                 R"(, "check_each_transform": false}})"},
            // Added at the end: a case's sample index is its place, so the cases above keep their draws.
            {"safe_rotate, constant", 200, 150, R"([{"op": "safe_rotate", "p": 1, "limit": [37, 37]}])",
             R"({"boxes": {"min_visibility": 0.2}, )" + kp + "}}"},
            {"safe_rotate, reflect_101 (mirrored copies)", 200, 150,
             R"([{"op": "safe_rotate", "p": 1, "limit": [-64, -64], "border": "reflect_101"}])",
             R"({"boxes": {"min_area": 10}, )" + kp + "}}"},
            {"xy_masking", 200, 150,
             R"([{"op": "xy_masking", "p": 1, "num_masks_x": [2, 2], "num_masks_y": [1, 1], "mask_x_length": [20, 30], "mask_y_length": [15, 25]}])",
             R"({"boxes": {"min_visibility": 0.3}, )" + kp + "}}"},
            {"grid_distortion (keypoints through the remapped mask)", 200, 150,
             R"([{"op": "grid_distortion", "p": 1, "distort_limit": [-0.6, 0.6], "border": "reflect_101"}])",
             R"({"boxes": {"min_visibility": 0.2}, )" + kp + "}}"},
            {"grid_distortion not normalized, keypoints direct", 200, 150,
             R"([{"op": "grid_distortion", "p": 1, "num_steps": [4, 4], "distort_limit": [-0.2, 0.5], "normalized": false,
                  "keypoint_remapping": "direct"}])",
             R"({"boxes": {"min_area": 10}, )" + kp + "}}"},
            {"optical_distortion camera, then a rotation", 200, 150,
             R"([{"op": "optical_distortion", "p": 1, "distort_limit": [-1.2, 1.2]},
                 {"op": "affine", "p": 1, "rotate_deg": [15, 15], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0],
                  "scale_x": [1, 1], "scale_y": [1, 1]}])",
             R"({"boxes": {"format": "coco"}, )" + kp + "}}"},
            {"random_grid_shuffle (boxes cut into pieces), min_visibility", 200, 150,
             R"([{"op": "random_grid_shuffle", "p": 1, "grid": [3, 4]}])",
             R"({"boxes": {"min_visibility": 0.15}, )" + kp + "}}"},
            // elastic_transform's noise is AugLab's own stream: the library is fed it (written out below).
            {"elastic_transform, then a flip", 200, 150,
             R"([{"op": "elastic_transform", "p": 1, "alpha": 60, "sigma": 5, "border": "reflect_101"},
                 {"op": "horizontal_flip", "p": 1}])",
             R"({"boxes": {"min_visibility": 0.2}, )" + kp + "}}"},
            // Keypoints that reach exactly pi before a transpose (this sample: 0 and 180 degrees, after
            // a transpose and a quarter turn): keypoints_rot90 stores float32(pi), which
            // keypoints_transpose compares with np.pi in float32, so it takes the a <= pi branch as
            // AugLab's double pi does.
            {"quarter turns and transposes, keypoints at 0 and pi", 200, 150,
             R"([{"op": "random_rotate90", "p": 1}, {"op": "transpose", "p": 1}, {"op": "random_rotate90", "p": 1},
                 {"op": "transpose", "p": 1}, {"op": "random_rotate90", "p": 1}, {"op": "transpose", "p": 1},
                 {"op": "d4", "p": 1}, {"op": "d4", "p": 1}])",
             R"({"boxes": {}, )" + kp + "}}"},
        };
        nlohmann::json input = nlohmann::json::array();
        std::vector<Preset> presets;
        std::vector<Replay> replays;
        std::vector<Targets> targets;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            const Case& c = cases[i];
            Preset p = targetPreset(c.pipeline, c.targets);
            p.targets->boxes.labelFields = {"class_labels"};
            const Replay r = replayOf(p, c.width, c.height, i);
            Targets t;
            t.boxes = manyBoxes(c.width, c.height);
            t.keypoints = manyKeypoints(c.width, c.height);
            t.masks = {patternMask(c.width, c.height)};
            const QString mask = dir_.filePath(QString("in%1.png").arg(i));
            QVERIFY(cv::imwrite(mask.toStdString(), matOf(t.masks[0])));
            nlohmann::json item = labelsJson(t, p.targets->boxes.format, c.width, c.height);
            item["pipeline"] = nlohmann::json::parse(exportAlbumentations(p).text);
            item["replay"] = nlohmann::json::parse(serializeReplay(r));
            item["width"] = c.width;
            item["height"] = c.height;
            item["mask"] = mask.toStdString();
            for (const ConcreteOp& op : r.ops)
                if (const auto* e = std::get_if<ElasticParams>(&op.params); e && op.applied) {
                    const std::vector<float> noise = elasticNoise(*e, c.width, c.height);
                    const std::string file = dir_.filePath(QString("noise%1.f32").arg(i)).toStdString();
                    std::ofstream(file, std::ios::binary)
                        .write(reinterpret_cast<const char*>(noise.data()),
                               std::streamsize(noise.size() * 4));
                    item["noise"] = file;
                }
            input.push_back(item);
            presets.push_back(p);
            replays.push_back(r);
            targets.push_back(t);
        }
        const QString casesFile = dir_.filePath("cases.json");
        std::ofstream(casesFile.toStdString()) << input.dump();
        const QString script = QStringLiteral(AUGLAB_SOURCE_DIR "/tests/data/targets/targets_check.py");
        const PythonRun run = runProcess(python(), {script, casesFile, dir_.path()});
        QVERIFY2(run.code == 0, qPrintable(run.err.right(3000)));

        for (std::size_t i = 0; i < cases.size(); ++i) {
            const Case& c = cases[i];
            const QByteArray name = QByteArray("case ") + c.name;
            nlohmann::json lib;
            std::ifstream(dir_.filePath(QString("%1.json").arg(i)).toStdString()) >> lib;
            const MovedTargets ours = moveTargets(replays[i], *presets[i].targets, targets[i]);
            QVERIFY2(ours.width == lib["width"] && ours.height == lib["height"], name);
            // The same boxes, in the same order, within 0.5 px; the same keypoints within 0.01 px, angles
            // within 0.01 degree, scales 1e-4.
            double worstBox = 0, worstKeypoint = 0;
            const QString differs =
                labelsDiffer(ours, lib, presets[i].targets->boxes.format, worstBox, worstKeypoint);
            QVERIFY2(differs.isEmpty(), qPrintable(name + ": " + differs));
            QVERIFY2(!ours.boxes.empty(), name + ": no box survived: the case tests nothing");
            // The mask within SPEC's nearest bound.
            const std::vector<Mask> masks = moveMasks(replays[i], targets[i].masks, ours.width, ours.height);
            const cv::Mat libMask =
                cv::imread(dir_.filePath(QString("%1.png").arg(i)).toStdString(), cv::IMREAD_UNCHANGED);
            const double share = differingShare(masks[0], libMask);
            QVERIFY2(share <= 0.005,
                     qPrintable(name + QString(": %1% of the mask differs").arg(100 * share)));
            qInfo("%s: %zu boxes kept (worst %.4f px), %zu keypoints, mask %.3f%% differ", c.name,
                  ours.boxes.size(), worstBox, ours.keypoints.size(), 100 * share);
        }
    }

    void mosaicMatchesAlbumentations() {
        // The 4-image grid against the library's Mosaic: four photos of different shapes, each with
        // its boxes, keypoints and mask; the library handed AugLab's centre and partners (the
        // script checks that its own placement code gives the replay's cells and primary cell).
        // Pixels within SPEC §2's bound of the interpolation, boxes within 0.5 px and the same kept,
        // keypoints within 0.01 px, masks within the nearest bound.
        const char* photos[] = {"astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg"};
        std::vector<std::shared_ptr<SourceLevels>> levels;
        std::vector<Targets> targets;
        nlohmann::json items = nlohmann::json::array();
        for (std::size_t k = 0; k < std::size(photos); ++k) {
            Image image = loadImage(std::string(AUGLAB_SOURCE_DIR "/resources/samples/") + photos[k]).image;
            const int w = image.width, h = image.height;
            const QString png = dir_.filePath(QString("photo%1.png").arg(k));
            saveImage(png.toStdString(), image);  // both sides read the same decoded pixels
            Targets t;
            t.boxes = manyBoxes(w, h);
            t.keypoints = manyKeypoints(w, h);
            for (Box& b : t.boxes) b.label += 1000 * static_cast<int>(k);  // whose box it is
            for (Keypoint& kp : t.keypoints) kp.label += 1000 * static_cast<int>(k);
            t.masks = {patternMask(w, h)};
            for (std::uint8_t& v : t.masks[0].values) v = static_cast<std::uint8_t>(v + 10 * k);
            const QString mask = dir_.filePath(QString("photo%1-mask.png").arg(k));
            QVERIFY(cv::imwrite(mask.toStdString(), matOf(t.masks[0])));
            nlohmann::json item = labelsJson(t, BoxFormat::PascalVoc, w, h);
            item["image"] = png.toStdString();
            item["mask"] = mask.toStdString();
            items.push_back(item);
            levels.push_back(std::make_shared<SourceLevels>(std::move(image)));
            targets.push_back(std::move(t));
        }
        struct MosaicCase {
            const char* name;
            std::string op, targets;
            std::uint64_t index;
            bool nearest;
        };
        const std::string kp = R"("keypoints": {"format": "xyas", "label_fields": ["keypoint_labels"]})";
        const std::vector<MosaicCase> cases{
            {"cover, linear, defaults", R"({"op": "mosaic", "p": 1})",
             R"({"boxes": {"label_fields": ["class_labels"]}, )" + kp + "}", 0, false},
            {"contain, nearest, grey fill, min_visibility and min_area", R"({"op": "mosaic", "p": 1,
               "target_size": [320, 400], "cell_shape": [300, 360], "center_range": [0.1, 0.9],
               "fit_mode": "contain", "interpolation": "nearest", "fill": [114, 114, 114]})",
             R"({"boxes": {"label_fields": ["class_labels"], "min_visibility": 0.3, "min_area": 20}, )" + kp +
                 "}",
             3, true},
            {"cover, odd sizes, small cells", R"({"op": "mosaic", "p": 1, "target_size": [333, 257],
               "cell_shape": [200, 150], "center_range": [0, 1]})",
             R"({"boxes": {"label_fields": ["class_labels"], "min_width": 3}, )" + kp + "}", 5, false},
            {"contain, linear, tall cells", R"({"op": "mosaic", "p": 1, "target_size": [300, 300],
               "cell_shape": [280, 160], "fit_mode": "contain", "fill": [0, 40, 200]})",
             R"({"boxes": {"label_fields": ["class_labels"]}, )" + kp + "}", 8, false},
        };
        const PartnerLoader load = [&](std::uint64_t i, int, int) { return levels.at(i); };
        const PartnerLabelsFn partners = [&](std::uint64_t i) -> std::optional<PartnerLabels> {
            return PartnerLabels{&targets.at(i), levels.at(i)->width(), levels.at(i)->height()};
        };
        CpuBackend cpu(1);
        nlohmann::json input = nlohmann::json::array();
        std::vector<Preset> presets;
        std::vector<Replay> replays;
        std::vector<Image> outputs;
        for (const MosaicCase& c : cases) {
            Preset p = targetPreset("[" + c.op + "]", c.targets);
            Replay r;
            outputs.push_back(renderSample(p.pipeline, *levels[0], p.seed, c.index, cpu, &r,
                                           Partners{PartnerPool{levels.size(), 0}, load}));
            input.push_back({{"pipeline", nlohmann::json::parse(exportAlbumentations(p).text)},
                             {"replay", nlohmann::json::parse(serializeReplay(r))},
                             {"items", items}});
            presets.push_back(p);
            replays.push_back(r);
        }
        const QString casesFile = dir_.filePath("mosaic.json");
        std::ofstream(casesFile.toStdString()) << input.dump();
        const QString script = QStringLiteral(AUGLAB_SOURCE_DIR "/tests/data/targets/mosaic_check.py");
        const PythonRun run = runProcess(python(), {script, casesFile, dir_.path()});
        QVERIFY2(run.code == 0, qPrintable(run.err.right(3000)));

        std::set<std::uint64_t> partnersSeen;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            const MosaicCase& c = cases[i];
            const QByteArray name = QByteArray("case ") + c.name;
            const auto& grid = std::get<MosaicParams>(replays[i].ops[0].params);
            for (const MosaicCell& cell : grid.cells) partnersSeen.insert(cell.partner);
            nlohmann::json lib;
            std::ifstream(dir_.filePath(QString("%1.json").arg(i)).toStdString()) >> lib;
            // Pixels.
            const Image theirs = loadImage(dir_.filePath(QString("%1.png").arg(i)).toStdString()).image;
            const Image& ours = outputs[i];
            QVERIFY2(ours.width == theirs.width && ours.height == theirs.height, name);
            const Stats px = columnStats(ours, theirs);
            qInfo(
                "%s: %zu cells; pixels: mean |diff| %.4f, max %d, values > 2: %.4f%%, pixels differing "
                "%.4f%%",
                c.name, grid.cells.size(), px.meanAbs, px.maxAbs, 100 * px.over2, 100 * px.pixelsDiffer);
            if (c.nearest)
                QVERIFY2(px.pixelsDiffer <= 0.005, name + ": nearest pixels differ");
            else
                QVERIFY2(px.meanAbs <= 0.25 && px.over2 <= 0.001 && px.maxAbs <= 8,
                         name + ": linear pixels outside SPEC's bound");
            // Boxes: the same, in the same order, within 0.5 px.
            const MovedTargets moved = moveTargets(replays[i], *presets[i].targets, targets[0], partners);
            QVERIFY2(moved.width == lib["width"] && moved.height == lib["height"], name);
            double worstBox = 0, worstKp = 0;
            const QString differs = labelsDiffer(moved, lib, BoxFormat::PascalVoc, worstBox, worstKp);
            QVERIFY2(differs.isEmpty(), qPrintable(name + ": " + differs));
            std::set<int> owners;
            for (const Box& b : moved.boxes) owners.insert(b.label / 1000);
            QVERIFY2(owners.size() >= 2,
                     name + ": boxes of at least two images survive, or the case tests little");
            QCOMPARE(
                moved.boxesIn, std::size_t(0) + targets[0].boxes.size() + [&] {
                    std::size_t n = 0;
                    for (const MosaicCell& cell : grid.cells)
                        if (!cell.primary) n += targets.at(cell.partner).boxes.size();
                    return n;
                }());
            // The mask.
            const std::vector<Mask> masks =
                moveMasks(replays[i], targets[0].masks, moved.width, moved.height, 0, partners);
            const cv::Mat libMask =
                cv::imread(dir_.filePath(QString("%1-mask.png").arg(i)).toStdString(), cv::IMREAD_UNCHANGED);
            const double maskShare = differingShare(masks[0], libMask);
            QVERIFY2(maskShare <= 0.005,
                     qPrintable(name + QString(": %1% of the mask differs").arg(100 * maskShare)));
            qInfo(
                "%s: %zu of %zu boxes kept (worst %.4f px), %zu keypoints (worst %.4f px), mask %.3f%% "
                "differ",
                c.name, moved.boxes.size(), moved.boxesIn, worstBox, moved.keypoints.size(), worstKp,
                100 * maskShare);
        }
        QVERIFY2(partnersSeen.size() == levels.size(), "every photo of the pool shows up in some case");
    }
};

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    return auglab::testing::runSuites<TestTargetsLibrary>(argc, argv);
}

#include "test_targets_library.moc"
