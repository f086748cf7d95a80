// clahe: Albumentations 2.0.8 CLAHE on 8-bit RGB (pixel/functional.py clahe): clip_limit drawn
// uniformly (py_random.uniform), then cv2.createCLAHE(clip_limit, tile_grid_size).apply on the L of
// cv2.COLOR_RGB2LAB and cv2.COLOR_LAB2RGB back (a ClaheStep: core/plan.h, core/colour.h Lab8, both
// bit exact). The library's tile_grid_size is OpenCV's Size, (tiles across, tiles down), although its
// docstring says (rows, columns); AugLab's tile_grid is [rows, columns] like every size it has, so
// the pair is swapped both ways. Alpha is kept (the library refuses four channels). The CUDA backend
// runs the step on the device (tile histograms, tables, blend); the GL backend on the host
// (OpDesc::runsOnHostGl: GLSL 3.30 cannot keep the float blend from being fused).
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/clahe.h"

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

constexpr std::uint32_t kClipDraw = 1;
constexpr double kClipMax = 100;
constexpr int kTilesMax = 64;

class ClaheModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        ParamDesc grid = sizeParam("tile_grid", "Tile grid", 1, kTilesMax, {8, 8},
                                   "Tiles down and across (Albumentations' tile_grid_size is [across, down], "
                                   "as OpenCV reads it).");
        grid.unit = "tiles (rows, columns)";
        OpDesc d = makeOp(id, "clahe", "CLAHE", OpCategory::Pixel,
                          "Albumentations 2.0.8 CLAHE: contrast-limited adaptive histogram equalisation of "
                          "the lightness (OpenCV's Lab), tile by tile, blended between tiles.",
                          {
                              floatRange("clip_limit", "Clip limit", "x mean bin", 1, kClipMax, {1, 4},
                                         "A bin's cap per tile, in multiples of the tile's mean count: "
                                         "higher is stronger contrast."),
                              grid,
                          });
        params::typical(d, "clip_limit", 1, 10);
        d.runsOnHostGl = true;
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        const Size2 grid = op.size("tile_grid");
        return ClaheParams{d.uniform(kClipDraw, op.range("clip_limit")), grid.width, grid.height};
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<ClaheParams>(params);
        j["clip_limit"] = p.clipLimit;
        j["tile_grid"] = {p.tilesY, p.tilesX};
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "clip_limit", "tile_grid"});
        const JsonReader grid = r.member("tile_grid");
        if (grid.arraySize() != 2) grid.fail("expected [rows, columns]");
        return ClaheParams{num(r, "clip_limit", 1, kClipMax), int(grid.element(1).integer(1, kTilesMax)),
                           int(grid.element(0).integer(1, kTilesMax))};
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        if (key == "clip_limit") return {std::get<ClaheParams>(params).clipLimit};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<ClaheParams>(params);
        b.pixel(ClaheStep{p.clipLimit, p.tilesX, p.tilesY});
    }

    std::vector<std::string> albumentationsClasses() const override { return {"CLAHE"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        Json j = start("CLAHE", e.op->p);
        j["clip_limit"] = pair(e.op->range("clip_limit"));
        const Size2 grid = e.op->size("tile_grid");
        j["tile_grid_size"] = {grid.width, grid.height};
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5}, {"clip_limit", {1.0, 4.0}}, {"tile_grid_size", {8, 8}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        const JsonReader clip = a.get("clip_limit");
        // A number is the upper end, the lower one 1 (the library's convert_to_1plus_range).
        const Range r = clip.json().is_number() ? Range{1.0, clip.number()} : pair(clip);
        op.set("clip_limit", a.clamp(clip, r, 1, kClipMax));
        const JsonReader grid = a.get("tile_grid_size");
        if (grid.arraySize() != 2) grid.fail("expected [tiles across, tiles down]");
        op.set("tile_grid",
               Size2{int(grid.element(1).integer(1, kTilesMax)), int(grid.element(0).integer(1, kTilesMax))});
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        exporting::onlyInAlbumentations(e, x, "CLAHE");
    }
};

}  // namespace

const OpModule& claheModule() {
    static const ClaheModule module;
    return module;
}

}  // namespace auglab
