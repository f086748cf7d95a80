// invert_img, solarize and posterize: Albumentations 2.0.8's InvertImg, Solarize and Posterize on
// uint8 images, each a 256-entry LUT (every backend's LutStep), on RGB (alpha is kept).
// InvertImg: 255 - v. Solarize: threshold = U(threshold_range); 255 - v where v >= threshold * 255
// (a float64 product), else v. Posterize: bits = randint(num_bits) inclusive; v & ~(2^(8 - bits) - 1)
// (augmentations/pixel/functional.py invert, solarize, posterize).
// Everything AugLab knows about the ops is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/levels.h"

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

enum class Level { Invert, Solarize, Posterize };

Lut levelLut(Level kind, double value) {
    Lut lut{};
    for (int v = 0; v < 256; ++v) {
        int out = v;
        switch (kind) {
            case Level::Invert:
                out = 255 - v;
                break;
            case Level::Solarize:
                out = v >= value * 255.0 ? 255 - v : v;
                break;
            case Level::Posterize: {
                const int bits = static_cast<int>(value);
                out = v & (~((1 << (8 - bits)) - 1) & 0xff);
                break;
            }
        }
        lut[static_cast<std::size_t>(v)] = static_cast<std::uint8_t>(out);
    }
    return lut;
}

class LevelModule final : public OpModule {
public:
    explicit LevelModule(Level kind) : kind_(kind) {}

    OpDesc describe(OpId id) const override {
        switch (kind_) {
            case Level::Invert:
                return makeOp(id, "invert_img", "Invert", OpCategory::Pixel,
                              "Albumentations 2.0.8 InvertImg: 255 - v (a negative).", {});
            case Level::Solarize:
                return makeOp(
                    id, "solarize", "Solarize", OpCategory::Pixel,
                    "Albumentations 2.0.8 Solarize: levels at or above threshold * 255 are inverted "
                    "(255 - v), the others kept; threshold ~ U(threshold_frac).",
                    {floatRange("threshold_frac", "Threshold", "fraction of 255", 0, 1, {0.5, 0.5},
                                "Where inversion starts (0: everything is inverted).")});
            case Level::Posterize:
                return makeOp(id, "posterize", "Posterize", OpCategory::Pixel,
                              "Albumentations 2.0.8 Posterize: keeps the `bits` highest bits of every level "
                              "(v & ~(2^(8 - bits) - 1)); bits ~ randint(bits), both ends included.",
                              {intRange("bits", "Bits kept", "bits", 0, 8, {4, 4},
                                        "How many high bits survive: 8 keeps the image, 0 makes it black.")});
        }
        throw std::logic_error("unknown level op");
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        switch (kind_) {
            case Level::Invert:
                return LevelParams{};
            case Level::Solarize:
                return LevelParams{d.uniform(1, op.range("threshold_frac"))};
            case Level::Posterize: {
                const Range r = op.range("bits");
                return LevelParams{static_cast<double>(
                    d.randint(1, static_cast<std::int64_t>(r.min), static_cast<std::int64_t>(r.max)))};
            }
        }
        return LevelParams{};
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const double v = std::get<LevelParams>(params).value;
        if (kind_ == Level::Solarize) j["threshold_frac"] = v;
        if (kind_ == Level::Posterize) j["bits"] = static_cast<int>(v);
    }

    OpParams readReplay(const JsonReader& r) const override {
        switch (kind_) {
            case Level::Invert:
                r.requireObject({"op", "applied"});
                return LevelParams{};
            case Level::Solarize:
                r.requireObject({"op", "applied", "threshold_frac"});
                return LevelParams{num(r, "threshold_frac", 0, 1)};
            case Level::Posterize:
                r.requireObject({"op", "applied", "bits"});
                return LevelParams{static_cast<double>(r.member("bits").integer(0, 8))};
        }
        return LevelParams{};
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const double v = std::get<LevelParams>(params).value;
        if ((kind_ == Level::Solarize && key == "threshold_frac") ||
            (kind_ == Level::Posterize && key == "bits"))
            return {v};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        b.pixel(LutStep::same(levelLut(kind_, std::get<LevelParams>(params).value)));
    }

