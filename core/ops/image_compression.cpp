// image_compression: Albumentations 2.0.8 ImageCompression. quality = randint(quality_range) (both
// ends included); the image is encoded and decoded as cv2.imencode(".jpg" or ".webp", img, quality)
// then cv2.imdecode do it, the RGB array handed to OpenCV as its BGR (CompressStep, plan.h): the
// library's pixels exactly. Alpha is kept (the library compresses it as a separate gray image).
// The codecs run on the host on every backend (host_steps.h).
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/image_compression.h"

#include <optional>
#include <string>

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

constexpr std::uint32_t kQualityDraw = 1;  // draw 0 is the gate

class ImageCompressionModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(id, "image_compression", "Image compression", OpCategory::Pixel,
                          "Albumentations 2.0.8 ImageCompression: the image saved and read back as a JPEG "
                          "or a lossy WebP at a quality drawn uniformly from `quality_range` (the codecs "
                          "OpenCV uses, with the library's pixels). Runs on the CPU on every backend.",
                          {choice("compression_type", "Codec", {"jpeg", "webp"}, "jpeg",
                                  "JPEG (4:2:0 chroma, as cv2.imencode writes it) or lossy WebP."),
                           intRange("quality_range", "Quality", "", 1, 100, {99, 100},
                                    "The encoder's quality, drawn uniformly with both ends included: lower "
                                    "means stronger block and ringing artefacts.")});
        typical(d, "quality_range", 20, 100);
        d.runsOnHost = true;
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        CompressionParams p;
        p.webp = op.choice("compression_type") == "webp";
        const Range r = op.range("quality_range");
        p.quality = static_cast<int>(
            d.randint(kQualityDraw, static_cast<std::int64_t>(r.min), static_cast<std::int64_t>(r.max)));
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<CompressionParams>(params);
        j["compression_type"] = p.webp ? "webp" : "jpeg";
        j["quality"] = p.quality;
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "compression_type", "quality"});
        CompressionParams p;
        p.webp = replay_fields::eitherOf(r.member("compression_type"), "jpeg", "webp") == "webp";
        p.quality = static_cast<int>(r.member("quality").integer(1, 100));
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        if (key == "quality_range") return {double(std::get<CompressionParams>(params).quality)};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<CompressionParams>(params);
        b.pixel(CompressStep{p.webp ? CompressStep::Codec::Webp : CompressStep::Codec::Jpeg, p.quality});
    }

    std::vector<std::string> albumentationsClasses() const override {
        return {"ImageCompression", "JpegCompression"};
    }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const Range r = e.op->range("quality_range");
        Json j = start("ImageCompression", e.op->p);
        j["compression_type"] = e.op->choice("compression_type");
        j["quality_range"] = Json::array({static_cast<int>(r.min), static_cast<int>(r.max)});
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5}, {"quality_range", {99, 100}}, {"compression_type", "jpeg"}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        // 2.x: quality_range. 1.x: quality_lower and quality_upper, which 1.4 still honours when set
        // beside its quality_range.
        std::int64_t lo = 99, hi = 100;
        const auto given = [](const std::optional<JsonReader>& r) { return r && !r->json().is_null(); };
        const std::optional<JsonReader> range = a.find({"quality_range"});
        const std::optional<JsonReader> lower = a.find({"quality_lower"}), upper = a.find({"quality_upper"});
        if (given(range)) {
            if (range->arraySize() != 2) a.fail(*range, "expected [min, max]");
            lo = range->element(0).integer(1, 100);
            hi = range->element(1).integer(1, 100);
            if (hi < lo) a.fail(*range, "the range's end is below its start");
        } else if (!given(lower) && !given(upper)) {
            a.noteDefault("quality_range", "[99, 100]");
        }
        if (given(lower)) lo = lower->integer(1, 100);
        if (given(upper)) hi = upper->integer(1, 100);
        if (hi < lo) a.fail(given(upper) ? *upper : *lower, "the quality's upper end is below its lower end");
        op.set("quality_range", Range{double(lo), double(hi)});
        if (a.cls() == "JpegCompression") {
            op.set("compression_type", std::string("jpeg"));
            return;
        }
        // 2.x writes "jpeg" or "webp"; 1.x the ImageCompressionType enum's value (0 JPEG, 1 WebP).
        const JsonReader type = a.get("compression_type");
        std::string t;
        if (type.json().is_string()) {
            t = replay_fields::eitherOf(type, "jpeg", "webp");
        } else {
            t = type.integer(0, 1) == 0 ? "jpeg" : "webp";
        }
        op.set("compression_type", t);
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const Range r = op.range("quality_range");
        const std::string args = "quality_range=(" + std::to_string(static_cast<int>(r.min)) + ", " +
                                 std::to_string(static_cast<int>(r.max)) + "), compression_type=\"" +
                                 op.choice("compression_type") + "\")";
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.helperUsed = true;
                x.lines += "    " + torchvisionWithP("ImageCompression(" + args, op.p) + ",\n";
                return;
            case PythonTarget::Keras:
                notExported(e, x,
                            e.label() +
                                ": Keras 3 has no image codec among its layers and ops: not exported (the "
                                "albumentations and torchvision exports have it).");
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                notExported(e, x,
                            e.label() +
                                ": DALI's jpeg_compression_distortion is not OpenCV's encoder, and DALI has "
                                "no WebP encoder: not exported (the albumentations and torchvision exports "
                                "have it).");
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        if (t != PythonTarget::Torchvision) return {};
        return R"(

class ImageCompression(torch.nn.Module):
    """AugLab image_compression (Albumentations ImageCompression): quality ~ randint(quality_range), the
    colour channels saved and read back as a JPEG (torchvision.io, libjpeg-turbo) or a lossy WebP
    (Pillow, libwebp), handed over in B, G, R order as cv2.imencode receives Albumentations' RGB
    arrays (alpha kept)."""

    def __init__(self, quality_range, compression_type):
        super().__init__()
        self.quality_range, self.compression_type = quality_range, compression_type

    def forward(self, img):  # uint8 tensor, C x H x W
        import io

        import numpy
        import PIL.Image
        import torchvision.io

        q = int(torch.randint(self.quality_range[0], self.quality_range[1] + 1, ()))
        bgr = img[:3].flip(0).contiguous()
        if self.compression_type == "jpeg":
            out = torchvision.io.decode_jpeg(torchvision.io.encode_jpeg(bgr, quality=q))
        else:
            buffer = io.BytesIO()
            PIL.Image.fromarray(bgr.permute(1, 2, 0).numpy()).save(buffer, format="WEBP", quality=q)
            decoded = numpy.asarray(PIL.Image.open(io.BytesIO(buffer.getvalue())).convert("RGB"))
            out = torch.from_numpy(decoded.copy()).permute(2, 0, 1)
        return torch.cat([out.flip(0), img[3:]])
)";
    }
};

}  // namespace

const OpModule& imageCompressionModule() {
    static const ImageCompressionModule module;
    return module;
}

}  // namespace auglab
