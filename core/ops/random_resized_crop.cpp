// random_resized_crop, random_sized_crop: torchvision / Albumentations 2.0 RandomResizedCrop and
// Albumentations 2.0.8 RandomSizedCrop (a crop of a drawn height, resized).
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/random_resized_crop.h"

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
#include "targets.h"

namespace auglab {

namespace {

/// What the two libraries do differently with a crop that is then resized (issue 33 measured it).
constexpr const char* kCropResizeDifference =
    "Albumentations crops, then resizes the crop with cv2.resize (11-bit weights); AugLab resamples "
    "the crop with its warp's 1/32-pixel weights, repeating the crop's edge as cv2.resize does: within "
    "SPEC §2's linear bounds of the library (a level or two apart on some pixels), the same crop windows.";

using Json = nlohmann::ordered_json;
using namespace params;
using namespace replay_fields;

/// The output size and interpolation both crops resize to.
CropParams cropOutput(const OpConfig& op) {
    CropParams c;
    const Size2 size = op.size("size");
    c.outWidth = size.width;
    c.outHeight = size.height;
    c.interpolation = interpolationFromName(op.choice("interpolation"));
    return c;
}

/// torchvision / Albumentations 2.0 RandomResizedCrop.get_params: up to 10 tries of an area
/// U(scale) x W x H and a log-uniform aspect ratio, rounded half to even as Python's round();
/// the first that fits is placed uniformly; else a centre crop clamped to the ratio range.
CropParams sampleCrop(const OpConfig& op, const OpDraws& d, int width, int height) {
    CropParams c = cropOutput(op);
    const Range scale = op.range("scale"), ratio = op.range("ratio");
    const double area = static_cast<double>(width) * height;
    const double logLo = std::log(ratio.min), logHi = std::log(ratio.max);
    for (std::uint32_t attempt = 0; attempt < 10; ++attempt) {
        const std::uint32_t base = 1 + 4 * attempt;
        const double target = d.uniform(base, scale.min * area, scale.max * area);
        const double aspect = std::exp(d.uniform(base + 1, logLo, logHi));
        const auto w = static_cast<std::int64_t>(std::nearbyint(std::sqrt(target * aspect)));
        const auto h = static_cast<std::int64_t>(std::nearbyint(std::sqrt(target / aspect)));
        if (w > 0 && w <= width && h > 0 && h <= height) {
            // int((H - h + 1) * u): every top edge from 0 to H - h, as Albumentations' get_crop_coords.
            c.y = static_cast<int>((height - h + 1) * d.uniform(base + 2));
            c.x = static_cast<int>((width - w + 1) * d.uniform(base + 3));
            c.width = static_cast<int>(w);
            c.height = static_cast<int>(h);
            return c;
        }
    }
    const double inRatio = static_cast<double>(width) / height;
    c.width = width;
    c.height = height;
    if (inRatio < ratio.min)
        c.height = static_cast<int>(std::nearbyint(width / ratio.min));
    else if (inRatio > ratio.max)
        c.width = static_cast<int>(std::nearbyint(height * ratio.max));
    c.width = std::clamp(c.width, 1, width);
    c.height = std::clamp(c.height, 1, height);
    c.x = (width - c.width) / 2;
    c.y = (height - c.height) / 2;
    return c;
}

/// RandomSizedCrop.get_params_dependent_on_data: h = randint(min_max_height), w = int(h * w2h_ratio),
/// both clipped to the image (get_crop_coords), the corner at int((H - h + 1) u).
CropParams sampleSizedCrop(const OpConfig& op, const OpDraws& d, int width, int height) {
    CropParams c = cropOutput(op);
    const Range m = op.range("min_max_height");
    const auto h = d.randint(1, static_cast<std::int64_t>(m.min), static_cast<std::int64_t>(m.max));
    const auto w = static_cast<std::int64_t>(static_cast<double>(h) * op.number("w2h_ratio"));
    if (w < 1)
        throw InputError(opDesc(OpId::RandomSizedCrop).name + ": a crop " + std::to_string(h) +
                         " px high is " + std::to_string(w) + " px wide at w2h_ratio " +
                         formatNumber(op.number("w2h_ratio")) + " (the library cannot crop it)");
    c.height = static_cast<int>(std::min<std::int64_t>(h, height));
    c.width = static_cast<int>(std::min<std::int64_t>(w, width));
    c.y = static_cast<int>((height - c.height + 1) * d.uniform(2));
    c.x = static_cast<int>((width - c.width + 1) * d.uniform(3));
    return c;
}

Json albumentationsCrop(const exporting::ExportedOp& e, std::vector<std::string>& warnings) {
    using namespace exporting;
    const OpConfig& op = *e.op;
    const Size2 size = op.size("size");
    if (op.p < 1)
        warnings.push_back(e.label() + ": p = " + formatNumber(op.p) +
                           ": the images it skips keep their own size, so a "
                           "batch mixes sizes (as in AugLab's preview); training code usually wants p = 1.");
    warnings.push_back(e.label() + ": " + kCropResizeDifference);
    Json j = start("RandomResizedCrop", op.p);
    j["area_for_downscale"] = nullptr;
    j["interpolation"] = cvInterpolation(op.choice("interpolation"));
    j["mask_interpolation"] = 0;
    j["ratio"] = pair(op.range("ratio"));
    j["scale"] = pair(op.range("scale"));
    j["size"] = Json::array({size.height, size.width});
    return j;
}

void readRandomResizedCrop(exporting::TransformArgs& a, OpConfig& op) {
    using namespace exporting;
    // 2.0 and AlbumentationsX: size [height, width]; 1.4.x files may still carry height and width.
    const std::optional<JsonReader> size = a.find({"size"});
    int h = 0, w = 0;
    if (size && !size->json().is_null()) {
        if (size->json().is_number()) {
            h = w = static_cast<int>(size->integer(1, 16384));
        } else {
            if (size->arraySize() != 2) a.fail(*size, "expected [height, width]");
            h = static_cast<int>(size->element(0).integer(1, 16384));
            w = static_cast<int>(size->element(1).integer(1, 16384));
        }
    } else {
        const std::optional<JsonReader> height = a.find({"height"}), width = a.find({"width"});
        if (!height || !width) a.fail(a.get("p"), "RandomResizedCrop without size (or height and width)");
        h = static_cast<int>(height->integer(1, 16384));
        w = static_cast<int>(width->integer(1, 16384));
    }
    op.set("size", Size2{h, w});
    op.set("scale", a.clamp(a.get("scale"), pair(a.get("scale")), 0, 1));
    const JsonReader ratio = a.get("ratio");
    const Range r = pair(ratio);
    if (r.min <= 0) a.fail(ratio, "ratio must be positive");
    op.set("ratio", a.clamp(ratio, r, 0.1, 10));
    op.set("interpolation", std::string(interpolationName(a.get("interpolation"), a)));
    if (const std::optional<JsonReader> area = a.find({"area_for_downscale"});
        area && !area->json().is_null())
        a.warn(*area,
               "INTER_AREA for downscaled crops cannot be expressed: resized with the interpolation given.");
    a.maskOnly("mask_interpolation");
}

void readRandomSizedCrop(exporting::TransformArgs& a, OpConfig& op) {
    using namespace exporting;
    const JsonReader heights = a.get("min_max_height");
    if (heights.arraySize() != 2) a.fail(heights, "expected [min, max]");
    const auto lo = heights.element(0).integer(1, 16384), hi = heights.element(1).integer(1, 16384);
    if (hi < lo) a.fail(heights, "the range's end is below its start");
    op.set("min_max_height", Range{double(lo), double(hi)});
    // 2.0: size [height, width]; 1.4.x: height and width.
    const std::optional<JsonReader> size = a.find({"size"});
    if (size && !size->json().is_null()) {
        if (size->arraySize() != 2) a.fail(*size, "expected [height, width]");
        op.set("size", Size2{static_cast<int>(size->element(0).integer(1, 16384)),
                             static_cast<int>(size->element(1).integer(1, 16384))});
    } else {
        const std::optional<JsonReader> height = a.find({"height"}), width = a.find({"width"});
        if (!height || !width) a.fail(a.get("p"), "RandomSizedCrop without size (or height and width)");
        op.set("size", Size2{static_cast<int>(height->integer(1, 16384)),
                             static_cast<int>(width->integer(1, 16384))});
    }
    const JsonReader ratio = a.get("w2h_ratio");
    const double r = ratio.numberIn(0, 1e9);
    if (r <= 0) a.fail(ratio, "w2h_ratio must be positive");
    op.set("w2h_ratio", a.clamp(ratio, Range{r, r}, 0.01, 100).min);
    op.set("interpolation", std::string(interpolationName(a.get("interpolation"), a)));
    if (const std::optional<JsonReader> area = a.find({"area_for_downscale"});
        area && !area->json().is_null())
        a.warn(*area,
               "INTER_AREA for downscaled crops cannot be expressed: resized with the interpolation given.");
    a.maskOnly("mask_interpolation");
}

class RandomResizedCropModule final : public OpModule {
public:
    explicit RandomResizedCropModule(bool sized) : sized_(sized) {}

