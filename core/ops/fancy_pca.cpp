// fancy_pca: Albumentations 2.0.8 FancyPCA on 8-bit RGB (pixel/functional.py fancy_pca): three
// weights N(0, alpha) drawn per sample (float32, one per principal component, largest first), then
// a FancyPcaStep (core/plan.h): the image's colour covariance, its eigenpairs, and each pixel moved by
// V diag(weights * eigenvalues) applied to its centred colour, as the library does it. The library's
// eigenvector signs are LAPACK's; AugLab's follow a stated rule (largest component positive), so a
// sample's replay gives the library the same pixels once each weight is given the sign that maps one
// eigenvector to the other (the parity test does that); the distribution is the same, the weights
// being symmetric. Alpha is kept (the library would fold it into a 4-channel PCA). The CUDA backend runs
// the step on the device (the statistics summed in the CPU's orders); the GL backend on the host, its
// per-pixel maths being float64 (OpDesc::runsOnHostGl).
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/fancy_pca.h"

#include <algorithm>
#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
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

constexpr std::uint32_t kWeightDraw = 1;  // draws 1, 2, 3
constexpr double kAlphaMax = 10;

class FancyPcaModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d =
            makeOp(id, "fancy_pca", "Fancy PCA", OpCategory::Pixel,
                   "Albumentations 2.0.8 FancyPCA (AlexNet's colour augmentation): colours moved along "
                   "the image's own principal colour axes, by normal weights of std alpha.",
                   {number("alpha", "Alpha", "std", 0, kAlphaMax, 0.1,
                           "The std of each principal component's weight: 0.1 is AlexNet's.")});
        params::typical(d, "alpha", 0, 1);
        d.runsOnHostGl = true;
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        FancyPcaParams p;
        for (std::uint32_t i = 0; i < 3; ++i)
            p.alpha[i] = static_cast<float>(d.normal(kWeightDraw + i) * op.number("alpha"));
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<FancyPcaParams>(params);
        j["alpha_vector"] = {p.alpha[0], p.alpha[1], p.alpha[2]};
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "alpha_vector"});
        const JsonReader v = r.member("alpha_vector");
        if (v.arraySize() != 3) v.fail("expected the 3 weights of the principal components");
        FancyPcaParams p;
        for (std::size_t i = 0; i < 3; ++i) p.alpha[i] = static_cast<float>(v.element(i).numberIn(-1e6, 1e6));
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<FancyPcaParams>(params);
        if (key == "alpha") return {p.alpha[0], p.alpha[1], p.alpha[2]};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        b.pixel(FancyPcaStep{std::get<FancyPcaParams>(params).alpha});
    }

    std::vector<std::string> albumentationsClasses() const override { return {"FancyPCA"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        Json j = exporting::start("FancyPCA", e.op->p);
        j["alpha"] = e.op->number("alpha");
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5}, {"alpha", 0.1}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        const JsonReader r = a.get("alpha");
        const double v = r.number();
        if (v < 0) a.fail(r, "alpha must be at least 0");
        if (v > kAlphaMax)
            a.warn(r, "alpha " + formatNumber(v) + " limited to " + formatNumber(kAlphaMax) + ".");
        op.set("alpha", std::min(v, kAlphaMax));
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        exporting::onlyInAlbumentations(e, x, "FancyPCA");
    }
};

}  // namespace

const OpModule& fancyPcaModule() {
    static const FancyPcaModule module;
    return module;
}

}  // namespace auglab
