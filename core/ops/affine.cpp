// affine: Albumentations 2.0 Affine about the image centre (rotate, scale, shear, shift).
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/affine.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "colour.h"
#include "error.h"
#include "export_common.h"
#include "geometry.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "ops/replay_fields.h"
#include "plan_builder.h"
#include "sampler.h"
#include "targets.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;
using namespace params;
using namespace replay_fields;

/// Shifts given in pixels (translate_x_px / translate_y_px), which replace the fractions.
bool shiftsInPixels(const OpConfig& op) {
    return op.has("translate_x_px") || op.has("translate_y_px");
}

AffineParams sampleAffine(const OpConfig& op, const OpDraws& d, int width, int height) {
    AffineParams a;
    a.rotate_deg = d.uniform(1, op.range("rotate_deg"));
    a.scale_x = d.uniform(2, op.range("scale_x"));
    const double sy = d.uniform(3, op.range("scale_y"));  // drawn even when unused: stable streams
    a.scale_y = op.flag("keep_ratio") ? a.scale_x : sy;
    a.shear_x_deg = d.uniform(4, op.range("shear_x_deg"));
    a.shear_y_deg = d.uniform(5, op.range("shear_y_deg"));
    if (shiftsInPixels(op)) {
        // Albumentations' translate_px: randint(int(lo), int(hi)) per axis, both ends included.
        const auto pixels = [&](std::uint32_t draw, const char* key) {
            const Range r = op.has(key) ? op.range(key) : Range{0, 0};
            return static_cast<int>(d.randint(draw, static_cast<std::int64_t>(r.min), static_cast<std::int64_t>(r.max)));
        };
        a.translate_x_px = pixels(6, "translate_x_px");
        a.translate_y_px = pixels(7, "translate_y_px");
    } else {
        // Albumentations: translate_percent * size, then int() which truncates toward zero.
        a.translate_x_px = static_cast<int>(std::trunc(d.uniform(6, op.range("translate_x_frac")) * width));
        a.translate_y_px = static_cast<int>(std::trunc(d.uniform(7, op.range("translate_y_frac")) * height));
    }
    a.interpolation = interpolationFromName(op.choice("interpolation"));
    a.border = borderFromName(op.choice("border"));
    a.fill = rgbOf(op.fill("fill"));
    return a;
}

Json albumentationsAffine(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour flavour,
                          std::vector<std::string>& warnings) {
    using namespace exporting;
    const OpConfig& op = *e.op;
    const bool keepRatio = op.flag("keep_ratio");
    const Range sx = op.range("scale_x");
    Range sy = op.range("scale_y");
    if (keepRatio && sy != sx) {
        warnings.push_back(
            e.label() + ": scale_y [" + formatNumber(sy.min) + ", " + formatNumber(sy.max) +
            "] is unused with keep_ratio and is written as scale_x (Albumentations needs equal "
            "ranges); importing the file gives scale_y = scale_x.");
    }
    if (keepRatio) sy = sx;
    Json j = start("Affine", op.p);
    j["balanced_scale"] = false;
    j["border_mode"] = cvBorder(op.choice("border"));
    j["fill"] = fillValue(op.fill("fill"));
    j["fill_mask"] = flavour == AlbumentationsFlavour::AlbumentationsX ? Json(nullptr) : Json(0.0);
    j["fit_output"] = false;
    j["interpolation"] = cvInterpolation(op.choice("interpolation"));
    j["keep_ratio"] = keepRatio;
    j["mask_interpolation"] = 0;
    j["rotate"] = pair(op.range("rotate_deg"));
    j["rotate_method"] = "largest_box";
    j["scale"] = xy(sx, sy);
    j["shear"] = xy(op.range("shear_x_deg"), op.range("shear_y_deg"));
    if (shiftsInPixels(op)) {
        const auto pixels = [&](const char* key) { return op.has(key) ? op.range(key) : Range{0, 0}; };
        j["translate_percent"] = nullptr;
        j["translate_px"] = {{"x", intPair(pixels("translate_x_px"))}, {"y", intPair(pixels("translate_y_px"))}};
    } else {
        j["translate_percent"] = xy(op.range("translate_x_frac"), op.range("translate_y_frac"));
        j["translate_px"] = nullptr;
    }
    return j;
}

