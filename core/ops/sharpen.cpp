// sharpen and emboss: Albumentations 2.0.8 Sharpen (method "kernel") and Emboss. Each draws a
// visibility alpha and an effect strength, builds a 3 x 3 kernel (1 - alpha) * identity +
// alpha * effect in float32 as numpy does, and correlates it with the image as cv2.filter2D
// (a ConvolveStep). One module class for both, as they differ only in the effect kernel and their
// keys. Everything AugLab knows about the ops is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/sharpen.h"

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

std::array<float, 9> effectKernel(bool emboss, const KernelEffectParams& p) {
    const double s = p.amount;
    // The effect matrix is written in Python floats and stored as float32.
    const std::array<double, 9> effect =
        emboss ? std::array<double, 9>{-1 - s, 0 - s, 0, 0 - s, 1, 0 + s, 0, 0 + s, 1 + s}
               : std::array<double, 9>{-1, -1, -1, -1, 8 + s, -1, -1, -1, -1};
    // (1 - alpha) * identity + alpha * effect: a Python float times a float32 array is float32.
    const float keep = static_cast<float>(1 - p.alpha), alpha = static_cast<float>(p.alpha);
    std::array<float, 9> k{};
    for (std::size_t i = 0; i < 9; ++i) {
        const float identity = keep * (i == 4 ? 1.0f : 0.0f);
        const float scaled = alpha * static_cast<float>(effect[i]);
        k[i] = identity + scaled;
    }
    return k;
}

namespace {

using Json = nlohmann::ordered_json;
using namespace params;

class KernelEffectModule final : public OpModule {
public:
    explicit KernelEffectModule(bool emboss) : emboss_(emboss) {}

    const char* amountKey() const { return emboss_ ? "strength" : "lightness"; }

