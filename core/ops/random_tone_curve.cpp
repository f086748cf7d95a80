// random_tone_curve: Albumentations 2.0.8 RandomToneCurve. low_y = clip(N(0.25, scale), 0, 1) and
// high_y = clip(N(0.75, scale), 0, 1) (one pair, or one per channel with per_channel), and every level
// v goes through the cubic Bezier curve with control points y = 0, low_y, high_y, 1 at t = v / 255:
// rint((3(1-t)^2 t low + 3(1-t) t^2 high + t^3) * 255), clipped, in float64 as move_tone_curve
// computes its table (t from np.linspace, t^3 with pow). A table per channel on every backend;
// alpha is kept.
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/random_tone_curve.h"

#include <algorithm>
#include <cmath>
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

namespace {

using Json = nlohmann::ordered_json;
using namespace params;

// Draws (draw 0 is the gate): low_y of R, G, B, then high_y of R, G, B (one pair: draws 1 and 4).
constexpr std::uint32_t kLowDraw = 1, kHighDraw = 4;

/// move_tone_curve's table for one channel.
Lut toneCurve(double low, double high) {
    Lut lut{};
    for (int v = 0; v < 256; ++v) {
        const double t = v == 255 ? 1.0 : v * (1.0 / 255.0);  // np.linspace(0, 1, 256)
        const double u = 1 - t;
        const double y = (3 * (u * u) * t * low + 3 * u * (t * t) * high + std::pow(t, 3.0)) * 255;
        lut[std::size_t(v)] = static_cast<std::uint8_t>(std::clamp(std::nearbyint(y), 0.0, 255.0));
    }
    return lut;
}

class RandomToneCurveModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(id, "random_tone_curve", "Random tone curve", OpCategory::Pixel,
                          "Albumentations 2.0.8 RandomToneCurve: levels go through a cubic Bezier curve from "
                          "0 to 255 whose two middle control points sit at N(0.25, scale) and N(0.75, scale) "
                          "(clipped to 0..1): lifts or darkens shadows and highlights. With `per_channel`, "
                          "R, G and B get curves of their own.",
                          {number("scale", "Spread", "std of the control points", 0, 1, 0.1,
                                  "Standard deviation of the control points' heights (0: a fixed S-curve)."),
                           boolean("per_channel", "Per channel", false, "A curve for each colour channel.")});
        typical(d, "scale", 0, 0.4);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        ToneCurveParams p;
        const double scale = op.number("scale");
        const bool perChannel = op.flag("per_channel");
        for (std::uint32_t c = 0; c < 3; ++c) {
            const std::uint32_t k = perChannel ? c : 0;
            p.low[c] = std::clamp(0.25 + scale * d.normal(kLowDraw + k), 0.0, 1.0);
            p.high[c] = std::clamp(0.75 + scale * d.normal(kHighDraw + k), 0.0, 1.0);
        }
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<ToneCurveParams>(params);
        j["low_y"] = Json::array({p.low[0], p.low[1], p.low[2]});
        j["high_y"] = Json::array({p.high[0], p.high[1], p.high[2]});
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "low_y", "high_y"});
        ToneCurveParams p;
        for (const char* key : {"low_y", "high_y"}) {
            const JsonReader v = r.member(key);
            if (v.arraySize() != 3) v.fail("expected [r, g, b], each in [0, 1]");
            auto& out = std::string_view(key) == "low_y" ? p.low : p.high;
            for (std::size_t c = 0; c < 3; ++c) out[c] = v.element(c).numberIn(0, 1);
        }
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<ToneCurveParams>(params);
        if (key == "low_y") return {p.low[0]};
        if (key == "high_y") return {p.high[0]};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<ToneCurveParams>(params);
        std::array<Lut, 3> luts{};
        for (std::size_t c = 0; c < 3; ++c) luts[c] = toneCurve(p.low[c], p.high[c]);
        b.pixel(LutStep(luts));
    }

    std::vector<std::string> albumentationsClasses() const override { return {"RandomToneCurve"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        Json j = start("RandomToneCurve", e.op->p);
        j["per_channel"] = e.op->flag("per_channel");
        j["scale"] = e.op->number("scale");
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5}, {"scale", 0.1}, {"per_channel", false}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        op.set("scale", a.get("scale").numberIn(0, 1));
        op.set("per_channel", a.get("per_channel").boolean());
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string args = "scale=" + pyFloat(op.number("scale")) +
                                 ", per_channel=" + (op.flag("per_channel") ? "True" : "False") + ")";
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.helperUsed = true;
                x.lines += "    " + torchvisionWithP("RandomToneCurve(" + args, op.p) + ",\n";
                return;
            case PythonTarget::Keras:
                x.helperUsed = true;
                x.lines += "    " + kerasWithP("RandomToneCurve(" + args, op.p) + ",\n";
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali: {
                x.helperUsed = true;
                x.lines += "    # " + e.label() + "\n";
                x.warnings.push_back(e.label() +
                                     ": DALI evaluates the curve per pixel in float32 (the library builds a "
                                     "float64 table): a level apart where a value lies near a half.");
                const std::string s = pyFloat(op.number("scale"));
                if (op.flag("per_channel")) {
                    x.lines += "    low = [_tone_point(0.25, " + s + ") for _ in range(3)]\n";
                    x.lines += "    high = [_tone_point(0.75, " + s + ") for _ in range(3)]\n";
                } else {
                    x.lines += "    low, high = [_tone_point(0.25, " + s + ")] * 3, [_tone_point(0.75, " + s +
                               ")] * 3\n";
                }
                x.lines +=
                    "    images = _maybe(images, _tone_curve(images, low, high), " + daliCoin(op.p) + ")\n";
                return;
            }
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return R"(

class RandomToneCurve(torch.nn.Module):
    """AugLab random_tone_curve (Albumentations RandomToneCurve): control points low ~ N(0.25, scale),
    high ~ N(0.75, scale) clipped to [0, 1] (per channel or one pair); each level v through
    rint((3(1-t)^2 t low + 3(1-t) t^2 high + t^3) * 255) at t = v / 255, a float64 table per channel
    (R, G, B; alpha kept)."""

    def __init__(self, scale, per_channel):
        super().__init__()
        self.scale, self.per_channel = scale, per_channel

    def forward(self, img):  # uint8 tensor, C x H x W
        n = 3 if self.per_channel else 1
        low = (0.25 + self.scale * torch.randn(n, dtype=torch.float64)).clamp(0, 1).expand(3)
        high = (0.75 + self.scale * torch.randn(n, dtype=torch.float64)).clamp(0, 1).expand(3)
        t = torch.linspace(0, 1, 256, dtype=torch.float64)
        t[-1] = 1.0
        u = 1 - t
        luts = ((3 * (u * u) * t)[None] * low[:, None] + (3 * u * (t * t))[None] * high[:, None] + (t ** 3)[None]) * 255
        luts = torch.round(luts).clamp(0, 255).to(torch.uint8)  # round: half to even, as np.rint
        out = img.clone()
        for c in range(3):
            out[c] = luts[c][img[c].long()]
        return out
)";
            case PythonTarget::Keras:
                return R"(

