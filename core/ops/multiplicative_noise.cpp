// multiplicative_noise: Albumentations 2.0.8 MultiplicativeNoise without `elementwise`: one multiplier
// m ~ U(multiplier) for the image (or one per channel), applied to uint8 as albucore's multiply does
// it: a table of float32(v) * float32(m), clipped to [0, 255] and truncated (every backend's LutStep).
// Alpha is kept (the library multiplies it too). `elementwise` (a multiplier per pixel, drawn from
// numpy's generator) has no AugLab form: the importer leaves such a transform out, saying so.
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/multiplicative_noise.h"

#include <algorithm>
#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "export_common.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "ops/replay_fields.h"
#include "plan_builder.h"
#include "sampler.h"

namespace auglab {

Lut albucoreMultiplyLut(double m) {
    Lut lut{};
    const float f = static_cast<float>(m);
    for (int v = 0; v < 256; ++v) {
        const float x = static_cast<float>(v) * f;
        lut[std::size_t(v)] = static_cast<std::uint8_t>(std::clamp(x, 0.0f, 255.0f));
    }
    return lut;
}

namespace {

using Json = nlohmann::ordered_json;
using namespace params;

class MultiplicativeNoiseModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "multiplicative_noise", "Multiplicative noise", OpCategory::Pixel,
            "Albumentations 2.0.8 MultiplicativeNoise: the colours multiplied by m ~ U(multiplier) (one m "
            "for the image, or one per channel), clipped to 0..255 and truncated; alpha is kept.",
            {floatRange("multiplier", "Multiplier", "factor", 0, 10, {0.9, 1.1},
                        "The factor drawn uniformly; below 1 darkens, above 1 brightens."),
             boolean("per_channel", "Per channel", false, "A factor of its own for each of R, G and B.")});
        typical(d, "multiplier", 0.5, 1.5);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        MultiplyParams p;
        const Range r = op.range("multiplier");
        const bool perChannel = op.flag("per_channel");
        for (std::uint32_t c = 0; c < 3; ++c)
            p.multiplier[c] = perChannel || c == 0 ? d.uniform(1 + c, r) : p.multiplier[0];
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& m = std::get<MultiplyParams>(params).multiplier;
        j["multiplier"] = Json::array({m[0], m[1], m[2]});
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "multiplier"});
        const JsonReader m = r.member("multiplier");
        if (m.arraySize() != 3) m.fail("expected [r, g, b] factors");
        MultiplyParams p;
        for (std::size_t c = 0; c < 3; ++c) p.multiplier[c] = m.element(c).numberIn(0, 10);
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        if (key == "multiplier") return {std::get<MultiplyParams>(params).multiplier[0]};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& m = std::get<MultiplyParams>(params).multiplier;
        b.pixel(LutStep(std::array<Lut, 3>{albucoreMultiplyLut(m[0]), albucoreMultiplyLut(m[1]), albucoreMultiplyLut(m[2])}));
    }

    std::vector<std::string> albumentationsClasses() const override { return {"MultiplicativeNoise"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        Json j = start("MultiplicativeNoise", e.op->p);
        j["multiplier"] = pair(e.op->range("multiplier"));
        j["per_channel"] = e.op->flag("per_channel");
        j["elementwise"] = false;
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5}, {"multiplier", {0.9, 1.1}}, {"per_channel", false}, {"elementwise", false}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        const JsonReader m = a.get("multiplier");
        op.set("multiplier", a.clamp(m, fixedOrPair(m), 0, 10));
        op.set("per_channel", a.get("per_channel").boolean());
        const JsonReader elementwise = a.get("elementwise");
        if (elementwise.boolean())
            a.leaveOut(elementwise,
                       "a multiplier per pixel, drawn from numpy's generator, has no AugLab form (one per "
                       "image or per channel has)");
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const Range r = op.range("multiplier");
        const std::string args =
            "multiplier=" + pyRange(r) + ", per_channel=" + (op.flag("per_channel") ? "True" : "False") + ")";
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.helperUsed = true;
                x.lines += "    " + torchvisionWithP("MultiplicativeNoise(" + args, op.p) + ",\n";
                return;
            case PythonTarget::Keras:
                x.helperUsed = true;
                x.lines += "    " + kerasWithP("MultiplicativeNoise(" + args, op.p) + ",\n";
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali: {
                x.helperUsed = true;
                x.lines += "    # " + e.label() + "\n";
                std::string draws = daliUniform(r);
                for (int c = 1; c < 3; ++c)
                    draws += ", " + (op.flag("per_channel") ? daliUniform(r) : "None");
                x.lines +=
                    "    images = _maybe(images, _multiply(images, " + draws + "), " + daliCoin(op.p) + ")\n";
                return;
            }
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return R"(

class MultiplicativeNoise(torch.nn.Module):
    """AugLab multiplicative_noise (Albumentations MultiplicativeNoise): m ~ U(multiplier) for the image
    or per channel; each colour becomes float32(v) * float32(m), clipped to 0..255 and truncated (alpha
    kept)."""

    def __init__(self, multiplier, per_channel):
        super().__init__()
        self.multiplier, self.per_channel = multiplier, per_channel

    def forward(self, img):  # uint8 tensor, C x H x W
        lo, hi = self.multiplier
        m = torch.empty(3 if self.per_channel else 1, dtype=torch.float64).uniform_(lo, hi).to(torch.float32)
        levels = torch.arange(256, dtype=torch.float32)
        out = img.clone()
        for c in range(3):
            lut = (levels * m[c if self.per_channel else 0]).clamp(0, 255).to(torch.uint8)
            out[c] = lut[img[c].long()]
        return out
)";
            case PythonTarget::Keras:
                return R"(

class MultiplicativeNoise(keras.layers.Layer):
    """AugLab multiplicative_noise (Albumentations MultiplicativeNoise): per image m ~ U(multiplier), one
    or one per channel; each colour becomes float32(v) * float32(m), clipped to 0..255 and truncated
    (alpha kept)."""

    def __init__(self, multiplier, per_channel, **kwargs):
        super().__init__(**kwargs)
        self.multiplier, self.per_channel = multiplier, per_channel
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        n = ops.shape(images)[0]
        lo, hi = self.multiplier
        m = keras.random.uniform((n, 1, 1, 3 if self.per_channel else 1), lo, hi, seed=self.seed_generator) \
            if lo != hi else ops.full((n, 1, 1, 1), lo)
        x = ops.cast(images, "float32")
        rgb = ops.floor(ops.clip(x[..., :3] * m, 0.0, 255.0))
        return ops.cast(ops.concatenate([rgb, x[..., 3:]], axis=-1), images.dtype)
)";
            case PythonTarget::Dali:
                return R"(

def _multiply(images, r, g, b):
    """AugLab multiplicative_noise: each colour times its factor (g and b None: r's), clipped to
    0..255 and truncated, per sample."""
    v = fn.cast(images, dtype=types.FLOAT)
    factors = (r, r if g is None else g, r if b is None else b)
    channels = [dmath.floor(dmath.clamp(v[:, :, c:c + 1] * _on(images, m), 0.0, 255.0)) for c, m in enumerate(factors)]
    return fn.cast(fn.cat(*channels, axis=2), dtype=types.UINT8)
)";
            case PythonTarget::TfDeotte:
                return {};
        }
        return {};
    }
};

}  // namespace

const OpModule& multiplicativeNoiseModule() {
    static const MultiplicativeNoiseModule module;
    return module;
}

}  // namespace auglab
