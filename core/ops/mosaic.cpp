// mosaic: Albumentations 2.0.8's Mosaic (the YOLO 4-image mosaic) on a 2x2 grid of cells. A centre
// is drawn on the grid, the target_size window around it cut into up to four cells; the sample's own
// image takes the largest, three partners from the pool (PartnerPool, as the mixing ops) the others.
// Each image is scaled to the cell shape (cover: SmallestMaxSize, contain: LongestMaxSize and centred
// padding) and cut on the side away from the centre. The op comes first in a pipeline: the cells are
// composed on the host from whole images (bindPartners) and pasted by a MixStep, so every backend
// renders it with the steps it has.
// Checked against the Albumentations 2.0.8 source (augmentations/mixing/functional.py
// calculate_mosaic_center_point, calculate_cell_placements, assign_items_to_grid_cells,
// get_opposite_crop_coords, process_cell_geometry; geometric/resize.py MaxSizeTransform).
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/mosaic.h"

#include <algorithm>
#include <cmath>
#include <set>
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
#include "targets.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;
using namespace replay_fields;

// Draw numbers: 1 and 2 the centre, 16 + 8k (+ attempt) the partner of the k-th other cell.
constexpr std::uint32_t kCentreXDraw = 1, kCentreYDraw = 2, kFirstPartnerDraw = 16;

/// np.unique(np.clip(lines, lo, hi)) - lo: the cut positions inside the window, from its start.
std::vector<int> cuts(int cell, int lo, int hi) {
    std::set<int> s;
    for (int k = 0; k <= 2; ++k) s.insert(std::clamp(k * cell, lo, hi));
    std::vector<int> out;
    for (int v : s) out.push_back(v - lo);
    return out;
}

/// get_opposite_crop_coords with get_cell_relative_position: the part of the cell-shaped image next to
/// the mosaic's centre.
void cropOrigin(MosaicCell& c, int targetW, int targetH, int cellW, int cellH) {
    const double cx = (c.rect.x + c.rect.x + c.rect.w) / 2.0, cy = (c.rect.y + c.rect.y + c.rect.h) / 2.0;
    const int h = cy < targetH / 2.0 ? -1 : (cy > targetH / 2.0 ? 1 : 0);  // top, bottom, centre
    const int v = cx < targetW / 2.0 ? -1 : (cx > targetW / 2.0 ? 1 : 0);  // left, right, centre
    if (h == 0 || v == 0) {                                                // "center" on either axis
        c.cropX = (cellW - c.rect.w) / 2;
        c.cropY = (cellH - c.rect.h) / 2;
        return;
    }
    c.cropX = v < 0 ? cellW - c.rect.w : 0;
    c.cropY = h < 0 ? cellH - c.rect.h : 0;
}

MosaicParams sampleMosaic(const OpConfig& op, const OpDraws& d) {
    MosaicParams m;
    const Size2 target = op.size("target_size"), cell = op.size("cell_shape");
    m.targetW = target.width;
    m.targetH = target.height;
    m.cellW = cell.width;
    m.cellH = cell.height;
    m.contain = op.choice("fit_mode") == "contain";
    m.interpolation = interpolationFromName(op.choice("interpolation"));
    m.fill = rgbOf(op.fill("fill"));
    m.partners = d.pool().count;
    if (2 * m.cellW < m.targetW || 2 * m.cellH < m.targetH)
        throw InputError("mosaic: two cells of cell_shape " + std::to_string(m.cellH) + "x" +
                         std::to_string(m.cellW) + " must cover target_size " + std::to_string(m.targetH) +
                         "x" + std::to_string(m.targetW) + " (Albumentations refuses this too)");
    // calculate_mosaic_center_point: x then y, int() of a positive product.
    const Range cr = op.range("center_range");
    const int minX = m.targetW / 2, maxX = 2 * m.cellW - (m.targetW + 1) / 2;
    const int minY = m.targetH / 2, maxY = 2 * m.cellH - (m.targetH + 1) / 2;
    const double relX = d.uniform(kCentreXDraw, cr), relY = d.uniform(kCentreYDraw, cr);
    m.centreX = std::clamp(minX + static_cast<int>((maxX - minX + 1) * relX), minX, maxX);
    m.centreY = std::clamp(minY + static_cast<int>((maxY - minY + 1) * relY), minY, maxY);
    // calculate_cell_placements: the grid's lines inside the window, row-major cells.
    const int x0 = m.centreX - m.targetW / 2, y0 = m.centreY - m.targetH / 2;
    const std::vector<int> xs = cuts(m.cellW, x0, x0 + m.targetW), ys = cuts(m.cellH, y0, y0 + m.targetH);
    for (std::size_t j = 0; j + 1 < ys.size(); ++j)
        for (std::size_t i = 0; i + 1 < xs.size(); ++i) {
            MosaicCell c;
            c.rect = Hole{xs[i], ys[j], xs[i + 1] - xs[i], ys[j + 1] - ys[j]};
            cropOrigin(c, m.targetW, m.targetH, m.cellW, m.cellH);
            m.cells.push_back(c);
        }
    // assign_items_to_grid_cells: the sample's own image in the largest cell (the first of equals),
    // distinct partners in the others (the image again when the pool has too few).
    std::size_t largest = 0;
    for (std::size_t k = 1; k < m.cells.size(); ++k)
        if (std::int64_t(m.cells[k].rect.w) * m.cells[k].rect.h >
            std::int64_t(m.cells[largest].rect.w) * m.cells[largest].rect.h)
            largest = k;
    m.cells[largest].primary = true;
    m.cells[largest].partner = d.pool().self;
    std::vector<std::uint64_t> used;
    std::uint32_t k = 0;
    for (MosaicCell& c : m.cells) {
        if (c.primary) continue;
        std::uint64_t p = d.partner(kFirstPartnerDraw + 8 * k);
        for (std::uint32_t attempt = 1; attempt < 8 && used.size() + 1 < d.pool().count &&
                                        std::find(used.begin(), used.end(), p) != used.end();
             ++attempt)
            p = d.partner(kFirstPartnerDraw + 8 * k + attempt);
        used.push_back(p);
        c.partner = p;
        ++k;
    }
    return m;
}

