// channel_dropout: Albumentations 2.0.8 ChannelDropout. n = randint(channel_drop_range) channels,
// drawn without replacement from R, G, B (py_random.sample), are set to the fill (img[..., c] = fill
// on uint8: trunc(fill)); alpha is kept. A table per channel (every backend's LutStep).
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/channel_dropout.h"

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

// Draws (draw 0 is the gate): how many channels, then the first and second channel picked.
constexpr std::uint32_t kCountDraw = 1, kFirstDraw = 2, kSecondDraw = 3;

class ChannelDropoutModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        return makeOp(id, "channel_dropout", "Channel dropout", OpCategory::Pixel,
                      "Albumentations 2.0.8 ChannelDropout: n colour channels (n drawn uniformly from "
                      "`channel_drop_range`, the channels drawn without repeats) are set to `fill`; alpha "
                      "is kept.",
                      {intRange("channel_drop_range", "Channels dropped", "channels", 1, 2, {1, 1},
                                "How many of R, G, B are dropped (at most 2: the library refuses to drop "
                                "all of them)."),
                       number("fill", "Fill", "levels", 0, 255, 0,
                              "Value of a dropped channel (stored as its integer part).")});
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        ChannelDropParams p;
        p.fill = op.number("fill");
        const Range r = op.range("channel_drop_range");
        const auto n =
            d.randint(kCountDraw, static_cast<std::int64_t>(r.min), static_cast<std::int64_t>(r.max));
        // random.sample(range(3), k=n): a uniformly drawn set of n distinct channels.
        std::vector<int> left{0, 1, 2};
        for (std::int64_t i = 0; i < n; ++i) {
            const auto at =
                d.randint(i == 0 ? kFirstDraw : kSecondDraw, 0, static_cast<std::int64_t>(left.size()) - 1);
            p.dropped[std::size_t(left[std::size_t(at)])] = true;
            left.erase(left.begin() + at);
        }
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<ChannelDropParams>(params);
        Json channels = Json::array();
        for (int c = 0; c < 3; ++c)
            if (p.dropped[std::size_t(c)]) channels.push_back(c);
        j["channels"] = channels;
        j["fill"] = p.fill;
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "channels", "fill"});
        ChannelDropParams p;
        const JsonReader channels = r.member("channels");
        const std::size_t n = channels.arraySize();
        if (n < 1 || n > 2) channels.fail("expected 1 or 2 channel indices (0 = R, 1 = G, 2 = B)");
        for (std::size_t i = 0; i < n; ++i) {
            const auto c = static_cast<std::size_t>(channels.element(i).integer(0, 2));
            if (p.dropped[c]) channels.element(i).fail("channel " + std::to_string(c) + " is listed twice");
            p.dropped[c] = true;
        }
        p.fill = replay_fields::num(r, "fill", 0, 255);
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<ChannelDropParams>(params);
        if (key == "channel_drop_range") return {double(p.dropped[0] + p.dropped[1] + p.dropped[2])};
        if (key == "channel") {
            std::vector<double> out;
            for (int c = 0; c < 3; ++c)
                if (p.dropped[std::size_t(c)]) out.push_back(c);
            return out;
        }
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<ChannelDropParams>(params);
        const auto fill = static_cast<std::uint8_t>(std::trunc(p.fill));
        std::array<Lut, 3> luts{};
        for (std::size_t c = 0; c < 3; ++c)
            for (int v = 0; v < 256; ++v)
                luts[c][std::size_t(v)] = p.dropped[c] ? fill : static_cast<std::uint8_t>(v);
        b.pixel(LutStep(luts));
    }

    std::vector<std::string> albumentationsClasses() const override { return {"ChannelDropout"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const Range r = e.op->range("channel_drop_range");
        Json j = start("ChannelDropout", e.op->p);
        j["channel_drop_range"] = Json::array({static_cast<int>(r.min), static_cast<int>(r.max)});
        j["fill"] = e.op->number("fill");
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion& v) const override {
        if (v.before2()) return {{"p", 0.5}, {"channel_drop_range", {1, 1}}, {"fill_value", 0}};
        return {{"p", 0.5}, {"channel_drop_range", {1, 1}}, {"fill", 0.0}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        const JsonReader range = a.get("channel_drop_range");
        if (range.arraySize() != 2) a.fail(range, "expected [min, max]");
        const auto lo = range.element(0).integer(1, 1'000'000), hi = range.element(1).integer(1, 1'000'000);
        if (hi < lo) a.fail(range, "the range's end is below its start");
        if (hi >= 3)
            a.fail(range, "an RGB image has 3 channels: the library refuses to drop " + std::to_string(hi));
        op.set("channel_drop_range", Range{double(lo), double(hi)});
        const JsonReader fill = a.get("fill", {"fill_value"});
        op.set("fill", fill.numberIn(0, 255));
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const Range r = op.range("channel_drop_range");
        const std::string args = "drop_range=(" + std::to_string(static_cast<int>(r.min)) + ", " +
                                 std::to_string(static_cast<int>(r.max)) + "), fill=" +
                                 std::to_string(static_cast<int>(std::trunc(op.number("fill")))) + ")";
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.helperUsed = true;
                x.lines += "    " + torchvisionWithP("ChannelDropout(" + args, op.p) + ",\n";
                return;
            case PythonTarget::Keras:
                x.helperUsed = true;
                x.lines += "    " + kerasWithP("ChannelDropout(" + args, op.p) + ",\n";
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali: {
                x.helperUsed = true;
                x.lines += "    # " + e.label() + "\n";
                std::string counts = "fn.random.uniform(values=[";
                for (auto n = static_cast<int>(r.min); n <= static_cast<int>(r.max); ++n)
                    counts += (n > static_cast<int>(r.min) ? ", " : "") + pyFloat(n);
                counts += "])";
                x.lines += "    images = _maybe(images, _channel_dropout(images, " + counts +
                           ", fn.random.uniform(values=[0.0, 1.0, 2.0]), " +
                           pyFloat(std::trunc(op.number("fill"))) + "), " + daliCoin(op.p) + ")\n";
                return;
            }
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return R"(

class ChannelDropout(torch.nn.Module):
    """AugLab channel_dropout (Albumentations ChannelDropout): n ~ randint(drop_range) of R, G, B, drawn
    without repeats, set to `fill` (alpha kept)."""

    def __init__(self, drop_range, fill):
        super().__init__()
        self.drop_range, self.fill = drop_range, fill

    def forward(self, img):  # uint8 tensor, C x H x W
        n = int(torch.randint(self.drop_range[0], self.drop_range[1] + 1, ()))
        out = img.clone()
        out[torch.randperm(3)[:n]] = self.fill
        return out
)";
            case PythonTarget::Keras:
                return R"(

class ChannelDropout(keras.layers.Layer):
    """AugLab channel_dropout (Albumentations ChannelDropout): per image n ~ randint(drop_range) of R, G,
    B, drawn without repeats (the n lowest of three uniform scores), set to `fill` (alpha kept)."""

    def __init__(self, drop_range, fill, **kwargs):
        super().__init__(**kwargs)
        self.drop_range, self.fill = drop_range, fill
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        b = ops.shape(images)[0]
        n = keras.random.randint((b, 1, 1, 1), self.drop_range[0], self.drop_range[1] + 1, seed=self.seed_generator)
        scores = keras.random.uniform((b, 1, 1, 3), seed=self.seed_generator)
        rank = ops.argsort(ops.argsort(scores, axis=-1), axis=-1)
        x = ops.cast(images, "float32")
        rgb = ops.where(rank < n, float(self.fill), x[..., :3])
        return ops.cast(ops.concatenate([rgb, x[..., 3:]], axis=-1), images.dtype)
)";
            case PythonTarget::Dali:
                return R"(

def _channel_dropout(images, n, pick, fill):
    """AugLab channel_dropout: n (1 or 2) of R, G, B set to `fill` per sample: channel `pick` alone
    (n = 1) or every channel but it (n = 2), each set of n channels as likely."""
    v = fn.cast(images, dtype=types.FLOAT)
    n, pick = _on(images, n), _on(images, pick)
    channels = []
    for c in range(3):
        hit = dmath.clamp(1.0 - dmath.abs(pick - float(c)), 0.0, 1.0)  # 1 for the picked channel
        dropped = hit * (2.0 - n) + (1.0 - hit) * (n - 1.0)
        channels.append(v[:, :, c:c + 1] * (1.0 - dropped) + fill * dropped)
    return fn.cast(fn.cat(*channels, axis=2), dtype=types.UINT8)
)";
            case PythonTarget::TfDeotte:
                return {};
        }
        return {};
    }
};

}  // namespace

const OpModule& channelDropoutModule() {
    static const ChannelDropoutModule module;
    return module;
}

}  // namespace auglab