    OpDesc describe(OpId id) const override {
        if (sized_) {
            OpDesc d = makeOp(
                id, "random_sized_crop", "Random sized crop", OpCategory::Geometric,
                "Albumentations RandomSizedCrop: a crop of height h drawn uniformly from `min_max_height`'s "
                "integers and width int(h * w2h_ratio) (each at most the image's), at a uniformly drawn "
                "place, resized to `size`. The ops after it work at that size.",
                {intRange("min_max_height", "Crop height", "px", 1, 16384, {256, 512},
                          "Height of the crop, drawn uniformly from the range's integers."),
                 number("w2h_ratio", "Aspect ratio", "width / height", 0.01, 100, 1.0,
                        "Width of the crop as a multiple of its height (truncated to whole pixels)."),
                 sizeParam("size", "Output size", 1, 16384, {256, 256},
                           "Height and width of the output in pixels."),
                 choice("interpolation", "Interpolation", kInterpolationChoices, "linear",
                        "How the crop is resized.")});
            d.setsFrame = true;
            typical(d, "min_max_height", 16, 2048, true);
            typical(d, "w2h_ratio", 0.25, 4);
            return d;
        }
        OpDesc d = makeOp(
            id, "random_resized_crop", "Random resized crop", OpCategory::Geometric,
            "torchvision / Albumentations RandomResizedCrop: a crop of U(scale) x the image's area with an "
            "aspect ratio drawn log-uniformly from `ratio` (up to 10 tries, then a centre crop), resized to "
            "`size`. The ops after it work at that size.",
            {
                sizeParam("size", "Output size", 1, 16384, {224, 224},
                          "Height and width of the output in pixels."),
                floatRange("scale", "Crop area", "fraction of the image", 0, 1, {0.08, 1.0},
                           "Area of the crop as a fraction of the image's area, drawn uniformly."),
                logScale(floatRange("ratio", "Aspect ratio", "width / height", 0.1, 10, {0.75, 1.3333},
                                    "Width / height of the crop, drawn uniformly in log space.")),
                choice("interpolation", "Interpolation", kInterpolationChoices, "linear",
                       "How the crop is resized."),
            });
        d.setsFrame = true;
        // The sliders' span for tuning (the bounds above are for validation).
        params::typical(d, "scale", 0.02, 1);
        params::typical(d, "ratio", 0.25, 4);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int width, int height) const override {
        return sized_ ? sampleSizedCrop(op, d, width, height) : sampleCrop(op, d, width, height);
    }