Json albumentationsMosaic(const exporting::ExportedOp& e, std::vector<std::string>& warnings) {
    using namespace exporting;
    const OpConfig& op = *e.op;
    warnings.push_back(
        e.label() +
        ": Albumentations' Mosaic takes its other images from the `mosaic_metadata` list passed "
        "with every call (dicts with image, and bboxes/keypoints/mask with their label fields), "
        "which your Dataset must supply; AugLab draws them from the images loaded or the folder.");
    const Size2 target = op.size("target_size"), cell = op.size("cell_shape");
    Json j = start("Mosaic", op.p);
    j["cell_shape"] = Json::array({cell.height, cell.width});
    j["center_range"] = pair(op.range("center_range"));
    j["fill"] = fillValue(op.fill("fill"));
    j["fill_mask"] = 0.0;
    j["fit_mode"] = op.choice("fit_mode");
    j["grid_yx"] = Json::array({2, 2});
    j["interpolation"] = cvInterpolation(op.choice("interpolation"));
    j["mask_interpolation"] = 0;
    j["metadata_key"] = "mosaic_metadata";
    j["target_size"] = Json::array({target.height, target.width});
    return j;
}

Size2 readHw(exporting::TransformArgs& a, const char* key) {
    const JsonReader r = a.get(key);
    if (r.arraySize() != 2) a.fail(r, "expected [height, width]");
    return Size2{static_cast<int>(r.element(0).integer(1, 8192)),
                 static_cast<int>(r.element(1).integer(1, 8192))};
}

void readMosaic(exporting::TransformArgs& a, OpConfig& op) {
    using namespace exporting;
    const JsonReader grid = a.get("grid_yx");
    if (grid.arraySize() != 2 || grid.element(0).integer(1, 64) != 2 || grid.element(1).integer(1, 64) != 2)
        a.fail(grid, "AugLab's mosaic is a 2x2 grid; other grids cannot be expressed");
    op.set("target_size", readHw(a, "target_size"));
    op.set("cell_shape", readHw(a, "cell_shape"));
    op.set("center_range", a.clamp(a.get("center_range"), pair(a.get("center_range")), 0, 1));
    const JsonReader fit = a.get("fit_mode");
    const std::string mode = fit.string();
    if (mode != "cover" && mode != "contain") a.fail(fit, "expected \"cover\" or \"contain\"");
    op.set("fit_mode", mode);
    op.set("interpolation", std::string(interpolationName(a.get("interpolation"), a)));
    op.set("fill", readFill(a.get("fill"), a, false));
    a.maskOnly("fill_mask");
    a.maskOnly("mask_interpolation");
    a.get("metadata_key");  // where the caller passes the other images: AugLab takes them from the pool
}

class MosaicModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        using namespace params;
        OpDesc d = makeOp(
            id, "mosaic", "Mosaic (4 images)", OpCategory::Geometric,
            "Albumentations 2.0.8 Mosaic on a 2x2 grid: a target_size window around a centre drawn on a grid "
            "of cell_shape cells; this image fills the largest cell, three other loaded images (dataset "
            "mode: "
            "other files of the folder) the rest, each scaled to the cell shape (cover: filling it, contain: "
            "inside it, padded with the fill) and cut on the side away from the centre. Boxes, keypoints and "
            "masks come from every image. First in the pipeline.",
            {
                sizeParam("target_size", "Output size", 16, 8192, Size2{512, 512},
                          "The mosaic's [height, width]."),
                sizeParam("cell_shape", "Cell shape", 16, 8192, Size2{512, 512},
                          "[height, width] each image is scaled to; two cells must cover the output."),
                floatRange("center_range", "Centre", "fraction of the grid", 0, 1, {0.3, 0.7},
                           "Where the mosaic's centre falls, as a fraction of the valid span on each axis."),
                choice(
                    "fit_mode", "Fit", {"cover", "contain"}, "cover",
                    "cover: scale so the image covers the cell (SmallestMaxSize); contain: so it fits inside "
                    "(LongestMaxSize), padded with the fill."),
                choice("interpolation", "Interpolation", kInterpolationChoices, "linear",
                       "How each image is resized."),
                fill("fill", false, "Colour of contain's padding."),
            });
        d.setsFrame = true;
        d.usesPartner = true;
        d.mustBeFirst = true;
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        return sampleMosaic(op, d);
    }

    void frameAfter(const OpParams& params, int& width, int& height) const override {
        const auto& m = std::get<MosaicParams>(params);
        width = m.targetW;
        height = m.targetH;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& m = std::get<MosaicParams>(params);
        j["target_size"] = Json::array({m.targetH, m.targetW});
        j["cell_shape"] = Json::array({m.cellH, m.cellW});
        j["center_px"] = Json::array({m.centreX, m.centreY});
        j["fit_mode"] = m.contain ? "contain" : "cover";
        j["interpolation"] = interpolationName(m.interpolation);
        j["fill"] = rgbJson(m.fill);
        j["partners"] = m.partners;
        Json cells = Json::array();
        for (const MosaicCell& c : m.cells) {
            Json o;
            o["rect_px"] = Json::array({c.rect.x, c.rect.y, c.rect.x + c.rect.w, c.rect.y + c.rect.h});
            o["crop_px"] = Json::array({c.cropX, c.cropY});
            o["partner"] = c.partner;
            o["primary"] = c.primary;
            if (!c.partnerPath.empty()) o["partner_path"] = c.partnerPath;
            cells.push_back(o);
        }
        j["cells"] = cells;
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "target_size", "cell_shape", "center_px", "fit_mode",
                         "interpolation", "fill", "partners", "cells"});
        MosaicParams m;
        auto hw = [&](const char* key, int& h, int& w) {
            const JsonReader v = r.member(key);
            if (v.arraySize() != 2) v.fail("expected [height, width]");
            h = static_cast<int>(v.element(0).integer(1, 8192));
            w = static_cast<int>(v.element(1).integer(1, 8192));
        };
        hw("target_size", m.targetH, m.targetW);
        hw("cell_shape", m.cellH, m.cellW);
        const JsonReader centre = r.member("center_px");
        if (centre.arraySize() != 2) centre.fail("expected [x, y]");
        m.centreX = static_cast<int>(centre.element(0).integer(0, 16384));
        m.centreY = static_cast<int>(centre.element(1).integer(0, 16384));
        const std::string fit = r.member("fit_mode").string();
        if (fit != "cover" && fit != "contain")
            r.member("fit_mode").fail("expected \"cover\" or \"contain\"");
        m.contain = fit == "contain";
        m.interpolation = readInterpolation(r, "interpolation");
        m.fill = readRgb(r.member("fill"));
        m.partners = r.member("partners").unsignedInteger();
        if (m.partners < 1) r.member("partners").fail("expected at least 1 image in the pool");
        const JsonReader cells = r.member("cells");
        const std::size_t n = cells.arraySize();
        if (n < 1 || n > 4) cells.fail("expected 1 to 4 cells");
        int primaries = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const JsonReader c = cells.element(i);
            c.requireObject({"rect_px", "crop_px", "partner", "primary", "partner_path"});
            MosaicCell cell;
            const JsonReader rect = c.member("rect_px");
            if (rect.arraySize() != 4) rect.fail("expected [x0, y0, x1, y1] in pixels");
            const int x0 = static_cast<int>(rect.element(0).integer(0, m.targetW));
            const int y0 = static_cast<int>(rect.element(1).integer(0, m.targetH));
            const int x1 = static_cast<int>(rect.element(2).integer(x0 + 1, m.targetW));
            const int y1 = static_cast<int>(rect.element(3).integer(y0 + 1, m.targetH));
            cell.rect = Hole{x0, y0, x1 - x0, y1 - y0};
            const JsonReader crop = c.member("crop_px");
            if (crop.arraySize() != 2) crop.fail("expected [x, y]");
            cell.cropX = static_cast<int>(crop.element(0).integer(0, m.cellW - cell.rect.w));
            cell.cropY = static_cast<int>(crop.element(1).integer(0, m.cellH - cell.rect.h));
            cell.partner = c.member("partner").unsignedInteger();
            if (cell.partner >= m.partners)
                c.member("partner").fail("the partner must be one of the pool's " +
                                         std::to_string(m.partners) + " images");
            cell.primary = c.member("primary").boolean();
            primaries += cell.primary;
            if (c.has("partner_path")) cell.partnerPath = c.member("partner_path").string();
            m.cells.push_back(cell);
        }
        if (primaries != 1) cells.fail("expected exactly one cell with \"primary\": true");
        return m;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& m = std::get<MosaicParams>(params);
        if (key != "center_range") return {};
        // The centre's place in its valid span, per axis (what center_range bounds).
        const double spanX = 2 * m.cellW - (m.targetW + 1) / 2 - m.targetW / 2 + 1;
        const double spanY = 2 * m.cellH - (m.targetH + 1) / 2 - m.targetH / 2 + 1;
        return {(m.centreX - m.targetW / 2) / spanX, (m.centreY - m.targetH / 2) / spanY};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& m = std::get<MosaicParams>(params);
        if (b.hasStages()) throw InputError("mosaic must be the first op: it composes whole images");
        // The frame becomes the canvas; the cells are composed on the host (bindPartners) and pasted
        // whole, over whatever the warp drew.
        b.newFrame(resizeMatrix(b.frameWidth(), b.frameHeight(), m.targetW, m.targetH), m.targetW, m.targetH,
                   b.frameWidth(), b.frameHeight(), m.interpolation);
        MixStep s;
        s.paste = true;
        s.box = Hole{0, 0, b.stageWidth(), b.stageHeight()};
        for (const MosaicCell& c : m.cells)
            if (c.primary) s.partnerIndex = c.partner;
        s.grid = std::make_shared<const MosaicParams>(m);
        b.pixel(std::move(s));
    }

    bool moveTargets(const OpParams& params, TargetFrame& f) const override {
        mosaicTargets(std::get<MosaicParams>(params), f);
        return true;
    }

    std::vector<std::string> albumentationsClasses() const override { return {"Mosaic"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>& warnings) const override {
        return albumentationsMosaic(e, warnings);
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5},
                {"grid_yx", {2, 2}},
                {"target_size", {512, 512}},
                {"cell_shape", {512, 512}},
                {"center_range", {0.3, 0.7}},
                {"fit_mode", "cover"},
                {"interpolation", 1},
                {"mask_interpolation", 0},
                {"fill", 0},
                {"fill_mask", 0},
                {"metadata_key", "mosaic_metadata"}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override { readMosaic(a, op); }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const std::string L = e.label();
        switch (x.target) {
            case PythonTarget::Torchvision:
            case PythonTarget::Keras:
            case PythonTarget::Dali:
                notExported(
                    e, x,
                    L + ": no 4-image mosaic in this library: not exported (the albumentations exports "
                        "have it, as Mosaic with your mosaic_metadata).");
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
        }
    }
};

}  // namespace

