// ringing_overshoot: Albumentations 2.0.8 RingingOvershoot. An odd kernel size (uniform over the odd
// sizes of blur_limit) and a cutoff frequency (uniform) are drawn; the kernel is the ideal circular
// low-pass filter's (a jinc: cutoff J1(cutoff r) / (2 pi r)) truncated to the square, normalised,
// and correlated with the image as cv2.filter2D (a ConvolveStep: every backend has it). OpenCV
// convolves kernels of 11 x 11 and more through its DFT; the direct sum differs from it by a level
// where the sum lies on a half. Everything AugLab knows about the op is here
// (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/ringing_overshoot.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "export_common.h"
#include "ops/kernel_blur.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "ops/replay_fields.h"
#include "plan_builder.h"
#include "sampler.h"

namespace auglab {

std::vector<float> ringingKernel(int ksize, double cutoff) {
    const double c = (ksize - 1) / 2.0;
    std::vector<double> k(static_cast<std::size_t>(ksize) * ksize);
    double sum = 0;
    for (int i = 0; i < ksize; ++i)
        for (int j = 0; j < ksize; ++j) {
            const double r = std::hypot(i - c, j - c);
            const double v = r == 0 ? cutoff * cutoff / (4 * std::numbers::pi)
                                    : cutoff * std::cyl_bessel_j(1.0, cutoff * r) / (2 * std::numbers::pi * r);
            k[static_cast<std::size_t>(i * ksize + j)] = v;
            sum += v;
        }
    std::vector<float> out(k.size());
    for (std::size_t i = 0; i < k.size(); ++i)
        out[i] = static_cast<float>(static_cast<double>(static_cast<float>(k[i])) / sum);
    return out;
}

namespace {

using Json = nlohmann::ordered_json;
using namespace params;

constexpr double kPi = std::numbers::pi;

class RingingOvershootModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        ParamDesc size = kernel_size::param(
            "Kernel side k, odd, drawn uniformly from the odd sizes of the range: the longer the "
            "kernel, the more rings.");
        size.defaultValue = Range{7, 15};
        OpDesc d = makeOp(id, "ringing_overshoot", "Ringing overshoot", OpCategory::Pixel,
                          "Albumentations RingingOvershoot: an ideal low-pass filter truncated to a k x k "
                          "square (the 2-D sinc, cutoff J1(cutoff r) / (2 pi r), normalised), which rings "
                          "and overshoots at edges as sharpened or resized images do; cv2.filter2D, "
                          "border reflect_101.",
                          {size, floatRange("cutoff", "Cutoff", "rad/px", 0, kPi, {kPi / 4, kPi / 2},
                                            "The filter's cutoff frequency, drawn uniformly: lower keeps "
                                            "less detail and rings wider (pi passes everything).")});
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        RingingParams p;
        p.ksize = kernel_size::sample(d, 1, op.range(kernel_size::kKey));
        p.cutoff = d.uniform(2, op.range("cutoff"));
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<RingingParams>(params);
        j[kernel_size::kKey] = p.ksize;
        j["cutoff"] = p.cutoff;
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", kernel_size::kKey, "cutoff"});
        RingingParams p;
        const JsonReader k = r.member(kernel_size::kKey);
        p.ksize = static_cast<int>(k.integer(3, 99));
        if (p.ksize % 2 == 0) k.fail("expected an odd kernel size");
        p.cutoff = replay_fields::num(r, "cutoff", 0, kPi);
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<RingingParams>(params);
        if (key == kernel_size::kKey) return {double(p.ksize)};
        if (key == "cutoff") return {p.cutoff};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<RingingParams>(params);
        const double s = 0.5 * (b.sx() + b.sy());
        if (std::abs(s - 1.0) < 1e-12) {
            b.pixel(ConvolveStep{p.ksize, ringingKernel(p.ksize, p.cutoff)});
            return;
        }
        // A display tile: the kernel shrinks with the image and its cutoff rises in the tile's pixels
        // (capped at pi, where the rings are finer than a tile's pixel), so that the tile looks like
        // the full-resolution output scaled down.
        const int k = 2 * static_cast<int>(std::floor(p.ksize * s / 2)) + 1;
        const double cutoff = std::min(kPi, p.cutoff / s);
        if (k < 3 || cutoff >= kPi) return;
        b.pixel(ConvolveStep{k, ringingKernel(k, cutoff)});
    }

    std::vector<std::string> albumentationsClasses() const override { return {"RingingOvershoot"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        int low = 0, high = 0;
        kernel_size::oddEnds(op.range(kernel_size::kKey), low, high);
        Json j = start("RingingOvershoot", op.p);
        j["blur_limit"] = Json::array({low, high});
        j["cutoff"] = pair(op.range("cutoff"));
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5}, {"blur_limit", {7, 15}}, {"cutoff", {kPi / 4, kPi / 2}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        kernel_size::readBlurLimit(a, op);
        const JsonReader cutoff = a.get("cutoff");
        op.set("cutoff", a.clamp(cutoff, pair(cutoff), 0, kPi));
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        torchvisionOnlyKernelOp(e, x,
                                "RingingOvershoot(sizes=" + kernel_size::pyList(op.range(kernel_size::kKey)) +
                                    ", cutoff=" + pyRange(op.range("cutoff")) + ")",
                                "torch sums the kernel's taps in its own order and float32 (OpenCV through "
                                "its DFT from 11 x 11): a level apart on a few pixels.",
                                "a sinc kernel");
    }

    std::string pythonHelper(PythonTarget t) const override {
        if (t != PythonTarget::Torchvision) return {};
        return exporting::torchvisionFilter2DHelper() + R"(


class RingingOvershoot(Filter2D):
    """AugLab ringing_overshoot (Albumentations 2.0.8 RingingOvershoot): k from `sizes` and the cutoff
    drawn uniformly; cutoff J1(cutoff r) / (2 pi r) at distance r from the kernel's centre
    (cutoff^2 / (4 pi) there), each tap rounded to float32 and divided by the sum; correlated with
    the image (border reflect_101), rounded and clipped."""

    def __init__(self, sizes, cutoff):
        super().__init__()
        self.sizes, self.cutoff = sizes, cutoff

    def kernel(self):
        import math

        k = self.sizes[int(torch.randint(len(self.sizes), ()))]
        lo, hi = self.cutoff
        cutoff = lo + (hi - lo) * float(torch.rand(()))
        axis = torch.arange(k, dtype=torch.float64) - (k - 1) / 2
        r = torch.hypot(axis[:, None], axis[None, :])
        taps = cutoff * torch.special.bessel_j1(cutoff * r) / (2 * math.pi * r)
        taps[k // 2, k // 2] = cutoff * cutoff / (4 * math.pi)
        return (taps.float().double() / taps.sum()).float()
)";
    }
};

}  // namespace

const OpModule& ringingOvershootModule() {
    static const RingingOvershootModule module;
    return module;
}

}  // namespace auglab
