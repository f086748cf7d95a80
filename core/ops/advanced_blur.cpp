// advanced_blur: Albumentations 2.0.8 AdvancedBlur. An odd kernel size, two sigmas, a rotation and a
// shape beta are drawn as the library draws them (beta below or above 1 with even odds), and each tap
// of the generalised Gaussian is multiplied by noise; the kernel, normalised, is correlated with the
// image as cv2.filter2D (a ConvolveStep: every backend has it). The library draws the taps' noise
// from numpy's generator; AugLab from Philox keyed by a drawn seed: the same distribution. Everything
// AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/advanced_blur.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "export_common.h"
#include "ops/kernel_blur.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "ops/replay_fields.h"
#include "plan.h"
#include "plan_builder.h"
#include "sampler.h"

namespace auglab {

std::vector<float> advancedBlurKernel(const AdvancedBlurParams& p) {
    const int k = p.ksize, half = k / 2;
    // S = R diag(sx^2, sy^2) R^T and its inverse (a sigma of 0 is a delta: kept just above it).
    const double sx = std::max(p.sigma_x, 1e-3), sy = std::max(p.sigma_y, 1e-3);
    const double a = p.rotate * std::numbers::pi / 180, c = std::cos(a), s = std::sin(a);
    const double s00 = c * c * sx * sx + s * s * sy * sy, s01 = c * s * (sx * sx - sy * sy);
    const double s11 = s * s * sx * sx + c * c * sy * sy;
    const double det = s00 * s11 - s01 * s01;
    const double i00 = s11 / det, i01 = -s01 / det, i11 = s00 / det;
    std::vector<double> taps(static_cast<std::size_t>(k) * k);
    double sum = 0;
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j) {
            const double x = j - half, y = i - half;  // np.meshgrid(ax, ax): x along the columns
            const double q = x * (x * i00 + y * i01) + y * (x * i01 + y * i11);
            const double u = pixelNoiseWords(p.noise_seed, j, i)[0] * 0x1p-32;
            const double v = std::exp(-0.5 * std::pow(q, p.beta)) * (p.noise.min + (p.noise.max - p.noise.min) * u);
            taps[static_cast<std::size_t>(i * k + j)] = v;
            sum += v;
        }
    std::vector<float> out(taps.size());
    for (std::size_t i = 0; i < taps.size(); ++i)
        out[i] = static_cast<float>(static_cast<double>(static_cast<float>(taps[i])) / sum);
    return out;
}

