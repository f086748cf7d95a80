// brightness_contrast: Albumentations RandomBrightnessContrast, as a 256-entry LUT.
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/brightness_contrast.h"

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

class BrightnessContrastModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "brightness_contrast", "Brightness / contrast", OpCategory::Pixel,
            "out = trunc(clip(v * (1 + contrast) + brightness * 255, 0, 255)) in float32, as a 256-entry "
            "LUT.",
            {
                floatRange(
                    "brightness", "Brightness", "fraction of 255", -1, 1, {-0.2, 0.2},
                    "Added offset, as a fraction of 255 (or of the image mean, see brightness_by_max)."),
                floatRange("contrast", "Contrast", "factor - 1", -1, 5, {-0.2, 0.2},
                           "Multiplier minus one: 0 keeps contrast, -1 makes the image flat."),
                boolean("brightness_by_max", "Brightness by max", true,
                        "Offset relative to 255 (on) or to the image mean (off)."),
            });
        // The sliders' span for tuning (the bounds above are for validation).
        params::typical(d, "brightness", -0.5, 0.5);
        params::typical(d, "contrast", -0.5, 1);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        return BrightnessContrastParams{d.uniform(1, op.range("brightness")),
                                        d.uniform(2, op.range("contrast")), op.flag("brightness_by_max")};
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& b = std::get<BrightnessContrastParams>(params);
        j["brightness"] = b.brightness;
        j["contrast"] = b.contrast;
        j["brightness_by_max"] = b.brightness_by_max;
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "brightness", "contrast", "brightness_by_max"});
        return BrightnessContrastParams{num(r, "brightness", -1, 1), num(r, "contrast", -1, 5),
                                        r.member("brightness_by_max").boolean()};
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& b = std::get<BrightnessContrastParams>(params);
        if (key == "brightness") return {b.brightness};
        if (key == "contrast") return {b.contrast};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<BrightnessContrastParams>(params);
        if (p.brightness_by_max)
            b.pixel(LutStep::same(brightnessContrastLut(contrastAlpha(p), brightnessBeta(p, 0))));
        else
            b.pixel(MeanBrightnessStep{contrastAlpha(p), p.brightness});
    }

    std::vector<std::string> albumentationsClasses() const override { return {"RandomBrightnessContrast"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("RandomBrightnessContrast", op.p);
        j["brightness_by_max"] = op.flag("brightness_by_max");
        j["brightness_limit"] = pair(op.range("brightness"));
        j["contrast_limit"] = pair(op.range("contrast"));
        j["ensure_safe_range"] = false;
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5},
                {"brightness_limit", {-0.2, 0.2}},
                {"contrast_limit", {-0.2, 0.2}},
                {"brightness_by_max", true},
                {"ensure_safe_range", false}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        op.set("brightness",
               a.clamp(a.get("brightness_limit"), symmetricRange(a.get("brightness_limit")), -1, 1));
        op.set("contrast", a.clamp(a.get("contrast_limit"), symmetricRange(a.get("contrast_limit")), -1, 5));
        op.set("brightness_by_max", a.get("brightness_by_max").boolean());
        if (a.get("ensure_safe_range").boolean())
            a.warn(a.get("ensure_safe_range"),
                   "ensure_safe_range (limiting the drawn values so that no pixel "
                   "clips) cannot be expressed: ignored.");
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        auto& w = x.warnings;
        switch (x.target) {
            case PythonTarget::Torchvision: {
                std::string& lines = x.lines;
                x.helperUsed = true;
                lines += "    " +
                         torchvisionWithP("BrightnessContrast(brightness=" + pyRange(op.range("brightness")) +
                                              ", contrast=" + pyRange(op.range("contrast")) + ", by_max=" +
                                              (op.flag("brightness_by_max") ? "True" : "False") + ")",
                                          op.p) +
                         ",\n";
                return;
            }
            case PythonTarget::Keras: {
                std::string& lines = x.lines;
                lines += "    " +
                         kerasWithP("BrightnessContrast(brightness=" + pyRange(op.range("brightness")) +
                                        ", contrast=" + pyRange(op.range("contrast")) +
                                        ", by_max=" + (op.flag("brightness_by_max") ? "True" : "False") + ")",
                                    op.p) +
                         ",\n";
                return;
            }
            case PythonTarget::TfDeotte: {
                std::string& configs = x.configs;
                std::string& steps = x.lines;
                const std::string name = "OP" + std::to_string(x.index);
                configs += name + " = dict(brightness=" + pyRange(op.range("brightness")) +
                           ", contrast=" + pyRange(op.range("contrast")) +
                           ", by_max=" + (op.flag("brightness_by_max") ? "True" : "False") + ")  # " + L +
                           "\n";
                steps += tfGated(op.p, "brightness_contrast(image, " + name + ")");
                return;
            }
            case PythonTarget::Dali: {
                std::string& s = x.lines;
                const std::string on = daliCoin(op.p);
                s += "    # " + L + "\n";
                s += "    on = " + on + "\n";
                s += "    images = _brightness_contrast(images, 1.0 + " + daliUniform(op.range("contrast")) +
                     " * on, " + daliUniform(op.range("brightness")) +
                     " * on, by_max=" + (op.flag("brightness_by_max") ? "True" : "False") + ")\n";
                if (!op.flag("brightness_by_max"))
                    w.push_back(
                        L +
                        ": the image mean is DALI's float reduction (AugLab sums in integers): a level "
                        "apart where the product lands on a whole number.");
                return;
            }
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return R"(

class BrightnessContrast(torch.nn.Module):
    """AugLab brightness_contrast: out = trunc(clip(v * (1 + c) + b * 255, 0, 255)) in float32."""

    def __init__(self, brightness, contrast, by_max=True):
        super().__init__()
        self.brightness, self.contrast, self.by_max = brightness, contrast, by_max

    def forward(self, img):  # uint8 tensor, C x H x W
        alpha = 1.0 + torch.empty(1).uniform_(*self.contrast).item()
        beta = torch.empty(1).uniform_(*self.brightness).item()
        beta *= 255.0 if self.by_max else img[:3].float().mean().item()
        out = img.float() * torch.tensor(alpha, dtype=torch.float32) + torch.tensor(beta, dtype=torch.float32)
        return out.clamp(0, 255).to(torch.uint8)  # truncation toward zero, as AugLab
)";
            case PythonTarget::Keras:
                return R"(

class BrightnessContrast(keras.layers.Layer):
    """AugLab brightness_contrast: out = trunc(clip(v * (1 + c) + b * 255, 0, 255)), per image."""

    def __init__(self, brightness, contrast, by_max=True, **kwargs):
        super().__init__(**kwargs)
        self.brightness, self.contrast, self.by_max = brightness, contrast, by_max
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        n = keras.ops.shape(images)[0]
        c = keras.random.uniform((n, 1, 1, 1), *self.contrast, seed=self.seed_generator)
        b = keras.random.uniform((n, 1, 1, 1), *self.brightness, seed=self.seed_generator)
        x = keras.ops.cast(images, "float32")
        scale = 255.0 if self.by_max else keras.ops.mean(x[..., :3], axis=(1, 2, 3), keepdims=True)
        return keras.ops.floor(keras.ops.clip(x * (1.0 + c) + b * scale, 0.0, 255.0))
)";
            case PythonTarget::TfDeotte:
                return R"(

def brightness_contrast(image, cfg):
    alpha = 1.0 + _uniform(cfg["contrast"])
    x = tf.cast(image, tf.float32)
    beta = _uniform(cfg["brightness"]) * (255.0 if cfg["by_max"] else tf.reduce_mean(x[..., :3]))
    return tf.math.floor(tf.clip_by_value(x * alpha + beta, 0.0, 255.0))
)";
            case PythonTarget::Dali:
                return R"(

def _brightness_contrast(images, alpha, beta, by_max):
    """AugLab brightness_contrast: trunc(clip(v * alpha + beta * (255 or the image mean), 0, 255))."""
    v = fn.cast(images, dtype=types.FLOAT)
    scale = 255.0 if by_max else fn.reductions.mean(v)  # on the images' device
    out = v * _on(images, alpha) + _on(images, beta) * scale
    return fn.cast(dmath.floor(dmath.clamp(out, 0.0, 255.0)), dtype=types.UINT8)
)";
        }
        return {};
    }
    bool pythonHelperAlways(PythonTarget t) const override { return t != PythonTarget::Torchvision; }
};

}  // namespace

const OpModule& brightnessContrastModule() {
    static const BrightnessContrastModule module;
    return module;
}

}  // namespace auglab
