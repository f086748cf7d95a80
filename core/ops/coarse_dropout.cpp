// coarse_dropout: random rectangles (cutout), sized in fractions of the image or in pixels.
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/dropout.h"

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
#include "ops/dropout_common.h"
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

DropoutParams sampleDropout(const OpConfig& op, const OpDraws& d, int width, int height) {
    DropoutParams p;
    const Range count = op.range("holes");
    const auto n = d.randint(dropout::kHoleCount, static_cast<std::int64_t>(count.min),
                             static_cast<std::int64_t>(count.max));
    const bool px = op.has("hole_height_px");
    const Fill fill = op.fill("fill");
    p.fillMode = fill.mode;
    p.fill = rgbOf(fill);
    for (std::int64_t j = 0; j < n; ++j) {
        const std::uint32_t base =
            dropout::kFirstHole + static_cast<std::uint32_t>(j) * dropout::kDrawsPerHole;
        int h = 0, w = 0;
        if (px) {
            // Albumentations draws a size in pixels from [min, min(max, side)], and raises for an
            // image smaller than the minimum: the same here, so that the preview's holes have the
            // library's distribution at the image's edge too (not the whole range, clamped after).
            const Range hr = op.range("hole_height_px"), wr = op.range("hole_width_px");
            if (hr.min > height || wr.min > width)
                throw InputError("coarse_dropout: holes of at least " + std::to_string(std::llround(wr.min)) +
                                 "x" + std::to_string(std::llround(hr.min)) + " px do not fit this " +
                                 std::to_string(width) + "x" + std::to_string(height) +
                                 " image (Albumentations raises here too); lower "
                                 "hole_width_px / hole_height_px's minimum");
            h = static_cast<int>(
                d.randint(base, static_cast<std::int64_t>(hr.min),
                          std::min(static_cast<std::int64_t>(hr.max), std::int64_t{height})));
            w = static_cast<int>(d.randint(base + 1, static_cast<std::int64_t>(wr.min),
                                           std::min(static_cast<std::int64_t>(wr.max), std::int64_t{width})));
        } else {
            h = static_cast<int>(std::trunc(height * d.uniform(base, op.range("hole_height_frac"))));
            w = static_cast<int>(std::trunc(width * d.uniform(base + 1, op.range("hole_width_frac"))));
        }
        h = std::clamp(h, 0, height);
        w = std::clamp(w, 0, width);
        // Top-left uniform over the positions that keep the whole hole inside the image.
        const int x = static_cast<int>(d.randint(base + 2, 0, width - w));
        const int y = static_cast<int>(d.randint(base + 3, 0, height - h));
        p.holes.push_back(Hole{x, y, w, h});
        if (fill.mode == Fill::Mode::RandomUniform) {
            p.holeColours.push_back({static_cast<std::uint8_t>(d.randint(base + 4, 0, 255)),
                                     static_cast<std::uint8_t>(d.randint(base + 5, 0, 255)),
                                     static_cast<std::uint8_t>(d.randint(base + 6, 0, 255))});
        }
    }
    if (fill.mode == Fill::Mode::Random) p.noiseSeed = d.bits64(kNoiseKeyDraw);
    return p;
}

