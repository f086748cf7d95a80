// rgb_shift: Albumentations 2.0.8 RGBShift, a 256-entry table per channel (every backend's LutStep).
// RGBShift is AdditiveNoise with a constant uniform noise per channel: shift_c = U(lo_c / 255,
// hi_c / 255) * 255 (a limit whose ends are both within [-1, 1] is taken as a fraction of 255 already);
// the uint8 image gets trunc(shift_c) added per channel, clipped to [0, 255] (albucore add_vector:
// a LUT of np.trunc(value) + level). The drawn values are the same whichever form a limit is
// written in, so AugLab keeps levels and writes the form that means them.
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/rgb_shift.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "colour.h"
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

constexpr const char* kKeys[3] = {"r_shift", "g_shift", "b_shift"};
constexpr const char* kLimits[3] = {"r_shift_limit", "g_shift_limit", "b_shift_limit"};

/// Albumentations' reading of a limit: levels unless both ends lie in [-1, 1], a fraction of 255 then.
Range limitInLevels(const Range& r) {
    if (std::abs(r.min) > 1 || std::abs(r.max) > 1) return r;
    return {r.min * 255.0, r.max * 255.0};
}

class RgbShiftModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        std::vector<ParamDesc> ps;
        const char* names[3] = {"Red shift", "Green shift", "Blue shift"};
        for (int c = 0; c < 3; ++c)
            ps.push_back(floatRange(kKeys[c], names[c], "levels", -255, 255, {-20, 20},
                                    "Added to the channel: trunc(U(min, max)) levels, clipped to 0..255."));
        OpDesc d = makeOp(id, "rgb_shift", "RGB shift", OpCategory::Pixel,
                          "Albumentations 2.0.8 RGBShift: each channel gets trunc(U(range)) levels added, "
                          "clipped to 0..255 (a table per channel).",
                          std::move(ps));
        for (const char* k : kKeys) typical(d, k, -60, 60);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        ChannelShiftParams p;
        for (std::uint32_t c = 0; c < 3; ++c) {
            const Range r = op.range(kKeys[c]);
            // As the library draws it: U(lo / 255, hi / 255) * 255 (exactly lo for a fixed range).
            p.shift[c] = d.uniform(1 + c, r.min / 255.0, r.max / 255.0) * 255.0;
        }
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& s = std::get<ChannelShiftParams>(params).shift;
        j["shift"] = Json::array({s[0], s[1], s[2]});
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "shift"});
        const JsonReader s = r.member("shift");
        if (s.arraySize() != 3) s.fail("expected [r, g, b] in levels");
        ChannelShiftParams p;
        for (std::size_t c = 0; c < 3; ++c) p.shift[c] = s.element(c).numberIn(-255, 255);
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        for (int c = 0; c < 3; ++c)
            if (key == kKeys[c]) return {std::get<ChannelShiftParams>(params).shift[std::size_t(c)]};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& s = std::get<ChannelShiftParams>(params).shift;
        std::array<Lut, 3> luts{};
        for (std::size_t c = 0; c < 3; ++c) {
            const int add = static_cast<int>(std::trunc(s[c]));
            for (int v = 0; v < 256; ++v)
                luts[c][std::size_t(v)] = static_cast<std::uint8_t>(std::clamp(v + add, 0, 255));
        }
        b.pixel(LutStep(luts));
    }

    std::vector<std::string> albumentationsClasses() const override { return {"RGBShift"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        Json j = start("RGBShift", e.op->p);
        for (int c = 0; c < 3; ++c) {
            const Range r = e.op->range(kKeys[c]);
            // Ends within [-1, 1] would be read as fractions of 255: written as such.
            const bool fraction = std::abs(r.min) <= 1 && std::abs(r.max) <= 1;
            j[kLimits[c]] = fraction ? pair({r.min / 255.0, r.max / 255.0}) : pair(r);
        }
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5},
                {"r_shift_limit", {-20.0, 20.0}},
                {"g_shift_limit", {-20.0, 20.0}},
                {"b_shift_limit", {-20.0, 20.0}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        for (int c = 0; c < 3; ++c) {
            const JsonReader l = a.get(kLimits[c]);
            op.set(kKeys[c], a.clamp(l, limitInLevels(symmetricRange(l)), -255, 255));
        }
        // A.save writes the AdditiveNoise settings RGBShift derives from the limits (and A.load then
        // refuses them as arguments): nothing of their own.
        for (const char* derived : {"noise_params", "noise_type", "spatial_mode", "approximation"})
            (void)a.find({derived});
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        std::string ranges;
        for (int c = 0; c < 3; ++c) ranges += (c ? ", " : "") + pyRange(op.range(kKeys[c]));
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.helperUsed = true;
                x.lines += "    " + torchvisionWithP("RGBShift(shifts=(" + ranges + "))", op.p) + ",\n";
                return;
            case PythonTarget::Keras:
                x.helperUsed = true;
                x.lines += "    " + kerasWithP("RGBShift(shifts=(" + ranges + "))", op.p) + ",\n";
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali: {
                x.helperUsed = true;
                x.lines += "    # " + e.label() + "\n";
                std::string draws;
                for (int c = 0; c < 3; ++c) draws += (c ? ", " : "") + daliUniform(op.range(kKeys[c]));
                x.lines += "    images = _maybe(images, _rgb_shift(images, " + draws + "), " +
                           daliCoin(op.p) + ")\n";
                return;
            }
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return R"(

class RGBShift(torch.nn.Module):
    """AugLab rgb_shift (Albumentations RGBShift): per channel s ~ U(shift) levels; trunc(s) is added,
    clipped to 0..255 (R, G, B; alpha kept)."""

    def __init__(self, shifts):
        super().__init__()
        self.shifts = shifts

    def forward(self, img):  # uint8 tensor, C x H x W
        out = img.clone()
        for c, (lo, hi) in enumerate(self.shifts):
            s = int(torch.empty(1, dtype=torch.float64).uniform_(lo, hi).item()) if lo != hi else int(lo)
            out[c] = (img[c].to(torch.int16) + s).clamp(0, 255).to(torch.uint8)
        return out
)";
            case PythonTarget::Keras:
                return R"(

class RGBShift(keras.layers.Layer):
    """AugLab rgb_shift (Albumentations RGBShift): per image and channel s ~ U(shift) levels; trunc(s)
    is added, clipped to 0..255 (R, G, B; alpha kept)."""

    def __init__(self, shifts, **kwargs):
        super().__init__(**kwargs)
        self.shifts = shifts
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        n = ops.shape(images)[0]
        s = ops.concatenate([keras.random.uniform((n, 1, 1, 1), lo, hi, seed=self.seed_generator) if lo != hi
                             else ops.full((n, 1, 1, 1), lo) for lo, hi in self.shifts], axis=-1)
        s = ops.sign(s) * ops.floor(ops.abs(s))
        x = ops.cast(images, "float32")
        rgb = ops.clip(x[..., :3] + s, 0.0, 255.0)
        return ops.cast(ops.concatenate([rgb, x[..., 3:]], axis=-1), images.dtype)
)";
            case PythonTarget::Dali:
                return R"(

def _rgb_shift(images, r, g, b):
    """AugLab rgb_shift: trunc(s) levels added to each channel, clipped to 0..255, per sample."""
    v = fn.cast(images, dtype=types.FLOAT)
    channels = [dmath.clamp(v[:, :, c:c + 1] + _on(images, _trunc(s)), 0.0, 255.0) for c, s in enumerate((r, g, b))]
    return fn.cast(fn.cat(*channels, axis=2), dtype=types.UINT8)
)";
            case PythonTarget::TfDeotte:
                return {};
        }
        return {};
    }
};

}  // namespace

const OpModule& rgbShiftModule() {
    static const RgbShiftModule module;
    return module;
}

}  // namespace auglab
