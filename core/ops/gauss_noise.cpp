// gauss_noise: normal noise per pixel, as Albumentations 2.0 GaussNoise.
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/gauss_noise.h"

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

void readGaussNoise(exporting::TransformArgs& a, OpConfig& op) {
    using namespace exporting;
    if (const std::optional<JsonReader> var = a.find({"var_limit"})) {
        // 1.4.x: a variance in pixel units squared, drawn uniformly; AugLab draws the deviation uniformly.
        const Range v = var->json().is_number() ? Range{0, std::abs(var->number())} : pair(*var);
        const Range std{std::sqrt(std::max(0.0, v.min)) / 255, std::sqrt(std::max(0.0, v.max)) / 255};
        a.warn(*var, "variance range [" + formatNumber(v.min) + ", " + formatNumber(v.max) +
                         "] read as std_frac [" + formatNumber(std.min) + ", " + formatNumber(std.max) +
                         "]: the same bounds, but uniform in the deviation rather than in the variance.");
        op.set("std_frac", a.clamp(*var, std, 0, 1));
        const std::optional<JsonReader> mean = a.find({"mean"});
        const double m = mean ? mean->number() / 255 : 0.0;
        op.set("mean_frac", Range{m, m});
    } else {
        op.set("std_frac", a.clamp(a.get("std_range"), pair(a.get("std_range")), 0, 1));
        op.set("mean_frac", a.clamp(a.get("mean_range"), pair(a.get("mean_range")), -1, 1));
    }
    op.set("per_channel", a.get("per_channel").boolean());
    const JsonReader factor = a.get("noise_scale_factor");
    if (factor.number() != 1.0)
        a.warn(factor,
               "noise drawn at a reduced resolution and resized cannot be expressed: full-resolution noise.");
}

class GaussNoiseModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(id, "gauss_noise", "Gaussian noise", OpCategory::Pixel,
                          "Adds N(mean*255, std*255) per pixel, truncated toward zero, then clipped.",
                          {
                              floatRange("std_frac", "Noise std", "fraction of 255", 0, 1, {0.02, 0.1},
                                         "Standard deviation as a fraction of 255."),
                              floatRange("mean_frac", "Noise mean", "fraction of 255", -1, 1, {0, 0},
                                         "Mean as a fraction of 255."),
                              boolean("per_channel", "Per channel", true,
                                      "Independent noise per channel (off: the same for RGB)."),
                          });
        // The sliders' span for tuning (the bounds above are for validation).
        params::typical(d, "std_frac", 0, 0.3);
        params::typical(d, "mean_frac", -0.2, 0.2);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        return NoiseParams{d.uniform(1, op.range("std_frac")), d.uniform(2, op.range("mean_frac")),
                           op.flag("per_channel"), d.bits64(kNoiseKeyDraw)};
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& n = std::get<NoiseParams>(params);
        j["std_frac"] = n.std_frac;
        j["mean_frac"] = n.mean_frac;
        j["per_channel"] = n.per_channel;
        j["noise_seed"] = std::to_string(n.noiseSeed);  // a string: doubles would round it
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "std_frac", "mean_frac", "per_channel", "noise_seed"});
        return NoiseParams{num(r, "std_frac", 0, 1), num(r, "mean_frac", -1, 1),
                           r.member("per_channel").boolean(), r.member("noise_seed").unsignedInteger64()};
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& n = std::get<NoiseParams>(params);
        if (key == "std_frac") return {n.std_frac};
        if (key == "mean_frac") return {n.mean_frac};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& n = std::get<NoiseParams>(params);
        b.pixel(NoiseStep{static_cast<float>(n.mean_frac * 255.0), static_cast<float>(n.std_frac * 255.0),
                          n.per_channel, n.noiseSeed});
    }

    std::vector<std::string> albumentationsClasses() const override { return {"GaussNoise"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        // The library (albucore 0.0.24's add of a float noise map to uint8) truncates the noise
        // toward zero before adding it, as AugLab does (tests/python/test_library_arithmetic.py).
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("GaussNoise", op.p);
        j["mean_range"] = pair(op.range("mean_frac"));
        j["noise_scale_factor"] = 1.0;
        j["per_channel"] = op.flag("per_channel");
        j["std_range"] = pair(op.range("std_frac"));
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion& v) const override {
        return {{"p", 0.5},
                {"std_range", {0.2, 0.44}},
                {"mean_range", {0.0, 0.0}},
                {"per_channel", !v.albumentationsX()},
                {"noise_scale_factor", 1.0}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        readGaussNoise(a, op);
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
                         torchvisionWithP("GaussNoise(std=" + pyRange(op.range("std_frac")) +
                                              ", mean=" + pyRange(op.range("mean_frac")) + ", per_channel=" +
                                              (op.flag("per_channel") ? "True" : "False") + ")",
                                          op.p) +
                         ",\n";
                return;
            }
            case PythonTarget::Keras: {
                std::string& lines = x.lines;
                lines += "    " +
                         kerasWithP("GaussNoise(std=" + pyRange(op.range("std_frac")) +
                                        ", mean=" + pyRange(op.range("mean_frac")) +
                                        ", per_channel=" + (op.flag("per_channel") ? "True" : "False") + ")",
                                    op.p) +
                         ",\n";
                return;
            }
            case PythonTarget::TfDeotte: {
                std::string& configs = x.configs;
                std::string& steps = x.lines;
                const std::string name = "OP" + std::to_string(x.index);
                configs += name + " = dict(std=" + pyRange(op.range("std_frac")) +
                           ", mean=" + pyRange(op.range("mean_frac")) +
                           ", per_channel=" + (op.flag("per_channel") ? "True" : "False") + ")  # " + L +
                           "\n";
                steps += tfGated(op.p, "gauss_noise(image, " + name + ")");
                return;
            }
            case PythonTarget::Dali: {
                std::string& s = x.lines;
                const std::string on = daliCoin(op.p);
                s += "    # " + L + "\n";
                s += "    images = _gauss_noise(images, " + daliUniform(op.range("std_frac")) + " * 255.0, " +
                     daliUniform(op.range("mean_frac")) +
                     " * 255.0, per_channel=" + (op.flag("per_channel") ? "True" : "False") + ", on=" + on +
                     ")\n";
                w.push_back(L + ": the normal draws are DALI's own (the same distribution, other values).");
                return;
            }
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return R"(

class GaussNoise(torch.nn.Module):
    """AugLab gauss_noise: adds trunc(N(mean * 255, std * 255)) per pixel, then clips."""

    def __init__(self, std, mean, per_channel=True):
        super().__init__()
        self.std, self.mean, self.per_channel = std, mean, per_channel

    def forward(self, img):  # uint8 tensor, C x H x W
        std = torch.empty(1).uniform_(*self.std).item() * 255.0
        mean = torch.empty(1).uniform_(*self.mean).item() * 255.0
        shape = img[:3].shape if self.per_channel else (1,) + img.shape[1:]
        noise = torch.trunc(torch.randn(shape) * std + mean)
        out = img.clone()
        out[:3] = (img[:3].float() + noise).clamp(0, 255).to(torch.uint8)
        return out
)";
            case PythonTarget::Keras:
                return R"(

class GaussNoise(keras.layers.Layer):
    """AugLab gauss_noise: adds trunc(N(mean * 255, std * 255)) per pixel, then clips."""

    def __init__(self, std, mean, per_channel=True, **kwargs):
        super().__init__(**kwargs)
        self.std, self.mean, self.per_channel = std, mean, per_channel
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        x = keras.ops.cast(images, "float32")
        n, h, w = keras.ops.shape(x)[0], keras.ops.shape(x)[1], keras.ops.shape(x)[2]
        std = keras.random.uniform((n, 1, 1, 1), *self.std, seed=self.seed_generator) * 255.0
        mean = keras.random.uniform((n, 1, 1, 1), *self.mean, seed=self.seed_generator) * 255.0
        z = keras.random.normal((n, h, w, 3 if self.per_channel else 1), seed=self.seed_generator)
        rgb = keras.ops.clip(x[..., :3] + keras.ops.trunc(z * std + mean), 0.0, 255.0)
        return keras.ops.concatenate([rgb, x[..., 3:]], axis=-1)
)";
            case PythonTarget::TfDeotte:
                return R"(

def gauss_noise(image, cfg):
    x = tf.cast(image, tf.float32)
    shape = tf.shape(x[..., :3]) if cfg["per_channel"] else tf.concat([tf.shape(x)[:2], [1]], 0)
    noise = _trunc(tf.random.normal(shape) * _uniform(cfg["std"]) * 255.0 + _uniform(cfg["mean"]) * 255.0)
    rgb = tf.clip_by_value(x[..., :3] + noise, 0.0, 255.0)
    return tf.concat([rgb, x[..., 3:]], axis=-1)
)";
            case PythonTarget::Dali:
                return R"(

def _gauss_noise(images, std, mean, per_channel, on):
    """AugLab gauss_noise: adds trunc(N(mean, std)) (in levels) per pixel, then clips."""
    v = fn.cast(images, dtype=types.FLOAT)
    noise = fn.random.normal(v if per_channel else v[:, :, 0:1])
    noise = _trunc(noise * _on(images, std) + _on(images, mean)) * _on(images, on)
    return fn.cast(dmath.clamp(v + noise, 0.0, 255.0), dtype=types.UINT8)
)";
        }
        return {};
    }
    bool pythonHelperAlways(PythonTarget t) const override { return t != PythonTarget::Torchvision; }
};

}  // namespace

const OpModule& gaussNoiseModule() {
    static const GaussNoiseModule module;
    return module;
}

}  // namespace auglab