MosaicPlacement mosaicPlacement(const MosaicParams& m, const MosaicCell& cell, int width, int height) {
    MosaicPlacement p;
    const double sh = double(m.cellH) / height, sw = double(m.cellW) / width;
    p.scale = m.contain ? std::min(sh, sw) : std::max(sh, sw);
    // Python's round(): halves to even, as std::nearbyint in the default rounding mode.
    p.resizedH = std::max(1, static_cast<int>(std::nearbyint(height * p.scale)));
    p.resizedW = std::max(1, static_cast<int>(std::nearbyint(width * p.scale)));
    int padX = 0, padY = 0;
    if (m.contain) {
        // Crop(pad_if_needed) pads what the crop lacks, the left and top halves rounded down.
        padX = std::max(0, cell.cropX + cell.rect.w - p.resizedW) / 2;
        padY = std::max(0, cell.cropY + cell.rect.h - p.resizedH) / 2;
    }
    p.offsetX = cell.rect.x - cell.cropX + padX;
    p.offsetY = cell.rect.y - cell.cropY + padY;
    p.forward =
        Matrix3::translation(p.offsetX, p.offsetY) * resizeMatrix(width, height, p.resizedW, p.resizedH);
    return p;
}

const OpModule& mosaicModule() {
    static const MosaicModule m;
    return m;
}

}  // namespace auglab