    void frameAfter(const OpParams& params, int& width, int& height) const override {
        const auto& c = std::get<CropParams>(params);
        width = c.outWidth;
        height = c.outHeight;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& c = std::get<CropParams>(params);
        j["crop"] = Json::array({c.x, c.y, c.width, c.height});
        j["size"] = Json::array({c.outHeight, c.outWidth});
        j["interpolation"] = interpolationName(c.interpolation);
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "crop", "size", "interpolation"});
        CropParams c;
        const replay_fields::Window w = replay_fields::readWindow(r.member("crop"));
        c.x = w.x, c.y = w.y, c.width = w.width, c.height = w.height;
        const JsonReader size = r.member("size");
        if (size.arraySize() != 2) size.fail("expected [height, width]");
        c.outHeight = static_cast<int>(size.element(0).integer(1, 16384));
        c.outWidth = static_cast<int>(size.element(1).integer(1, 16384));
        c.interpolation = replay_fields::readInterpolation(r, "interpolation");
        return c;
    }

    void checkReplay(const OpParams& params, const JsonReader& o, int frameW, int frameH) const override {
        const auto& c = std::get<CropParams>(params);
        if (c.x + c.width > frameW || c.y + c.height > frameH)
            o.member("crop").fail("crop lies outside the " + std::to_string(frameW) + "x" +
                                  std::to_string(frameH) + " image");
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int width,
                                    int height) const override {
        // The crop's share of the image's area, and its aspect ratio.
        const auto& c = std::get<CropParams>(params);
        if (sized_) {
            if (key == "min_max_height") return {double(c.height)};
            if (key == "crop_x") return {double(c.x)};
            if (key == "crop_y") return {double(c.y)};
            return {};
        }
        if (key == "scale") return {double(c.width) * c.height / (double(width) * height)};
        if (key == "ratio") return {double(c.width) / c.height};
        return {};
    }