    std::vector<std::string> albumentationsClasses() const override { return {className()}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        Json j = start(className(), e.op->p);
        if (kind_ == Level::Solarize) j["threshold_range"] = pair(e.op->range("threshold_frac"));
        if (kind_ == Level::Posterize) j["num_bits"] = intPair(e.op->range("bits"));
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        switch (kind_) {
            case Level::Invert:
                return {{"p", 0.5}};
            case Level::Solarize:
                return {{"p", 0.5}, {"threshold_range", {0.5, 0.5}}};
            case Level::Posterize:
                return {{"p", 0.5}, {"num_bits", 4}};
        }
        return {};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        if (kind_ == Level::Solarize) {
            // 1.x wrote `threshold` in levels (a number t means [t, t]).
            if (const std::optional<JsonReader> old = a.find({"threshold"}); old && !old->json().is_null()) {
                const Range t = fixedOrPair(*old);
                op.set("threshold_frac", a.clamp(*old, Range{t.min / 255, t.max / 255}, 0, 1));
                return;
            }
            const JsonReader r = a.get("threshold_range");
            op.set("threshold_frac", a.clamp(r, pair(r), 0, 1));
        }
        if (kind_ == Level::Posterize) {
            const JsonReader r = a.get("num_bits");
            Range bits;
            if (r.json().is_number()) {
                bits = Range{r.number(), r.number()};
            } else if (r.arraySize() == 3 || (r.arraySize() > 0 && r.element(0).json().is_array())) {
                // One range per channel: AugLab posterizes every channel alike.
                const Range first = fixedOrPair(r.element(0));
                for (std::size_t i = 1; i < r.arraySize(); ++i)
                    if (!(fixedOrPair(r.element(i)) == first))
                        a.warn(r,
                               "bits per channel cannot be expressed: the first channel's are used for all.");
                bits = first;
            } else {
                bits = pair(r);
            }
            op.set("bits", a.clamp(r, Range{std::floor(bits.min), std::floor(bits.max)}, 0, 8));
        }
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        std::string args;
        if (kind_ == Level::Solarize) args = "threshold=" + pyRange(op.range("threshold_frac"));
        if (kind_ == Level::Posterize) {
            const Range b = op.range("bits");
            args = "bits=(" + std::to_string(int(b.min)) + ", " + std::to_string(int(b.max)) + ")";
        }
        switch (x.target) {
            case PythonTarget::Torchvision:
                if (kind_ == Level::Invert) {
                    x.lines += "    v2.RandomInvert(p=" + pyFloat(op.p) + "),\n";
                    return;
                }
                x.helperUsed = true;
                x.lines +=
                    "    " + torchvisionWithP(std::string(helperName()) + "(" + args + ")", op.p) + ",\n";
                return;
            case PythonTarget::Keras:
                x.helperUsed = true;
                x.lines += "    " + kerasWithP(std::string(helperName()) + "(" + args + ")", op.p) + ",\n";
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali: {
                x.helperUsed = true;
                x.lines += "    # " + L + "\n";
                std::string call;
                if (kind_ == Level::Invert) call = "_invert(images)";
                if (kind_ == Level::Solarize)
                    call = "_solarize(images, " + daliUniform(op.range("threshold_frac")) + ")";
                if (kind_ == Level::Posterize) {
                    const Range b = op.range("bits");
                    // randint(lo, hi): the floor of U(lo, hi + 1) (hi + 1 itself has probability 0).
                    call = "_posterize(images, dmath.min(dmath.floor(" + daliUniform({b.min, b.max + 1}) +
                           "), " + pyFloat(b.max) + "))";
                }
                x.lines += "    images = _maybe(images, " + call + ", " + daliCoin(op.p) + ")\n";
                return;
            }
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                if (kind_ == Level::Solarize)
                    return R"(

class Solarize(torch.nn.Module):
    """AugLab solarize (Albumentations Solarize): t ~ U(threshold); 255 - v where v >= t * 255, RGB only."""

    def __init__(self, threshold):
        super().__init__()
        self.threshold = threshold

    def forward(self, img):  # uint8 tensor, C x H x W
        t = torch.empty(1, dtype=torch.float64).uniform_(*self.threshold).item() * 255.0
        out = img.clone()
        out[:3] = torch.where(img[:3].double() >= t, 255 - img[:3], img[:3])
        return out
)";
                if (kind_ == Level::Posterize)
                    return R"(

class Posterize(torch.nn.Module):
    """AugLab posterize (Albumentations Posterize): bits ~ randint(bits), both ends included; keeps the
    high bits of every level, RGB only."""

    def __init__(self, bits):
        super().__init__()
        self.bits = bits

    def forward(self, img):  # uint8 tensor, C x H x W
        b = int(torch.randint(self.bits[0], self.bits[1] + 1, (1,)).item())
        out = img.clone()
        out[:3] = img[:3] & ((0xFF << (8 - b)) & 0xFF)
        return out
)";
                return {};
            case PythonTarget::Keras:
                switch (kind_) {
                    case Level::Invert:
                        return R"(

class Invert(keras.layers.Layer):
    """AugLab invert_img (Albumentations InvertImg): 255 - v, RGB only."""

    def call(self, images, training=True):
        if not training:
            return images
        x = keras.ops.cast(images, "float32")
        return keras.ops.cast(keras.ops.concatenate([255.0 - x[..., :3], x[..., 3:]], axis=-1), images.dtype)
)";
                    case Level::Solarize:
                        return R"(

class Solarize(keras.layers.Layer):
    """AugLab solarize (Albumentations Solarize): per image t ~ U(threshold); 255 - v where v >= t * 255."""

