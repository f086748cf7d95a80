// downscale: Albumentations 2.0.8 Downscale, cv2.resize(img, None, fx=scale, fy=scale) with the
// downscale interpolation, then cv2.resize back to the image's size with the upscale one. The first
// resize is sized round(W * scale) x round(H * scale) but mapped with the factor itself, as OpenCV
// maps a resize given factors; both are stages of their own (nothing else fuses with them). A pixel
// op: boxes, keypoints and masks stay. Nearest is exact; linear is the warp's bilinear (SPEC §2).
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/downscale.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "export_common.h"
#include "geometry.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "ops/replay_fields.h"
#include "plan_builder.h"
#include "sampler.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;
using namespace params;
using namespace replay_fields;

constexpr std::uint32_t kScaleDraw = 1;  // draw 0 is the gate

/// cv2.resize's size for a factor: saturate_cast<int>(side * scale), rounded half to even. The library
/// fails on a side of 0; AugLab keeps one pixel.
int scaledSide(int side, double scale) {
    return std::max(1, static_cast<int>(std::nearbyint(side * scale)));
}

class DownscaleModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        return makeOp(id, "downscale", "Downscale", OpCategory::Pixel,
                      "Albumentations 2.0.8 Downscale: the image is resized by a factor drawn from "
                      "`scale_range` and back to its size, losing detail as a low-resolution camera does.",
                      {floatRange("scale_range", "Scale", "fraction of the side", 0.01, 1, {0.25, 0.25},
                                  "The factor of the first resize, drawn uniformly from this range."),
                       choice("down_interpolation", "Down", kInterpolationChoices, "nearest",
                              "How the image is resized down."),
                       choice("up_interpolation", "Up", kInterpolationChoices, "nearest",
                              "How it is resized back up.")});
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        DownscaleParams p;
        p.scale = d.uniform(kScaleDraw, op.range("scale_range"));
        p.down = interpolationFromName(op.choice("down_interpolation"));
        p.up = interpolationFromName(op.choice("up_interpolation"));
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<DownscaleParams>(params);
        j["scale"] = p.scale;
        j["down_interpolation"] = interpolationName(p.down);
        j["up_interpolation"] = interpolationName(p.up);
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "scale", "down_interpolation", "up_interpolation"});
        DownscaleParams p;
        p.scale = r.member("scale").numberIn(1e-6, 1);
        p.down = readInterpolation(r, "down_interpolation");
        p.up = readInterpolation(r, "up_interpolation");
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        if (key == "scale_range") return {std::get<DownscaleParams>(params).scale};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<DownscaleParams>(params);
        const int W = b.frameWidth(), H = b.frameHeight();
        const int w = scaledSide(W, p.scale), h = scaledSide(H, p.scale);
        b.endWarp();  // the image as the ops before made it
        b.resizeByFactors(p.scale, p.scale, w, h, p.down);
        b.endWarp();
        b.newFrame(resizeMatrix(w, h, W, H), W, H, w, h, p.up);
        b.endWarp();  // the ops after work on the upscaled image
    }

    std::vector<std::string> albumentationsClasses() const override { return {"Downscale"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("Downscale", op.p);
        j["scale_range"] = pair(op.range("scale_range"));
        j["interpolation_pair"] = {{"downscale", cvInterpolation(op.choice("down_interpolation"))},
                                   {"upscale", cvInterpolation(op.choice("up_interpolation"))}};
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5},
                {"scale_range", {0.25, 0.25}},
                {"interpolation_pair", {{"downscale", 0}, {"upscale", 0}}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        // 1.x: scale_min and scale_max, and one interpolation (or the pair) in `interpolation`.
        if (const auto lo = a.find({"scale_min"})) {
            const auto hi = a.find({"scale_max"});
            const double l = lo->number(), h = hi ? hi->number() : l;
            op.set("scale_range", a.clamp(*lo, Range{std::min(l, h), std::max(l, h)}, 0.01, 1));
        } else {
            const JsonReader s = a.get("scale_range");
            op.set("scale_range", a.clamp(s, pair(s), 0.01, 1));
        }
        const JsonReader pairArg = a.get("interpolation_pair", {"interpolation"});
        if (pairArg.json().is_object()) {
            pairArg.requireObject({"downscale", "upscale"});
            op.set("down_interpolation", std::string(interpolationName(pairArg.member("downscale"), a)));
            op.set("up_interpolation", std::string(interpolationName(pairArg.member("upscale"), a)));
        } else {
            const std::string both = interpolationName(pairArg, a);
            op.set("down_interpolation", both);
            op.set("up_interpolation", both);
        }
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        exporting::onlyInAlbumentations(e, x, "downscale");
    }
};

}  // namespace

const OpModule& downscaleModule() {
    static const DownscaleModule module;
    return module;
}

}  // namespace auglab
