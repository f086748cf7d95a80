// grid_dropout: Albumentations 2.0 GridDropout (GridMask).
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

/// `size` cut into `parts` lengths differing by at most one (the first `size % parts` one longer),
/// then shuffled (Fisher-Yates, swap draws from `firstDraw`): Albumentations' shuffled splits.
std::vector<int> shuffledIntervals(int size, int parts, const OpDraws& d, std::uint32_t firstDraw) {
    std::vector<int> lengths(static_cast<std::size_t>(parts), size / parts);
    for (int i = 0; i < size % parts; ++i) ++lengths[static_cast<std::size_t>(i)];
    for (int i = parts - 1; i > 0; --i) {
        const auto j = d.randint(firstDraw + static_cast<std::uint32_t>(i), 0, i);
        std::swap(lengths[static_cast<std::size_t>(i)], lengths[static_cast<std::size_t>(j)]);
    }
    return lengths;
}

/// Albumentations 2.0 GridDropout (calculate_grid_dimensions, split_uniform_grid, generate_grid_holes)
/// with this sampler's draws: the same distribution of holes, drawn from (seed, index).
DropoutParams sampleGridDropout(const OpConfig& op, const OpDraws& d, int width, int height) {
    constexpr std::uint32_t kUnit = 1, kRowShuffle = 0x80000000u, kColumnShuffle = 0xC0000000u;
    DropoutParams p;
    const Fill fill = op.fill("fill");
    p.fillMode = fill.mode;
    p.fill = rgbOf(fill);
    if (fill.mode == Fill::Mode::Random) p.noiseSeed = d.bits64(kNoiseKeyDraw);
    int unitW = std::max(2, width / 10), unitH = std::max(2, height / 10);
    if (op.has("unit_size_px")) {
        const Range u = op.range("unit_size_px");
        // Albumentations refuses a unit range reaching the shorter side (its exported, exclusive upper
        // end max + 1 above that side): so does AugLab, for this image.
        const int shorter = std::min(width, height);
        if (u.max >= shorter)
            throw InputError("grid_dropout: unit_size_px up to " + std::to_string(std::llround(u.max)) +
                             " px does not fit this " + std::to_string(width) + "x" + std::to_string(height) +
                             " image: the largest unit must be below its shorter side, " +
                             std::to_string(shorter) + " (Albumentations raises here too)");
        const auto unit =
            d.randint(kUnit, static_cast<std::int64_t>(u.min), static_cast<std::int64_t>(u.max));
        unitW = unitH = static_cast<int>(unit);
    }
    p.unitPx = {unitW, unitH};
    const int rows = height / unitH, cols = width / unitW;
    if (rows <= 0 || cols <= 0) return p;
    const std::vector<int> rowHeights = shuffledIntervals(height, rows, d, kRowShuffle);
    const std::vector<int> colWidths = shuffledIntervals(width, cols, d, kColumnShuffle);
    const double ratio = op.number("ratio");
    const bool randomOffset = op.flag("random_offset");
    int cellY = 0;
    std::uint32_t cell = 0;
    for (const int cellH : rowHeights) {
        int cellX = 0;
        for (const int cellW : colWidths) {
            const std::uint32_t base = dropout::kFirstHole + cell * dropout::kDrawsPerHole;
            // numpy: clip(cell * ratio, 1, cell - 1).astype(int), i.e. min(max(v, 1), cell - 1) then
            // truncation (a one-pixel cell gets an empty hole).
            const int h = static_cast<int>(std::min(std::max(cellH * ratio, 1.0), cellH - 1.0));
            const int w = static_cast<int>(std::min(std::max(cellW * ratio, 1.0), cellW - 1.0));
            const int offY = randomOffset ? static_cast<int>(d.randint(base, 0, cellH - h)) : 0;
            const int offX = randomOffset ? static_cast<int>(d.randint(base + 1, 0, cellW - w)) : 0;
            const int x = std::clamp(cellX + offX, 0, width - w), y = std::clamp(cellY + offY, 0, height - h);
            p.holes.push_back(Hole{x, y, std::min(x + w, width) - x, std::min(y + h, height) - y});
            if (fill.mode == Fill::Mode::RandomUniform)
                p.holeColours.push_back({static_cast<std::uint8_t>(d.randint(base + 4, 0, 255)),
                                         static_cast<std::uint8_t>(d.randint(base + 5, 0, 255)),
                                         static_cast<std::uint8_t>(d.randint(base + 6, 0, 255))});
            cellX += cellW;
            ++cell;
        }
        cellY += cellH;
    }
    return p;
}

Json albumentationsGridDropout(const exporting::ExportedOp& e, std::vector<std::string>& warnings) {
    using namespace exporting;
    const OpConfig& op = *e.op;
    Json j = start("GridDropout", op.p);
    const Fill fill = op.fill("fill");
    if (fill.mode == Fill::Mode::Random)
        j["fill"] = "random";
    else if (fill.mode == Fill::Mode::RandomUniform)
        j["fill"] = "random_uniform";
    else
        j["fill"] = fillValue(fill);
    j["fill_mask"] = nullptr;
    j["holes_number_xy"] = nullptr;
    j["random_offset"] = op.flag("random_offset");
    j["ratio"] = op.number("ratio");
    j["shift_xy"] = Json::array({0, 0});
    if (op.has("unit_size_px")) {
        // numpy's integers(low, high) leaves `high` out: [a, b + 1) draws AugLab's inclusive [a, b].
        const Range u = op.range("unit_size_px");
        j["unit_size_range"] = Json::array({std::llround(u.min), std::llround(u.max) + 1});
        warnings.push_back(e.label() + ": unit_size_px [" + formatNumber(u.min) + ", " + formatNumber(u.max) +
                           "] is written as unit_size_range [" + formatNumber(u.min) + ", " +
                           formatNumber(u.max + 1) +
                           "] (Albumentations leaves the upper end out); it raises "
                           "ValueError on images whose shorter side is below " +
                           formatNumber(u.max + 1) + ", as AugLab refuses them.");
    } else {
        j["unit_size_range"] = nullptr;
    }
    return j;
}