    def __init__(self, threshold, **kwargs):
        super().__init__(**kwargs)
        self.threshold = threshold
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        n = ops.shape(images)[0]
        t = ops.cast(keras.random.uniform((n, 1, 1, 1), *self.threshold, seed=self.seed_generator), "float64") * 255.0
        x = ops.cast(images, "float64")
        rgb = ops.where(x[..., :3] >= t, 255.0 - x[..., :3], x[..., :3])
        return ops.cast(ops.concatenate([rgb, x[..., 3:]], axis=-1), images.dtype)
)";
                    case Level::Posterize:
                        return R"(

class Posterize(keras.layers.Layer):
    """AugLab posterize (Albumentations Posterize): per image bits ~ randint(bits), both ends
    included; floor(v / 2^(8 - bits)) * 2^(8 - bits), RGB only."""

    def __init__(self, bits, **kwargs):
        super().__init__(**kwargs)
        self.bits = bits
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        n = ops.shape(images)[0]
        b = keras.random.randint((n, 1, 1, 1), self.bits[0], self.bits[1] + 1, seed=self.seed_generator)
        step = ops.power(2.0, 8.0 - ops.cast(b, "float32"))
        x = ops.cast(images, "float32")
        rgb = ops.floor(x[..., :3] / step) * step
        return ops.cast(ops.concatenate([rgb, x[..., 3:]], axis=-1), images.dtype)
)";
                }
                return {};
            case PythonTarget::Dali:
                switch (kind_) {
                    case Level::Invert:
                        return R"(

def _invert(images):
    """AugLab invert_img: 255 - v."""
    return fn.cast(255.0 - fn.cast(images, dtype=types.FLOAT), dtype=types.UINT8)
)";
                    case Level::Solarize:
                        return R"(

def _solarize(images, threshold):
    """AugLab solarize: 255 - v where v >= threshold * 255, per sample."""
    v = fn.cast(images, dtype=types.FLOAT)
    inverted = fn.cast(v >= _on(images, threshold * 255.0), dtype=types.FLOAT)
    return fn.cast(v + inverted * (255.0 - 2.0 * v), dtype=types.UINT8)
)";
                    case Level::Posterize:
                        return R"(

def _posterize(images, bits):
    """AugLab posterize: floor(v / 2^(8 - bits)) * 2^(8 - bits), per sample."""
    step = _on(images, dmath.pow(2.0, 8.0 - bits))
    v = fn.cast(images, dtype=types.FLOAT)
    return fn.cast(dmath.floor(v / step) * step, dtype=types.UINT8)
)";
                }
                return {};
            case PythonTarget::TfDeotte:
                return {};
        }
        return {};
    }

private:
    const char* className() const {
        switch (kind_) {
            case Level::Invert:
                return "InvertImg";
            case Level::Solarize:
                return "Solarize";
            case Level::Posterize:
                return "Posterize";
        }
        return "";
    }
    const char* helperName() const {
        switch (kind_) {
            case Level::Invert:
                return "Invert";
            case Level::Solarize:
                return "Solarize";
            case Level::Posterize:
                return "Posterize";
        }
        return "";
    }

    Level kind_;
};

}  // namespace

const OpModule& invertImgModule() {
    static const LevelModule m(Level::Invert);
    return m;
}
const OpModule& solarizeModule() {
    static const LevelModule m(Level::Solarize);
    return m;
}
const OpModule& posterizeModule() {
    static const LevelModule m(Level::Posterize);
    return m;
}

}  // namespace auglab
