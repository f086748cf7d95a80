// Boxes, keypoints and masks through the ops (core/targets.h): cases whose answers are known without
// AugLab: the values the real Albumentations 2.0.8 printed for the same inputs (quoted where used),
// hand arithmetic, and OpenCV's own nearest resize and warp for masks. The same rules against the
// library itself: test_targets_library.cpp.

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

class TestTargets : public QObject {
    Q_OBJECT

private slots:
    void horizontalFlip() {
        // Albumentations 2.0.8 printed box [140, 30, 180, 70] and keypoint (159, 50, 170 deg) for these.
        const Preset p = targetPreset(R"([{"op": "horizontal_flip", "p": 1}])");
        Targets t;
        t.boxes = {box(20, 30, 60, 70)};
        t.keypoints = {{40, 50, 10 * kDeg, 2, 7, 0, -1}};
        const MovedTargets m = moveTargets(replayOf(p, 200, 100), *p.targets, t);
        QCOMPARE(m.boxes.size(), std::size_t(1));
        expectBox(m.boxes[0], 140, 30, 180, 70);
        QCOMPARE(m.keypoints.size(), std::size_t(1));
        QCOMPARE(m.keypoints[0].x, 159.0);
        QCOMPARE(m.keypoints[0].y, 50.0);
        QVERIFY(std::abs(m.keypoints[0].angle - 170 * kDeg) < 1e-9);
    }

    void verticalFlip() {
        // Albumentations: box [20, 30, 60, 70] (symmetric in y here), keypoint (40, 49, 350 deg).
        const Preset p = targetPreset(R"([{"op": "vertical_flip", "p": 1}])");
        Targets t;
        t.boxes = {box(20, 30, 60, 70)};
        t.keypoints = {{40, 50, 10 * kDeg, 2, 7, 0, -1}};
        const MovedTargets m = moveTargets(replayOf(p, 200, 100), *p.targets, t);
        expectBox(m.boxes[0], 20, 30, 60, 70);
        QCOMPARE(m.keypoints[0].y, 49.0);
        QVERIFY(std::abs(m.keypoints[0].angle - 350 * kDeg) < 1e-9);
    }