Json albumentationsCoarseDropout(const exporting::ExportedOp& e, std::vector<std::string>& warnings) {
    using namespace exporting;
    const OpConfig& op = *e.op;
    Range holes = op.range("holes");
    double p = op.p;
    if (holes.min < 1) {
        // Albumentations draws at least one hole. randint(0, n) with probability p is the same
        // distribution as randint(1, n) with probability p * n / (n + 1).
        const double n = holes.max;
        p = n > 0 ? op.p * n / (n + 1) : 0.0;
        holes = {1, std::max(1.0, n)};
        warnings.push_back(e.label() +
                           ": holes start at 0 and Albumentations draws at least 1: written as holes [1, " +
                           formatNumber(holes.max) + "] with p = " + formatNumber(p) +
                           " (the same distribution; importing gives these values).");
    }
    Json j = start("CoarseDropout", p);
    const Fill fill = op.fill("fill");
    if (fill.mode == Fill::Mode::Random)
        j["fill"] = "random";
    else if (fill.mode == Fill::Mode::RandomUniform)
        j["fill"] = "random_uniform";
    else
        j["fill"] = fillValue(fill);
    j["fill_mask"] = nullptr;
    if (op.has("hole_height_px")) {
        j["hole_height_range"] = intPair(op.range("hole_height_px"));
        j["hole_width_range"] = intPair(op.range("hole_width_px"));
        const Range hr = op.range("hole_height_px"), wr = op.range("hole_width_px");
        warnings.push_back(e.label() + ": holes in pixels: on an image smaller than the maximum (" +
                           formatNumber(wr.max) + "x" + formatNumber(hr.max) +
                           ") sizes are drawn up to its side, and "
                           "an image smaller than the minimum (" +
                           formatNumber(wr.min) + "x" + formatNumber(hr.min) +
                           ") makes Albumentations raise ValueError, as AugLab refuses it.");
    } else {
        j["hole_height_range"] = fractionPair(e, "hole_height_frac", op.range("hole_height_frac"), warnings);
        j["hole_width_range"] = fractionPair(e, "hole_width_frac", op.range("hole_width_frac"), warnings);
    }
    j["num_holes_range"] = intPair(holes);
    return j;
}

void readCoarseDropout(exporting::TransformArgs& a, OpConfig& op) {
    using namespace exporting;
    // 1.4.x files may still use max_holes, min_height, ..., fill_value (removed in 2.0).
    const std::optional<JsonReader> maxHoles = a.find({"max_holes"});
    Range holes;
    std::optional<JsonReader> h, w;
    if (maxHoles) {
        const double n = maxHoles->numberIn(0, 1000);
        const std::optional<JsonReader> minHoles = a.find({"min_holes"});
        holes = {minHoles && !minHoles->json().is_null() ? minHoles->numberIn(0, n) : n, n};
    } else {
        holes = pair(a.get("num_holes_range"));
    }
    const Range wholeHoles{std::trunc(holes.min), std::trunc(holes.max)};
    op.set("holes", a.clamp(maxHoles ? *maxHoles : a.get("num_holes_range"), wholeHoles, 0, 1000));

    Range hr, wr;
    std::optional<JsonReader> where;
    if (const std::optional<JsonReader> maxH = a.find({"max_height"})) {
        const std::optional<JsonReader> minH = a.find({"min_height"});
        const std::optional<JsonReader> maxW = a.find({"max_width"});
        const std::optional<JsonReader> minW = a.find({"min_width"});
        const double mh = maxH->number(), mw = maxW ? maxW->number() : mh;
        hr = {minH && !minH->json().is_null() ? minH->number() : mh, mh};
        wr = {minW && !minW->json().is_null() ? minW->number() : mw, mw};
        where = maxH;
    } else {
        where = a.get("hole_height_range");
        hr = pair(*where);
        wr = pair(a.get("hole_width_range"));
    }
    // Albumentations: an upper height end >= 1 means pixels for both ranges (int()), else fractions.
    if (hr.max >= 1) {
        if (wr.max < 1)
            a.warn(*where,
                   "height in pixels but width as a fraction: Albumentations then makes holes "
                   "0 pixels wide; read as width 1 pixel.");
        const auto px = [&](Range r) {
            Range out{std::max(1.0, std::trunc(r.min)), std::max(1.0, std::trunc(r.max))};
            if (out != r)
                a.warn(*where, "hole size [" + formatNumber(r.min) + ", " + formatNumber(r.max) +
                                   "] in pixels read as [" + formatNumber(out.min) + ", " +
                                   formatNumber(out.max) + "].");
            return out;
        };
        op.set("hole_height_px", px(hr));
        op.set("hole_width_px", px(wr));
    } else {
        // AugLab's export writes an upper end of 1.0 as the largest double below 1.
        const auto frac = [](Range r) {
            if (r.max >= 1.0 - 1e-15) r.max = 1.0;
            return r;
        };
        op.set("hole_height_frac", a.clamp(*where, frac(hr), 0, 1));
        op.set("hole_width_frac", a.clamp(*where, frac(wr), 0, 1));
    }
    op.set("fill", readFill(a.get("fill", {"fill_value"}), a, true, FillCast::Truncated));
    a.maskOnly("fill_mask", {"mask_fill_value"});
}