/// ShiftScaleRotate, which Albumentations 2.0.8 builds as Affine(scale = 1 + scale_limit for both
/// axes drawn apart (keep_ratio False), translate_percent = the shift limits, rotate = rotate_limit,
/// shear 0, fit_output False): the same draws and pixels, so it is read as that affine.
void readShiftScaleRotate(exporting::TransformArgs& a, OpConfig& op) {
    using namespace exporting;
    const JsonReader rotate = a.get("rotate_limit");
    op.set("rotate_deg", a.clamp(rotate, symmetricRange(rotate), -180, 180));
    const JsonReader scale = a.get("scale_limit");
    const Range s = symmetricRange(scale);
    const Range factor{1.0 + s.min, 1.0 + s.max};
    // 2.0 draws the two axes apart (Affine with keep_ratio False); 1.x scaled both by one factor.
    const bool oneFactor = a.version().before2();
    if (oneFactor)
        a.warn(scale,
               "ShiftScaleRotate of Albumentations 1.x scales both axes by one factor: read with "
               "keep_ratio (2.0 draws the two axes apart).");
    op.set("keep_ratio", oneFactor);
    op.set("scale_x", a.clamp(scale, factor, 0.05, 10));
    op.set("scale_y", a.clamp(scale, factor, 0.05, 10));
    op.set("shear_x_deg", Range{0, 0});
    op.set("shear_y_deg", Range{0, 0});
    // shift_limit_x / _y replace shift_limit where given (A.save writes the two).
    const std::optional<JsonReader> sx = a.find({"shift_limit_x"}), sy = a.find({"shift_limit_y"});
    const std::optional<JsonReader> both = a.find({"shift_limit"});
    const auto shift = [&](const std::optional<JsonReader>& own, const char* key) {
        const std::optional<JsonReader>& r = own && !own->json().is_null() ? own : both;
        if (!r) {
            a.noteDefault(key, "shift in [-0.0625, 0.0625]");
            return Range{-0.0625, 0.0625};
        }
        return a.clamp(*r, symmetricRange(*r), -1, 1);
    };
    op.set("translate_x_frac", shift(sx, "shift_limit_x"));
    op.set("translate_y_frac", shift(sy, "shift_limit_y"));
    op.set("interpolation", std::string(interpolationName(a.get("interpolation"), a)));
    op.set("border", std::string(borderName(a.get("border_mode", {"mode"}), a)));
    op.set("fill", readFill(a.get("fill", {"value"}), a, false));
    a.maskOnly("fill_mask", {"mask_value"});
    a.maskOnly("mask_interpolation");
    a.maskOnly("rotate_method");
}

/// Rotate without crop_border, which Albumentations 2.0.8 builds from the Affine matrix about the
/// same centre and warps as Affine does: the same draw (uniform over `limit`), pixels, boxes and
/// keypoints as Affine(rotate=limit) (TestImport::rotateIsAffine names the measurement), so it is
/// read as that affine.
void readRotate(exporting::TransformArgs& a, OpConfig& op) {
    using namespace exporting;
    const JsonReader limit = a.get("limit");
    op.set("rotate_deg", a.clamp(limit, symmetricRange(limit), -180, 180));
    op.set("keep_ratio", true);
    op.set("scale_x", Range{1, 1});
    op.set("scale_y", Range{1, 1});
    op.set("shear_x_deg", Range{0, 0});
    op.set("shear_y_deg", Range{0, 0});
    op.set("translate_x_frac", Range{0, 0});
    op.set("translate_y_frac", Range{0, 0});
    op.set("interpolation", std::string(interpolationName(a.get("interpolation"), a)));
    op.set("border", std::string(borderName(a.get("border_mode", {"mode"}), a)));
    op.set("fill", readFill(a.get("fill", {"value"}), a, false));
    a.maskOnly("fill_mask", {"mask_value"});
    a.maskOnly("mask_interpolation");
    a.maskOnly("rotate_method");
    const JsonReader crop = a.get("crop_border");
    if (crop.boolean())
        a.leaveOut(crop,
                   "crop_border crops the rotated image to the largest rectangle inside it, which changes "
                   "the output size with the angle; AugLab's affine keeps the size");
}

