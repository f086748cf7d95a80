// normalize, to_float, from_float and to_tensor: the tail of a training pipeline (Albumentations
// 2.0.8's Normalize, ToFloat, FromFloat and albumentations.pytorch's ToTensorV2). AugLab previews
// uint8 images, so these ops are training only: the preset keeps them (last in the pipeline), the
// grid shows the image before them, and the Albumentations exports write them back with every
// argument, so an import followed by an export keeps the user's tail. The other Python targets
// have their own normalisation and conversion steps: the ops are left out there, with a warning.
// Everything AugLab knows about the ops is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/training.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "error.h"
#include "export_common.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "plan_builder.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;
using namespace params;

enum class Tail { Normalize, ToFloat, FromFloat, ToTensor };

/// A number, or one number per channel (Albumentations takes either; a single-element list too).
Triple readTriple(exporting::TransformArgs& a, const JsonReader& r, double lower, double upper) {
    Triple t;
    if (r.json().is_number()) {
        t.v.fill(r.numberIn(lower, upper));
        return t;
    }
    const std::size_t n = r.arraySize();
    if (n == 1) {
        t.v.fill(r.element(0).numberIn(lower, upper));
        return t;
    }
    if (n != 3) a.fail(r, "expected a number or one per channel ([r, g, b])");
    for (std::size_t i = 0; i < 3; ++i) t.v[i] = r.element(i).numberIn(lower, upper);
    return t;
}

Json tripleJson(const Triple& t) {
    return Json::array({t.v[0], t.v[1], t.v[2]});
}

/// A max_value: null means the image type's maximum, 255 for the uint8 images AugLab augments.
double readMaxValue(const JsonReader& r) {
    return r.json().is_null() ? 255.0 : r.numberIn(1e-6, 1e9);
}

class TrainingModule final : public OpModule {
public:
    explicit TrainingModule(Tail tail) : tail_(tail) {}

    OpDesc describe(OpId id) const override {
        const std::string tailNote =
            " Training only: not previewed (the grid shows the image before it); last in the pipeline.";
        switch (tail_) {
            case Tail::Normalize:
                return makeOp(
                    id, "normalize", "Normalize", OpCategory::Training,
                    "Albumentations 2.0.8 Normalize: standard: (img - mean * max_pixel_value) / (std * "
                    "max_pixel_value) in float32; image / image_per_channel: (img - mean) / std of the image "
                    "(per channel); min_max / min_max_per_channel: to [0, 1] by the image's minimum and "
                    "maximum." +
                        tailNote,
                    {
                        triple("mean", "Mean", "fraction of max_pixel_value", -1e4, 1e4,
                               Triple{{0.485, 0.456, 0.406}}, "Per channel mean (standard normalisation)."),
                        triple("std", "Std", "fraction of max_pixel_value", 1e-9, 1e4,
                               Triple{{0.229, 0.224, 0.225}},
                               "Per channel standard deviation (standard normalisation)."),
                        number("max_pixel_value", "Max pixel value", "", 1e-6, 1e9, 255,
                               "What mean and std are fractions of."),
                        choice("normalization", "Normalization",
                               {"standard", "image", "image_per_channel", "min_max", "min_max_per_channel"},
                               "standard", "How the image is normalised."),
                    });
            case Tail::ToFloat:
                return makeOp(
                    id, "to_float", "To float", OpCategory::Training,
                    "Albumentations 2.0.8 ToFloat: float32 image / max_value." + tailNote,
                    {number("max_value", "Max value", "", 1e-6, 1e9, 255,
                            "The value that becomes 1.0 (255: the uint8 maximum, as max_value=None).")});
            case Tail::FromFloat:
                return makeOp(
                    id, "from_float", "From float", OpCategory::Training,
                    "Albumentations 2.0.8 FromFloat: rint(image * max_value), clipped to dtype's range." +
                        tailNote,
                    {choice("dtype", "Type", {"uint8", "uint16", "uint32"}, "uint8", "The output type."),
                     number("max_value", "Max value", "", 1e-6, 1e10, 255, "What 1.0 becomes.")});
            case Tail::ToTensor:
                return makeOp(id, "to_tensor", "To tensor (PyTorch)", OpCategory::Training,
                              "albumentations.pytorch ToTensorV2: the HxWxC image as a CxHxW torch tensor "
                              "(values unchanged)." +
                                  tailNote,
                              {boolean("transpose_mask", "Transpose mask", false,
                                       "Masks HxWxC become CxHxW tensors too.")});
        }
        throw std::logic_error("unknown training op");
    }

    OpParams sample(const OpConfig&, const OpDraws&, int, int) const override { return TrainingParams{}; }

