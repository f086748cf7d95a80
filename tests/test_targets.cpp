// Boxes, keypoints and masks through the ops (core/targets.h).
//
// TestTargets: cases whose answers are known without AugLab: the values the real Albumentations
// 2.0.8 printed for the same inputs (quoted where used), hand arithmetic, and OpenCV's own nearest
// resize and warp for masks.
// TestTargetsLibrary: the real Albumentations 2.0.8 (build/pyenv, installed by the test suite where
// PyPI is reachable, shared with test_export_library) runs the exported pipeline, with its bbox_params
// and keypoint_params, on many boxes (leaving the frame, tiny, at the min_visibility and min_area
// edges), keypoints and a mask, fed the concrete parameters of AugLab's replay: the same boxes kept,
// within 0.5 px, keypoints within 0.01 px, masks within SPEC's nearest bound.

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

using namespace auglab;
using namespace auglab::testing;

namespace {

constexpr double kDeg = std::numbers::pi / 180;

Preset targetPreset(const std::string& pipeline, const std::string& targets = "{}") {
    return parsePreset(R"({"format": "auglab-preset", "version": 1, "seed": 3, "pipeline": )" + pipeline +
                       R"(, "targets": )" + targets + "}");
}

Replay replayOf(const Preset& p, int w, int h, std::uint64_t index = 0) {
    return samplePipeline(p.pipeline, p.seed, index, w, h);
}

Box box(double x0, double y0, double x1, double y1, int id = 0) {
    return {x0, y0, x1, y1, id, id, 1};
}

void expectBox(const Box& b, double x0, double y0, double x1, double y1, double tol = 1e-3) {
    if (std::abs(b.x0 - x0) > tol || std::abs(b.y0 - y0) > tol || std::abs(b.x1 - x1) > tol ||
        std::abs(b.y1 - y1) > tol)
        QFAIL(qPrintable(QString("box [%1, %2, %3, %4], expected [%5, %6, %7, %8]")
                             .arg(b.x0)
                             .arg(b.y0)
                             .arg(b.x1)
                             .arg(b.y1)
                             .arg(x0)
                             .arg(y0)
                             .arg(x1)
                             .arg(y1)));
}

Mask patternMask(int w, int h) {
    Mask m;
    m.width = w;
    m.height = h;
    m.values.resize(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            m.values[static_cast<std::size_t>(y) * w + x] =
                static_cast<std::uint8_t>(((x / 7) * 3 + (y / 5) * 5 + ((x + 2 * y) / 11)) % 6 + 1);
    return m;
}

cv::Mat matOf(const Mask& m) {
    cv::Mat out(m.height, m.width, CV_8UC1);
    for (int y = 0; y < m.height; ++y)
        for (int x = 0; x < m.width; ++x) out.at<std::uint8_t>(y, x) = m.at(x, y);
    return out;
}

double differingShare(const Mask& a, const cv::Mat& b) {
    if (a.width != b.cols || a.height != b.rows) return 1.0;
    long n = 0;
    for (int y = 0; y < a.height; ++y)
        for (int x = 0; x < a.width; ++x) n += a.at(x, y) != b.at<std::uint8_t>(y, x);
    return double(n) / (double(a.width) * a.height);
}

}  // namespace

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
    return auglab::testing::runSuites<TestTargets, TestTargetsLibrary>(argc, argv);
}

#include "test_targets.moc"
