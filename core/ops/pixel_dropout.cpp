// pixel_dropout: Albumentations 2.0.8 PixelDropout. Each pixel (each of its values, per channel) is
// replaced with probability dropout_prob by drop_value, or by one value per channel drawn per image
// (the library's drop_value None: integers 0-254, numpy's integers(0, 255)). Which pixels drop comes
// from Philox keyed by a drawn seed (PixelDropoutStep), not numpy's generator: the same probability,
// other pixels. A CPU kernel, run on the host by the GPU backends. Everything AugLab knows about the
// op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/pixel_dropout.h"

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

using Json = nlohmann::ordered_json;
using namespace params;

// The library's drop_value None: numpy's integers(0, 255), 0-254.
constexpr int kRandomValueMax = 254;

class PixelDropoutModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "pixel_dropout", "Pixel dropout", OpCategory::Pixel,
            "Albumentations PixelDropout: each pixel (each of its values, per channel) replaced with the "
            "drop probability by the drop value, or by one random value per channel and image (0-254, "
            "the library's drop_value None). Boxes, keypoints and masks are left as they are (the library "
            "also drops boxes whose kept pixels fall under min_area or min_visibility, and drops mask "
            "pixels only with a mask_drop_value).",
            {number("dropout_prob", "Drop probability", "", 0, 1, 0.01,
                    "The probability of each pixel (each value, per channel) to be dropped."),
             boolean("per_channel", "Per channel", false,
                     "Drop each colour value on its own instead of whole pixels."),
             fill("drop_value", false, "The value of the dropped pixels (Albumentations' drop_value)."),
             boolean("random_value", "Random value", false,
                     "Drop to one value per channel drawn for each image, 0-254, instead of drop_value "
                     "(Albumentations' drop_value None).")});
        d.params[2].unusedWhenFlag = "random_value";  // drop_value
        d.runsOnHost = true;
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        PixelDropoutParams p;
        p.prob = op.number("dropout_prob");
        p.perChannel = op.flag("per_channel");
        p.noiseSeed = d.bits64(kNoiseKeyDraw);
        // Drawn whether or not they are used, so that the streams stay stable.
        std::array<int, 3> random{};
        for (int c = 0; c < 3; ++c)
            random[static_cast<std::size_t>(c)] = static_cast<int>(d.randint(3 + c, 0, kRandomValueMax));
        p.value = op.flag("random_value") ? random : op.fill("drop_value").rgb;
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<PixelDropoutParams>(params);
        j["dropout_prob"] = p.prob;
        j["per_channel"] = p.perChannel;
        j["drop_value"] = Json::array({p.value[0], p.value[1], p.value[2]});
        j["noise_seed"] = std::to_string(p.noiseSeed);  // a string: doubles would round it
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "dropout_prob", "per_channel", "drop_value", "noise_seed"});
        PixelDropoutParams p;
        p.prob = replay_fields::num(r, "dropout_prob", 0, 1);
        p.perChannel = r.member("per_channel").boolean();
        const JsonReader v = r.member("drop_value");
        if (v.arraySize() != 3) v.fail("expected [r, g, b]");
        for (std::size_t c = 0; c < 3; ++c) p.value[c] = static_cast<int>(v.element(c).integer(0, 255));
        p.noiseSeed = r.member("noise_seed").unsignedInteger64();
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<PixelDropoutParams>(params);
        if (key == "drop_value") return {double(p.value[0]), double(p.value[1]), double(p.value[2])};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<PixelDropoutParams>(params);
        if (p.prob <= 0) return;
        PixelDropoutStep s;
        s.threshold = pixelDropThreshold(p.prob);
        s.perChannel = p.perChannel;
        s.seed = p.noiseSeed;
        for (std::size_t c = 0; c < 3; ++c) s.value[c] = static_cast<std::uint8_t>(p.value[c]);
        b.pixel(s);
    }

    std::vector<std::string> albumentationsClasses() const override { return {"PixelDropout"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("PixelDropout", op.p);
        j["drop_value"] = op.flag("random_value") ? Json() : fillValue(op.fill("drop_value"));
        j["dropout_prob"] = op.number("dropout_prob");
        j["mask_drop_value"] = nullptr;
        j["per_channel"] = op.flag("per_channel");
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5},
                {"dropout_prob", 0.01},
                {"per_channel", false},
                {"drop_value", 0},
                {"mask_drop_value", nullptr}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        const JsonReader prob = a.get("dropout_prob");
        op.set("dropout_prob", prob.numberIn(0, 1));
        op.set("per_channel", a.get("per_channel").boolean());
        const JsonReader value = a.get("drop_value");
        if (value.json().is_null()) {
            op.set("random_value", true);
        } else {
            // numpy puts the value into the uint8 image as np.full does: truncated.
            op.set("drop_value", readFill(value, a, false, FillCast::Truncated));
        }
        const JsonReader mask = a.get("mask_drop_value");
        if (!mask.json().is_null())
            a.leaveOut(mask, "mask_drop_value: the library then drops mask pixels too (with draws of their "
                             "own); AugLab leaves masks as they are, so the transform is left out rather "
                             "than read with another meaning.");
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        switch (x.target) {
            case PythonTarget::Torchvision: {
                x.helperUsed = true;
                const Fill& f = op.fill("drop_value");
                const std::string value =
                    op.flag("random_value")
                        ? "None"
                        : "(" + std::to_string(f.rgb[0]) + ", " + std::to_string(f.rgb[1]) + ", " +
                              std::to_string(f.rgb[2]) + ")";
                x.lines += "    " +
                           torchvisionWithP("PixelDropout(dropout_prob=" + formatNumber(op.number("dropout_prob")) +
                                                ", per_channel=" + (op.flag("per_channel") ? "True" : "False") +
                                                ", drop_value=" + value + ")",
                                            op.p) +
                           ",\n";
                x.warnings.push_back(e.label() +
                                     ": torch draws which pixels drop with its own generator (AugLab with "
                                     "Philox): the same probability, other pixels.");
                return;
            }
            case PythonTarget::Keras:
                notExported(e, x, e.label() + ": the Keras export has no pixel dropout layer yet; left out.");
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                x.lines += "    # " + e.label() + "\n";
                notExported(e, x, e.label() + ": the DALI export has no pixel dropout yet; left out of the DALI pipeline.");
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        if (t != PythonTarget::Torchvision) return {};
        return R"(

class PixelDropout(torch.nn.Module):
    """AugLab pixel_dropout (Albumentations 2.0.8 PixelDropout): each pixel (each value, per_channel)
    replaced with probability dropout_prob by drop_value, or by one value per channel drawn per
    image, 0-254 (drop_value None); alpha kept."""

    def __init__(self, dropout_prob, per_channel, drop_value):
        super().__init__()
        self.dropout_prob, self.per_channel, self.drop_value = dropout_prob, per_channel, drop_value

    def forward(self, img):  # uint8 tensor, C x H x W
        h, w = img.shape[-2:]
        if self.drop_value is None:
            value = torch.randint(0, 255, (3,), dtype=torch.uint8)
        else:
            value = torch.tensor(self.drop_value, dtype=torch.uint8)
        shape = (3, h, w) if self.per_channel else (1, h, w)
        drop = (torch.rand(shape) < self.dropout_prob).expand(3, h, w)
        out = img.clone()
        out[:3] = torch.where(drop, value[:, None, None].expand(3, h, w), img[:3])
        return out
)";
    }
};

}  // namespace

const OpModule& pixelDropoutModule() {
    static const PixelDropoutModule module;
    return module;
}

}  // namespace auglab
