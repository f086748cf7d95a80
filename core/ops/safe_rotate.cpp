// safe_rotate: Albumentations 2.0.8 SafeRotate, a rotation by angle ~ U(limit) that keeps the whole
// image: the rotated image's bounding box is scaled back into the frame, each axis by its own factor
// (safeRotateMatrix). The pixels are warped as affine's are (cv2.warpAffine of the forward matrix);
// boxes go through the same construction about (W/2, H/2), keypoints through the image's matrix
// with their scales grown by the larger factor, as the library's Affine does with SafeRotate's
// matrices.
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/safe_rotate.h"

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

constexpr std::uint32_t kAngleDraw = 1;  // draw 0 is the gate

class SafeRotateModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "safe_rotate", "Safe rotate", OpCategory::Geometric,
            "Albumentations 2.0.8 SafeRotate: rotation by an angle drawn uniformly from `limit` "
            "(counter-clockwise on screen), the whole rotated image scaled back into the frame (each axis "
            "by its own factor), so no corner is cut off.",
            {floatRange("limit", "Rotation", "deg", -180, 180, {-90, 90},
                        "Angle in degrees; positive is counter-clockwise on screen."),
             choice("interpolation", "Interpolation", kInterpolationChoices, "linear",
                    "How source pixels are sampled."),
             choice("border", "Border", kBorderChoices, "constant",
                    "What is shown outside the source image."),
             fill("fill", false, "Colour of the constant border.")});
        typical(d, "limit", -45, 45);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        SafeRotateParams p;
        p.angle_deg = d.uniform(kAngleDraw, op.range("limit"));
        p.interpolation = interpolationFromName(op.choice("interpolation"));
        p.border = borderFromName(op.choice("border"));
        p.fill = rgbOf(op.fill("fill"));
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<SafeRotateParams>(params);
        j["angle_deg"] = p.angle_deg;
        j["interpolation"] = interpolationName(p.interpolation);
        j["border"] = borderName(p.border);
        j["fill"] = rgbJson(p.fill);
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "angle_deg", "interpolation", "border", "fill"});
        SafeRotateParams p;
        p.angle_deg = r.member("angle_deg").numberIn(-1e6, 1e6);
        p.interpolation = readInterpolation(r, "interpolation");
        p.border = readBorder(r, "border");
        p.fill = readRgb(r.member("fill"));
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        if (key == "limit") return {std::get<SafeRotateParams>(params).angle_deg};
        return {};
    }

    bool moveTargets(const OpParams& params, TargetFrame& f) const override {
        const auto& p = std::get<SafeRotateParams>(params);
        double sx = 1, sy = 1;
        const Matrix3 image = safeRotateMatrix(p.angle_deg, (f.width - 1) / 2.0, (f.height - 1) / 2.0,
                                               f.width, f.height, sx, sy);
        const Matrix3 boxes =
            safeRotateMatrix(p.angle_deg, f.width / 2.0, f.height / 2.0, f.width, f.height, sx, sy);
        affineTargets(f, image, boxes, p.border, std::max(sx, sy));
        return true;
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<SafeRotateParams>(params);
        const int w = b.frameWidth(), h = b.frameHeight();
        double sx = 1, sy = 1;
        b.geometric(safeRotateMatrix(p.angle_deg, (w - 1) / 2.0, (h - 1) / 2.0, w, h, sx, sy));
        b.resampling(p.interpolation, p.border, p.fill);
    }

    std::vector<std::string> albumentationsClasses() const override { return {"SafeRotate"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour flavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("SafeRotate", op.p);
        j["limit"] = pair(op.range("limit"));
        j["interpolation"] = cvInterpolation(op.choice("interpolation"));
        j["border_mode"] = cvBorder(op.choice("border"));
        j["fill"] = fillValue(op.fill("fill"));
        j["fill_mask"] = flavour == AlbumentationsFlavour::AlbumentationsX ? Json(nullptr) : Json(0.0);
        j["rotate_method"] = "largest_box";
        j["mask_interpolation"] = 0;
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion& v) const override {
        // 1.x reflected at the border.
        return {{"p", 0.5},
                {"limit", {-90.0, 90.0}},
                {"interpolation", 1},
                {"border_mode", v.before2() ? 4 : 0},
                {"fill", 0.0}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        const JsonReader limit = a.get("limit");
        op.set("limit", a.clamp(limit, symmetricRange(limit), -180, 180));
        op.set("interpolation", std::string(interpolationName(a.get("interpolation"), a)));
        op.set("border", std::string(borderName(a.get("border_mode", {"mode"}), a)));
        op.set("fill", readFill(a.get("fill", {"value"}), a, false));
        a.maskOnly("fill_mask", {"mask_value"});
        a.maskOnly("mask_interpolation");
        a.maskOnly("rotate_method");
        // A.save also writes the Affine arguments SafeRotate derives from its own (rotate = limit, no
        // scale, shear or shift, fit_output), which A.load then refuses: nothing of their own, and the
        // export leaves them out.
        for (const char* derived : {"balanced_scale", "fit_output", "keep_ratio", "rotate", "scale", "shear",
                                    "translate_percent", "translate_px"})
            (void)a.find({derived});
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        if (x.target == PythonTarget::TfDeotte) {
            notInTfDeotte(e, x);
            return;
        }
        const char* target = pythonTargetName(x.target);
        notExported(e, x,
                    e.label() + ": " + target +
                        " has no rotation that scales the rotated image back into the frame: not exported "
                        "(the albumentations export has it).");
    }
};

}  // namespace

Matrix3 safeRotateMatrix(double angleDeg, double cx, double cy, int width, int height, double& sx,
                         double& sy) {
    // cv2.getRotationMatrix2D (the centre a Point2f there: halves are exact in float).
    const double fx = static_cast<float>(cx), fy = static_cast<float>(cy);
    const double angle = angleDeg * std::numbers::pi / 180.0;
    const double alpha = std::cos(angle), beta = std::sin(angle);
    double m02 = (1 - alpha) * fx - beta * fy;
    double m12 = beta * fx + (1 - alpha) * fy;
    const double absCos = std::abs(alpha), absSin = std::abs(beta);
    const int newW = static_cast<int>(height * absSin + width * absCos);
    const int newH = static_cast<int>(height * absCos + width * absSin);
    m02 += newW / 2.0 - cx;
    m12 += newH / 2.0 - cy;
    sx = static_cast<double>(width) / newW;
    sy = static_cast<double>(height) / newH;
    return Matrix3{{sx * alpha, sx * beta, sx * m02, sy * -beta, sy * alpha, sy * m12, 0, 0, 1}};
}

const OpModule& safeRotateModule() {
    static const SafeRotateModule module;
    return module;
}

}  // namespace auglab