void readAffine(exporting::TransformArgs& a, OpConfig& op) {
    using namespace exporting;
    if (a.cls() == "ShiftScaleRotate") {
        readShiftScaleRotate(a, op);
        return;
    }
    if (a.cls() == "Rotate") {
        readRotate(a, op);
        return;
    }
    op.set("rotate_deg", a.clamp(a.get("rotate"), fixedOrPair(a.get("rotate")), -180, 180));
    const JsonReader scale = a.get("scale");
    auto [sx, sy] = xyRanges(scale, 1.0);
    const bool keepRatio = a.get("keep_ratio").boolean();
    op.set("keep_ratio", keepRatio);
    if (keepRatio && sx != sy)
        a.warn(scale,
               "keep_ratio with different x and y ranges (Albumentations refuses this): y uses the x range.");
    if (keepRatio) sy = sx;
    op.set("scale_x", a.clamp(scale, sx, 0.05, 10));
    op.set("scale_y", a.clamp(scale, sy, 0.05, 10));
    const JsonReader shear = a.get("shear");
    const auto [shx, shy] = xyRanges(shear, 0.0);
    op.set("shear_x_deg", a.clamp(shear, shx, -80, 80));
    op.set("shear_y_deg", a.clamp(shear, shy, -80, 80));

    const std::optional<JsonReader> percent = a.find({"translate_percent"});
    const std::optional<JsonReader> px = a.find({"translate_px"});
    Range tx{0, 0}, ty{0, 0};
    if (percent && !percent->json().is_null()) {
        std::tie(tx, ty) = xyRanges(*percent, 0.0);
        op.set("translate_x_frac", a.clamp(*percent, tx, -1, 1));
        op.set("translate_y_frac", a.clamp(*percent, ty, -1, 1));
    } else {
        op.set("translate_x_frac", Range{0, 0});
        op.set("translate_y_frac", Range{0, 0});
    }
    if (px && !px->json().is_null()) {
        // translate_px replaces translate_percent in the library (it is checked first).
        // No shift in pixels is no shift (the fractions at 0, as every runtime can write them).
        const auto [pxx, pxy] = xyRanges(*px, 0.0);
        const auto whole = [](Range r) { return Range{std::trunc(r.min), std::trunc(r.max)}; };
        if (whole(pxx) != Range{0, 0} || whole(pxy) != Range{0, 0}) {
            op.set("translate_x_px", a.clamp(*px, whole(pxx), -100000, 100000));
            op.set("translate_y_px", a.clamp(*px, whole(pxy), -100000, 100000));
        }
        if (percent && !percent->json().is_null())
            a.warn(*percent, "given with translate_px, which the library uses instead: ignored.");
        op.set("translate_x_frac", Range{0, 0});
        op.set("translate_y_frac", Range{0, 0});
    }
    if (!percent && !px) a.noteDefault("translate_percent", "no shift");

    const JsonReader interp = a.get("interpolation");
    op.set("interpolation", std::string(interpolationName(interp, a)));
    const JsonReader border = a.get("border_mode", {"mode"});
    op.set("border", std::string(borderName(border, a)));
    op.set("fill", readFill(a.get("fill", {"cval"}), a, false));
    if (a.get("fit_output").boolean())
        a.warn(a.get("fit_output"), "fit_output changes the output size; AugLab keeps it: ignored.");
    if (a.get("balanced_scale").boolean())
        a.warn(a.get("balanced_scale"),
               "balanced_scale (half of the draws below 1, half above) cannot be "
               "expressed: scale is drawn uniformly from its range.");
    a.maskOnly("fill_mask", {"cval_mask"});
    a.maskOnly("mask_interpolation");
    a.maskOnly("rotate_method");
}

class AffineModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "affine", "Affine (rotate, scale, shear, shift)", OpCategory::Geometric,
            "Albumentations 2.0 Affine about the image centre. Positive rotation turns counter-clockwise on "
            "screen; translation is a fraction of the image size, truncated to whole pixels.",
            {
                floatRange("rotate_deg", "Rotation", "deg", -180, 180, {-15, 15},
                           "Angle in degrees; positive is counter-clockwise on screen."),
                floatRange("scale_x", "Scale X", "factor", 0.05, 10, {0.9, 1.1},
                           "Zoom factor along x; above 1 enlarges the content."),
                floatRange("scale_y", "Scale Y", "factor", 0.05, 10, {0.9, 1.1},
                           "Zoom factor along y; ignored when keep_ratio is on (y uses the x draw)."),
                boolean("keep_ratio", "Keep aspect ratio", true, "Use the same zoom for both axes."),
                floatRange("shear_x_deg", "Shear X", "deg", -80, 80, {0, 0}, "Shear angle along x, degrees."),
                floatRange("shear_y_deg", "Shear Y", "deg", -80, 80, {0, 0}, "Shear angle along y, degrees."),
                floatRange("translate_x_frac", "Shift X", "fraction of width", -1, 1, {-0.0625, 0.0625},
                           "Shift along x as a fraction of the width, truncated toward zero to pixels."),
                floatRange("translate_y_frac", "Shift Y", "fraction of height", -1, 1, {-0.0625, 0.0625},
                           "Shift along y as a fraction of the height, truncated toward zero to pixels."),
                optionalParam(intRange("translate_x_px", "Shift X (pixels)", "px", -100000, 100000, {0, 0},
                                       "Shift along x in whole pixels, uniform over the range's integers "
                                       "(Albumentations' translate_px); given, the shifts in pixels "
                                       "replace the fractions.")),
                optionalParam(intRange("translate_y_px", "Shift Y (pixels)", "px", -100000, 100000, {0, 0},
                                       "Shift along y in whole pixels, uniform over the range's integers "
                                       "(Albumentations' translate_px); given, the shifts in pixels "
                                       "replace the fractions.")),
                choice("interpolation", "Interpolation", kInterpolationChoices, "linear",
                       "How source pixels are sampled."),
                choice("border", "Border", kBorderChoices, "constant",
                       "What is shown outside the source image."),
                fill("fill", false, "Colour of the constant border."),
            });
        d.params[2].unusedWhenFlag = "keep_ratio";  // scale_y: the y zoom is the x draw then
        // The sliders' span for tuning (the bounds above are for validation).
        params::typical(d, "rotate_deg", -45, 45);
        params::typical(d, "scale_x", 0.5, 2, true);
        params::typical(d, "scale_y", 0.5, 2, true);
        params::typical(d, "shear_x_deg", -30, 30);
        params::typical(d, "shear_y_deg", -30, 30);
        params::typical(d, "translate_x_frac", -0.3, 0.3);
        params::typical(d, "translate_y_frac", -0.3, 0.3);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int width, int height) const override {
        return sampleAffine(op, d, width, height);
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& a = std::get<AffineParams>(params);
        j["rotate_deg"] = a.rotate_deg;
        j["scale_x"] = a.scale_x;
        j["scale_y"] = a.scale_y;
        j["shear_x_deg"] = a.shear_x_deg;
        j["shear_y_deg"] = a.shear_y_deg;
        j["translate_x_px"] = a.translate_x_px;
        j["translate_y_px"] = a.translate_y_px;
        j["interpolation"] = interpolationName(a.interpolation);
        j["border"] = borderName(a.border);
        j["fill"] = rgbJson(a.fill);
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "rotate_deg", "scale_x", "scale_y", "shear_x_deg", "shear_y_deg",
                         "translate_x_px", "translate_y_px", "interpolation", "border", "fill"});
        AffineParams a;
        a.rotate_deg = num(r, "rotate_deg", -1e6, 1e6);
        a.scale_x = num(r, "scale_x", 1e-6, 1e6);
        a.scale_y = num(r, "scale_y", 1e-6, 1e6);
        a.shear_x_deg = num(r, "shear_x_deg", -89.9, 89.9);
        a.shear_y_deg = num(r, "shear_y_deg", -89.9, 89.9);
        a.translate_x_px = static_cast<int>(r.member("translate_x_px").integer(-1'000'000, 1'000'000));
        a.translate_y_px = static_cast<int>(r.member("translate_y_px").integer(-1'000'000, 1'000'000));
        a.interpolation = readInterpolation(r, "interpolation");
        a.border = readBorder(r, "border");
        a.fill = readRgb(r.member("fill"));
        return a;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int width,
                                    int height) const override {
        const auto& a = std::get<AffineParams>(params);
        if (key == "rotate_deg") return {a.rotate_deg};
        if (key == "scale_x") return {a.scale_x};
        if (key == "scale_y") return {a.scale_y};
        if (key == "shear_x_deg") return {a.shear_x_deg};
        if (key == "shear_y_deg") return {a.shear_y_deg};
        if (key == "translate_x_frac") return {double(a.translate_x_px) / width};
        if (key == "translate_y_frac") return {double(a.translate_y_px) / height};
        return {};
    }

    bool moveTargets(const OpParams& params, TargetFrame& f) const override {
        const auto& a = std::get<AffineParams>(params);
        // keypoints_affine multiplies scales by the larger drawn zoom (shear ignored).
        affineTargets(f, affineMatrix(a, f.width, f.height), a.border, std::max(a.scale_x, a.scale_y));
        return true;
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& a = std::get<AffineParams>(params);
        b.geometric(affineMatrix(a, b.frameWidth(), b.frameHeight()));
        b.resampling(a.interpolation, a.border, a.fill);
    }

    std::vector<std::string> albumentationsClasses() const override {
        return {"Affine", "ShiftScaleRotate", "Rotate"};
    }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour flavour,
                                 std::vector<std::string>& warnings) const override {
        return albumentationsAffine(e, flavour, warnings);
    }

    nlohmann::json albumentationsDefaults(const std::string& cls,
                                          const exporting::LibraryVersion& v) const override {
        if (cls == "ShiftScaleRotate")  // 1.x reflected at the border (BORDER_REFLECT_101), 2.0 fills
            return {{"p", 0.5},
                    {"shift_limit", {-0.0625, 0.0625}},
                    {"scale_limit", {-0.1, 0.1}},
                    {"rotate_limit", {-45.0, 45.0}},
                    {"interpolation", 1},
                    {"border_mode", v.before2() ? 4 : 0},
                    {"fill", 0.0}};
        if (cls == "Rotate")  // 1.x reflected at the border too
            return {{"p", 0.5},           {"limit", {-90.0, 90.0}},
                    {"interpolation", 1}, {"border_mode", v.before2() ? 4 : 0},
                    {"fill", 0.0},        {"crop_border", false}};
        return {{"p", 0.5},
                {"rotate", {0.0, 0.0}},
                {"scale", {{"x", {1.0, 1.0}}, {"y", {1.0, 1.0}}}},
                {"shear", {{"x", {0.0, 0.0}}, {"y", {0.0, 0.0}}}},
                {"interpolation", 1},
                {"border_mode", 0},
                {"fill", 0.0},
                {"keep_ratio", v.albumentationsX()},
                {"fit_output", false},
                {"balanced_scale", false}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override { readAffine(a, op); }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        auto& w = x.warnings;
        if (shiftsInPixels(op)) {
            notExported(e, x,
                        L + ": shifts in whole pixels (translate_x_px, translate_y_px) are written to the "
                            "Albumentations exports only: left out.");
            return;
        }
        switch (x.target) {
            case PythonTarget::Torchvision: {
                std::string& lines = x.lines;
                const Range rot = op.range("rotate_deg");
                const Range sx = op.range("scale_x"), tx = op.range("translate_x_frac"),
                            ty = op.range("translate_y_frac");
                const Range shx = op.range("shear_x_deg"), shy = op.range("shear_y_deg");
                if (!op.flag("keep_ratio") && op.range("scale_y") != sx)
                    w.push_back(
                        L +
                        ": torchvision scales both axes by one factor: scale_x is used for both, scale_y [" +
                        formatNumber(op.range("scale_y").min) + ", " + formatNumber(op.range("scale_y").max) +
                        "] is lost.");
                const auto symmetric = [&](const Range& t, const char* key) {
                    const double m = std::max(std::abs(t.min), std::abs(t.max));
                    if (t.min != -t.max)
                        w.push_back(L + ": torchvision translates within a symmetric range: " + key + " [" +
                                    formatNumber(t.min) + ", " + formatNumber(t.max) + "] becomes ±" +
                                    formatNumber(m) + ".");
                    return m;
                };
                const double mx = symmetric(tx, "translate_x_frac"), my = symmetric(ty, "translate_y_frac");
                if (mx > 0 || my > 0)
                    w.push_back(
                        L +
                        ": torchvision rounds the shift to whole pixels, AugLab truncates toward zero "
                        "(at most one pixel apart).");
                std::string shear = "None";
                if (shx != Range{0, 0} || shy != Range{0, 0}) {
                    // Appended piece by piece: "(" + std::string trips GCC 12's -Wrestrict false positive.
                    shear = "(";
                    shear += pyFloat(shx.min) + ", " + pyFloat(shx.max) + ", " + pyFloat(shy.min) + ", " +
                             pyFloat(shy.max) + ")";
                    w.push_back(
                        L +
                        ": torchvision shears before rotating and scaling, AugLab after: with shear and "
                        "rotation together the images differ (each alone matches).");
                }
                const std::string border = op.choice("border");
                if (border != "constant")
                    w.push_back(L + ": torchvision fills outside the image with a constant: border \"" +
                                border + "\" becomes a constant fill of " + pyRgb(op.fill("fill")) + ".");
                const std::string interp = op.choice("interpolation") == "nearest" ? "NEAREST" : "BILINEAR";
                // torchvision's grid transform with a fill samples with zero padding and then blends the
                // fill in by the coverage it has already multiplied in (the edge pixels get coverage
                // squared). Without a fill (None) its zero padding is OpenCV's black constant border.
                const Fill fillValue = op.fill("fill");
                const bool black = fillValue.rgb[0] == 0 && fillValue.rgb[1] == 0 && fillValue.rgb[2] == 0;
                if (!black && interp == "BILINEAR")
                    w.push_back(
                        L +
                        ": torchvision blends a fill other than black into the warped image's edge "
                        "pixels by its coverage squared: a one-pixel band along the edge differs (up to 54 "
                        "levels on chelsea.png, measured); inside, within SPEC §2.");
                // A positive torchvision angle turns clockwise: negate AugLab's (counter-clockwise) range.
                const std::string t = "v2.RandomAffine(degrees=(" + pyFloat(-rot.max) + ", " +
                                      pyFloat(-rot.min) + "), translate=(" + pyFloat(mx) + ", " +
                                      pyFloat(my) + "), scale=" + pyRange(sx) + ", shear=" + shear +
                                      ", interpolation=v2.InterpolationMode." + interp +
                                      ", fill=" + (black ? std::string("None") : pyRgb(fillValue)) + ")";
                lines +=
                    "    # " + L + ": angle sign flipped (torchvision turns clockwise for positive angles)\n";
                lines += "    " + torchvisionWithP(t, op.p) + ",\n";
                return;
            }
            case PythonTarget::Keras: {
                std::string& lines = x.lines;
                const std::string border = op.choice("border");
                std::string mode = "constant";
                if (border == "replicate")
                    mode = "nearest";
                else if (border == "reflect")
                    mode = "reflect";
                else if (border == "wrap")
                    mode = "wrap";
                else if (border == "reflect_101") {
                    mode = "reflect";
                    w.push_back(
                        L +
                        ": Keras has no reflect_101 (c b | a b c); fill_mode \"reflect\" (b a | a b c) "
                        "repeats the edge pixel once.");
                }
                const Fill fill = op.fill("fill");
                if (mode == "constant" && !isGray(fill))
                    w.push_back(L + ": Keras fills with one value for all channels: fill " + pyRgb(fill) +
                                " becomes " + std::to_string(fill.rgb[0]) + ".");
                // One warp with AugLab's matrix (keras.ops.image.affine_transform): Keras' RandomZoom,
                // RandomRotation and RandomTranslation resample once each, cut the corners one warp fills,
                // draw zoom as 1/scale - 1 and have no shear.
                const Range sy = op.flag("keep_ratio") ? op.range("scale_x") : op.range("scale_y");
                const std::string t =
                    "Affine(rotate=" + pyRange(op.range("rotate_deg")) +
                    ", scale_x=" + pyRange(op.range("scale_x")) + ", scale_y=" + pyRange(sy) +
                    ", keep_ratio=" + (op.flag("keep_ratio") ? "True" : "False") +
                    ", shear_x=" + pyRange(op.range("shear_x_deg")) +
                    ", shear_y=" + pyRange(op.range("shear_y_deg")) +
                    ", translate_x=" + pyRange(op.range("translate_x_frac")) +
                    ", translate_y=" + pyRange(op.range("translate_y_frac")) + ", interpolation=\"" +
                    (op.choice("interpolation") == "nearest" ? "nearest" : "bilinear") + "\", fill_mode=\"" +
                    mode + "\", fill_value=" + pyFloat(fill.rgb[0]) + ")";
                if (mode == "wrap" && op.choice("interpolation") != "nearest")
                    w.push_back(
                        L +
                        ": TensorFlow's wrap interpolates the seam between the last and the first pixel "
                        "with the fill value: that row and column differ (up to 17 levels on chelsea.png, "
                        "measured).");
                w.push_back(L +
                            ": Keras interpolates in float (AugLab in OpenCV's fixed point): within SPEC §2, "
                            "measured.");
                lines += "    " + kerasWithP(t, op.p) + ",\n";
                return;
            }
            case PythonTarget::TfDeotte: {
                std::string& configs = x.configs;
                std::string& steps = x.lines;
                const std::string name = "OP" + std::to_string(x.index);
                configs += name + " = dict(  # " + L + "\n";
                for (const char* k : {"rotate_deg", "scale_x", "scale_y", "shear_x_deg", "shear_y_deg",
                                      "translate_x_frac", "translate_y_frac"})
                    configs += std::string("    ") + k + "=" + pyRange(op.range(k)) + ",\n";
                configs += "    keep_ratio=" + std::string(op.flag("keep_ratio") ? "True" : "False") + ",\n";
                configs += "    interpolation=" + pyString(op.choice("interpolation")) + ",\n";
                configs += "    border=" + pyString(op.choice("border")) + ",\n";
                configs += "    fill=" + pyRgb(op.fill("fill")) + ",\n)\n";
                if (op.choice("interpolation") == "linear")
                    w.push_back(
                        L +
                        ": bilinear weights in float32 here, AugLab's in 1/32-pixel fixed point (a level "
                        "or two apart at strong edges).");
                steps += tfGated(op.p, "warp(image, affine_matrix(tf.shape(image)[0], tf.shape(image)[1], " +
                                           name + "), " + name + ")");
                return;
            }
            case PythonTarget::Dali: {
                std::string& s = x.lines;
                const std::string on = daliCoin(op.p);
                s += "    # " + L + "\n";
                const std::string border = op.choice("border");
                std::string fill;
                if (border == "constant") {
                    const Fill f = op.fill("fill");
                    fill = ", fill_value=" + pyFloat(f.rgb[0]);
                    if (!isGray(f))
                        w.push_back(L + ": DALI fills all channels with one value: " +
                                    std::to_string(f.rgb[0]) + ".");
                } else if (border != "replicate") {
                    w.push_back(L + ": DALI's warp has no \"" + border +
                                "\" border: it replicates the edge instead.");
                }
                w.push_back(L +
                            ": DALI interpolates in float and rounds to uint8; AugLab follows OpenCV's fixed "
                            "point (within SPEC §2's bounds, measured).");
                s += "    on = " + on + "\n";
                s += "    angle = " + daliUniform(op.range("rotate_deg")) + " * on * (math.pi / 180.0)\n";
                s += "    sx = 1.0 + (" + daliUniform(op.range("scale_x")) + " - 1.0) * on\n";
                s += std::string("    sy = ") +
                     (op.flag("keep_ratio") ? "sx"
                                            : "1.0 + (" + daliUniform(op.range("scale_y")) + " - 1.0) * on") +
                     "\n";
                s += "    shx = dmath.tan(-" + daliUniform(op.range("shear_x_deg")) +
                     " * on * (math.pi / 180.0))\n";
                s += "    shy = dmath.tan(-" + daliUniform(op.range("shear_y_deg")) +
                     " * on * (math.pi / 180.0))\n";
                s += "    tx = _trunc(" + daliUniform(op.range("translate_x_frac")) + " * on * width)\n";
                s += "    ty = _trunc(" + daliUniform(op.range("translate_y_frac")) + " * on * height)\n";
                s += "    images = fn.warp_affine(images, matrix=_inverse_affine(angle, sx, sy, shx, shy, "
                     "tx, ty, width, height), "
                     "inverse_map=True, interp_type=types." +
                     std::string(op.choice("interpolation") == "nearest" ? "INTERP_NN" : "INTERP_LINEAR") +
                     fill + ")\n";
                return;
            }
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return {};
            case PythonTarget::Keras:
                return R"(

class Affine(keras.layers.Layer):
    """AugLab affine, one warp per image: M = T(c + t) Sh R S T(-c) about the centre
    c = ((W - 1) / 2, (H - 1) / 2), angles counter-clockwise in degrees, shear_x/shear_y in degrees
    (x += tan(-shear_x) y, y += tan(-shear_y) x), shifts in fractions of the size truncated to whole
    pixels. keras.ops.image.affine_transform reads output pixel p from the source at M^-1 p."""

    def __init__(self, rotate, scale_x, scale_y, keep_ratio, shear_x, shear_y, translate_x, translate_y,
                 interpolation, fill_mode, fill_value, **kwargs):
        super().__init__(**kwargs)
        self.ranges = (rotate, scale_x, scale_y, shear_x, shear_y, translate_x, translate_y)
        self.keep_ratio, self.interpolation = keep_ratio, interpolation
        self.fill_mode, self.fill_value = fill_mode, fill_value
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        x = ops.cast(images, "float32")
        n = ops.shape(x)[0]
        h, w = ops.cast(ops.shape(x)[1], "float32"), ops.cast(ops.shape(x)[2], "float32")
        rotate, scale_x, scale_y, shear_x, shear_y, translate_x, translate_y = (
            keras.random.uniform((n,), lo, hi, seed=self.seed_generator) for lo, hi in self.ranges)
        radians = 3.141592653589793 / 180.0
        c, s = ops.cos(rotate * radians), ops.sin(rotate * radians)
        sx = scale_x
        sy = scale_x if self.keep_ratio else scale_y
        shx, shy = ops.tan(-shear_x * radians), ops.tan(-shear_y * radians)
        a00, a01 = (c - shx * s) * sx, (s + shx * c) * sy  # A = Sh R S
        a10, a11 = (shy * c - s) * sx, (shy * s + c) * sy
        det = a00 * a11 - a01 * a10
        i00, i01, i10, i11 = a11 / det, -a01 / det, -a10 / det, a00 / det
        cx, cy = (w - 1.0) * 0.5, (h - 1.0) * 0.5
        ox, oy = cx + ops.trunc(translate_x * w), cy + ops.trunc(translate_y * h)
        zero = ops.zeros_like(i00)
        m = ops.stack([i00, i01, cx - i00 * ox - i01 * oy, i10, i11, cy - i10 * ox - i11 * oy, zero, zero], axis=1)
        out = ops.image.affine_transform(x, m, interpolation=self.interpolation, fill_mode=self.fill_mode,
                                         fill_value=self.fill_value)
        return ops.round(out)
)";
            case PythonTarget::TfDeotte:
                return R"(

def affine_matrix(height, width, cfg):
    """AugLab's forward matrix (source -> output pixel, pixel centres at integers, y down)."""
    w, h = tf.cast(width, tf.float32), tf.cast(height, tf.float32)
    angle = _uniform(cfg["rotate_deg"]) * (math.pi / 180.0)  # positive: counter-clockwise on screen
    sx = _uniform(cfg["scale_x"])
    sy = sx if cfg["keep_ratio"] else _uniform(cfg["scale_y"])
    shx = tf.math.tan(-_uniform(cfg["shear_x_deg"]) * (math.pi / 180.0))
    shy = tf.math.tan(-_uniform(cfg["shear_y_deg"]) * (math.pi / 180.0))
    tx = _trunc(_uniform(cfg["translate_x_frac"]) * w)  # whole pixels, toward zero
    ty = _trunc(_uniform(cfg["translate_y_frac"]) * h)
    cx, cy = w / 2.0 - 0.5, h / 2.0 - 0.5
    one, zero = tf.constant(1.0), tf.constant(0.0)

    def mat(*v):
        return tf.reshape(tf.stack(v), [3, 3])

    c, s = tf.math.cos(angle), tf.math.sin(angle)
    m = mat(one, zero, -cx, zero, one, -cy, zero, zero, one)
    m = mat(sx, zero, zero, zero, sy, zero, zero, zero, one) @ m
    m = mat(c, s, zero, -s, c, zero, zero, zero, one) @ m
    m = mat(one, shx, zero, shy, one, zero, zero, zero, one) @ m
    m = mat(one, zero, cx + tx, zero, one, cy + ty, zero, zero, one) @ m
    return m


def _border_index(i, n, border):
    if border == "replicate" or border == "constant":
        return tf.clip_by_value(i, 0, n - 1)
    if border == "wrap":
        return tf.math.floormod(i, n)
    if border == "reflect":  # (b a | a b c | c b): the edge pixel repeats
        m = tf.math.floormod(i, 2 * n)
        return tf.where(m < n, m, 2 * n - 1 - m)
    period = tf.maximum(2 * n - 2, 1)  # reflect_101: (c b | a b c | b a)
    m = tf.math.floormod(i, period)
    return tf.minimum(tf.where(m < n, m, period - m), n - 1)


def _taps(image, xs, ys, border, fill):
    h, w = tf.shape(image)[0], tf.shape(image)[1]
    inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    ix, iy = _border_index(xs, w, border), _border_index(ys, h, border)
    values = tf.gather_nd(image, tf.stack([iy, ix], axis=-1))
    if border == "constant":
        values = tf.where(inside[..., None], values, fill)
    return values


def warp(image, m, cfg):
    """Output pixel p takes the source at inverse(M) p."""
    h, w = tf.shape(image)[0], tf.shape(image)[1]
    image = tf.cast(image, tf.float32)
    fill = tf.constant(cfg["fill"], tf.float32)[: image.shape[-1]]
    inv = tf.linalg.inv(m)
    ys, xs = tf.meshgrid(tf.range(h, dtype=tf.float32), tf.range(w, dtype=tf.float32), indexing="ij")
    sx = inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]
    sy = inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]
    if cfg["interpolation"] == "nearest":
        return _taps(image, tf.cast(tf.round(sx), tf.int32), tf.cast(tf.round(sy), tf.int32), cfg["border"], fill)
    x0, y0 = tf.math.floor(sx), tf.math.floor(sy)
    fx, fy = (sx - x0)[..., None], (sy - y0)[..., None]
    x0, y0 = tf.cast(x0, tf.int32), tf.cast(y0, tf.int32)
    b, f = cfg["border"], fill
    top = _taps(image, x0, y0, b, f) * (1 - fx) + _taps(image, x0 + 1, y0, b, f) * fx
    bottom = _taps(image, x0, y0 + 1, b, f) * (1 - fx) + _taps(image, x0 + 1, y0 + 1, b, f) * fx
    return tf.round(top * (1 - fy) + bottom * fy)
)";
            case PythonTarget::Dali:
                return R"(

