// defocus: Albumentations 2.0.8 Defocus. A radius (integer, inclusive range) and a sigma are drawn; the
// kernel is a disc of that radius, normalised and softened by cv2.GaussianBlur, correlated with the
// image as cv2.filter2D (a ConvolveStep: every backend has it). OpenCV convolves a kernel of 17 x 17
// or more through its DFT; the direct sum differs from it by a level on a few pixels at most
// (measured: none to 0.002% of the values on the bundled photos). Everything AugLab knows about the op is
// here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/defocus.h"

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

constexpr int kMaxRadius = 30;  // a 61 x 61 kernel: 3,700 taps a pixel

// cv::getGaussianKernel(n, sigma) for n = 3 or 5, as float32: OpenCV's fixed table when sigma <= 0,
// else exp(-x^2 / (2 sigma^2)) normalised to sum 1 (computed in double, stored as float).
std::vector<float> opencvGaussian(int n, double sigma) {
    if (sigma <= 0) {
        if (n == 3) return {0.25f, 0.5f, 0.25f};
        return {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
    }
    std::vector<double> k(static_cast<std::size_t>(n));
    const double scale = -0.5 / (sigma * sigma);
    double sum = 0;
    for (int i = 0; i < n; ++i) {
        const double x = i - (n - 1) * 0.5;
        k[static_cast<std::size_t>(i)] = std::exp(scale * x * x);
        sum += k[static_cast<std::size_t>(i)];
    }
    std::vector<float> out(k.size());
    for (std::size_t i = 0; i < k.size(); ++i) out[i] = static_cast<float>(k[i] / sum);
    return out;
}

int reflect101(int i, int n) {
    if (n == 1) return 0;
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

}  // namespace

std::vector<float> defocusKernel(int radius, double aliasBlur) {
    const int half = std::max(8, radius), side = 2 * half + 1;
    const std::size_t cells = static_cast<std::size_t>(side) * side;
    std::vector<float> disc(cells, 0.0f);
    int count = 0;
    for (int y = -half; y <= half; ++y)
        for (int x = -half; x <= half; ++x)
            if (x * x + y * y <= radius * radius) {
                disc[static_cast<std::size_t>((y + half) * side + x + half)] = 1.0f;
                ++count;
            }
    for (float& v : disc) v /= static_cast<float>(count);
    // cv2.GaussianBlur of the float32 matrix: rows, then columns, each a symmetric sum
    // centre * k0 + (left + right) * k1 (+ the next pair * k2) as OpenCV's small symmetric filters
    // sum it, border reflect_101.
    const std::vector<float> g = opencvGaussian(radius <= 8 ? 3 : 5, aliasBlur);
    const int r = static_cast<int>(g.size()) / 2;
    const auto at = [&](const std::vector<float>& m, int y, int x) {
        return m[static_cast<std::size_t>(reflect101(y, side) * side + reflect101(x, side))];
    };
    std::vector<float> rows(cells), out(cells);
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x) {
            float s = at(disc, y, x) * g[static_cast<std::size_t>(r)];
            for (int t = 1; t <= r; ++t) s += (at(disc, y, x - t) + at(disc, y, x + t)) * g[static_cast<std::size_t>(r + t)];
            rows[static_cast<std::size_t>(y * side + x)] = s;
        }
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x) {
            float s = at(rows, y, x) * g[static_cast<std::size_t>(r)];
            for (int t = 1; t <= r; ++t) s += (at(rows, y - t, x) + at(rows, y + t, x)) * g[static_cast<std::size_t>(r + t)];
            out[static_cast<std::size_t>(y * side + x)] = s;
        }
    return out;
}

