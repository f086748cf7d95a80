// xy_masking: Albumentations 2.0.8 XYMasking, full-height stripes (masks along x) and full-width
// stripes (masks along y), filled as coarse_dropout fills its holes. The library draws, in order:
// n_x = randint(num_masks_x), then for each x mask its width randint(mask_x_length) and its left
// edge randint(0, W - width); then the same for y. A length range past the image's side is an
// error, as the library's ValueError. The holes, their replay record, the plan step and the boxes'
// and keypoints' rules are coarse_dropout's (dropout_common.h).
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "error.h"
#include "export_common.h"
#include "ops/dropout.h"
#include "ops/dropout_common.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "sampler.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;
using namespace params;

// Draws (draw 0 is the gate, kNoiseKeyDraw a random fill's key, holes from dropout::kFirstHole on):
// the two counts.
constexpr std::uint32_t kCountX = dropout::kHoleCount, kCountY = 3;
static_assert(kCountY != kNoiseKeyDraw && kCountY < dropout::kFirstHole);

/// Whether hole `h` of an image `height` pixels high is a stripe along x (full height, from the top).
bool alongX(const Hole& h, int height) {
    return h.y == 0 && h.h == height;
}

class XyMaskingModule final : public dropout::DropoutModule {
public:
    XyMaskingModule() : DropoutModule(false) {}

    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "xy_masking", "XY masking", OpCategory::Pixel,
            "Albumentations 2.0.8 XYMasking: full-height stripes (masks along x) and full-width stripes "
            "(masks along y), each count and each stripe's thickness drawn from its range (both ends "
            "included), placed uniformly inside the image and filled as coarse_dropout's holes.",
            {intRange("num_masks_x", "Masks along x", "count", 0, 1000, {0, 0},
                      "How many full-height stripes, inclusive range."),
             intRange("num_masks_y", "Masks along y", "count", 0, 1000, {0, 0},
                      "How many full-width stripes, inclusive range."),
             intRange("mask_x_length", "Stripe width", "px", 0, 100000, {0, 0},
                      "Width of a full-height stripe in pixels, inclusive range; at most the image's width "
                      "(Albumentations raises past it, as AugLab refuses it)."),
             intRange("mask_y_length", "Stripe height", "px", 0, 100000, {0, 0},
                      "Height of a full-width stripe in pixels, inclusive range; at most the image's "
                      "height."),
             fill("fill", true,
                  "[r, g, b], or \"random\" (noise per pixel) or \"random_uniform\" (one colour per "
                  "stripe).")});
        typical(d, "num_masks_x", 0, 8);
        typical(d, "num_masks_y", 0, 8);
        typicalOfImage(d, "mask_x_length", 0, 0.25);
        typicalOfImage(d, "mask_y_length", 0, 0.25);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int width, int height) const override {
        DropoutParams p;
        const Fill fill = op.fill("fill");
        p.fillMode = fill.mode;
        p.fill = rgbOf(fill);
        std::uint32_t hole = 0;
        for (const bool x : {true, false}) {
            const Range count = op.range(x ? "num_masks_x" : "num_masks_y");
            const Range length = op.range(x ? "mask_x_length" : "mask_y_length");
            const int side = x ? width : height;
            if (length.max > side)
                throw InputError(std::string("xy_masking: ") + (x ? "mask_x_length" : "mask_y_length") +
                                 " reaches " + std::to_string(static_cast<long long>(length.max)) +
                                 " px, more than this " + std::to_string(width) + "x" +
                                 std::to_string(height) + " image's " + (x ? "width" : "height") +
                                 " (Albumentations raises here too); lower its maximum");
            const auto n = d.randint(x ? kCountX : kCountY, static_cast<std::int64_t>(count.min),
                                     static_cast<std::int64_t>(count.max));
            for (std::int64_t j = 0; j < n; ++j, ++hole) {
                const std::uint32_t base = dropout::kFirstHole + hole * dropout::kDrawsPerHole;
                const int len = static_cast<int>(d.randint(base, static_cast<std::int64_t>(length.min),
                                                           static_cast<std::int64_t>(length.max)));
                const int at = static_cast<int>(d.randint(base + 1, 0, side - len));
                p.holes.push_back(x ? Hole{at, 0, len, height} : Hole{0, at, width, len});
                if (fill.mode == Fill::Mode::RandomUniform)
                    p.holeColours.push_back({static_cast<std::uint8_t>(d.randint(base + 4, 0, 255)),
                                             static_cast<std::uint8_t>(d.randint(base + 5, 0, 255)),
                                             static_cast<std::uint8_t>(d.randint(base + 6, 0, 255))});
            }
        }
        if (fill.mode == Fill::Mode::Random) p.noiseSeed = d.bits64(kNoiseKeyDraw);
        return p;
    }

    /// The counts and the stripes' thicknesses (a stripe as high as the image, from its top, counts
    /// as one along x).
    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int width,
                                    int height) const override {
        const auto& p = std::get<DropoutParams>(params);
        std::vector<double> lengths;
        double nx = 0, ny = 0;
        for (const Hole& h : p.holes) {
            const bool x = alongX(h, height) && !(h.x == 0 && h.w == width && h.h != height);
            (x ? nx : ny) += 1;
            if ((key == "mask_x_length" && x) || (key == "mask_y_length" && !x))
                lengths.push_back(x ? h.w : h.h);
        }
        if (key == "num_masks_x") return {nx};
        if (key == "num_masks_y") return {ny};
        return lengths;
    }

    std::vector<std::string> albumentationsClasses() const override { return {"XYMasking"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>& warnings) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("XYMasking", op.p);
        for (const char* k : {"num_masks_x", "num_masks_y", "mask_x_length", "mask_y_length"})
            j[k] = intPair(op.range(k));
        const Fill fill = op.fill("fill");
        if (fill.mode == Fill::Mode::Random)
            j["fill"] = "random";
        else if (fill.mode == Fill::Mode::RandomUniform)
            j["fill"] = "random_uniform";
        else
            j["fill"] = fillValue(fill);
        j["fill_mask"] = nullptr;
        if (op.range("mask_x_length").max <= 0 && op.range("mask_y_length").max <= 0)
            warnings.push_back(e.label() +
                               ": both stripe lengths are 0 (no effect); Albumentations refuses such an "
                               "XYMasking when it loads the file.");
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5},           {"num_masks_x", 0},   {"num_masks_y", 0},
                {"mask_x_length", 0}, {"mask_y_length", 0}, {"fill", 0.0}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        for (const char* k : {"num_masks_x", "num_masks_y", "mask_x_length", "mask_y_length"}) {
            const JsonReader r = a.get(k);
            Range v = fixedOrPair(r);
            if (v.min != std::trunc(v.min) || v.max != std::trunc(v.max) || v.min < 0)
                a.fail(r, "expected a non-negative integer or [min, max] of them");
            op.set(k, a.clamp(r, v, 0, std::string(k).rfind("num", 0) == 0 ? 1000 : 100000));
        }
        op.set("fill", readFill(a.get("fill", {"fill_value"}), a, true, FillCast::Truncated));
        a.maskOnly("fill_mask", {"mask_fill_value"});
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        if (dropout::leftOutOf(e, x)) return;
        exporting::notExported(e, x,
                               e.label() + ": " +
                                   (x.target == PythonTarget::Torchvision ? "torchvision" : "Keras") +
                                   " has no stripe masking (its RandomErasing erases one rectangle): not "
                                   "exported (the albumentations export has it).");
    }
};

}  // namespace

const OpModule& xyMaskingModule() {
    static const XyMaskingModule module;
    return module;
}

}  // namespace auglab