    void mosaicGeometry() {
        // Albumentations 2.0.8 by hand: target and cells 512 x 512, centre_range [0.5, 0.5]: the
        // centre's span on each axis is [256, 768], 256 + int(513 * 0.5) = 512, so the window
        // [256, 768) is cut at 512 into four 256 x 256 cells; the first of the largest (top left)
        // takes the image, cropped from the cell-shaped image's side next to the centre.
        const Preset p = targetPreset(R"([{"op": "mosaic", "p": 1, "center_range": [0.5, 0.5]}])");
        const Replay r = samplePipeline(p.pipeline, p.seed, 4, 600, 400, PartnerPool{4, 2});
        const auto& m = std::get<MosaicParams>(r.ops[0].params);
        QCOMPARE(m.centreX, 512);
        QCOMPARE(m.centreY, 512);
        QCOMPARE(m.cells.size(), std::size_t(4));
        const int rects[4][4] = {
            {0, 0, 256, 256}, {256, 0, 256, 256}, {0, 256, 256, 256}, {256, 256, 256, 256}};
        const int crops[4][2] = {{256, 256}, {0, 256}, {256, 0}, {0, 0}};
        std::set<std::uint64_t> partners;
        for (std::size_t k = 0; k < 4; ++k) {
            const MosaicCell& c = m.cells[k];
            QCOMPARE(c.rect, (Hole{rects[k][0], rects[k][1], rects[k][2], rects[k][3]}));
            QCOMPARE(c.cropX, crops[k][0]);
            QCOMPARE(c.cropY, crops[k][1]);
            QCOMPARE(c.primary, k == 0);
            if (c.primary)
                QCOMPARE(c.partner, std::uint64_t(2));  // the sample's own
            else
                partners.insert(c.partner);
        }
        QVERIFY(!partners.contains(2));
        QVERIFY(partners.size() >= 2);  // distinct where the pool allows (redrawn up to 8 times)
        // Cover: a 600 x 400 image scaled by max(512 / 400, 512 / 600) = 1.28 to 768 x 512; the top
        // left cell shows its [256, 512) x [256, 512) part, so image (300, 250) lands on (128, 64).
        const MosaicPlacement at = mosaicPlacement(m, m.cells[0], 600, 400);
        QCOMPARE(at.scale, 1.28);
        QCOMPARE(at.resizedW, 768);
        QCOMPARE(at.resizedH, 512);
        QCOMPARE(at.offsetX, -256);
        QCOMPARE(at.offsetY, -256);
        Targets t;
        t.boxes = {box(250, 150, 350, 250, 1),
                   box(0, 0, 100, 100, 2)};  // the second ends up outside the cell
        t.keypoints = {{300, 250, 0, 2, 3, 0, -1}};
        const MovedTargets moved = moveTargets(r, *p.targets, t);
        QCOMPARE(moved.width, 512);
        QCOMPARE(moved.height, 512);
        QCOMPARE(moved.boxes.size(), std::size_t(1));
        // x: 250 * 1.28 - 256 = 64, 350 * 1.28 - 256 = 192; y: 150 * 1.28 - 256 = -64 -> 0 (the cell's edge).
        expectBox(moved.boxes[0], 64, 0, 192, 64);
        QCOMPARE(moved.keypoints.size(), std::size_t(1));
        QVERIFY(std::abs(moved.keypoints[0].x - 128) < 1e-9 && std::abs(moved.keypoints[0].y - 64) < 1e-9);
        QVERIFY(std::abs(moved.keypoints[0].scale - 2.56) < 1e-9);
        // Contain: scaled by min(...) = 512 / 600 to 512 x 341 (Python's round), padded by
        // (256 + 256 - 341) / 2 = 85 rows above in the bottom-left cell, which crops from its top.
        const MosaicCell& bottomLeft = m.cells[2];
        MosaicParams contain = m;
        contain.contain = true;
        const MosaicPlacement in = mosaicPlacement(contain, bottomLeft, 600, 400);
        QCOMPARE(in.resizedW, 512);
        QCOMPARE(in.resizedH, 341);
        QCOMPARE(in.offsetX, 0 - 256);
        QCOMPARE(in.offsetY, 256 + 0);  // the crop starts at the top: (0 + 256 - 341) < 0, no padding

        // A centre at the span's start: the window is one whole cell, the image alone.
        const Preset edge = targetPreset(R"([{"op": "mosaic", "p": 1, "center_range": [0, 0]}])");
        const Replay edgeReplay = samplePipeline(edge.pipeline, 1, 0, 600, 400, PartnerPool{4, 0});
        const auto& one = std::get<MosaicParams>(edgeReplay.ops[0].params);
        QCOMPARE(one.cells.size(), std::size_t(1));
        QVERIFY(one.cells[0].primary);
        QCOMPARE(one.cells[0].rect, (Hole{0, 0, 512, 512}));
    }

