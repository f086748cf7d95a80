// salt_and_pepper: Albumentations 2.0.8 SaltAndPepper. An amount and a salt share are drawn; of a
// width x height image, n = int(area x amount) pixels, chosen uniformly without replacement, become
// salt (the first int(n x share): white) or pepper (black), every colour channel. The library picks
// them with numpy's choice; AugLab takes the pixels with the smallest Philox keys (SaltPepperStep):
// the same counts, other pixels. A CPU kernel, run on the host by the GPU backends. Everything AugLab
// knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/salt_and_pepper.h"

#include <cmath>
#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "export_common.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "ops/replay_fields.h"
#include "plan.h"
#include "plan_builder.h"
#include "sampler.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;
using namespace params;

class SaltAndPepperModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(id, "salt_and_pepper", "Salt and pepper", OpCategory::Pixel,
                          "Albumentations SaltAndPepper: int(area x amount) pixels, chosen uniformly without "
                          "replacement, become white (salt: the first int(n x salt share)) or black "
                          "(pepper), every colour channel; alpha kept.",
                          {floatRange("amount", "Amount", "", 0, 1, {0.01, 0.06},
                                      "Share of the image's pixels that become salt or pepper, drawn "
                                      "uniformly."),
                           floatRange("salt_vs_pepper", "Salt share", "", 0, 1, {0.4, 0.6},
                                      "Share of those pixels that become salt (white), drawn uniformly; "
                                      "the rest pepper (black).")});
        params::typical(d, "amount", 0, 0.2);
        d.runsOnHost = true;
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        SaltPepperParams p;
        p.amount = d.uniform(1, op.range("amount"));
        p.saltShare = d.uniform(2, op.range("salt_vs_pepper"));
        p.noiseSeed = d.bits64(3);
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<SaltPepperParams>(params);
        j["amount"] = p.amount;
        j["salt_vs_pepper"] = p.saltShare;
        j["noise_seed"] = std::to_string(p.noiseSeed);  // a string: doubles would round it
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "amount", "salt_vs_pepper", "noise_seed"});
        SaltPepperParams p;
        p.amount = replay_fields::num(r, "amount", 0, 1);
        p.saltShare = replay_fields::num(r, "salt_vs_pepper", 0, 1);
        p.noiseSeed = r.member("noise_seed").unsignedInteger64();
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<SaltPepperParams>(params);
        if (key == "amount") return {p.amount};
        if (key == "salt_vs_pepper") return {p.saltShare};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<SaltPepperParams>(params);
        // The library's counts (Python's int() of float64 products), for the stage's pixels: a display
        // tile draws the same shares of its own.
        const double area = double(b.stageWidth()) * double(b.stageHeight());
        const auto n = static_cast<std::uint64_t>(std::trunc(area * p.amount));
        const auto salt = static_cast<std::uint64_t>(std::trunc(double(n) * p.saltShare));
        if (n == 0) return;
        b.pixel(saltPepperStep(p.noiseSeed, b.stageWidth(), b.stageHeight(), salt, n - salt));
    }

    std::vector<std::string> albumentationsClasses() const override { return {"SaltAndPepper"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("SaltAndPepper", op.p);
        j["amount"] = pair(op.range("amount"));
        j["salt_vs_pepper"] = pair(op.range("salt_vs_pepper"));
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5}, {"amount", {0.01, 0.06}}, {"salt_vs_pepper", {0.4, 0.6}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        for (const char* key : {"amount", "salt_vs_pepper"}) {
            const JsonReader v = a.get(key);
            op.set(key, a.clamp(v, pair(v), 0, 1));
        }
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.helperUsed = true;
                x.lines += "    " +
                           torchvisionWithP("SaltAndPepper(amount=" + pyRange(op.range("amount")) +
                                                ", salt_vs_pepper=" + pyRange(op.range("salt_vs_pepper")) + ")",
                                            op.p) +
                           ",\n";
                x.warnings.push_back(e.label() +
                                     ": torch chooses the pixels with its own generator (AugLab with Philox): "
                                     "the same counts, other pixels.");
                return;
            case PythonTarget::Keras:
                notExported(e, x,
                            e.label() + ": the Keras export has no salt and pepper layer yet (exact counts "
                                        "of pixels chosen without replacement per image); left out.");
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                x.lines += "    # " + e.label() + "\n";
                notExported(e, x,
                            e.label() + ": DALI's salt and pepper noise draws each pixel on its own (not exact "
                                        "counts) and treats alpha as a colour; left out of the DALI pipeline.");
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        if (t != PythonTarget::Torchvision) return {};
        return R"(

class SaltAndPepper(torch.nn.Module):
    """AugLab salt_and_pepper (Albumentations 2.0.8 SaltAndPepper): the amount and the salt share
    drawn uniformly; n = int(area x amount) pixels chosen uniformly without replacement, the first
    int(n x share) white, the rest black, every colour channel; alpha kept."""

    def __init__(self, amount, salt_vs_pepper):
        super().__init__()
        self.amount, self.salt_vs_pepper = amount, salt_vs_pepper

    def forward(self, img):  # uint8 tensor, C x H x W
        h, w = img.shape[-2:]
        lo, hi = self.amount
        amount = lo + (hi - lo) * float(torch.rand((), dtype=torch.float64))
        lo, hi = self.salt_vs_pepper
        share = lo + (hi - lo) * float(torch.rand((), dtype=torch.float64))
        n = int(h * w * amount)
        salt = int(n * share)
        chosen = torch.randperm(h * w)[:n]
        out = img.clone(memory_format=torch.contiguous_format)
        colour = out[:3].reshape(3, h * w)
        colour[:, chosen[:salt]] = 255
        colour[:, chosen[salt:]] = 0
        return out
)";
    }
};

}  // namespace

const OpModule& saltAndPepperModule() {
    static const SaltAndPepperModule module;
    return module;
}

}  // namespace auglab