class CoarseDropoutModule final : public dropout::DropoutModule {
public:
    CoarseDropoutModule() : DropoutModule(false) {}

    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "coarse_dropout", "Coarse dropout (cutout)", OpCategory::Pixel,
            "Fill random rectangles. Hole sizes are fractions of the image (hole_*_frac) or pixels "
            "(hole_*_px), not both. Holes lie inside the image and may overlap.",
            {
                intRange("holes", "Holes", "count", 0, 1000, {1, 8}, "Number of holes, inclusive range."),
                floatRange("hole_height_frac", "Hole height (fraction)", "fraction of height", 0, 1,
                           {0.05, 0.1},
                           "Hole height as a fraction of the image height (truncated to pixels)."),
                floatRange("hole_width_frac", "Hole width (fraction)", "fraction of width", 0, 1, {0.05, 0.1},
                           "Hole width as a fraction of the image width (truncated to pixels)."),
                optionalParam(
                    intRange("hole_height_px", "Hole height (px)", "px", 1, 100000, {8, 16},
                             "Hole height in pixels, inclusive range; replaces hole_height_frac. On an image "
                             "lower than the maximum, drawn up to its height; lower than the minimum: an "
                             "error for that image (as in Albumentations).")),
                optionalParam(intRange(
                    "hole_width_px", "Hole width (px)", "px", 1, 100000, {8, 16},
                    "Hole width in pixels, inclusive range; replaces hole_width_frac. On an image "
                    "narrower than the maximum, drawn up to its width; narrower than the minimum: an "
                    "error for that image (as in Albumentations).")),
                fill("fill", true,
                     "[r, g, b], or \"random\" (noise per pixel) or \"random_uniform\" (one colour per "
                     "hole)."),
            });
        d.alternatives.push_back(ParamAlternative{
            {"hole_height_px", "hole_width_px"},
            {"hole_height_frac", "hole_width_frac"},
            "give both hole_height_px and hole_width_px, or neither (then the _frac sizes apply)",
            "give hole sizes as hole_*_frac or as hole_*_px, not both"});
        // The sliders' span for tuning (the bounds above are for validation).
        params::typical(d, "holes", 0, 32);
        params::typical(d, "hole_height_frac", 0, 0.5);
        params::typical(d, "hole_width_frac", 0, 0.5);
        params::typicalOfImage(d, "hole_height_px", 1, 0.5);
        params::typicalOfImage(d, "hole_width_px", 1, 0.5);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int width, int height) const override {
        return sampleDropout(op, d, width, height);
    }

    /// Cutout: the 1.x name (removed in 2.0) read as the coarse_dropout it became.
    std::vector<std::string> albumentationsClasses() const override { return {"CoarseDropout", "Cutout"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>& warnings) const override {
        return albumentationsCoarseDropout(e, warnings);
    }

    nlohmann::json albumentationsDefaults(const std::string& cls,
                                          const exporting::LibraryVersion& v) const override {
        if (cls == "Cutout")  // Albumentations 1.4's signature
            return {{"p", 0.5}, {"num_holes", 8}, {"max_h_size", 8}, {"max_w_size", 8}, {"fill_value", 0}};
        if (v.before2())
            return {{"p", 0.5},
                    {"num_holes_range", {1, 1}},
                    {"hole_height_range", {8, 8}},
                    {"hole_width_range", {8, 8}},
                    {"fill", 0.0}};
        return {{"p", 0.5},
                {"num_holes_range", {1, 2}},
                {"hole_height_range", {0.1, 0.2}},
                {"hole_width_range", {0.1, 0.2}},
                {"fill", 0.0}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        if (a.cls() == "Cutout") {
            readCutout(a, op);
            return;
        }
        readCoarseDropout(a, op);
    }

private:
    /// 1.x Cutout: num_holes holes of max_h_size x max_w_size pixels, fill_value.
    static void readCutout(exporting::TransformArgs& a, OpConfig& op) {
        using namespace exporting;
        const JsonReader n = a.get("num_holes");
        const auto holes = static_cast<double>(n.integer(0, 1000));
        op.set("holes", Range{holes, holes});
        const auto h = static_cast<double>(a.get("max_h_size").integer(1, 100000));
        const auto w = static_cast<double>(a.get("max_w_size").integer(1, 100000));
        op.set("hole_height_px", Range{h, h});
        op.set("hole_width_px", Range{w, w});
        op.set("fill", readFill(a.get("fill_value", {"fill"}), a, true, FillCast::Truncated));
        a.warn(n,
               "Cutout (Albumentations 1.x) centres its holes anywhere and clips them at the image's edges; "
               "read as coarse_dropout, whose holes of the same size lie inside the image.");
    }

public:
    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        auto& w = x.warnings;
        if (dropout::leftOutOf(e, x)) return;
        switch (x.target) {
            case PythonTarget::Torchvision: {
                std::string& lines = x.lines;
                const Range holes = op.range("holes");
                w.push_back(L +
                            ": approximated by RandomErasing, which erases exactly one rectangle (AugLab: " +
                            formatNumber(holes.min) + "-" + formatNumber(holes.max) +
                            " holes), chosen by area and "
                            "aspect ratio instead of independent height and width.");
                std::string scale = "(0.0025, 0.01)", ratio = "(0.5, 2.0)";
                if (!op.has("hole_height_px")) {
                    const Range h = op.range("hole_height_frac"), wd = op.range("hole_width_frac");
                    scale = pyRange({h.min * wd.min, std::max(h.min * wd.min, h.max * wd.max)});
                    const double rmin = std::max(1e-3, h.min) / std::max(1e-3, wd.max),
                                 rmax = std::max(1e-3, h.max) / std::max(1e-3, wd.min);
                    ratio = pyRange({std::min(rmin, rmax), std::max(rmin, rmax)});
                    w.push_back(
                        L +
                        ": RandomErasing's ratio is height/width in pixels; with non-square images the "
                        "fractional sizes map only approximately.");
                } else {
                    w.push_back(
                        L +
                        ": hole sizes in pixels cannot be given to RandomErasing (it takes area fractions): "
                        "scale (0.0025, 0.01) is a placeholder; adjust it to your image size.");
                }
                const Fill f = op.fill("fill");
                std::string value = pyRgb(f);
                if (f.mode != Fill::Mode::Constant) {
                    value = "\"random\"";
                    if (f.mode == Fill::Mode::RandomUniform)
                        w.push_back(
                            L + ": fill \"random_uniform\" (one colour per hole) becomes per-pixel noise.");
                }
                lines += "    v2.RandomErasing(p=" + pyFloat(op.p) + ", scale=" + scale + ", ratio=" + ratio +
                         ", value=" + value + "),  # " + L + " (approximation)\n";
                return;
            }
            case PythonTarget::Keras: {
                std::string& lines = x.lines;
                w.push_back(
                    L + ": approximated by RandomErasing: one rectangle per image chosen by area (AugLab: " +
                    formatNumber(op.range("holes").min) + "-" + formatNumber(op.range("holes").max) +
                    " holes of independent height and width).");
                if (op.fill("fill").mode != Fill::Mode::Constant)
                    w.push_back(L + ": random fills become Keras' default (random values).");
                {
                    std::string scale = "(0.0025, 0.01)";
                    if (!op.has("hole_height_px")) {
                        const Range h = op.range("hole_height_frac"), wd = op.range("hole_width_frac");
                        scale = pyRange({h.min * wd.min, std::max(h.min * wd.min, h.max * wd.max)});
                    } else {
                        w.push_back(
                            L + ": hole sizes in pixels: the area fraction (0.0025, 0.01) is a placeholder.");
                    }
                    const Fill f = op.fill("fill");
                    const std::string fill = f.mode == Fill::Mode::Constant ? pyFloat(f.rgb[0]) : "None";
                    lines += "    layers.RandomErasing(factor=(" + pyFloat(op.p) + ", " + pyFloat(op.p) +
                             "), scale=" + scale + ", fill_value=" + fill + ", value_range=(0, 255)),  # " +
                             L + " (approximation)\n";
                }
                return;
            }
            case PythonTarget::TfDeotte:
            case PythonTarget::Dali:
                return;  // dropout::leftOutOf
        }
    }
};

}  // namespace

const OpModule& coarseDropoutModule() {
    static const CoarseDropoutModule module;
    return module;
}

}  // namespace auglab
