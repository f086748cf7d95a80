// color_jitter: Albumentations 2.0.8 ColorJitter on 8-bit images. Four factors drawn uniformly
// (brightness, contrast, saturation, then hue), and an order of the four adjustments drawn uniformly
// from the 24; each runs as the library's torchvision-like function does it (pixel/functional.py):
// - brightness b: the table trunc(clip(float32(v) * float32(b))) (albucore's multiply LUT);
// - contrast c: the mean m of cv2's RGB2GRAY image (summed in integers), the table
//   trunc(clip(float32(v) * c + float32(m * (1 - c)))) in float32 (albucore's multiply_add LUT); at
//   c = 0 every pixel is int(m + 0.5);
// - saturation s: cv2.addWeighted(img, s, gray, 1 - s, 0), one rounding of v * s + gray * (1 - s)
//   (GrayBlendStep); at s = 0 the gray image;
// - hue h: the image in OpenCV's 8-bit HSV, hue (h * 180) mod 180 added and truncated, back to RGB
//   (HueSaturationValue's HsvStep).
// A factor of 1 (hue 0) leaves the image as it is, as the library's early returns do. Alpha is kept
// (the library refuses four channels).
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/color_jitter.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>
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

constexpr double kFactorMax = 10;        // brightness, contrast and saturation factors: [0, 10]
constexpr std::uint32_t kOrderDraw = 5;  // 5, 6, 7: the order's Fisher-Yates swaps (1-4: the factors)

/// The order's place among the 24 in lexicographic order (what the distribution view plots).
int orderIndex(const std::array<int, 4>& order) {
    std::array<int, 4> p{0, 1, 2, 3};
    int index = 0;
    do {
        if (p == order) return index;
        ++index;
    } while (std::next_permutation(p.begin(), p.end()));
    return -1;
}

class ColorJitterModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "color_jitter", "Color jitter", OpCategory::Pixel,
            "Albumentations 2.0.8 ColorJitter: brightness, contrast and saturation factors and a hue "
            "turn, applied in a random order, in OpenCV's 8-bit arithmetic.",
            {
                floatRange("brightness", "Brightness", "factor", 0, kFactorMax, {0.8, 1.2},
                           "Every colour multiplied by the factor (1 = unchanged), truncated."),
                floatRange("contrast", "Contrast", "factor", 0, kFactorMax, {0.8, 1.2},
                           "Colours pushed from (below 1: towards) the image's mean gray by the factor."),
                floatRange("saturation", "Saturation", "factor", 0, kFactorMax, {0.8, 1.2},
                           "Each pixel blended with its own gray: 0 gray, 1 unchanged, above 1 more "
                           "saturated."),
                floatRange("hue", "Hue", "turns", -0.5, 0.5, {-0.5, 0.5},
                           "The hue turned by this fraction of a full turn, in OpenCV's 8-bit HSV "
                           "(steps of 2 degrees)."),
            });
        params::typical(d, "brightness", 0, 2);
        params::typical(d, "contrast", 0, 2);
        params::typical(d, "saturation", 0, 2);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        ColorJitterParams p;
        p.brightness = d.uniform(1, op.range("brightness"));
        p.contrast = d.uniform(2, op.range("contrast"));
        p.saturation = d.uniform(3, op.range("saturation"));
        p.hue = d.uniform(4, op.range("hue"));
        for (int i = 3; i > 0; --i)  // a uniform permutation (Fisher-Yates)
            std::swap(p.order[std::size_t(i)],
                      p.order[std::size_t(d.randint(kOrderDraw + std::uint32_t(3 - i), 0, i))]);
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<ColorJitterParams>(params);
        j["brightness"] = p.brightness;
        j["contrast"] = p.contrast;
        j["saturation"] = p.saturation;
        j["hue"] = p.hue;
        j["order"] = Json::array({p.order[0], p.order[1], p.order[2], p.order[3]});
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "brightness", "contrast", "saturation", "hue", "order"});
        ColorJitterParams p;
        p.brightness = num(r, "brightness", 0, kFactorMax);
        p.contrast = num(r, "contrast", 0, kFactorMax);
        p.saturation = num(r, "saturation", 0, kFactorMax);
        p.hue = num(r, "hue", -0.5, 0.5);
        p.order = readPermutation<4>(r.member("order"), "adjustment",
                                     "expected the order of the four adjustments: 4 indices (0 brightness, 1 "
                                     "contrast, 2 saturation, 3 hue)");
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<ColorJitterParams>(params);
        if (key == "brightness") return {p.brightness};
        if (key == "contrast") return {p.contrast};
        if (key == "saturation") return {p.saturation};
        if (key == "hue") return {p.hue};
        if (key == "order") return {double(orderIndex(p.order))};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<ColorJitterParams>(params);
        for (int step : p.order) {
            switch (step) {
                case 0:
                    if (p.brightness != 1)
                        b.pixel(LutStep::same(brightnessContrastLut(static_cast<float>(p.brightness), 0.0f)));
                    break;
                case 1:
                    if (p.contrast != 1) {
                        MeanBrightnessStep s;
                        s.alpha = static_cast<float>(p.contrast);
                        s.brightness = 1.0 - p.contrast;
                        s.gray = true;
                        s.roundMean = p.contrast == 0;
                        b.pixel(s);
                    }
                    break;
                case 2:
                    if (p.saturation == 0)
                        b.pixel(GrayStep{});
                    else if (p.saturation != 1)
                        b.pixel(GrayBlendStep{static_cast<float>(p.saturation),
                                              static_cast<float>(1.0 - p.saturation)});
                    break;
                default:
                    // (h * 360) / 2 is h * 180 exactly: the library's hue table, np.mod(k + 180 h, 180).
                    if (p.hue != 0) b.pixel(HsvStep{hsvLuts(HsvParams{p.hue * 360.0, 0, 0})});
                    break;
            }
        }
    }

    std::vector<std::string> albumentationsClasses() const override { return {"ColorJitter"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("ColorJitter", op.p);
        j["brightness"] = pair(op.range("brightness"));
        j["contrast"] = pair(op.range("contrast"));
        j["hue"] = pair(op.range("hue"));
        j["saturation"] = pair(op.range("saturation"));
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5},
                {"brightness", {0.8, 1.2}},
                {"contrast", {0.8, 1.2}},
                {"saturation", {0.8, 1.2}},
                {"hue", {-0.5, 0.5}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        // A number v is [max(0, 1 - v), 1 + v] for the factors and [-v, v] for the hue (the library's
        // validator); a pair is the range itself.
        for (const char* key : {"brightness", "contrast", "saturation"}) {
            const JsonReader v = a.get(key);
            const Range r =
                v.json().is_number() ? Range{std::max(0.0, 1 - v.number()), 1 + v.number()} : pair(v);
            op.set(key, a.clamp(v, r, 0, kFactorMax));
        }
        const JsonReader hue = a.get("hue");
        op.set("hue", a.clamp(hue, symmetricRange(hue), -0.5, 0.5));
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        const std::string args =
            "brightness=" + pyRange(op.range("brightness")) + ", contrast=" + pyRange(op.range("contrast")) +
            ", saturation=" + pyRange(op.range("saturation")) + ", hue=" + pyRange(op.range("hue"));
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.lines += "    " + torchvisionWithP("v2.ColorJitter(" + args + ")", op.p) + ",\n";
                x.warnings.push_back(
                    L +
                    ": torchvision's ColorJitter takes the mean and the saturation's gray from float "
                    "weights (0.2989, 0.587, 0.114), floors that gray and turns the hue in float HSV; "
                    "AugLab, as Albumentations, uses OpenCV's 8-bit gray and HSV (measured on chelsea.png: "
                    "brightness 1.3 exact; contrast 0.6 mean 0.20, max 1; saturation 1.7 mean 0.37, max 1, "
                    "0.35 mean 0.87, max 2; hue +0.1 mean 0.40, max 3).");
                return;
            case PythonTarget::Keras:
                x.helperUsed = true;
                x.lines += "    " + kerasWithP("ColorJitter(" + args + ")", op.p) + ",\n";
                x.warnings.push_back(L +
                                     ": Keras draws float32 factors (1 - s rounds otherwise than AugLab's "
                                     "double) and turns the hue in float HSV (measured on chelsea.png: "
                                     "brightness 1.3 and contrast 0.6 exact; saturation 1.7 a level apart on "
                                     "14% of the pixels, 0.35 on 0.8%; hue +0.1 mean 0.39, max 3).");
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                x.helperUsed = true;
                x.lines += "    # " + L + "\n";
                x.lines += "    images = _color_jitter(images, " + daliUniform(op.range("brightness")) +
                           ", " + daliUniform(op.range("contrast")) + ", " +
                           daliUniform(op.range("saturation")) + ", " +
                           daliUniform({op.range("hue").min * 360, op.range("hue").max * 360}) + ", " +
                           daliCoin(op.p) + ")\n";
                x.warnings.push_back(
                    L +
                    ": DALI's fn.hue turns the YIQ chroma plane, not HSV (hue +0.1 on chelsea.png: mean "
                    "19, max 49 levels apart, measured); its saturation blend is float32 rounded half up "
                    "(1.7 and 0.35: a level apart on 8% of the pixels); brightness 1.3 and contrast 0.6 "
                    "exact.");
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
            case PythonTarget::TfDeotte:
                return {};
            case PythonTarget::Keras:
                return R"(

class ColorJitter(keras.layers.Layer):
    """AugLab color_jitter (Albumentations ColorJitter), per image: factors drawn uniformly and the
    four adjustments in a random order (the ranks of four uniform keys). Brightness
    floor(v * b); contrast floor(v * c + (1 - c) * the mean of OpenCV's integer gray); saturation
    round(v * s + (1 - s) * gray); hue turned by h turns in float HSV. RGB only, alpha kept."""

    def __init__(self, brightness, contrast, saturation, hue, **kwargs):
        super().__init__(**kwargs)
        self.ranges = (brightness, contrast, saturation, hue)
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        x = ops.cast(images, "float32")
        rgb, rest = x[..., :3], x[..., 3:]
        n = ops.shape(x)[0]
        b, c, s, h = (keras.random.uniform((n, 1, 1, 1), lo, hi, seed=self.seed_generator)
                      for lo, hi in self.ranges)
        keys = keras.random.uniform((n, 4), seed=self.seed_generator)
        place = ops.sum(ops.cast(keys[:, None, :] < keys[:, :, None], "int32"), axis=-1)  # n x 4

        def gray(v):  # OpenCV's RGB2GRAY fixed point, exact in float32
            g = v[..., 0:1] * 9798.0 + v[..., 1:2] * 19235.0 + v[..., 2:3] * 3735.0 + 16384.0
            return ops.floor(g / 32768.0)

        def brightness(v):
            return ops.floor(ops.clip(v * b, 0.0, 255.0))

        def contrast(v):
            mean = ops.mean(gray(v), axis=(1, 2, 3), keepdims=True)
            return ops.floor(ops.clip(v * c + mean * (1.0 - c), 0.0, 255.0))

        def saturation(v):
            return ops.clip(ops.round(v * s + gray(v) * (1.0 - s)), 0.0, 255.0)

        def hue(v):
            hsv = ops.image.rgb_to_hsv(v / 255.0)
            turned = ops.stack([ops.mod(hsv[..., 0] + h[..., 0], 1.0), hsv[..., 1], hsv[..., 2]], axis=-1)
            return ops.round(ops.image.hsv_to_rgb(turned) * 255.0)

        steps = (brightness, contrast, saturation, hue)
        for i in range(4):
            out = rgb
            for k, step in enumerate(steps):
                chosen = ops.reshape(place[:, k] == i, (n, 1, 1, 1))
                out = ops.where(chosen, step(rgb), out)
            rgb = out
        return ops.concatenate([rgb, rest], axis=-1)
)";
            case PythonTarget::Dali:
                return R"(

def _color_jitter(images, brightness, contrast, saturation, hue_deg, on):
    """AugLab color_jitter, per sample: the four adjustments in a random order (the ranks of four
    uniform keys). Brightness floor(v * b); contrast floor(v * c + (1 - c) * the mean of OpenCV's
    gray); saturation floor(v * s + (1 - s) * gray + 0.5); hue by fn.hue (degrees)."""
    keys = [fn.random.uniform(range=[0.0, 1.0]) for _ in range(4)]
    places = []
    for k in range(4):
        place = None
        for j in range(4):
            if j != k:
                below = fn.cast(keys[j] < keys[k], dtype=types.FLOAT)
                place = below if place is None else place + below
        places.append(place)

    def clamp8(v):
        return fn.cast(dmath.clamp(v, 0.0, 255.0), dtype=types.UINT8)

    def bright(x):
        return clamp8(dmath.floor(fn.cast(x, dtype=types.FLOAT) * _on(x, brightness)))

    def contr(x):
        k = _on(x, contrast)
        mean = fn.reductions.mean(_gray(x))
        return clamp8(dmath.floor(fn.cast(x, dtype=types.FLOAT) * k + mean * (1.0 - k)))

    def satur(x):
        k = _on(x, saturation)
        return clamp8(dmath.floor(fn.cast(x, dtype=types.FLOAT) * k + _gray(x) * (1.0 - k) + 0.5))

    def turn(x):
        return fn.hue(x, hue=hue_deg)

    out = images
    for i in range(4):
        step = out
        for k, f in enumerate((bright, contr, satur, turn)):
            step = _maybe(step, f(out), fn.cast(places[k] == float(i), dtype=types.FLOAT))
        out = step
    return _maybe(images, out, on)
)";
        }
        return {};
    }
};

}  // namespace

const OpModule& colorJitterModule() {
    static const ColorJitterModule module;
    return module;
}

}  // namespace auglab
