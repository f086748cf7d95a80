// to_sepia: Albumentations 2.0.8 ToSepia, cv2.transform(img, M) with the fixed sepia matrix M (float64
// in the library, float in OpenCV's 8-bit path: coefficients round(m * 1024), sums + 512 shifted down
// by 10, saturated). channel_shuffle: Albumentations 2.0.8 ChannelShuffle, img[..., order] with a
// uniformly drawn permutation of R, G, B. Both are a ChannelMatrixStep on every backend; alpha is
// kept (the library's ToSepia refuses four channels; its ChannelShuffle shuffles alpha with them).
// Everything AugLab knows about the ops is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/channel_mix.h"

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

/// ToSepia's matrix, as the library writes it (rows R, G, B out; columns R, G, B in).
constexpr std::array<float, 9> kSepia{0.393f, 0.769f, 0.189f, 0.349f, 0.686f, 0.168f, 0.272f, 0.534f, 0.131f};

/// The six orders of R, G, B, in lexicographic order (a draw's index into them).
constexpr std::array<std::array<int, 3>, 6> kOrders{
    {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}};

constexpr std::uint32_t kOrderDraw = 1;  // draw 0 is the gate

/// The torchvision or Keras pipeline entry of a helper class without arguments, applied with p.
void helperEntry(PythonExport& x, const std::string& cls, double p) {
    x.helperUsed = true;
    const std::string call = cls + "()";
    x.lines += "    " +
               (x.target == PythonTarget::Torchvision ? exporting::torchvisionWithP(call, p)
                                                      : exporting::kerasWithP(call, p)) +
               ",\n";
}

class ToSepiaModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        return makeOp(id, "to_sepia", "To sepia", OpCategory::Pixel,
                      "Albumentations 2.0.8 ToSepia: the colours through the fixed sepia matrix "
                      "(0.393 R + 0.769 G + 0.189 B for red, and so on), as cv2.transform computes it on "
                      "8-bit images; alpha is kept.",
                      {});
    }

    OpParams sample(const OpConfig&, const OpDraws&, int, int) const override { return SepiaParams{}; }

    void writeReplay(const OpParams&, Json&) const override {}

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied"});
        return SepiaParams{};
    }

    void lower(const OpParams&, PlanBuilder& b) const override {
        b.pixel(ChannelMatrixStep::fromFloat(kSepia));
    }

    std::vector<std::string> albumentationsClasses() const override { return {"ToSepia"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        return exporting::start("ToSepia", e.op->p);
    }

    void readAlbumentations(exporting::TransformArgs&, OpConfig&) const override {}

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        switch (x.target) {
            case PythonTarget::Torchvision:
            case PythonTarget::Keras:
                helperEntry(x, "Sepia", op.p);
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                x.helperUsed = true;
                x.lines += "    # " + e.label() + "\n";
                x.lines += "    images = _maybe(images, _sepia(images), " + daliCoin(op.p) + ")\n";
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        // The coefficients are cv2.transform's, round(m * 1024): [[402, 787, 194], [357, 702, 172],
        // [279, 547, 134]]; the sums stay below 2^24, so float arithmetic is exact.
        switch (t) {
            case PythonTarget::Torchvision:
                return R"(

class Sepia(torch.nn.Module):
    """AugLab to_sepia (Albumentations ToSepia) in cv2.transform's 8-bit fixed point: each colour
    (402 R + 787 G + 194 B + 512) >> 10 for red, and likewise, saturated (alpha kept)."""

    matrix = ((402, 787, 194), (357, 702, 172), (279, 547, 134))

    def forward(self, img):  # uint8 tensor, ... x C x H x W
        r, g, b = (img[..., i, :, :].int() for i in range(3))
        out = img.clone()
        for c, (mr, mg, mb) in enumerate(self.matrix):
            out[..., c, :, :] = ((r * mr + g * mg + b * mb + 512) >> 10).clamp(0, 255).to(img.dtype)
        return out
)";
            case PythonTarget::Keras:
                return R"(

class Sepia(keras.layers.Layer):
    """AugLab to_sepia (Albumentations ToSepia) in cv2.transform's 8-bit fixed point: each colour
    floor((402 R + 787 G + 194 B + 512) / 1024) for red, and likewise, saturated (alpha kept)."""

    matrix = ((402.0, 787.0, 194.0), (357.0, 702.0, 172.0), (279.0, 547.0, 134.0))

    def call(self, images, training=True):
        ops = keras.ops
        x = ops.round(ops.cast(images, "float32"))
        rgb = [ops.clip(ops.floor((x[..., 0:1] * mr + x[..., 1:2] * mg + x[..., 2:3] * mb + 512.0) / 1024.0), 0.0, 255.0)
               for mr, mg, mb in self.matrix]
        return ops.cast(ops.concatenate(rgb + [x[..., 3:]], axis=-1), images.dtype)
)";
            case PythonTarget::Dali:
                return R"(

def _sepia(images):
    """AugLab to_sepia (Albumentations ToSepia) in cv2.transform's fixed point, exact in float."""
    v = fn.cast(images, dtype=types.FLOAT)
    out = [dmath.clamp(dmath.floor((v[:, :, 0] * mr + v[:, :, 1] * mg + v[:, :, 2] * mb + 512.0) / 1024.0), 0.0, 255.0)
           for mr, mg, mb in ((402.0, 787.0, 194.0), (357.0, 702.0, 172.0), (279.0, 547.0, 134.0))]
    return fn.cast(fn.stack(*out, axis=2), dtype=types.UINT8)
)";
            case PythonTarget::TfDeotte:
                return {};
        }
        return {};
    }
};

class ChannelShuffleModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        return makeOp(id, "channel_shuffle", "Channel shuffle", OpCategory::Pixel,
                      "Albumentations 2.0.8 ChannelShuffle: R, G and B in an order drawn uniformly from "
                      "the six; alpha is kept.",
                      {});
    }

    OpParams sample(const OpConfig&, const OpDraws& d, int, int) const override {
        ChannelShuffleParams p;
        p.order = kOrders[std::size_t(d.randint(kOrderDraw, 0, 5))];
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<ChannelShuffleParams>(params);
        j["channels"] = Json::array({p.order[0], p.order[1], p.order[2]});
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "channels"});
        ChannelShuffleParams p;
        p.order = replay_fields::readPermutation<3>(r.member("channels"), "channel",
                                                    "expected the order of R, G, B: 3 channel indices");
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        // The order's place in the lexicographic list of the six.
        if (key != "order") return {};
        const auto& p = std::get<ChannelShuffleParams>(params);
        for (std::size_t i = 0; i < kOrders.size(); ++i)
            if (kOrders[i] == p.order) return {double(i)};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<ChannelShuffleParams>(params);
        ChannelMatrixStep s;
        for (std::size_t c = 0; c < 3; ++c)
            s.m[3 * c + std::size_t(p.order[c])] = 1 << ChannelMatrixStep::kShift;
        b.pixel(s);
    }

    std::vector<std::string> albumentationsClasses() const override { return {"ChannelShuffle"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        return exporting::start("ChannelShuffle", e.op->p);
    }

    void readAlbumentations(exporting::TransformArgs&, OpConfig&) const override {}

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        switch (x.target) {
            case PythonTarget::Torchvision:
            case PythonTarget::Keras:
                helperEntry(x, "ChannelShuffle", op.p);
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                notExported(e, x,
                            e.label() +
                                ": AugLab's DALI export has no per-sample channel order: not exported (the "
                                "albumentations, torchvision and keras exports have it).");
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return R"(

class ChannelShuffle(torch.nn.Module):
    """AugLab channel_shuffle (Albumentations ChannelShuffle): R, G, B in a uniformly drawn order
    (alpha kept)."""

    def forward(self, img):  # uint8 tensor, C x H x W
        return torch.cat([img[torch.randperm(3)], img[3:]])
)";
            case PythonTarget::Keras:
                return R"(

class ChannelShuffle(keras.layers.Layer):
    """AugLab channel_shuffle (Albumentations ChannelShuffle): per image, R, G, B in a uniformly drawn
    order (the argsort of three uniform scores); alpha kept."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        b = ops.shape(images)[0]
        order = ops.argsort(keras.random.uniform((b, 1, 1, 3), seed=self.seed_generator), axis=-1)
        x = ops.cast(images, "float32")
        rgb = [sum(ops.where(order[..., c:c + 1] == j, x[..., j:j + 1], 0.0) for j in range(3)) for c in range(3)]
        return ops.cast(ops.concatenate(rgb + [x[..., 3:]], axis=-1), images.dtype)
)";
            case PythonTarget::Dali:
            case PythonTarget::TfDeotte:
                return {};
        }
        return {};
    }
};

}  // namespace

const OpModule& toSepiaModule() {
    static const ToSepiaModule module;
    return module;
}

const OpModule& channelShuffleModule() {
    static const ChannelShuffleModule module;
    return module;
}

}  // namespace auglab