namespace {

using Json = nlohmann::ordered_json;
using namespace params;

class DefocusModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(id, "defocus", "Defocus", OpCategory::Pixel,
                          "Albumentations Defocus: an out-of-focus lens. A disc of the drawn radius "
                          "(uniform over the range's integers), normalised, softened by a 3 x 3 Gaussian "
                          "(a 5 x 5 one past radius 8) of the drawn sigma, correlated with the image "
                          "(cv2.filter2D, border reflect_101).",
                          {intRange("radius", "Radius", "px", 1, kMaxRadius, {3, 10},
                                    "Radius of the blur disc, uniform over the range's integers."),
                           floatRange("alias_blur", "Edge softness", "px", 0, 10, {0.1, 0.5},
                                      "Sigma of the Gaussian that softens the disc's edge (0: OpenCV's "
                                      "sigma for the Gaussian's size).")});
        params::typical(d, "alias_blur", 0, 2);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        const Range r = op.range("radius");
        DefocusParams p;
        p.radius = static_cast<int>(d.randint(1, std::int64_t(r.min), std::int64_t(r.max)));
        p.alias_blur = d.uniform(2, op.range("alias_blur"));
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<DefocusParams>(params);
        j["radius"] = p.radius;
        j["alias_blur"] = p.alias_blur;
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "radius", "alias_blur"});
        DefocusParams p;
        p.radius = static_cast<int>(r.member("radius").integer(1, kMaxRadius));
        p.alias_blur = replay_fields::num(r, "alias_blur", 0, 10);
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<DefocusParams>(params);
        if (key == "radius") return {double(p.radius)};
        if (key == "alias_blur") return {p.alias_blur};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<DefocusParams>(params);
        // At tile scale the disc and its softening shrink with the image, so that the tile looks
        // like the full-resolution output scaled down.
        const double s = 0.5 * (b.sx() + b.sy());
        const bool full = std::abs(s - 1.0) < 1e-12;
        const int radius = full ? p.radius : static_cast<int>(std::lround(p.radius * s));
        if (radius < 1) return;
        std::vector<float> k = defocusKernel(radius, full ? p.alias_blur : p.alias_blur * s);
        const int side = 2 * std::max(8, radius) + 1;
        b.pixel(ConvolveStep{side, std::move(k)});
    }

    std::vector<std::string> albumentationsClasses() const override { return {"Defocus"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("Defocus", op.p);
        j["alias_blur"] = pair(op.range("alias_blur"));
        j["radius"] = intPair(op.range("radius"));
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5}, {"radius", {3, 10}}, {"alias_blur", {0.1, 0.5}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        // A number r means [1, r]; a number s for the sigma [0, s] (the library's shorthands).
        const JsonReader radius = a.get("radius");
        Range r = radius.json().is_number() ? Range{std::min(1.0, radius.number()), std::max(1.0, radius.number())}
                                            : pair(radius);
        if (r.min != std::trunc(r.min) || r.max != std::trunc(r.max))
            a.warn(radius, "radius: the library truncates it to whole pixels: read as [" +
                               formatNumber(std::trunc(r.min)) + ", " + formatNumber(std::trunc(r.max)) + "].");
        r = {std::trunc(r.min), std::trunc(r.max)};
        op.set("radius", a.clamp(radius, r, 1, kMaxRadius));
        const JsonReader alias = a.get("alias_blur");
        op.set("alias_blur", a.clamp(alias, lowZeroRange(alias), 0, 10));
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        torchvisionOnlyKernelOp(e, x,
                                "Defocus(radius=" + pyRange(op.range("radius")) +
                                    ", alias_blur=" + pyRange(op.range("alias_blur")) + ")",
                                "torch sums the kernel's taps in its own order and float32 (OpenCV through "
                                "its DFT): a level apart on a few pixels.",
                                "a disc kernel of a radius");
    }

    std::string pythonHelper(PythonTarget t) const override {
        if (t != PythonTarget::Torchvision) return {};
        return exporting::torchvisionFilter2DHelper() + R"(

class Defocus(Filter2D):
    """AugLab defocus (Albumentations 2.0.8 Defocus): the radius uniform over the range's integers and
    the edge's sigma uniform; a disc of that radius in a square of side 2 max(8, radius) + 1,
    normalised, blurred by OpenCV's 3 x 3 Gaussian (5 x 5 past radius 8, border reflect_101) of that
    sigma, correlated with the image (border reflect_101), rounded and clipped."""

    def __init__(self, radius, alias_blur):
        super().__init__()
        self.radius, self.alias_blur = radius, alias_blur

    @staticmethod
    def _gaussian(n, sigma):
        if sigma <= 0:
            return torch.tensor([0.25, 0.5, 0.25] if n == 3 else [0.0625, 0.25, 0.375, 0.25, 0.0625])
        x = torch.arange(n, dtype=torch.float64) - (n - 1) / 2
        g = torch.exp(-0.5 / (sigma * sigma) * x * x)
        return (g / g.sum()).float()

    def kernel(self):
        r = int(torch.randint(int(self.radius[0]), int(self.radius[1]) + 1, ()))
        lo, hi = self.alias_blur
        sigma = lo + (hi - lo) * float(torch.rand(()))
        half = max(8, r)
        axis = torch.arange(-half, half + 1)
        disc = ((axis[None, :] ** 2 + axis[:, None] ** 2) <= r * r).float()
        disc = disc / disc.sum()
        g = self._gaussian(3 if r <= 8 else 5, sigma)
        p = g.numel() // 2
        m = self._pad(disc[None, None], p)
        m = torch.nn.functional.conv2d(m, g[None, None, None, :])
        m = torch.nn.functional.conv2d(m, g[None, None, :, None])
        return m[0, 0]
)";
    }
};

}  // namespace

const OpModule& defocusModule() {
    static const DefocusModule module;
    return module;
}

}  // namespace auglab