namespace {

using Json = nlohmann::ordered_json;
using namespace params;

class AdvancedBlurModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "advanced_blur", "Advanced blur", OpCategory::Pixel,
            "Albumentations AdvancedBlur: a k x k generalised Gaussian kernel, exp(-0.5 (g^T S^-1 g)^beta) "
            "with S the covariance of the two sigmas rotated by the angle, each tap multiplied by noise, "
            "normalised; cv2.filter2D, border reflect_101. Beta below 1 gives heavier tails, above 1 a "
            "flatter top: drawn below or above 1 with even odds.",
            {kernel_size::param("Kernel side k, odd, drawn uniformly from the odd sizes of the range."),
             floatRange("sigma_x", "Sigma x", "px", 0, 50, {0.2, 1.0},
                        "Spread along the kernel's own x axis (before rotation), drawn uniformly."),
             floatRange("sigma_y", "Sigma y", "px", 0, 50, {0.2, 1.0},
                        "Spread along the kernel's own y axis (before rotation), drawn uniformly."),
             floatRange("rotate", "Rotation", "deg", -360, 360, {-90, 90},
                        "Rotation of the kernel's axes, drawn uniformly."),
             floatRange("beta", "Shape (beta)", "", 0, 20, {0.5, 8.0},
                        "Exponent of the kernel's shape: with even odds uniform in [low, 1] or in "
                        "[1, high] (1: a Gaussian)."),
             floatRange("noise", "Tap noise", "", 0, 10, {0.9, 1.1},
                        "Each tap of the kernel multiplied by a factor drawn uniformly from this range.")});
        params::typical(d, "sigma_x", 0, 5);
        params::typical(d, "sigma_y", 0, 5);
        params::typical(d, "beta", 0, 10);
        params::typical(d, "noise", 0.5, 1.5);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        AdvancedBlurParams p;
        p.ksize = kernel_size::sample(d, 1, op.range(kernel_size::kKey));
        p.sigma_x = d.uniform(2, op.range("sigma_x"));
        p.sigma_y = d.uniform(3, op.range("sigma_y"));
        p.rotate = d.uniform(4, op.range("rotate"));
        const Range beta = op.range("beta");
        p.beta = d.uniform(5) < 0.5 ? d.uniform(6, beta.min, 1) : d.uniform(6, 1, beta.max);
        p.noise = op.range("noise");
        p.noise_seed = d.bits64(7);
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<AdvancedBlurParams>(params);
        j[kernel_size::kKey] = p.ksize;
        j["sigma_x"] = p.sigma_x;
        j["sigma_y"] = p.sigma_y;
        j["rotate"] = p.rotate;
        j["beta"] = p.beta;
        j["noise"] = Json::array({p.noise.min, p.noise.max});
        j["noise_seed"] = std::to_string(p.noise_seed);  // a string: doubles would round it
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", kernel_size::kKey, "sigma_x", "sigma_y", "rotate", "beta", "noise",
                         "noise_seed"});
        AdvancedBlurParams p;
        const JsonReader k = r.member(kernel_size::kKey);
        p.ksize = static_cast<int>(k.integer(3, 99));
        if (p.ksize % 2 == 0) k.fail("expected an odd kernel size");
        p.sigma_x = replay_fields::num(r, "sigma_x", 0, 50);
        p.sigma_y = replay_fields::num(r, "sigma_y", 0, 50);
        p.rotate = replay_fields::num(r, "rotate", -360, 360);
        p.beta = replay_fields::num(r, "beta", 0, 20);
        const JsonReader noise = r.member("noise");
        if (noise.arraySize() != 2) noise.fail("expected [low, high]");
        p.noise = {noise.element(0).numberIn(0, 10), noise.element(1).numberIn(0, 10)};
        if (p.noise.min > p.noise.max) noise.fail("expected low <= high");
        p.noise_seed = r.member("noise_seed").unsignedInteger64();
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<AdvancedBlurParams>(params);
        if (key == kernel_size::kKey) return {double(p.ksize)};
        if (key == "sigma_x") return {p.sigma_x};
        if (key == "sigma_y") return {p.sigma_y};
        if (key == "rotate") return {p.rotate};
        if (key == "beta") return {p.beta};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<AdvancedBlurParams>(params);
        const double s = 0.5 * (b.sx() + b.sy());
        if (std::abs(s - 1.0) < 1e-12) {
            b.pixel(ConvolveStep{p.ksize, advancedBlurKernel(p)});
            return;
        }
        // A display tile: the kernel and its sigmas shrink with the image, so that the tile looks like
        // the full-resolution output scaled down.
        AdvancedBlurParams t = p;
        t.ksize = 2 * static_cast<int>(std::floor(p.ksize * s / 2)) + 1;
        if (t.ksize < 3) return;
        t.sigma_x *= s;
        t.sigma_y *= s;
        b.pixel(ConvolveStep{t.ksize, advancedBlurKernel(t)});
    }

    std::vector<std::string> albumentationsClasses() const override { return {"AdvancedBlur"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>& warnings) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        int low = 0, high = 0;
        kernel_size::oddEnds(op.range(kernel_size::kKey), low, high);
        Json j = start("AdvancedBlur", op.p);
        // The library refuses a beta range that does not hold 1 strictly inside, and sigma ranges both
        // starting at 0: written just inside, which draws the same values but for a set of measure 0.
        Range beta = op.range("beta");
        if (!(beta.min < 1 && beta.max > 1)) {
            beta = {std::min(beta.min, 1 - 1e-6), std::max(beta.max, 1 + 1e-6)};
            warnings.push_back(e.label() + ": Albumentations refuses a beta range that does not hold 1 strictly "
                                           "inside: written as [" + formatNumber(beta.min) + ", " +
                               formatNumber(beta.max) + "].");
        }
        Range sx = op.range("sigma_x"), sy = op.range("sigma_y");
        if (sx.min == 0 && sy.min == 0) {
            sx.min = std::min(1e-6, sx.max);
            warnings.push_back(e.label() + ": Albumentations refuses sigma ranges that both start at 0: "
                                           "sigma_x written from " + formatNumber(sx.min) + ".");
        }
        j["beta_limit"] = pair(beta);
        j["blur_limit"] = Json::array({low, high});
        j["noise_limit"] = pair(op.range("noise"));
        j["rotate_limit"] = pair(op.range("rotate"));
        j["sigma_x_limit"] = pair(sx);
        j["sigma_y_limit"] = pair(sy);
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5},          {"blur_limit", {3, 7}},        {"sigma_x_limit", {0.2, 1.0}},
                {"sigma_y_limit", {0.2, 1.0}}, {"rotate_limit", {-90, 90}}, {"beta_limit", {0.5, 8.0}},
                {"noise_limit", {0.9, 1.1}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        kernel_size::readBlurLimit(a, op);
        // A number s means [0, s] for the sigmas and beta, [-r, r] for the rotation (the library's
        // validators); the noise range has no shorthand there but [0, v] is what to_tuple gives.
        for (const auto& [key, arg] : {std::pair{"sigma_x", "sigma_x_limit"}, std::pair{"sigma_y", "sigma_y_limit"}}) {
            const JsonReader v = a.get(arg);
            op.set(key, a.clamp(v, lowZeroRange(v), 0, 50));
        }
        const JsonReader rotate = a.get("rotate_limit");
        op.set("rotate", a.clamp(rotate, symmetricRange(rotate), -360, 360));
        const JsonReader beta = a.get("beta_limit");
        op.set("beta", a.clamp(beta, lowZeroRange(beta), 0, 20));
        const JsonReader noise = a.get("noise_limit");
        op.set("noise", a.clamp(noise, lowZeroRange(noise), 0, 10));
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        torchvisionOnlyKernelOp(e, x,
                                "AdvancedBlur(sizes=" + kernel_size::pyList(op.range(kernel_size::kKey)) +
                                    ", sigma_x=" + pyRange(op.range("sigma_x")) +
                                    ", sigma_y=" + pyRange(op.range("sigma_y")) +
                                    ", rotate=" + pyRange(op.range("rotate")) +
                                    ", beta=" + pyRange(op.range("beta")) + ", noise=" + pyRange(op.range("noise")) +
                                    ")",
                                "torch sums the kernel's taps in its own order and float32: a level apart "
                                "where a sum lies on a half.",
                                "a noisy generalised Gaussian kernel");
    }

    std::string pythonHelper(PythonTarget t) const override {
        if (t != PythonTarget::Torchvision) return {};
        return exporting::torchvisionFilter2DHelper() + R"(

class AdvancedBlur(Filter2D):
    """AugLab advanced_blur (Albumentations 2.0.8 AdvancedBlur): k from `sizes`, the sigmas and the
    rotation (degrees) uniform, beta uniform in [low, 1] or [1, high] with even odds; the taps
    exp(-0.5 (g^T S^-1 g)^beta) (g the tap's offset, x along the columns; S = R diag(sx^2, sy^2) R^T)
    times noise uniform in its range, each rounded to float32 and divided by the sum; correlated
    with the image (border reflect_101), rounded and clipped."""

    def __init__(self, sizes, sigma_x, sigma_y, rotate, beta, noise):
        super().__init__()
        self.sizes, self.sigma_x, self.sigma_y, self.rotate = sizes, sigma_x, sigma_y, rotate
        self.beta, self.noise = beta, noise

    @staticmethod
    def _uniform(lo, hi):
        return lo + (hi - lo) * float(torch.rand((), dtype=torch.float64))

    def kernel(self):
        import math

        k = self.sizes[int(torch.randint(len(self.sizes), ()))]
        sx = max(self._uniform(*self.sigma_x), 1e-3)
        sy = max(self._uniform(*self.sigma_y), 1e-3)
        a = math.radians(self._uniform(*self.rotate))
        beta = self._uniform(self.beta[0], 1.0) if float(torch.rand(())) < 0.5 else self._uniform(1.0, self.beta[1])
        u = torch.tensor([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], dtype=torch.float64)
        inverse = torch.linalg.inv(u @ torch.diag(torch.tensor([sx * sx, sy * sy], dtype=torch.float64)) @ u.T)
        axis = torch.arange(k, dtype=torch.float64) - k // 2
        g = torch.stack(torch.meshgrid(axis, axis, indexing="xy"), dim=-1)  # g[i, j] = (x_j, y_i)
        q = ((g @ inverse) * g).sum(-1)
        lo, hi = self.noise
        taps = torch.exp(-0.5 * q.pow(beta)) * (lo + (hi - lo) * torch.rand(k, k, dtype=torch.float64))
        return (taps.float().double() / taps.sum()).float()
)";
    }
};

}  // namespace

const OpModule& advancedBlurModule() {
    static const AdvancedBlurModule module;
    return module;
}

}  // namespace auglab
