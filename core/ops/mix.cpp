// mixup and cutmix: a partner image per sample (SPEC §3), one module class for both. MixUp blends
// the whole partner in, lambda ~ Beta(alpha, alpha); CutMix pastes a box of the partner, drawn as
// torchvision.transforms.v2.CutMix draws it (a uniform centre, half-sides int(0.5 sqrt(1 - lambda)
// W) and H likewise, clipped to the image), so its effective lambda is 1 - box area / image area.
// The partner is drawn from the pool the caller gives the sampler (PartnerPool) and resized to the
// image the op works on (bindPartners, partners.h).
// Everything AugLab knows about the ops is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/mix.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "albumentations_common.h"
#include "export_common.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "ops/replay_fields.h"
#include "plan_builder.h"
#include "sampler.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;
using namespace replay_fields;

// Draw numbers: 1 lambda, 2 the partner, 3 and 4 cutmix's centre.
constexpr std::uint32_t kLambdaDraw = 1, kPartnerDraw = 2, kCentreXDraw = 3, kCentreYDraw = 4;

class MixModule final : public OpModule {
public:
    explicit MixModule(bool paste) : paste_(paste) {}

    OpDesc describe(OpId id) const override {
        OpDesc d = describeOp(id);
        d.usesPartner = true;
        return d;
    }

    OpDesc describeOp(OpId id) const {
        using namespace params;
        if (!paste_)
            return makeOp(id, "mixup", "MixUp", OpCategory::Pixel,
                          "Blends a partner image in: lambda * image + (1 - lambda) * partner, lambda ~ "
                          "Beta(alpha, alpha). The partner is another loaded image (dataset mode: another "
                          "file of the folder), resized to this image; with one image loaded it is the image "
                          "itself, and the blend changes nothing.",
                          {number("alpha", "Alpha", "", 0.01, 100, 0.4,
                                  "Beta(alpha, alpha) shape: small values keep lambda near 0 or 1 (one image "
                                  "dominates), 1 is uniform, large values mix near half and half.")});
        return makeOp(id, "cutmix", "CutMix", OpCategory::Pixel,
                      "Pastes a box of a partner image: lambda ~ Beta(alpha, alpha), a box of about (1 - "
                      "lambda) of the area at a uniform centre, clipped to the image (torchvision's "
                      "v2.CutMix). The partner is another loaded image, resized to this image; the "
                      "effective lambda (1 - box area / image area) is the label weight.",
                      {number("alpha", "Alpha", "", 0.01, 100, 1.0,
                              "Beta(alpha, alpha) shape of lambda, the share of the image kept.")});
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int width, int height) const override {
        MixParams m;
        const double alpha = op.number("alpha");
        m.lambda = d.beta(kLambdaDraw, alpha, alpha);
        m.partner = d.partner(kPartnerDraw);
        m.partners = d.pool().count;
        m.effectiveLambda = m.lambda;
        if (paste_) {
            const auto cx = static_cast<int>(d.randint(kCentreXDraw, 0, width - 1));
            const auto cy = static_cast<int>(d.randint(kCentreYDraw, 0, height - 1));
            const double r = 0.5 * std::sqrt(1.0 - m.lambda);
            const int halfW = static_cast<int>(r * width), halfH = static_cast<int>(r * height);
            const int x0 = std::max(cx - halfW, 0), y0 = std::max(cy - halfH, 0);
            const int x1 = std::min(cx + halfW, width), y1 = std::min(cy + halfH, height);
            m.box = Hole{x0, y0, x1 - x0, y1 - y0};
            m.effectiveLambda =
                1.0 - static_cast<double>(m.box.w) * m.box.h / (static_cast<double>(width) * height);
        }
        return m;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& m = std::get<MixParams>(params);
        j["partner"] = m.partner;
        j["partners"] = m.partners;
        if (!m.partnerPath.empty()) j["partner_path"] = m.partnerPath;
        j["lambda"] = m.lambda;
        if (paste_) {
            j["box_px"] = Json::array({m.box.x, m.box.y, m.box.x + m.box.w, m.box.y + m.box.h});
            j["effective_lambda"] = m.effectiveLambda;
        }
    }

    OpParams readReplay(const JsonReader& r) const override {
        if (paste_)
            r.requireObject({"op", "applied", "partner", "partners", "partner_path", "lambda", "box_px",
                             "effective_lambda"});
        else
            r.requireObject({"op", "applied", "partner", "partners", "partner_path", "lambda"});
        MixParams m;
        m.partners = r.member("partners").unsignedInteger();
        if (m.partners < 1) r.member("partners").fail("expected at least 1 image in the pool");
        m.partner = r.member("partner").unsignedInteger();
        if (m.partner >= m.partners)
            r.member("partner").fail("the partner must be one of the pool's " + std::to_string(m.partners) +
                                     " images (0 to " + std::to_string(m.partners - 1) + ")");
        if (r.has("partner_path")) m.partnerPath = r.member("partner_path").string();
        m.lambda = num(r, "lambda", 0, 1);
        m.effectiveLambda = m.lambda;
        if (paste_) {
            const JsonReader box = r.member("box_px");
            if (box.arraySize() != 4) box.fail("expected [x0, y0, x1, y1] in pixels");
            const int x0 = static_cast<int>(box.element(0).integer(0, 1 << 20));
            const int y0 = static_cast<int>(box.element(1).integer(0, 1 << 20));
            const int x1 = static_cast<int>(box.element(2).integer(x0, 1 << 20));
            const int y1 = static_cast<int>(box.element(3).integer(y0, 1 << 20));
            m.box = Hole{x0, y0, x1 - x0, y1 - y0};
            m.effectiveLambda = num(r, "effective_lambda", 0, 1);
        }
        return m;
    }