    void mosaicComesFirst() {
        const auto errorOf = [](const std::string& pipeline) -> std::string {
            try {
                targetPreset(pipeline);
            } catch (const InputError& e) {
                return e.what();
            }
            return "no error";
        };
        const std::string late = errorOf(R"([{"op": "horizontal_flip"}, {"op": "mosaic"}])");
        QVERIFY2(late.find("pipeline[1]") != std::string::npos &&
                     late.find("must be the first op") != std::string::npos,
                 late.c_str());
        // A crop after it is fine: each plan stage has its own size.
        QCOMPARE(errorOf(R"([{"op": "mosaic"}, {"op": "random_resized_crop"}])"), std::string("no error"));
        const std::string small =
            errorOf(R"([{"op": "mosaic", "target_size": [512, 512], "cell_shape": [200, 300]}])");
        QCOMPARE(small, std::string("no error"));  // the preset loads; sampling says why it cannot run
        const Preset p =
            targetPreset(R"([{"op": "mosaic", "target_size": [512, 512], "cell_shape": [200, 300]}])");
        try {
            samplePipeline(p.pipeline, 1, 0, 100, 100);
            QFAIL("two 200-pixel cells cannot cover 512 rows");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("must cover target_size") != std::string::npos, e.what());
        }
    }

    void rotationAndItsMirroredCopies() {
        // Albumentations 2.0.8, Affine(rotate=30) on a 200x100 image, box [20, 30, 60, 70]:
        // constant border [[20.718, 52.6795, 75.359, 100]], keypoint (40, 50, 10 deg, 2) -> (48.2215,
        // 79.683, 40 deg, 2); reflect_101: [[0, 0, 25.359, 20.718], [0, 92.6795, 6.077, 100], [20.718,
        // 52.6795, 75.359, 100]] (the mirrored copies first, in grid order).
        const std::string affine =
            R"([{"op": "affine", "p": 1, "rotate_deg": [30, 30], "scale_x": [1, 1], "scale_y": [1, 1],
                "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "%1"}])";
        Targets t;
        t.boxes = {box(20, 30, 60, 70)};
        t.keypoints = {{40, 50, 10 * kDeg, 2, 7, 0, -1}};
        {
            const Preset p = targetPreset(QString::fromStdString(affine).arg("constant").toStdString());
            const MovedTargets m = moveTargets(replayOf(p, 200, 100), *p.targets, t);
            QCOMPARE(m.boxes.size(), std::size_t(1));
            expectBox(m.boxes[0], 20.718, 52.6795, 75.359, 100);
            QVERIFY(std::abs(m.keypoints[0].x - 48.2215) < 1e-3 &&
                    std::abs(m.keypoints[0].y - 79.683) < 1e-3);
            QVERIFY(std::abs(m.keypoints[0].angle - 40 * kDeg) < 1e-6);
            QCOMPARE(m.keypoints[0].scale, 2.0);
            // The cut: 55 of its 57.3 rotated height stays, as the visibility says.
            QVERIFY(std::abs(m.boxes[0].visibility - (100 - 52.6795) / (107.3205 - 52.6795)) < 1e-4);
        }
        {
            const Preset p = targetPreset(QString::fromStdString(affine).arg("reflect_101").toStdString());
            const MovedTargets m = moveTargets(replayOf(p, 200, 100), *p.targets, t);
            QCOMPARE(m.boxes.size(), std::size_t(3));
            expectBox(m.boxes[0], 0, 0, 25.359, 20.718);
            expectBox(m.boxes[1], 0, 92.6795, 6.077, 100);
            expectBox(m.boxes[2], 20.718, 52.6795, 75.359, 100);
            for (const Box& b : m.boxes) QCOMPARE(b.id, 0);
        }
    }

    void minVisibilityIsPerTransform() {
        // Shifted 40 px left, the box [20, 30, 60, 70] keeps 20 of its 40 px: visibility 0.5.
        // Albumentations: min_visibility 0.4 keeps [0, 30, 20, 70], 0.6 drops it.
        const std::string shift = R"([{"op": "affine", "p": 1, "rotate_deg": [0, 0], "scale_x": [1, 1],
            "scale_y": [1, 1], "translate_x_frac": [-0.2, -0.2], "translate_y_frac": [0, 0]}])";
        Targets t;
        t.boxes = {box(20, 30, 60, 70)};
        {
            const Preset p = targetPreset(shift, R"({"boxes": {"min_visibility": 0.4}})");
            const MovedTargets m = moveTargets(replayOf(p, 200, 100), *p.targets, t);
            QCOMPARE(m.boxes.size(), std::size_t(1));
            expectBox(m.boxes[0], 0, 30, 20, 70);
        }
        {
            const Preset p = targetPreset(shift, R"({"boxes": {"min_visibility": 0.6}})");
            const MovedTargets m = moveTargets(replayOf(p, 200, 100), *p.targets, t);
            QCOMPARE(m.boxes.size(), std::size_t(0));
            QCOMPARE(m.droppedBoxes.size(), std::size_t(1));
            QCOMPARE(m.droppedBoxes[0].rule, DropRule::MinVisibility);
            QCOMPARE(m.droppedBoxes[0].op, std::size_t(0));
            // 20 x 40 = 800 px left: min_area 800 keeps it, 801 drops it.
        }
        for (const auto& [minArea, kept] : {std::pair{800.0, true}, std::pair{801.0, false}}) {
            const Preset p =
                targetPreset(shift, R"({"boxes": {"min_area": )" + std::to_string(minArea) + "}}");
            const MovedTargets m = moveTargets(replayOf(p, 200, 100), *p.targets, t);
            QCOMPARE(m.boxes.size(), std::size_t(kept ? 1 : 0));
        }
    }

    void holesSnapBoxesToWholePixels() {
        // Albumentations: any hole snaps the surviving boxes to their truncated pixels: a box
        // [20.6, 30.4, 60.7, 70.2] with a hole elsewhere becomes [20, 30, 60, 70]; a hole over its
        // left half shrinks it to the uncovered part.
        Targets t;
        t.boxes = {box(20.6, 30.4, 60.7, 70.2, 0), box(100, 10, 140, 50, 1)};
        t.keypoints = {{110, 20, 0, 1, 0, 0, -1}, {130, 20, 0, 1, 1, 1, -1}};
        const Preset p = targetPreset(
            R"([{"op": "coarse_dropout", "p": 1, "holes": [1, 1], "hole_height_px": [40, 40],
                 "hole_width_px": [20, 20]}])");
        Replay r = replayOf(p, 200, 100);
        auto& d = std::get<DropoutParams>(r.ops[0].params);
        d.holes = {{100, 0, 20, 40}};
        const MovedTargets m = moveTargets(r, *p.targets, t);
        QCOMPARE(m.boxes.size(), std::size_t(2));
        expectBox(m.boxes[0], 20, 30, 60, 70);
        // Columns 100..119 of rows 10..39 are covered; rows 40..49 are not: the box keeps its extent,
        // but its right edge, held as float32(140 / 200) * 200 = 139.99999, truncates to 139. The real
        // library printed [[20, 30, 60, 70], [100, 10, 139, 50]] for this case.
        expectBox(m.boxes[1], 100, 10, 139, 50);
        QCOMPARE(m.keypoints.size(), std::size_t(1));
        QCOMPARE(m.keypoints[0].id, 1);
        QCOMPARE(m.droppedKeypoints.size(), std::size_t(1));
        QCOMPARE(m.droppedKeypoints[0].rule, DropRule::Hole);
        // A hole over the whole of a box's top rows shrinks it to the rest.
        d.holes = {{90, 0, 60, 30}};
        const MovedTargets m2 = moveTargets(r, *p.targets, t);
        expectBox(m2.boxes[1], 100, 30, 139, 50);
    }

    void invalidInputIsAnError() {
        const Preset p = targetPreset(R"([{"op": "horizontal_flip", "p": 1}])");
        Targets t;
        t.boxes = {box(20, 30, 10, 70, 4)};
        try {
            moveTargets(replayOf(p, 200, 100), *p.targets, t);
            QFAIL("a box with x_max < x_min was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("box 4"), e.what());
        }
        t.boxes = {box(150, 30, 230, 70, 2)};
        QVERIFY_THROWS_EXCEPTION(InputError, moveTargets(replayOf(p, 200, 100), *p.targets, t));
        // clip accepts it, cut to the image.
        const Preset clip =
            targetPreset(R"([{"op": "horizontal_flip", "p": 1}])", R"({"boxes": {"clip": true}})");
        const MovedTargets m = moveTargets(replayOf(clip, 200, 100), *clip.targets, t);
        QCOMPARE(m.boxes.size(), std::size_t(1));
        expectBox(m.boxes[0], 0, 30, 50, 70);
    }

    void randomResizedCropMovesEverything() {
        // Crop (x 40, y 20, 100 x 50) resized to 50 x 25: a factor of 1/2. Box [60, 30, 100, 50] ->
        // [10, 5, 30, 15]; keypoint (90, 40) -> (25, 10) (no half-pixel correction), scale x 0.5.
        const Preset p = targetPreset(R"([{"op": "random_resized_crop", "p": 1, "size": [25, 50]}])");
        Replay r = replayOf(p, 200, 100);
        auto& c = std::get<CropParams>(r.ops[0].params);
        c.x = 40;
        c.y = 20;
        c.width = 100;
        c.height = 50;
        Targets t;
        t.boxes = {box(60, 30, 100, 50)};
        t.keypoints = {{90, 40, 0, 2, 0, 0, -1}};
        const MovedTargets m = moveTargets(r, *p.targets, t);
        QCOMPARE(m.width, 50);
        QCOMPARE(m.height, 25);
        expectBox(m.boxes[0], 10, 5, 30, 15);
        QCOMPARE(m.keypoints[0].x, 25.0);
        QCOMPARE(m.keypoints[0].y, 10.0);
        QCOMPARE(m.keypoints[0].scale, 1.0);
        // The mask: cv2.resize's INTER_NEAREST of the crop, exactly.
        const Mask mask = patternMask(200, 100);
        const std::vector<Mask> moved = moveMasks(r, {mask}, 50, 25);
        cv::Mat expected;
        cv::resize(matOf(mask)(cv::Rect(40, 20, 100, 50)), expected, cv::Size(50, 25), 0, 0,
                   cv::INTER_NEAREST);
        QCOMPARE(differingShare(moved[0], expected), 0.0);
        // An enlarging crop too (factors 1.7 and 2.3).
        c.x = 13;
        c.y = 7;
        c.width = 30;
        c.height = 20;
        c.outWidth = 51;
        c.outHeight = 46;
        const std::vector<Mask> up = moveMasks(r, {mask}, 51, 46);
        cv::resize(matOf(mask)(cv::Rect(13, 7, 30, 20)), expected, cv::Size(51, 46), 0, 0, cv::INTER_NEAREST);
        QCOMPARE(differingShare(up[0], expected), 0.0);
    }

    void masksFollowTheWarp() {
        // cv2.warpAffine with INTER_NEAREST and the op's matrix, border constant 0: SPEC's nearest bound.
        const Preset p =
            targetPreset(R"([{"op": "affine", "p": 1, "rotate_deg": [23, 23], "scale_x": [1.3, 1.3],
            "scale_y": [1.3, 1.3], "translate_x_frac": [0.05, 0.05], "translate_y_frac": [-0.1, -0.1]},
            {"op": "horizontal_flip", "p": 1}])");
        const Replay r = replayOf(p, 160, 120);
        const Mask mask = patternMask(160, 120);
        std::vector<Mask> masks{mask, mask, mask, mask};  // more than three travel in two images
        const std::vector<Mask> moved = moveMasks(r, masks, 160, 120);
        const AffineParams& a = std::get<AffineParams>(r.ops[0].params);
        const Matrix3 m = horizontalFlipMatrix(160) * affineMatrix(a, 160, 120);
        cv::Mat expected;
        const cv::Mat affine =
            (cv::Mat_<double>(2, 3) << m(0, 0), m(0, 1), m(0, 2), m(1, 0), m(1, 1), m(1, 2));
        cv::warpAffine(matOf(mask), expected, affine, cv::Size(160, 120), cv::INTER_NEAREST,
                       cv::BORDER_CONSTANT, 0);
        for (const Mask& mm : moved) QVERIFY2(differingShare(mm, expected) <= 0.005, "more than 0.5% differ");
        // Pixel ops leave masks alone.
        const Preset pixel = targetPreset(R"([{"op": "gaussian_blur", "p": 1}, {"op": "to_gray", "p": 1}])");
        QVERIFY(moveMasks(replayOf(pixel, 160, 120), {mask}, 160, 120)[0] == mask);
    }

    void displayMasksFromAReducedLevel() {
        // Level 2 keeps the pixel nearest each 4x4 block's centre: values picked, never averaged.
        Mask big;
        big.width = 400;
        big.height = 300;
        big.values.resize(400 * 300);
        for (int y = 0; y < 300; ++y)
            for (int x = 0; x < 400; ++x)
                big.values[std::size_t(y) * 400 + std::size_t(x)] = std::uint8_t(1 + (x / 40 + y / 40) % 5);
        const std::vector<Mask> reduced = reduceMasks({big}, 2);
        QCOMPARE(reduced[0].width, 100);
        QCOMPARE(reduced[0].height, 75);
        for (int y = 0; y < 75; ++y)
            for (int x = 0; x < 100; ++x) QCOMPARE(reduced[0].at(x, y), big.at(4 * x + 2, 4 * y + 2));
        QCOMPARE(maskLevelFor(4000, 3000, 100), 4);  // 250 px: the coarsest still twice the tile
        QCOMPARE(maskLevelFor(400, 300, 400), 0);
        // A tile from level 2 against one from the full mask: the same regions, their edges within a
        // block (40-px regions: edge pixels are a few percent of a 100x75 tile).
        const Preset p =
            targetPreset(R"([{"op": "affine", "p": 1, "rotate_deg": [20, 20], "scale_x": [1.1, 1.1],
            "scale_y": [1.1, 1.1]}])");
        const Replay r = replayOf(p, 400, 300);
        const Mask fromLevel = moveMasksPreview(r, reduced, 100, 75, 0, 2)[0];
        const Mask fromFull = moveMasksPreview(r, {big}, 100, 75, 0, 0)[0];
        long differ = 0;
        for (std::size_t i = 0; i < fromLevel.values.size(); ++i)
            differ += fromLevel.values[i] != fromFull.values[i];
        QVERIFY2(differ < long(fromLevel.values.size() / 10), qPrintable(QString::number(differ)));
    }

    void imageOnlyExportsSaySo() {
        // The exports that move images only say that the labels' rules are not in them; the
        // Albumentations ones carry them and say nothing.
        const Preset with =
            targetPreset(R"([{"op": "horizontal_flip", "p": 0.5}])", R"({"boxes": {"min_area": 4}})");
        Preset without = with;
        without.targets.reset();
        for (const char* target : {"torchvision", "keras", "tf-deotte", "dali"}) {
            auto says = [&](const Preset& p) {
                for (const std::string& w : exportPreset(p, target).warnings)
                    if (w.find("targets section") != std::string::npos) return true;
                return false;
            };
            QVERIFY2(says(with), target);
            QVERIFY2(!says(without), target);
        }
        for (const char* target : {"albumentations", "albumentationsx", "albumentations-py"})
            for (const std::string& w : exportPreset(with, target).warnings)
                QVERIFY2(w.find("targets section") == std::string::npos, target);
    }

    void presetSectionIsStrict() {
        const Preset p = targetPreset("[]", R"({"boxes": {"format": "yolo", "min_visibility": 0.25,
            "max_accept_ratio": 4}, "keypoints": {"format": "xyas", "remove_invisible": false}, "mask_fill": 3})");
        QCOMPARE(p.targets->boxes.format, BoxFormat::Yolo);
        QCOMPARE(p.targets->boxes.minVisibility, 0.25);
        QCOMPARE(*p.targets->boxes.maxAcceptRatio, 4.0);
        QCOMPARE(p.targets->keypoints.format, std::string("xyas"));
        QCOMPARE(p.targets->maskFill, 3);
        QCOMPARE(parsePreset(serializePreset(p)), p);  // every key written, read back the same
        auto fails = [](const std::string& targets, const char* path) {
            try {
                targetPreset("[]", targets);
            } catch (const InputError& e) {
                return QString(e.what()).contains(path);
            }
            return false;
        };
        QVERIFY(fails(R"({"boxes": {"format": "xyxy"}})", "targets.boxes.format"));
        QVERIFY(fails(R"({"boxes": {"min_visibility": 1.5}})", "targets.boxes.min_visibility"));
        QVERIFY(fails(R"({"boxes": {"min_areas": 3}})", "targets.boxes"));
        QVERIFY(fails(R"({"keypoints": {"format": "xyz"}})", "targets.keypoints.format"));
        QVERIFY(fails(R"({"boxes": {"max_accept_ratio": 0.5}})", "targets.boxes.max_accept_ratio"));
        QVERIFY(fails(R"({"masks": {}})", "targets"));
    }
};

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    return auglab::testing::runSuites<TestTargets>(argc, argv);
}

#include "test_targets.moc"
