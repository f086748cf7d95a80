// hue_saturation_value: shifts in OpenCV's 8-bit HSV, as Albumentations HueSaturationValue.
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/hue_saturation_value.h"

#include <algorithm>
#include <cmath>
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

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;
using namespace params;
using namespace replay_fields;

class HueSaturationValueModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(id, "hue_saturation_value", "Hue / saturation / value", OpCategory::Pixel,
                          "Shifts in OpenCV's 8-bit HSV (hue 0..179, two degrees a unit).",
                          {
                              floatRange("hue_shift_deg", "Hue shift", "deg", -180, 180, {-40, 40},
                                         "Hue rotation in degrees (OpenCV units are two degrees)."),
                              floatRange("sat_shift", "Saturation shift", "0-255 units", -255, 255, {-30, 30},
                                         "Added to saturation (0..255), truncated to an integer."),
                              floatRange("val_shift", "Value shift", "0-255 units", -255, 255, {-20, 20},
                                         "Added to value (0..255), truncated to an integer."),
                          });
        // The sliders' span for tuning (the bounds above are for validation).
        params::typical(d, "hue_shift_deg", -90, 90);
        params::typical(d, "sat_shift", -100, 100);
        params::typical(d, "val_shift", -100, 100);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        return HsvParams{d.uniform(1, op.range("hue_shift_deg")), d.uniform(2, op.range("sat_shift")),
                         d.uniform(3, op.range("val_shift"))};
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& h = std::get<HsvParams>(params);
        j["hue_shift_deg"] = h.hue_shift_deg;
        j["sat_shift"] = h.sat_shift;
        j["val_shift"] = h.val_shift;
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "hue_shift_deg", "sat_shift", "val_shift"});
        return HsvParams{num(r, "hue_shift_deg", -180, 180), num(r, "sat_shift", -255, 255),
                         num(r, "val_shift", -255, 255)};
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& h = std::get<HsvParams>(params);
        if (key == "hue_shift_deg") return {h.hue_shift_deg};
        if (key == "sat_shift") return {h.sat_shift};
        if (key == "val_shift") return {h.val_shift};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        HsvLuts luts = hsvLuts(std::get<HsvParams>(params));
        if (!luts.identity) b.pixel(HsvStep{luts});
    }

    std::vector<std::string> albumentationsClasses() const override { return {"HueSaturationValue"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const Range hue = op.range("hue_shift_deg");
        Json j = start("HueSaturationValue", op.p);
        j["hue_shift_limit"] = pair({hue.min / 2, hue.max / 2});  // OpenCV units of two degrees
        j["sat_shift_limit"] = pair(op.range("sat_shift"));
        j["val_shift_limit"] = pair(op.range("val_shift"));
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5},
                {"hue_shift_limit", {-20.0, 20.0}},
                {"sat_shift_limit", {-30.0, 30.0}},
                {"val_shift_limit", {-20.0, 20.0}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        const Range hue = symmetricRange(a.get("hue_shift_limit"));  // OpenCV units of two degrees
        op.set("hue_shift_deg",
               a.clamp(a.get("hue_shift_limit"), Range{hue.min * 2, hue.max * 2}, -180, 180));
        op.set("sat_shift",
               a.clamp(a.get("sat_shift_limit"), symmetricRange(a.get("sat_shift_limit")), -255, 255));
        op.set("val_shift",
               a.clamp(a.get("val_shift_limit"), symmetricRange(a.get("val_shift_limit")), -255, 255));
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        auto& w = x.warnings;
        switch (x.target) {
            case PythonTarget::Torchvision: {
                std::string& lines = x.lines;
                const Range hue = op.range("hue_shift_deg");
                w.push_back(L +
                            ": hue is exported as ColorJitter(hue=deg/360), a rotation in float HSV; AugLab "
                            "converts in 8 bits with OpenCV's 2-degree units (mean 0.4, max 3 levels apart "
                            "for +30 degrees on "
                            "chelsea.png, measured).");
                if (op.range("sat_shift") != Range{0, 0} || op.range("val_shift") != Range{0, 0})
                    w.push_back(
                        L +
                        ": additive saturation and value shifts (OpenCV 0-255 units) cannot be expressed by "
                        "ColorJitter's factors: sat_shift and val_shift are not exported.");
                lines += "    " +
                         torchvisionWithP(
                             "v2.ColorJitter(hue=" + pyRange({hue.min / 360, hue.max / 360}) + ")", op.p) +
                         ",\n";
                return;
            }
            case PythonTarget::Keras: {
                std::string& lines = x.lines;
                // Keras' RandomHue draws a symmetric turn and has no additive shifts: a helper in float HSV.
                lines += "    " +
                         kerasWithP("HueSaturationValue(hue=" + pyRange(op.range("hue_shift_deg")) +
                                        ", sat=" + pyRange(op.range("sat_shift")) +
                                        ", val=" + pyRange(op.range("val_shift")) + ")",
                                    op.p) +
                         ",\n";
                w.push_back(
                    L +
                    ": Keras converts to HSV in float; AugLab, like OpenCV, in 8 bits with hue in 2-degree "
                    "units (mean 0.4, max 3-4 levels apart on chelsea.png, measured).");
                return;
            }
            case PythonTarget::TfDeotte: {
                notInTfDeotte(e, x);
                return;
            }
            case PythonTarget::Dali: {
                std::string& s = x.lines;
                const std::string on = daliCoin(op.p);
                s += "    # " + L + "\n";
                w.push_back(
                    L +
                    ": DALI's fn.hsv turns hue as a rotation of the YIQ chroma plane (a linear colour "
                    "matrix), not in HSV: other colours for the same angle (+30 degrees on chelsea.png: mean "
                    "17, "
                    "max 46 levels apart, measured); additive sat_shift and val_shift cannot be "
                    "expressed by its factors: not exported.");
                s += "    images = fn.hsv(images, hue=" + daliUniform(op.range("hue_shift_deg")) + " * " +
                     on + ")\n";
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

class HueSaturationValue(keras.layers.Layer):
    """AugLab hue_saturation_value in float HSV, per image: hue turned by U(hue) degrees, saturation
    and value shifted by U(sat) and U(val) in OpenCV's 0-255 units, rounded."""

    def __init__(self, hue, sat, val, **kwargs):
        super().__init__(**kwargs)
        self.ranges = (hue, sat, val)
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        x = ops.cast(images, "float32")
        n = ops.shape(x)[0]
        hue, sat, val = (keras.random.uniform((n, 1, 1), lo, hi, seed=self.seed_generator) for lo, hi in self.ranges)
        hsv = ops.image.rgb_to_hsv(x[..., :3] / 255.0)
        h = ops.mod(hsv[..., 0] + hue / 360.0, 1.0)
        s = ops.clip(hsv[..., 1] + sat / 255.0, 0.0, 1.0)
        v = ops.clip(hsv[..., 2] + val / 255.0, 0.0, 1.0)
        rgb = ops.round(ops.image.hsv_to_rgb(ops.stack([h, s, v], axis=-1)) * 255.0)
        return ops.concatenate([rgb, x[..., 3:]], axis=-1)
)";
            case PythonTarget::TfDeotte:
                return {};
            case PythonTarget::Dali:
                return {};
        }
        return {};
    }
    bool pythonHelperAlways(PythonTarget t) const override { return t != PythonTarget::Torchvision; }
};

}  // namespace

const OpModule& hueSaturationValueModule() {
    static const HueSaturationValueModule module;
    return module;
}

}  // namespace auglab