    void writeReplay(const OpParams&, Json&) const override {}

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied"});
        return TrainingParams{};
    }

    /// Nothing to render: the preview is the image the training tail receives.
    void lower(const OpParams&, PlanBuilder&) const override {}

    std::vector<std::string> albumentationsClasses() const override { return {className()}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start(className(), op.p);
        switch (tail_) {
            case Tail::Normalize:
                j["max_pixel_value"] = op.number("max_pixel_value");
                j["mean"] = tripleJson(op.triple("mean"));
                j["normalization"] = op.choice("normalization");
                j["std"] = tripleJson(op.triple("std"));
                break;
            case Tail::ToFloat:
                j["max_value"] = op.number("max_value");
                break;
            case Tail::FromFloat: {
                j["dtype"] = op.choice("dtype");
                // The library fills in the dtype's maximum as an integer: a whole value is written so.
                const double m = op.number("max_value");
                if (m == std::floor(m) && m <= 4294967295.0)
                    j["max_value"] = static_cast<std::int64_t>(m);
                else
                    j["max_value"] = m;
                break;
            }
            case Tail::ToTensor:
                j["transpose_mask"] = op.flag("transpose_mask");
                break;
        }
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        switch (tail_) {
            case Tail::Normalize:
                return {{"p", 1.0},
                        {"mean", {0.485, 0.456, 0.406}},
                        {"std", {0.229, 0.224, 0.225}},
                        {"max_pixel_value", 255.0},
                        {"normalization", "standard"}};
            case Tail::ToFloat:
                return {{"p", 1.0}, {"max_value", nullptr}};
            case Tail::FromFloat:
                return {{"p", 1.0}, {"dtype", "uint8"}, {"max_value", nullptr}};
            case Tail::ToTensor:
                return {{"p", 1.0}, {"transpose_mask", false}};
        }
        return {};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        switch (tail_) {
            case Tail::Normalize: {
                op.set("normalization", [&] {
                    const JsonReader n = a.get("normalization");
                    const std::string s = n.string();
                    if (s != "standard" && s != "image" && s != "image_per_channel" && s != "min_max" &&
                        s != "min_max_per_channel")
                        a.fail(n, "unknown normalization \"" + s + "\"");
                    return s;
                }());
                const bool standard = op.choice("normalization") == "standard";
                for (const char* key : {"mean", "std"}) {
                    const JsonReader v = a.get(key);
                    if (v.json().is_null()) {
                        if (standard) a.fail(v, "standard normalization needs a value");
                        continue;  // unused by the other normalizations: the default stays
                    }
                    op.set(key, readTriple(a, v, key == std::string("std") ? 1e-9 : -1e4, 1e4));
                }
                op.set("max_pixel_value", a.get("max_pixel_value").numberIn(1e-6, 1e9));
                return;
            }
            case Tail::ToFloat:
                op.set("max_value", readMaxValue(a.get("max_value")));
                return;
            case Tail::FromFloat: {
                const JsonReader d = a.get("dtype");
                const std::string s = d.string();
                if (s != "uint8" && s != "uint16" && s != "uint32")
                    a.fail(d, "expected \"uint8\", \"uint16\" or \"uint32\"");
                op.set("dtype", s);
                const JsonReader m = a.get("max_value");
                // Albumentations takes the dtype's maximum when max_value is null.
                op.set("max_value", m.json().is_null() ? (s == "uint16"   ? 65535.0
                                                          : s == "uint32" ? 4294967295.0
                                                                          : 255.0)
                                                       : m.numberIn(1e-6, 1e10));
                return;
            }
            case Tail::ToTensor:
                op.set("transpose_mask", a.get("transpose_mask").boolean());
                return;
        }
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        if (x.target == PythonTarget::TfDeotte) {
            exporting::notInTfDeotte(e, x);
            return;
        }
        exporting::notExported(e, x,
                               e.label() + ": a training-only step (Albumentations' " + className() +
                                   "): not exported here; the albumentations exports keep it. Add your "
                                   "pipeline's own normalisation or conversion after these transforms.");
    }

private:
    const char* className() const {
        switch (tail_) {
            case Tail::Normalize:
                return "Normalize";
            case Tail::ToFloat:
                return "ToFloat";
            case Tail::FromFloat:
                return "FromFloat";
            case Tail::ToTensor:
                return "ToTensorV2";
        }
        return "";
    }

    Tail tail_;
};

}  // namespace

const OpModule& normalizeModule() {
    static const TrainingModule m(Tail::Normalize);
    return m;
}
const OpModule& toFloatModule() {
    static const TrainingModule m(Tail::ToFloat);
    return m;
}
const OpModule& fromFloatModule() {
    static const TrainingModule m(Tail::FromFloat);
    return m;
}
const OpModule& toTensorModule() {
    static const TrainingModule m(Tail::ToTensor);
    return m;
}

}  // namespace auglab