    /// crop_bboxes_by_coords then the resize (normalised boxes do not change in it); keypoints shifted
    /// then scaled by the output / crop size with no half-pixel correction (keypoints_scale), their
    /// scales by the larger factor.
    bool moveTargets(const OpParams& params, TargetFrame& f) const override {
        const auto& c = std::get<CropParams>(params);
        const double sx = double(c.outWidth) / c.width, sy = double(c.outHeight) / c.height;
        for (Box& b : f.boxes) {
            b.x0 = (b.x0 - c.x) * sx;
            b.x1 = (b.x1 - c.x) * sx;
            b.y0 = (b.y0 - c.y) * sy;
            b.y1 = (b.y1 - c.y) * sy;
        }
        for (Keypoint& k : f.keypoints) {
            k.x = (k.x - c.x) * sx;
            k.y = (k.y - c.y) * sy;
            k.scale *= std::max(sx, sy);
        }
        f.width = c.outWidth;
        f.height = c.outHeight;
        return true;
    }

    /// The crop, resized: the frame becomes the crop at its output size.
    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& c = std::get<CropParams>(params);
        // Crop pixel centres map as cv2.resize maps them: x' = (x - x0 + 0.5) * w'/w - 0.5.
        b.newFrame(
            resizeMatrix(c.width, c.height, c.outWidth, c.outHeight) * Matrix3::translation(-c.x, -c.y),
            c.outWidth, c.outHeight, c.width, c.height, c.interpolation, true, c.x, c.y);
    }

    std::vector<std::string> albumentationsClasses() const override {
        return {sized_ ? "RandomSizedCrop" : "RandomResizedCrop"};
    }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>& warnings) const override {
        if (!sized_) return albumentationsCrop(e, warnings);
        using namespace exporting;
        const OpConfig& op = *e.op;
        const Size2 size = op.size("size");
        const Range m = op.range("min_max_height");
        if (op.p < 1)
            warnings.push_back(e.label() + ": p = " + formatNumber(op.p) +
                               ": the images it skips keep their own size, so a batch mixes sizes (as in "
                               "AugLab's preview); training code usually wants p = 1.");
        warnings.push_back(e.label() + ": " + kCropResizeDifference);
        Json j = start("RandomSizedCrop", op.p);
        j["area_for_downscale"] = nullptr;
        j["interpolation"] = cvInterpolation(op.choice("interpolation"));
        j["mask_interpolation"] = 0;
        j["min_max_height"] = Json::array({static_cast<int>(m.min), static_cast<int>(m.max)});
        j["size"] = Json::array({size.height, size.width});
        j["w2h_ratio"] = op.number("w2h_ratio");
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        if (sized_)
            return {{"p", 1.0},
                    {"w2h_ratio", 1.0},
                    {"interpolation", 1},
                    {"mask_interpolation", 0},
                    {"area_for_downscale", nullptr}};
        return {{"p", 1.0},           {"scale", {0.08, 1.0}},    {"ratio", {0.75, 1.3333333333333333}},
                {"interpolation", 1}, {"mask_interpolation", 0}, {"area_for_downscale", nullptr}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        if (sized_)
            readRandomSizedCrop(a, op);
        else
            readRandomResizedCrop(a, op);
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        auto& w = x.warnings;
        if (sized_) {
            sizedCropToPython(e, x);
            return;
        }
        switch (x.target) {
            case PythonTarget::Torchvision: {
                std::string& lines = x.lines;
                const Size2 size = op.size("size");
                const std::string interp = op.choice("interpolation") == "nearest" ? "NEAREST" : "BILINEAR";
                const std::string t = "v2.RandomResizedCrop(size=(" + std::to_string(size.height) + ", " +
                                      std::to_string(size.width) + "), scale=" + pyRange(op.range("scale")) +
                                      ", ratio=" + pyRange(op.range("ratio")) +
                                      ", interpolation=v2.InterpolationMode." + interp + ", antialias=False)";
                lines += "    " + torchvisionWithP(t, op.p) + ",\n";
                return;
            }
            case PythonTarget::Keras: {
                notExported(
                    e, x,
                    L + ": Keras 3 has no random resized crop layer: not exported (the albumentations and "
                        "torchvision exports have it).");
                return;
            }
            case PythonTarget::TfDeotte: {
                notInTfDeotte(e, x);
                return;
            }
            case PythonTarget::Dali: {
                std::string& s = x.lines;
                s += "    # " + L + "\n";
                const Size2 size = op.size("size");
                if (op.p < 1)
                    w.push_back(L + ": DALI crops every image (a pipeline's output size is fixed): p = " +
                                formatNumber(op.p) + " becomes 1.");
                w.push_back(
                    L +
                    ": DALI draws its crop windows with its own generator and rounding (the same "
                    "area and aspect ranges, 10 attempts) and resizes with its own filter (within SPEC "
                    "§2's bounds for the same window, measured).");
                s += "    images = fn.random_resized_crop(images, size=[" + std::to_string(size.height) +
                     ", " + std::to_string(size.width) + "], random_area=" + pyRange(op.range("scale")) +
                     ", random_aspect_ratio=" + pyRange(op.range("ratio")) +
                     ", num_attempts=10, interp_type=types." +
                     std::string(op.choice("interpolation") == "nearest" ? "INTERP_NN" : "INTERP_LINEAR") +
                     ", antialias=False)\n";
                s += "    height, width = " + pyFloat(size.height) + ", " + pyFloat(size.width) + "\n";
                return;
            }
        }
    }

    static void sizedCropToPython(const exporting::ExportedOp& e, PythonExport& x) {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        const Size2 size = op.size("size");
        const Range m = op.range("min_max_height");
        switch (x.target) {
            case PythonTarget::Torchvision: {
                x.helperUsed = true;
                const std::string interp = op.choice("interpolation") == "nearest" ? "NEAREST" : "BILINEAR";
                const std::string t = "RandomSizedCrop(heights=(" + std::to_string(static_cast<int>(m.min)) +
                                      ", " + std::to_string(static_cast<int>(m.max)) +
                                      "), w2h_ratio=" + pyFloat(op.number("w2h_ratio")) + ", size=(" +
                                      std::to_string(size.height) + ", " + std::to_string(size.width) +
                                      "), interpolation=v2.InterpolationMode." + interp + ")";
                x.lines += "    " + torchvisionWithP(t, op.p) + ",\n";
                return;
            }
            case PythonTarget::Keras:
                notExported(
                    e, x,
                    L + ": Keras 3 has no layer that crops a window of a drawn size and resizes it: not "
                        "exported (the albumentations and torchvision exports have it).");
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                x.lines += "    # " + L + "\n";
                notExported(e, x,
                            L + ": DALI's crops draw an area and an aspect ratio, not a height: not exported "
                                "(the albumentations and torchvision exports have it).");
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        if (!sized_ || t != PythonTarget::Torchvision) return {};
        return R"(

class RandomSizedCrop(torch.nn.Module):
    """AugLab random_sized_crop (Albumentations RandomSizedCrop): h ~ randint(heights), w = int(h *
    w2h_ratio), each at most the image's; the corner at int((H - h + 1) u); resized to `size` without
    antialiasing, as cv2.resize."""

    def __init__(self, heights, w2h_ratio, size, interpolation):
        super().__init__()
        self.heights, self.w2h_ratio, self.size, self.interpolation = heights, w2h_ratio, size, interpolation

    def forward(self, img):  # uint8 tensor, C x H x W
        h, w = img.shape[-2], img.shape[-1]
        ch = int(torch.randint(self.heights[0], self.heights[1] + 1, ()))
        cw = min(int(ch * self.w2h_ratio), w)
        ch = min(ch, h)
        y = int((h - ch + 1) * float(torch.rand(())))
        x = int((w - cw + 1) * float(torch.rand(())))
        crop = img[..., y:y + ch, x:x + cw]
        if [ch, cw] == list(self.size):
            return crop
        return v2.functional.resize(crop, list(self.size), interpolation=self.interpolation, antialias=False)
)";
    }

private:
    bool sized_;
};

}  // namespace

const OpModule& randomResizedCropModule() {
    static const RandomResizedCropModule module(false);
    return module;
}

const OpModule& randomSizedCropModule() {
    static const RandomResizedCropModule module(true);
    return module;
}

}  // namespace auglab