void readGridDropout(exporting::TransformArgs& a, OpConfig& op) {
    using namespace exporting;
    const JsonReader ratio = a.get("ratio");
    const double r = ratio.number();
    if (!(r > 0 && r <= 1)) a.fail(ratio, "ratio must be in (0, 1]");
    if (r < 0.01) a.warn(ratio, "ratio " + formatNumber(r) + " read as 0.01, AugLab's smallest.");
    op.set("ratio", std::max(r, 0.01));
    const JsonReader unit = a.get("unit_size_range");
    if (!unit.json().is_null()) {
        // numpy's integers(low, high) leaves `high` out (1.4.24, 2.0.x and AlbumentationsX alike).
        const Range u = pair(unit);
        Range inclusive{std::trunc(u.min), std::trunc(u.max) - 1};
        if (inclusive.max < inclusive.min) {
            a.warn(unit, "an empty range (Albumentations raises ValueError on it): read as [" +
                             formatNumber(inclusive.min) + ", " + formatNumber(inclusive.min) + "].");
            inclusive.max = inclusive.min;
        }
        op.set("unit_size_px", a.clamp(unit, inclusive, 2, 100000));
    }
    if (const std::optional<JsonReader> n = a.find({"holes_number_xy"}); n && !n->json().is_null())
        a.warn(*n,
               "a fixed number of grid cells cannot be expressed: the unit comes from unit_size_range or is "
               "max(2, side // 10).");
    const bool randomOffset = a.get("random_offset").boolean();
    op.set("random_offset", randomOffset);
    const JsonReader shift = a.get("shift_xy");
    if (!randomOffset && shift.arraySize() == 2 &&
        (shift.element(0).number() != 0 || shift.element(1).number() != 0))
        a.warn(shift,
               "a shift of the holes inside their cells cannot be expressed: holes at the cells' corners.");
    op.set("fill", readFill(a.get("fill"), a, true, FillCast::Truncated));
    a.maskOnly("fill_mask");
}

class GridDropoutModule final : public dropout::DropoutModule {
public:
    GridDropoutModule() : DropoutModule(true) {}

    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "grid_dropout", "Grid dropout (GridMask)", OpCategory::Pixel,
            "Albumentations 2.0 GridDropout: the image is cut into rows and columns of a unit size (drawn "
            "from unit_size_px, else max(2, side // 10) per axis), the uneven rows and columns shuffled, and "
            "each cell gets one hole of ratio x its size (at least 1 px, at most the cell minus 1 px), at a "
            "random place in the cell (random_offset) or at its top-left corner.",
            {
                number("ratio", "Ratio", "fraction of a unit", 0.01, 1, 0.5,
                       "Hole size as a fraction of its grid cell, both axes (truncated to pixels)."),
                optionalParam(intRange(
                    "unit_size_px", "Unit size (px)", "px", 2, 100000, {10, 20},
                    "Grid unit in pixels, inclusive range, one draw for both axes; without it the unit "
                    "is max(2, side // 10) per axis. The largest unit must be below the image's shorter "
                    "side: otherwise an error for that image (as in Albumentations).")),
                boolean(
                    "random_offset", "Random offset", true,
                    "Place each hole at a random position inside its cell (off: at the cell's top-left)."),
                fill("fill", true,
                     "[r, g, b], or \"random\" (noise per pixel) or \"random_uniform\" (one colour per "
                     "hole)."),
            });
        // The sliders' span for tuning (the bounds above are for validation).
        params::typicalOfImage(d, "unit_size_px", 2, 0.5);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int width, int height) const override {
        return sampleGridDropout(op, d, width, height);
    }

    std::vector<std::string> albumentationsClasses() const override { return {"GridDropout"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>& warnings) const override {
        return albumentationsGridDropout(e, warnings);
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5},
                {"ratio", 0.5},
                {"unit_size_range", nullptr},
                {"holes_number_xy", nullptr},
                {"random_offset", true},
                {"shift_xy", {0, 0}},
                {"fill", 0.0}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        readGridDropout(a, op);
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const std::string L = e.label();
        if (dropout::leftOutOf(e, x)) return;
        switch (x.target) {
            case PythonTarget::Torchvision: {
                notExported(e, x,
                            L + ": torchvision has no grid dropout: not exported (the albumentations export "
                                "has it).");
                return;
            }
            case PythonTarget::Keras: {
                notExported(e, x,
                            L + ": Keras 3 has no grid dropout layer: not exported (the albumentations "
                                "export has it).");
                return;
            }
            case PythonTarget::TfDeotte:
            case PythonTarget::Dali:
                return;  // dropout::leftOutOf
        }
    }
};

}  // namespace

const OpModule& gridDropoutModule() {
    static const GridDropoutModule module;
    return module;
}

}  // namespace auglab