    OpDesc describe(OpId id) const override {
        const ParamDesc alpha = floatRange("alpha", "Visibility", "", 0, 1, {0.2, 0.5},
                                           "Blend of the effect over the image: 0 none, 1 the effect alone.");
        if (emboss_)
            return makeOp(id, "emboss", "Emboss", OpCategory::Pixel,
                          "Albumentations Emboss: the 3 x 3 kernel (1 - alpha) * identity + alpha * "
                          "[[-1-s, -s, 0], [-s, 1, s], [0, s, 1+s]], alpha and the strength s drawn "
                          "uniformly; cv2.filter2D, border reflect_101.",
                          {alpha, floatRange("strength", "Strength", "", 0, 10, {0.2, 0.7},
                                             "How deep the relief is.")});
        return makeOp(id, "sharpen", "Sharpen", OpCategory::Pixel,
                      "Albumentations Sharpen (method \"kernel\"): the 3 x 3 kernel (1 - alpha) * identity + "
                      "alpha * [[-1, -1, -1], [-1, 8 + lightness, -1], [-1, -1, -1]], alpha and the "
                      "lightness drawn uniformly; cv2.filter2D, border reflect_101.",
                      {alpha, floatRange("lightness", "Lightness", "", 0, 10, {0.5, 1.0},
                                         "Brightness of the sharpened image: larger values give more "
                                         "contrast.")});
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        return KernelEffectParams{d.uniform(1, op.range("alpha")), d.uniform(3, op.range(amountKey()))};
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<KernelEffectParams>(params);
        j["alpha"] = p.alpha;
        j[amountKey()] = p.amount;
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "alpha", amountKey()});
        return KernelEffectParams{replay_fields::num(r, "alpha", 0, 1),
                                  replay_fields::num(r, amountKey(), 0, 10)};
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<KernelEffectParams>(params);
        if (key == "alpha") return {p.alpha};
        if (key == amountKey()) return {p.amount};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        // A 3 x 3 neighbourhood at any scale: a display tile shows the effect on its own pixels.
        const std::array<float, 9> k = effectKernel(emboss_, std::get<KernelEffectParams>(params));
        b.pixel(ConvolveStep{3, std::vector<float>(k.begin(), k.end())});
    }

    std::vector<std::string> albumentationsClasses() const override {
        return {emboss_ ? "Emboss" : "Sharpen"};
    }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start(emboss_ ? "Emboss" : "Sharpen", op.p);
        j["alpha"] = pair(op.range("alpha"));
        if (emboss_) {
            j["strength"] = pair(op.range("strength"));
            return j;
        }
        j["kernel_size"] = 5;  // the "gaussian" method's settings, unused by "kernel"
        j["lightness"] = pair(op.range("lightness"));
        j["method"] = "kernel";
        j["sigma"] = 1.0;
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        if (emboss_) return {{"p", 0.5}, {"alpha", {0.2, 0.5}}, {"strength", {0.2, 0.7}}};
        return {{"p", 0.5},           {"alpha", {0.2, 0.5}}, {"lightness", {0.5, 1.0}},
                {"method", "kernel"}, {"kernel_size", 5},    {"sigma", 1.0}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        const JsonReader alpha = a.get("alpha");
        op.set("alpha", a.clamp(alpha, pair(alpha), 0, 1));
        const JsonReader amount = a.get(amountKey());
        op.set(amountKey(), a.clamp(amount, pair(amount), 0, 10));
        if (emboss_) return;
        const JsonReader method = a.get("method");
        // kernel_size and sigma belong to the "gaussian" method.
        (void)a.find({"kernel_size"});
        (void)a.find({"sigma"});
        if (method.string() != "kernel")
            a.leaveOut(method, "Sharpen's method \"" + method.string() +
                                   "\" (an unsharp mask over cv2.GaussianBlur, with uint8 wraparound) has no "
                                   "AugLab equivalent; only \"kernel\" has.");
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string args = std::string("emboss=") + (emboss_ ? "True" : "False") +
                                 ", alpha=" + pyRange(op.range("alpha")) +
                                 ", amount=" + pyRange(op.range(amountKey()));
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.helperUsed = true;
                x.lines += "    " + torchvisionWithP("KernelEffect(" + args + ")", op.p) + ",\n";
                return;
            case PythonTarget::Keras:
                x.helperUsed = true;
                x.lines += "    " + kerasWithP("KernelEffect(" + args + ")", op.p) + ",\n";
                x.warnings.push_back(e.label() +
                                     ": the layer sums the nine taps in its own float order (OpenCV fuses "
                                     "each multiply-add in row order): a level apart in up to 5% of the "
                                     "pixels (measured: emboss 4.8%, sharpen none).");
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                x.helperUsed = true;
                x.lines += "    # " + e.label() + "\n";
                x.lines += std::string("    images = _maybe(images, _kernel_effect(images, ") +
                           (emboss_ ? "True" : "False") + ", " + daliUniform(op.range("alpha")) + ", " +
                           daliUniform(op.range(amountKey())) + "), " + daliCoin(op.p) + ")\n";
                x.warnings.push_back(e.label() +
                                     ": DALI builds the kernel in its own float arithmetic: a level apart "
                                     "now and then (measured: emboss 0.005% of the pixels, sharpen none).");
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        // The same text for both ops (pythonHelpers writes it once).
        switch (t) {
            case PythonTarget::Torchvision:
                return R"(

class KernelEffect(torch.nn.Module):
    """AugLab sharpen / emboss (Albumentations 2.0.8 Sharpen with method "kernel", Emboss): alpha and
    the lightness (sharpen) or strength (emboss) drawn uniformly; the 3 x 3 kernel
    (1 - alpha) * identity + alpha * effect in float32, correlated with the image (border
    reflect_101), rounded and clipped; alpha kept."""

    def __init__(self, emboss, alpha, amount):
        super().__init__()
        self.emboss, self.alpha, self.amount = emboss, alpha, amount

    @staticmethod
    def _uniform(lo, hi):
        return lo + (hi - lo) * float(torch.rand(()))

    def forward(self, img):  # uint8 tensor, C x H x W
        a, s = self._uniform(*self.alpha), self._uniform(*self.amount)
        if self.emboss:
            effect = [[-1 - s, 0 - s, 0], [0 - s, 1, 0 + s], [0, 0 + s, 1 + s]]
        else:
            effect = [[-1, -1, -1], [-1, 8 + s, -1], [-1, -1, -1]]
        identity = torch.zeros(3, 3)
        identity[1, 1] = 1.0
        kernel = torch.tensor(1 - a) * identity + torch.tensor(a) * torch.tensor(effect, dtype=torch.float32)
        x = torch.nn.functional.pad(img[:3].unsqueeze(1).float(), (1, 1, 1, 1), mode="reflect")
        out = img.clone()
        out[:3] = torch.nn.functional.conv2d(x, kernel[None, None])[:, 0].round().clamp(0, 255).to(torch.uint8)
        return out
)";
            case PythonTarget::Keras:
                return R"(

class KernelEffect(keras.layers.Layer):
    """AugLab sharpen / emboss (Albumentations 2.0.8 Sharpen with method "kernel", Emboss): per image
    alpha and the lightness (sharpen) or strength (emboss) drawn uniformly; the 3 x 3 kernel
    (1 - alpha) * identity + alpha * effect, correlated with the image (border reflect_101), rounded
    and clipped."""

    def __init__(self, emboss, alpha, amount, **kwargs):
        super().__init__(**kwargs)
        self.emboss, self.alpha, self.amount = emboss, alpha, amount
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        x = ops.cast(images, "float32")
        n, h, w = ops.shape(x)[0], ops.shape(x)[1], ops.shape(x)[2]
        a = keras.random.uniform((n, 1), *self.alpha, seed=self.seed_generator)
        s = keras.random.uniform((n, 1), *self.amount, seed=self.seed_generator)
        one, zero = ops.ones_like(s), ops.zeros_like(s)
        if self.emboss:
            effect = [-1 - s, -s, zero, -s, one, s, zero, s, 1 + s]
        else:
            effect = [-one, -one, -one, -one, 8 + s, -one, -one, -one, -one]
        identity = [one if i == 4 else zero for i in range(9)]
        taps = [(1.0 - a) * identity[i] + a * effect[i] for i in range(9)]
        padded = ops.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="reflect")
        acc = sum(taps[3 * i + j][:, :, None, None] * padded[:, i:i + h, j:j + w, :] for i in range(3) for j in range(3))
        return ops.clip(ops.round(acc), 0.0, 255.0)
)";
            case PythonTarget::TfDeotte:
                return {};
            case PythonTarget::Dali:
                return R"(

