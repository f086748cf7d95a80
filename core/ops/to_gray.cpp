// to_gray: OpenCV RGB2GRAY written to all three channels.
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/to_gray.h"

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

class ToGrayModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d =
            makeOp(id, "to_gray", "To gray", OpCategory::Pixel,
                   "OpenCV RGB2GRAY (0.299, 0.587, 0.114 in fixed point) written to all three channels.", {});
        return d;
    }

    OpParams sample(const OpConfig&, const OpDraws&, int, int) const override { return GrayParams{}; }

    void writeReplay(const OpParams&, Json&) const override {}

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied"});
        return GrayParams{};
    }

    void lower(const OpParams&, PlanBuilder& b) const override { b.pixel(GrayStep{}); }

    std::vector<std::string> albumentationsClasses() const override { return {"ToGray"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("ToGray", op.p);
        j["method"] = "weighted_average";
        j["num_output_channels"] = 3;
        return j;
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig&) const override {
        using namespace exporting;
        if (const std::optional<JsonReader> n = a.find({"num_output_channels"}); n && n->number() != 3)
            a.warn(*n, "AugLab writes gray to all three channels (num_output_channels 3).");
        if (const std::optional<JsonReader> m = a.find({"method"}); m && m->string() != "weighted_average")
            a.warn(*m, "AugLab's gray is \"weighted_average\" (OpenCV RGB2GRAY).");
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        switch (x.target) {
            case PythonTarget::Torchvision: {
                std::string& lines = x.lines;
                // torchvision's Grayscale truncates 0.2989 R + 0.587 G + 0.114 B (half the pixels a level
                // darker than OpenCV's rounded fixed point): an exact helper instead.
                x.helperUsed = true;
                lines += "    " + torchvisionWithP("Gray()", op.p) + ",\n";
                return;
            }
            case PythonTarget::Keras: {
                std::string& lines = x.lines;
                // Keras' RandomGrayscale weighs in float: a helper computes OpenCV's fixed point exactly.
                lines += "    " + kerasWithP("Gray()", op.p) + ",\n";
                return;
            }
            case PythonTarget::TfDeotte: {
                std::string& steps = x.lines;
                steps += tfGated(op.p, "to_gray(image)");
                return;
            }
            case PythonTarget::Dali: {
                std::string& s = x.lines;
                const std::string on = daliCoin(op.p);
                s += "    # " + L + "\n";
                s += "    images = _maybe(images, _gray(images), " + on + ")\n";
                return;
            }
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return R"(

class Gray(torch.nn.Module):
    """AugLab to_gray, OpenCV's RGB->GRAY in integers: (9798 R + 19235 G + 3735 B + 2^14) >> 15."""

    def forward(self, img):  # uint8 tensor, ... x C x H x W
        r, g, b = (img[..., i, :, :].int() for i in range(3))
        out = img.clone()
        out[..., :3, :, :] = ((r * 9798 + g * 19235 + b * 3735 + 16384) >> 15).to(img.dtype).unsqueeze(-3)
        return out
)";
            case PythonTarget::Keras:
                return R"(

class Gray(keras.layers.Layer):
    """AugLab to_gray, OpenCV's RGB->GRAY fixed point: (9798 R + 19235 G + 3735 B + 2^14) >> 15."""

    def call(self, images, training=True):
        x = keras.ops.round(keras.ops.cast(images, "float32"))
        g = keras.ops.floor((x[..., 0:1] * 9798.0 + x[..., 1:2] * 19235.0 + x[..., 2:3] * 3735.0 + 16384.0) / 32768.0)
        return keras.ops.concatenate([g, g, g, x[..., 3:]], axis=-1)
)";
            case PythonTarget::TfDeotte:
                return R"(

def to_gray(image):
    x = tf.cast(image, tf.int32)
    g = (9798 * x[..., 0] + 19235 * x[..., 1] + 3735 * x[..., 2] + 16384) // 32768  # OpenCV RGB2GRAY
    return tf.cast(tf.concat([tf.stack([g, g, g], axis=-1), x[..., 3:]], axis=-1), tf.float32)
)";
            case PythonTarget::Dali:
                return R"(

def _gray(images):
    """OpenCV's RGB->GRAY in its fixed point, (9798 R + 19235 G + 3735 B + 2^14) >> 15: exact in float."""
    v = fn.cast(images, dtype=types.FLOAT)
    g = dmath.floor((v[:, :, 0] * 9798.0 + v[:, :, 1] * 19235.0 + v[:, :, 2] * 3735.0 + 16384.0) / 32768.0)
    return fn.stack(g, g, g, axis=2)
)";
        }
        return {};
    }
    bool pythonHelperAlways(PythonTarget t) const override { return t != PythonTarget::Torchvision; }
};

}  // namespace

const OpModule& toGrayModule() {
    static const ToGrayModule module;
    return module;
}

}  // namespace auglab
