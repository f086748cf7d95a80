// gaussian_blur: a separable Gaussian, kernel size int(sigma*3.5)*2+1, as Albumentations 2.0 GaussianBlur.
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/gaussian_blur.h"

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

void readGaussianBlur(exporting::TransformArgs& a, OpConfig& op) {
    using namespace exporting;
    const JsonReader blur = a.get("blur_limit");
    const JsonReader sigmaReader = a.get("sigma_limit");
    const Range kernel = lowZeroRange(blur);
    const Range sigma = lowZeroRange(sigmaReader);
    const auto opencvSigma = [](double k) {
        return 0.3 * ((k - 1) * 0.5 - 1) + 0.8;
    };  // cv::getGaussianKernel
    if (sigma == Range{0, 0} && kernel.max >= 3) {
        // 1.4.x default: OpenCV derives sigma from the random kernel size.
        const Range derived{opencvSigma(std::max(3.0, kernel.min)), opencvSigma(kernel.max)};
        a.warn(sigmaReader, "sigma 0 (derived by OpenCV from kernel sizes " + formatNumber(kernel.min) + "-" +
                                formatNumber(kernel.max) + " in 1.x): read as sigma [" + formatNumber(derived.min) +
                                ", " + formatNumber(derived.max) +
                                "] with AugLab's kernel size int(sigma*3.5)*2+1" +
                                (a.version().before2()
                                     ? std::string(".")
                                     : std::string("; Albumentations 2.0 divides by this sigma itself (a NaN "
                                                   "kernel: a black image).")));
        op.set("sigma_px", derived);
        return;
    }
    op.set("sigma_px", a.clamp(sigmaReader, sigma, 0, 50));
    if (kernel != Range{0, 0})  // randint over the range, as 2.0.8 draws it
        op.set("kernel_size", a.clamp(blur, Range{std::trunc(kernel.min), std::trunc(kernel.max)}, 0, 255));
    else if (a.version().before2())
        a.warn(
            blur,
            "Albumentations 1.x blurred with cv2.GaussianBlur, whose kernel size for a given sigma differs "
            "from AugLab's (and 2.0's) int(sigma*3.5)*2+1.");
}

class GaussianBlurModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(id, "gaussian_blur", "Gaussian blur", OpCategory::Pixel,
                          "Separable Gaussian, kernel size int(sigma*3.5)*2+1, border reflect_101.",
                          {
                              floatRange("sigma_px", "Sigma", "px", 0, 50, {0.5, 3.0},
                                         "Standard deviation of the Gaussian in pixels."),
                              optionalParam(intRange(
                                  "kernel_size", "Kernel size", "px", 0, 255, {3, 7},
                                  "Kernel size, uniform over the range's integers (Albumentations' "
                                  "blur_limit), an even one made odd by adding 1; 0, or not given: "
                                  "int(sigma*3.5)*2+1.")),
                          });
        // The sliders' span for tuning (the bounds above are for validation).
        params::typical(d, "sigma_px", 0, 5);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        BlurParams b{d.uniform(1, op.range("sigma_px")), 0};
        if (op.has("kernel_size")) {
            const Range k = op.range("kernel_size");
            const auto drawn = static_cast<int>(d.randint(2, std::int64_t(k.min), std::int64_t(k.max)));
            b.ksize = drawn > 0 && drawn % 2 == 0 ? drawn + 1 : drawn;
        }
        return b;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& b = std::get<BlurParams>(params);
        j["sigma_px"] = b.sigma_px;
        if (b.ksize > 0) j["kernel_size"] = b.ksize;
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "sigma_px", "kernel_size"});
        BlurParams b{num(r, "sigma_px", 0, 50), 0};
        if (r.has("kernel_size")) b.ksize = static_cast<int>(r.member("kernel_size").integer(0, 257));
        return b;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& b = std::get<BlurParams>(params);
        if (key == "sigma_px") return {b.sigma_px};
        if (key == "kernel_size") return {double(b.ksize)};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        // At tile scale the blur shrinks with the image, so the tile looks like the
        // full-resolution output scaled down.
        const double scale = 0.5 * (b.sx() + b.sy());
        const BlurParams& p = std::get<BlurParams>(params);
        const double sigma = p.sigma_px * scale;
        // A drawn kernel size shrinks with the tile too (odd, at least 1); at full size it is itself.
        int ksize = p.ksize;
        if (ksize > 0 && std::abs(scale - 1.0) > 1e-12) ksize = 2 * static_cast<int>(std::lround(ksize * scale / 2)) + 1;
        const std::vector<double> k = gaussianKernel(sigma, ksize);
        if (k.size() > 1) b.pixel(BlurStep{std::vector<float>(k.begin(), k.end())});
    }

    std::vector<std::string> albumentationsClasses() const override { return {"GaussianBlur"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>& warnings) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const Range sigma = op.range("sigma_px");
        if (sigma.min == 0)
            warnings.push_back(e.label() +
                               ": sigma_px starts at 0; Albumentations divides by sigma, so a draw of "
                               "exactly 0 gives an invalid kernel (AugLab leaves the image as it is).");
        Json j = start("GaussianBlur", op.p);
        // Kernel sizes drawn from the range, or from sigma: int(sigma * 3.5) * 2 + 1 ([0, 0]).
        j["blur_limit"] = op.has("kernel_size") ? intPair(op.range("kernel_size")) : Json::array({0, 0});
        j["sigma_limit"] = pair(sigma);
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion& v) const override {
        if (v.before2()) return {{"p", 0.5}, {"blur_limit", {3, 7}}, {"sigma_limit", {0.0, 0.0}}};
        return {{"p", 0.5}, {"blur_limit", {0, 0}}, {"sigma_limit", {0.5, 3.0}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        readGaussianBlur(a, op);
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        auto& w = x.warnings;
        if (op.has("kernel_size")) {
            notExported(e, x,
                        L + ": kernel sizes drawn from a range (kernel_size, Albumentations' blur_limit) are "
                            "written to the Albumentations exports only: left out.");
            return;
        }
        switch (x.target) {
            case PythonTarget::Torchvision: {
                std::string& lines = x.lines;
                const Range s = op.range("sigma_px");
                const int k = static_cast<int>(s.max * 3.5) * 2 + 1;
                if (s.min != s.max)
                    w.push_back(L + ": torchvision's kernel size is fixed (" + std::to_string(k) +
                                ", from the largest "
                                "sigma); AugLab's grows with each sigma as int(sigma*3.5)*2+1.");
                if (k / 2 >= 16)
                    w.push_back(L +
                                ": torchvision pads by reflection and raises on an image whose height or "
                                "width is " +
                                std::to_string(k / 2) +
                                " px or less (AugLab reflects again as OpenCV does).");
                lines += "    " +
                         torchvisionWithP("v2.GaussianBlur(kernel_size=" + std::to_string(k) + ", sigma=" +
                                              pyRange({std::max(1e-6, s.min), std::max(1e-6, s.max)}) + ")",
                                          op.p) +
                         ",\n";
                return;
            }
            case PythonTarget::Keras: {
                std::string& lines = x.lines;
                // Keras' RandomGaussianBlur takes sigma in [0, 1] only, pads with zeros (darkened borders)
                // and draws sigma per batch: a helper layer computes AugLab's blur instead.
                lines += "    " +
                         kerasWithP("GaussianBlur(sigma=" + pyRange(op.range("sigma_px")) + ")", op.p) +
                         ",\n";
                w.push_back(
                    L + ": the blur sums in float (OpenCV in fixed point): a level apart at most, measured.");
                return;
            }
            case PythonTarget::TfDeotte: {
                notInTfDeotte(e, x);
                return;
            }
            case PythonTarget::Dali: {
                std::string& s = x.lines;
                const std::string on = daliCoin(op.p);
                s += "    # " + L + "\n";
                const Range sg = op.range("sigma_px");
                s += "    sigma = " + daliUniform({std::max(sg.min, 1e-3), std::max(sg.max, 1e-3)}) + "\n";
                s += "    window = fn.cast(dmath.floor(sigma * 3.5), dtype=types.INT32) * 2 + 1  # AugLab: "
                     "int(sigma*3.5)*2+1\n";
                s += "    images = _maybe(images, fn.gaussian_blur(images, sigma=sigma, "
                     "window_size=window), " +
                     on + ")\n";
                w.push_back(
                    L +
                    ": DALI's blur border is reflect_101 like AugLab's; it sums in float and rounds (a "
                    "level apart at most, measured).");
                return;
            }
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return {};
            case PythonTarget::Keras:
                return R"(

class GaussianBlur(keras.layers.Layer):
    """AugLab gaussian_blur: per image sigma ~ U(sigma), OpenCV's kernel (int(sigma * 3.5) * 2 + 1
    taps of exp(-x^2 / 2 sigma^2), normalised), reflect_101 border, separable, rounded."""

    def __init__(self, sigma, **kwargs):
        super().__init__(**kwargs)
        self.sigma, self.radius = sigma, int(sigma[1] * 3.5)
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops, r = keras.ops, self.radius
        x = ops.cast(images, "float32")
        n, h, w = ops.shape(x)[0], ops.shape(x)[1], ops.shape(x)[2]
        sigma = keras.random.uniform((n, 1), *self.sigma, seed=self.seed_generator)
        offsets = ops.cast(ops.arange(-r, r + 1), "float32")[None, :]
        taps = ops.exp(-0.5 * ops.square(offsets / sigma)) * ops.cast(ops.abs(offsets) <= ops.floor(sigma * 3.5), "float32")
        taps = taps / ops.sum(taps, axis=1, keepdims=True)
        padded = ops.pad(x, [[0, 0], [r, r], [r, r], [0, 0]], mode="reflect")
        rows = sum(taps[:, k, None, None, None] * padded[:, k:k + h, :, :] for k in range(2 * r + 1))
        return ops.round(sum(taps[:, k, None, None, None] * rows[:, :, k:k + w, :] for k in range(2 * r + 1)))
)";
            case PythonTarget::TfDeotte:
                return {};
            case PythonTarget::Dali:
                return {};
        }
        return {};
    }
    bool pythonHelperAlways(PythonTarget t) const override { return t != PythonTarget::Torchvision; }
};

}  // namespace

const OpModule& gaussianBlurModule() {
    static const GaussianBlurModule module;
    return module;
}

}  // namespace auglab