def _kernel_effect(images, emboss, a, s):
    """AugLab sharpen / emboss: the 3 x 3 kernel (1 - a) * identity + a * effect per sample, the effect
    [[-1, -1, -1], [-1, 8 + s, -1], [-1, -1, -1]] (sharpen) or [[-1-s, -s, 0], [-s, 1, s], [0, s, 1+s]]
    (emboss); cv2.filter2D's correlation, border reflect_101."""
    import numpy as np

    identity = types.Constant(np.array([[0, 0, 0], [0, 1, 0], [0, 0, 0]], np.float32))
    if emboss:
        base = np.array([[-1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32)
        by_s = np.array([[-1, -1, 0], [-1, 0, 1], [0, 1, 1]], np.float32)
    else:
        base = np.array([[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]], np.float32)
        by_s = np.array([[0, 0, 0], [0, 1, 0], [0, 0, 0]], np.float32)
    effect = types.Constant(base) + s * types.Constant(by_s)
    taps = (1.0 - a) * identity + a * effect
    return fn.filter(images, _on(images, taps), border="reflect_101")
)";
        }
        return {};
    }

private:
    bool emboss_;
};

}  // namespace

const OpModule& sharpenModule() {
    static const KernelEffectModule module(false);
    return module;
}

const OpModule& embossModule() {
    static const KernelEffectModule module(true);
    return module;
}

}  // namespace auglab
