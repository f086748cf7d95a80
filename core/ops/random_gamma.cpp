// random_gamma: Albumentations 2.0.8 RandomGamma, as a 256-entry LUT (every backend's LutStep).
// gamma = U(gamma_limit) / 100; the uint8 table is trunc((k * (1.0 / 255)) ** gamma * 255), k the
// level, computed in float64 as numpy computes np.arange(0, 256 / 255, 1 / 255) ** gamma * 255 and
// astype(uint8) truncates (augmentations/pixel/functional.py gamma_transform).
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/random_gamma.h"

#include <algorithm>
#include <cmath>
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

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;
using namespace params;
using namespace replay_fields;

/// Albumentations 2.0.8's uint8 table: trunc((k * (1.0 / 255)) ** gamma * 255) in float64.
Lut gammaLut(double gamma) {
    Lut lut{};
    const double step = 1.0 / 255;  // np.arange's step; element k is k * step
    for (int k = 0; k < 256; ++k) {
        const double v = std::pow(k * step, gamma) * 255;
        lut[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(std::clamp(v, 0.0, 255.0));
    }
    return lut;
}

class RandomGammaModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d =
            makeOp(id, "random_gamma", "Gamma", OpCategory::Pixel,
                   "Albumentations 2.0.8 RandomGamma: gamma = U(gamma_pct) / 100, out = trunc((v / 255) ^ "
                   "gamma * 255) as a 256-entry LUT; above 100 darkens, below brightens.",
                   {floatRange("gamma_pct", "Gamma", "percent (100 = unchanged)", 1, 1000, {80, 120},
                               "The exponent in percent (Albumentations' gamma_limit).")});
        params::typical(d, "gamma_pct", 30, 300);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        return GammaParams{d.uniform(1, op.range("gamma_pct")) / 100.0};
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        j["gamma"] = std::get<GammaParams>(params).gamma;
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "gamma"});
        return GammaParams{num(r, "gamma", 0.01, 10)};
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        if (key == "gamma_pct") return {std::get<GammaParams>(params).gamma * 100.0};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        b.pixel(LutStep::same(gammaLut(std::get<GammaParams>(params).gamma)));
    }

    std::vector<std::string> albumentationsClasses() const override { return {"RandomGamma"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        Json j = start("RandomGamma", e.op->p);
        j["gamma_limit"] = pair(e.op->range("gamma_pct"));
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5}, {"gamma_limit", {80.0, 120.0}}, {"eps", nullptr}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        const JsonReader g = a.get("gamma_limit");
        // A number is the upper end, the lower one 1 (Albumentations' to_tuple with low=1... as 1.x
        // wrote it; 2.0 always writes a pair).
        const Range r =
            g.json().is_number() ? Range{std::min(1.0, g.number()), std::max(1.0, g.number())} : pair(g);
        op.set("gamma_pct", a.clamp(g, r, 1, 1000));
        if (const std::optional<JsonReader> eps = a.find({"eps"}); eps && !eps->json().is_null())
            a.warn(*eps, "eps (1.x: added to the gamma) is not used by Albumentations 2.0: ignored.");
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        const Range g = op.range("gamma_pct");
        const std::string gamma = "(" + pyFloat(g.min / 100.0) + ", " + pyFloat(g.max / 100.0) + ")";
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.helperUsed = true;
                x.lines += "    " + torchvisionWithP("Gamma(gamma=" + gamma + ")", op.p) + ",\n";
                return;
            case PythonTarget::Keras:
                x.helperUsed = true;
                x.lines += "    " + kerasWithP("Gamma(gamma=" + gamma + ")", op.p) + ",\n";
                x.warnings.push_back(L +
                                     ": the power is Keras' float64 pow, not the C library's: a level apart "
                                     "where the value lands on a whole number.");
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali: {
                x.helperUsed = true;
                x.lines += "    # " + L + "\n";
                x.lines += "    images = _maybe(images, _gamma(images, " +
                           daliUniform({g.min / 100.0, g.max / 100.0}) + "), " + daliCoin(op.p) + ")\n";
                x.warnings.push_back(L +
                                     ": DALI's pow is float32: a level apart where the value lands near a "
                                     "whole number.");
                return;
            }
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return R"(

class Gamma(torch.nn.Module):
    """AugLab random_gamma (Albumentations RandomGamma): gamma ~ U(gamma), the uint8 table
    trunc((k * (1 / 255)) ** gamma * 255) in float64 (Python's pow, as numpy's), RGB only."""

    def __init__(self, gamma):
        super().__init__()
        self.gamma = gamma

    def forward(self, img):  # uint8 tensor, C x H x W
        g = torch.empty(1, dtype=torch.float64).uniform_(*self.gamma).item()
        table = torch.tensor([int((k * (1.0 / 255)) ** g * 255) for k in range(256)], dtype=torch.uint8)
        out = img.clone()
        out[:3] = table[img[:3].long()]
        return out
)";
            case PythonTarget::Keras:
                return R"(

class Gamma(keras.layers.Layer):
    """AugLab random_gamma (Albumentations RandomGamma): per image gamma ~ U(gamma),
    floor((v * (1 / 255)) ** gamma * 255) in float64, RGB only."""

    def __init__(self, gamma, **kwargs):
        super().__init__(**kwargs)
        self.gamma = gamma
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        n = ops.shape(images)[0]
        g = ops.cast(keras.random.uniform((n, 1, 1, 1), *self.gamma, seed=self.seed_generator), "float64")
        x = ops.cast(images, "float64")
        rgb = ops.floor(ops.power(x[..., :3] * (1.0 / 255), g) * 255.0)
        return ops.cast(ops.concatenate([rgb, x[..., 3:]], axis=-1), images.dtype)
)";
            case PythonTarget::Dali:
                return R"(

def _gamma(images, gamma):
    """AugLab random_gamma: trunc((v / 255) ** gamma * 255) per sample (float32)."""
    v = fn.cast(images, dtype=types.FLOAT) * (1.0 / 255)
    return fn.cast(dmath.floor(dmath.pow(v, _on(images, gamma)) * 255.0), dtype=types.UINT8)
)";
            case PythonTarget::TfDeotte:
                return {};
        }
        return {};
    }
};

}  // namespace

const OpModule& randomGammaModule() {
    static const RandomGammaModule module;
    return module;
}

}  // namespace auglab
