// equalize: Albumentations 2.0.8 Equalize on 8-bit images (pixel/functional.py equalize): the
// image's own histogram made flat, per colour channel or on the luma of OpenCV's 8-bit YCrCb (Cr
// and Cb kept), with cv2.equalizeHist's table (mode "cv") or the library's Pillow-style one
// (mode "pil"); core/colour.h equalizeLut. Nothing is drawn. The library's `mask` (an array or a
// function of the data) has no AugLab equivalent. Alpha is kept (the library refuses four channels).
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/equalize.h"

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

class EqualizeModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        return makeOp(id, "equalize", "Equalize", OpCategory::Pixel,
                      "Albumentations 2.0.8 Equalize: the image's histogram made flat, per colour channel "
                      "or on the luma (OpenCV's 8-bit YCrCb), with OpenCV's or Pillow's table.",
                      {
                          choice("mode", "Table", {"cv", "pil"}, "cv",
                                 "cv: cv2.equalizeHist's table; pil: the library's Pillow-style one."),
                          boolean("by_channels", "Per channel", true,
                                  "Each of R, G, B equalised on its own; off: the luma only, colours kept."),
                      });
    }

    OpParams sample(const OpConfig& op, const OpDraws&, int, int) const override {
        return EqualizeParams{op.choice("mode") == "pil", op.flag("by_channels")};
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<EqualizeParams>(params);
        j["mode"] = p.pil ? "pil" : "cv";
        j["by_channels"] = p.byChannels;
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "mode", "by_channels"});
        return EqualizeParams{eitherOf(r.member("mode"), "cv", "pil") == "pil",
                              r.member("by_channels").boolean()};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<EqualizeParams>(params);
        b.pixel(EqualizeStep{p.pil, p.byChannels});
    }

    std::vector<std::string> albumentationsClasses() const override { return {"Equalize"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        Json j = start("Equalize", e.op->p);
        j["by_channels"] = e.op->flag("by_channels");
        j["mask"] = nullptr;
        j["mode"] = e.op->choice("mode");
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5},
                {"mode", "cv"},
                {"by_channels", true},
                {"mask", nullptr},
                {"mask_params", Json::array()}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        const JsonReader mode = a.get("mode");
        op.set("mode", eitherOf(mode, "cv", "pil"));
        op.set("by_channels", a.get("by_channels").boolean());
        const JsonReader mask = a.get("mask");
        if (!mask.json().is_null())
            a.leaveOut(mask,
                       "a mask (an array, or a function of the data) choosing the pixels the histogram "
                       "counts has no AugLab equivalent: Equalize left out.");
        if (const std::optional<JsonReader> params = a.find({"mask_params"});
            params && !params->json().empty() && !a.leftOut())
            a.warn(*params, "mask_params only name the mask function's inputs: ignored (no mask).");
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        const bool pil = op.choice("mode") == "pil";
        if (!op.flag("by_channels") && x.target != PythonTarget::TfDeotte) {
            notExported(e, x,
                        L + ": " + pythonTargetName(x.target) +
                            " has no equalisation of the luma (by_channels off): not exported (the "
                            "albumentations export has it).");
            return;
        }
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.helperUsed = true;
                x.lines +=
                    "    " +
                    torchvisionWithP(std::string("Equalize(pil=") + (pil ? "True" : "False") + ")", op.p) +
                    ",\n";
                return;
            case PythonTarget::Keras:
                x.helperUsed = true;
                x.lines += "    " +
                           kerasWithP(std::string("Equalize(pil=") + (pil ? "True" : "False") + ")", op.p) +
                           ",\n";
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                if (pil) {
                    notExported(e, x,
                                L + ": DALI's fn.equalize is OpenCV's table, not Pillow's (mode pil): not "
                                    "exported (the albumentations export has it).");
                    return;
                }
                x.lines += "    # " + L + "\n";
                x.lines += "    images = _maybe(images, fn.equalize(images), " + daliCoin(op.p) + ")\n";
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return R"(

class Equalize(torch.nn.Module):
    """AugLab equalize (Albumentations Equalize) per colour channel: the table of cv2.equalizeHist
    (pil False) or the library's Pillow-style one, from the image's own histogram; alpha kept."""

    def __init__(self, pil=False):
        super().__init__()
        self.pil = pil

    def table(self, channel):
        hist = torch.bincount(channel.flatten().long(), minlength=256)
        cum = torch.cumsum(hist, 0)
        keep = torch.arange(256, dtype=torch.uint8)
        present = torch.nonzero(hist).flatten()
        if self.pil:
            step = (int(cum[-1]) - int(hist[present[-1]])) // 255 if len(present) > 1 else 0
            if step == 0:
                return keep
            return torch.clamp((cum + step // 2) // step, max=255).to(torch.uint8)
        first = int(present[0])
        total = int(cum[-1])
        if int(hist[first]) == total:
            return keep
        scale = torch.tensor(255.0, dtype=torch.float32) / torch.tensor(float(total - int(hist[first])), dtype=torch.float32)
        lut = torch.round((cum - cum[first]).to(torch.float32) * scale).clamp(0, 255)
        return lut.to(torch.uint8)

    def forward(self, img):  # uint8 tensor, C x H x W
        out = img.clone()
        for c in range(3):
            out[c] = self.table(img[c])[img[c].long()]
        return out
)";
            case PythonTarget::Keras:
                return R"(

class Equalize(keras.layers.Layer):
    """AugLab equalize (Albumentations Equalize) per colour channel, per image: the table of
    cv2.equalizeHist (pil False) or the library's Pillow-style one, from the image's own
    histogram; alpha kept."""

    def __init__(self, pil=False, **kwargs):
        super().__init__(**kwargs)
        self.pil = pil

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        x = ops.cast(images, "float32")
        rgb = ops.cast(x[..., :3], "int32")
        n = ops.shape(x)[0]
        offsets = ops.reshape(ops.arange(n * 3, dtype="int32") * 256, (n, 1, 1, 3))
        hist = ops.reshape(ops.bincount(ops.reshape(rgb + offsets, (-1,)), minlength=n * 3 * 256), (n, 3, 256))
        hist = ops.cast(hist, "int32")
        cum = ops.cumsum(hist, axis=-1)
        total = cum[..., -1:]
        levels = ops.arange(256, dtype="int32")
        present = hist > 0
        if self.pil:
            last = ops.max(ops.where(present, levels, -1), axis=-1, keepdims=True)
            last_count = ops.take_along_axis(hist, last, axis=-1)
            step = (total - last_count) // 255
            lut = ops.minimum((cum + step // 2) // ops.maximum(step, 1), 255)
            lut = ops.where(step == 0, levels, lut)
        else:
            first = ops.min(ops.where(present, levels, 256), axis=-1, keepdims=True)
            first_count = ops.take_along_axis(hist, first, axis=-1)
            below = ops.take_along_axis(cum, first, axis=-1)
            scale = 255.0 / ops.cast(ops.maximum(total - first_count, 1), "float32")
            lut = ops.clip(ops.round(ops.cast(cum - below, "float32") * scale), 0.0, 255.0)
            lut = ops.where(first_count == total, ops.cast(levels, "float32"), lut)
        flat = ops.reshape(ops.cast(lut, "float32"), (-1,))
        out = ops.take(flat, rgb + offsets)
        return ops.concatenate([out, x[..., 3:]], axis=-1)
)";
            case PythonTarget::TfDeotte:
            case PythonTarget::Dali:
                return {};
        }
        return {};
    }
};

}  // namespace

const OpModule& equalizeModule() {
    static const EqualizeModule module;
    return module;
}

}  // namespace auglab