    void checkReplay(const OpParams& params, const JsonReader& r, int frameW, int frameH) const override {
        if (!paste_) return;
        const auto& m = std::get<MixParams>(params);
        if (m.box.x + m.box.w > frameW || m.box.y + m.box.h > frameH)
            r.member("box_px").fail("the box must lie inside the " + std::to_string(frameW) + "x" +
                                    std::to_string(frameH) + " image the op works on");
        const double expected =
            1.0 - static_cast<double>(m.box.w) * m.box.h / (static_cast<double>(frameW) * frameH);
        if (std::abs(expected - m.effectiveLambda) > 1e-9)
            r.member("effective_lambda")
                .fail("expected 1 - box area / image area = " + formatNumber(expected) + " for box_px");
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        if (key == "alpha") return {std::get<MixParams>(params).lambda};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& m = std::get<MixParams>(params);
        MixStep s;
        s.partnerIndex = m.partner;
        s.paste = paste_;
        s.weight = static_cast<std::uint32_t>(std::lround(m.lambda * 65536.0));
        if (paste_) {
            // Edges scaled as dropout holes' are (a tile shows the box where apply pastes it).
            const int x0 = static_cast<int>(std::lround(m.box.x * b.sx()));
            const int x1 = static_cast<int>(std::lround((m.box.x + m.box.w) * b.sx()));
            const int y0 = static_cast<int>(std::lround(m.box.y * b.sy()));
            const int y1 = static_cast<int>(std::lround((m.box.y + m.box.h) * b.sy()));
            s.box = Hole{x0, y0, x1 - x0, y1 - y0};
        }
        b.pixel(std::move(s));
    }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>& warnings) const override {
        warnings.push_back(
            e.label() + ": Albumentations 2.0 has no " + (paste_ ? "CutMix" : "MixUp") +
            " (it mixes one image at a time): left out of the Compose and kept in the \"auglab\" "
            "section, so importing the file restores it; the torchvision and Keras exports "
            "mix batches.");
        return nullptr;
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        const std::string alpha = pyFloat(op.number("alpha"));
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.lines += "    # " + L + ": batch-level, in collate_fn below\n";
                x.configs += "    " +
                             torchvisionWithP(std::string("v2.") + (paste_ ? "CutMix" : "MixUp") +
                                                  "(alpha=" + alpha + ", num_classes=NUM_CLASSES)",
                                              op.p) +
                             ",\n";
                x.warnings.push_back(
                    L + ": torchvision's v2." + (paste_ ? "CutMix" : "MixUp") +
                    " mixes a whole batch and its labels, in the DataLoader's collate function (collate_fn), "
                    "after every per-image transform: one lambda per batch, each image with the batch's "
                    "previous one; AugLab draws lambda and the partner per sample, at the op's place in the "
                    "pipeline." +
                    (paste_ ? "" : " The blend is rounded to 8 bits as AugLab does."));
                return;
            case PythonTarget::Keras:
                if (paste_ && op.number("alpha") > 1.0) {
                    notExported(e, x,
                                L + ": Keras' layers.CutMix takes alpha (its `factor`) in [0, 1] only: not "
                                    "exported (the torchvision export has it).");
                    return;
                }
                x.lines += "    # " + L + ": batch-level, in mix_batch below\n";
                x.configs += paste_ ? "    (layers.CutMix(factor=(" + alpha + ", " + alpha + ")), " +
                                          pyFloat(op.p) + "),\n"
                                    : "    (layers.MixUp(alpha=" + alpha + "), " + pyFloat(op.p) + "),\n";
                x.warnings.push_back(
                    L + ": Keras' layers." + (paste_ ? "CutMix" : "MixUp") +
                    " mixes a batch with its labels (mix_batch, after `augment`): lambda per image, the "
                    "partner "
                    "a shuffle of the batch (possibly the image itself)" +
                    (paste_
                         ? "; its box lies wholly inside the image (AugLab, as torchvision, clips a box "
                           "at a uniform centre), its label weight is the box's fractional area (the pixels "
                           "pasted may be a row and a column more), and alpha gains 1e-6."
                         : "; the blend stays in floats (AugLab rounds to 8 bits)."));
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                x.lines += "    # " + L + "\n";
                notExported(e, x,
                            L + ": DALI has no " + (paste_ ? "CutMix" : "MixUp") +
                                " across the samples of a batch: not exported (the torchvision and Keras "
                                "exports have it).");
                return;
        }
    }

private:
    bool paste_;
};

}  // namespace

const OpModule& mixupModule() {
    static const MixModule module(false);
    return module;
}

const OpModule& cutmixModule() {
    static const MixModule module(true);
    return module;
}

}  // namespace auglab