class RandomToneCurve(keras.layers.Layer):
    """AugLab random_tone_curve (Albumentations RandomToneCurve): per image control points low ~
    N(0.25, scale), high ~ N(0.75, scale) clipped to [0, 1] (per channel or one pair); each level v
    through rint((3(1-t)^2 t low + 3(1-t) t^2 high + t^3) * 255) at t = v / 255, a float64 table per
    channel (R, G, B; alpha kept)."""

    def __init__(self, scale, per_channel, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.per_channel = scale, per_channel
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        b = ops.shape(images)[0]
        n = 3 if self.per_channel else 1
        low = ops.clip(0.25 + self.scale * ops.cast(keras.random.normal((b, n), seed=self.seed_generator), "float64"), 0, 1)
        high = ops.clip(0.75 + self.scale * ops.cast(keras.random.normal((b, n), seed=self.seed_generator), "float64"), 0, 1)
        low, high = ops.broadcast_to(low, (b, 3)), ops.broadcast_to(high, (b, 3))
        t = ops.cast(ops.arange(256), "float64") * (1.0 / 255.0)
        t = ops.concatenate([t[:255], ops.ones((1,), "float64")])
        u = 1.0 - t
        luts = ((3.0 * (u * u) * t)[None, None] * low[..., None] + (3.0 * u * (t * t))[None, None] * high[..., None]
                + (t * t * t)[None, None]) * 255.0
        luts = ops.clip(ops.round(luts), 0, 255)  # b x 3 x 256, round half to even
        x = ops.cast(images, "int32")
        rgb = ops.reshape(ops.transpose(x[..., :3], (0, 3, 1, 2)), (b, 3, -1))
        out = ops.take_along_axis(luts, rgb, axis=2)
        out = ops.transpose(ops.reshape(out, (b, 3, ops.shape(images)[1], ops.shape(images)[2])), (0, 2, 3, 1))
        return ops.cast(ops.concatenate([ops.cast(out, "float32"), ops.cast(images[..., 3:], "float32")], axis=-1),
                        images.dtype)
)";
            case PythonTarget::Dali:
                return R"(

def _tone_point(loc, scale):
    """A control point's height per sample: clip(N(loc, scale), 0, 1)."""
    if scale == 0:
        return fn.random.uniform(values=[loc])
    return dmath.clamp(loc + scale * fn.random.normal(), 0.0, 1.0)


def _tone_curve(images, low, high):
    """AugLab random_tone_curve: each level through the Bezier curve of the channel's control points,
    rint((3(1-t)^2 t low + 3(1-t) t^2 high + t^3) * 255) at t = v / 255, in float32."""
    t = fn.cast(images, dtype=types.FLOAT) * (1.0 / 255.0)
    u = 1.0 - t
    channels = []
    for c in range(3):
        tc, uc = t[:, :, c:c + 1], u[:, :, c:c + 1]
        y = (3.0 * uc * uc * tc * _on(images, low[c]) + 3.0 * uc * tc * tc * _on(images, high[c]) + tc * tc * tc) * 255.0
        channels.append(dmath.clamp(dmath.floor(y + 0.5), 0.0, 255.0))
    return fn.cat(*channels, axis=2)
)";
            case PythonTarget::TfDeotte:
                return {};
        }
        return {};
    }
};

}  // namespace

const OpModule& randomToneCurveModule() {
    static const RandomToneCurveModule module;
    return module;
}

}  // namespace auglab