def _inverse_affine(angle, sx, sy, shx, shy, tx, ty, width, height):
    """Destination -> source matrix (2 x 3) of AugLab's M = T(c + t) Sh R S T(-c), c = (W/2, H/2) in
    DALI's coordinates (pixel centres at +0.5)."""
    c, s = dmath.cos(angle), dmath.sin(angle)
    # A = Sh @ R @ S (2 x 2)
    a00, a01 = (c - shx * s) * sx, (s + shx * c) * sy
    a10, a11 = (shy * c - s) * sx, (shy * s + c) * sy
    det = a00 * a11 - a01 * a10
    i00, i01, i10, i11 = a11 / det, -a01 / det, -a10 / det, a00 / det
    cx, cy = width * 0.5, height * 0.5
    # source = A^-1 (p - c - t) + c
    ox, oy = cx + tx, cy + ty
    m = fn.stack(i00, i01, cx - i00 * ox - i01 * oy, i10, i11, cy - i10 * ox - i11 * oy)
    return fn.reshape(m, shape=[2, 3])
)";
        }
        return {};
    }
    bool pythonHelperAlways(PythonTarget t) const override { return t != PythonTarget::Torchvision; }
};

}  // namespace

Matrix3 affineMatrix(const AffineParams& a, int width, int height) {
    const double cx = width / 2.0 - 0.5, cy = height / 2.0 - 0.5;
    const double theta = std::fmod(a.rotate_deg, 360.0) * std::numbers::pi / 180.0;
    const double c = std::cos(theta), s = std::sin(theta);
    const Matrix3 rotation{{c, s, 0, -s, c, 0, 0, 0, 1}};
    const double shx = std::tan(-a.shear_x_deg * std::numbers::pi / 180.0);
    const double shy = std::tan(-a.shear_y_deg * std::numbers::pi / 180.0);
    const Matrix3 shear{{1, shx, 0, shy, 1, 0, 0, 0, 1}};
    return Matrix3::translation(cx, cy) * Matrix3::translation(a.translate_x_px, a.translate_y_px) * shear *
           rotation * Matrix3::scaling(a.scale_x, a.scale_y) * Matrix3::translation(-cx, -cy);
}

const OpModule& affineModule() {
    static const AffineModule module;
    return module;
}

}  // namespace auglab
