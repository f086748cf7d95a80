// random_grid_shuffle: Albumentations 2.0.8 RandomGridShuffle. The frame's rows and columns are cut
// into almost equal intervals (the first H mod rows one pixel taller), shuffled; the cells are
// grouped by shape and each group shuffled, cell k moving to cell mapping[k]
// (split_uniform_grid, create_shape_groups, shuffle_tiles_within_shape_groups). The pixels move as
// a remap by whole pixels (exact); keypoints with their cell (swap_tiles_on_keypoints); each box
// becomes its pixels' connected pieces after the move, each its own box (bboxes_grid_shuffle).
// The permutations are AugLab's draws (uniform, as numpy's shuffle), not numpy's numbers.
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/random_grid_shuffle.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "error.h"
#include "export_common.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "plan_builder.h"
#include "sampler.h"
#include "targets.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;
using namespace params;

/// almost_equal_intervals: n in `parts` parts, the first n mod parts one larger.
std::vector<int> almostEqual(int n, int parts) {
    std::vector<int> v(static_cast<std::size_t>(parts), n / parts);
    for (int i = 0; i < n % parts; ++i) ++v[std::size_t(i)];
    return v;
}

/// Fisher-Yates as numpy's shuffle runs it (from the end), each swap partner from draw `draw++`.
template <typename T>
void shuffle(std::vector<T>& v, const OpDraws& d, std::uint32_t& draw) {
    for (std::size_t i = v.size(); i-- > 1;)
        std::swap(v[i], v[std::size_t(d.randint(draw++, 0, std::int64_t(i)))]);
}

std::vector<int> starts(const std::vector<int>& sides) {
    std::vector<int> s(sides.size() + 1, 0);
    std::partial_sum(sides.begin(), sides.end(), s.begin() + 1);
    return s;
}

class RandomGridShuffleModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "random_grid_shuffle", "Random grid shuffle", OpCategory::Geometric,
            "Albumentations 2.0.8 RandomGridShuffle: the image is cut into a rows x columns grid (sides "
            "as equal as whole pixels allow, their order shuffled) and cells of the same shape swap places "
            "at random. A box cut by the grid becomes one box per connected piece.",
            {sizeParam("grid", "Grid", 1, 64, Size2{3, 3}, "Rows and columns of the grid.")});
        d.params[0].unit = "cells (rows, columns)";
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int width, int height) const override {
        const Size2 grid = op.size("grid");
        GridShuffleParams p;
        std::uint32_t draw = 1;  // draw 0 is the gate
        p.rowHeights = almostEqual(height, grid.height);
        shuffle(p.rowHeights, d, draw);
        p.colWidths = almostEqual(width, grid.width);
        shuffle(p.colWidths, d, draw);
        // Groups of cells of one shape, in the order of their first cell; each shuffled.
        const std::vector<GridCell> cells = gridCells(p);
        std::vector<std::pair<std::pair<int, int>, std::vector<int>>> groups;
        for (std::size_t k = 0; k < cells.size(); ++k) {
            const std::pair<int, int> shape{cells[k].y1 - cells[k].y0, cells[k].x1 - cells[k].x0};
            auto g =
                std::find_if(groups.begin(), groups.end(), [&](const auto& e) { return e.first == shape; });
            if (g == groups.end()) g = groups.insert(groups.end(), {shape, {}});
            g->second.push_back(int(k));
        }
        p.mapping.assign(cells.size(), -1);
        for (auto& [shape, indices] : groups) {
            std::vector<int> shuffled = indices;
            shuffle(shuffled, d, draw);
            for (std::size_t i = 0; i < indices.size(); ++i) p.mapping[std::size_t(indices[i])] = shuffled[i];
        }
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<GridShuffleParams>(params);
        j["row_heights"] = p.rowHeights;
        j["col_widths"] = p.colWidths;
        j["mapping"] = p.mapping;
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "row_heights", "col_widths", "mapping"});
        GridShuffleParams p;
        const auto ints = [&](const char* key, std::size_t lo, std::size_t hi, std::int64_t upper) {
            const JsonReader a = r.member(key);
            const std::size_t n = a.arraySize();
            if (n < lo || n > hi)
                a.fail("expected " + std::to_string(lo) + " to " + std::to_string(hi) + " values");
            std::vector<int> v;
            for (std::size_t i = 0; i < n; ++i) v.push_back(static_cast<int>(a.element(i).integer(0, upper)));
            return v;
        };
        p.rowHeights = ints("row_heights", 1, 64, 1'000'000);
        p.colWidths = ints("col_widths", 1, 64, 1'000'000);
        const std::size_t n = p.rowHeights.size() * p.colWidths.size();
        p.mapping = ints("mapping", n, n, std::int64_t(n) - 1);
        return p;
    }

    void checkReplay(const OpParams& params, const JsonReader& o, int frameW, int frameH) const override {
        const auto& p = std::get<GridShuffleParams>(params);
        if (std::accumulate(p.rowHeights.begin(), p.rowHeights.end(), 0L) != frameH)
            o.member("row_heights")
                .fail("the rows' heights must add up to the image's height, " + std::to_string(frameH));
        if (std::accumulate(p.colWidths.begin(), p.colWidths.end(), 0L) != frameW)
            o.member("col_widths")
                .fail("the columns' widths must add up to the image's width, " + std::to_string(frameW));
        const std::vector<GridCell> cells = gridCells(p);
        std::vector<bool> taken(cells.size(), false);
        for (std::size_t k = 0; k < cells.size(); ++k) {
            const std::size_t to = std::size_t(p.mapping[k]);
            const GridCell &a = cells[k], &b = cells[to];
            if (taken[to] || a.x1 - a.x0 != b.x1 - b.x0 || a.y1 - a.y0 != b.y1 - b.y0)
                o.member("mapping").fail(
                    "expected a permutation of the cells that moves each onto a cell of its "
                    "own shape");
            taken[to] = true;
        }
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        // Where the first cell goes, and the first row's height.
        if (key != "grid") return {};
        const auto& p = std::get<GridShuffleParams>(params);
        return {double(p.mapping.at(0)), double(p.rowHeights.at(0))};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<GridShuffleParams>(params);
        const std::vector<GridCell> cells = gridCells(p);
        const int cols = int(p.colWidths.size());
        const std::vector<int> ys = starts(p.rowHeights), xs = starts(p.colWidths);
        // Where each output cell's pixels come from: the cell that moves there.
        std::vector<int> from(cells.size());
        for (std::size_t k = 0; k < cells.size(); ++k) from[std::size_t(p.mapping[k])] = int(k);
        const int W = b.stageWidth(), H = b.stageHeight();
        const double sx = b.sx(), sy = b.sy();
        const int frameW = b.frameWidth(), frameH = b.frameHeight();
        // Per stage column and row: the frame cell's column (row) and the source offset there, per
        // output cell; a stage pixel keeps its place within its cell (whole pixels at full size).
        const auto index = [](const std::vector<int>& s, int v) {
            return int(std::upper_bound(s.begin() + 1, s.end() - 1, v) - (s.begin() + 1));
        };
        // The frame position and cell column of every stage column, the same of every row, once.
        std::vector<double> fxs(static_cast<std::size_t>(W)), fys(static_cast<std::size_t>(H));
        std::vector<int> colOf(static_cast<std::size_t>(W)), rowOf(static_cast<std::size_t>(H));
        for (int x = 0; x < W; ++x) {
            fxs[std::size_t(x)] = (x + 0.5) / sx - 0.5;
            colOf[std::size_t(x)] = index(xs, std::clamp(int(std::floor(fxs[std::size_t(x)] + 0.5)), 0, frameW - 1));
        }
        for (int y = 0; y < H; ++y) {
            fys[std::size_t(y)] = (y + 0.5) / sy - 0.5;
            rowOf[std::size_t(y)] = index(ys, std::clamp(int(std::floor(fys[std::size_t(y)] + 0.5)), 0, frameH - 1));
        }
        if (sx == 1.0 && sy == 1.0 && W == frameW && H == frameH) {
            // At full resolution the maps' values are whole pixels, x + (src.x0 - to.x0) and
            // y + (src.y0 - to.y0) exactly (the float expressions below with fx = x, fy = y): each
            // output cell is its source cell moved, given as the rectangles.
            std::vector<RemapMap::Tile> tiles;
            for (std::size_t k = 0; k < cells.size(); ++k) {
                const GridCell& to = cells[k];
                const GridCell& src = cells[std::size_t(from[k])];
                if (to.x1 > to.x0 && to.y1 > to.y0)
                    tiles.push_back({to.x0, to.y0, to.x1 - to.x0, to.y1 - to.y0, src.x0 - to.x0, src.y0 - to.y0});
            }
            b.remapStageTiles(std::move(tiles), Interpolation::Linear, BorderMode::Replicate, Rgb{0, 0, 0});
            return;
        }
        std::vector<float> mx(std::size_t(W) * H), my(mx.size());
        for (int y = 0; y < H; ++y) {
            const double fy = fys[std::size_t(y)];
            const int row = rowOf[std::size_t(y)];
            for (int x = 0; x < W; ++x) {
                const double fx = fxs[std::size_t(x)];
                const int col = colOf[std::size_t(x)];
                const GridCell& to = cells[std::size_t(row * cols + col)];
                const GridCell& src = cells[std::size_t(from[std::size_t(row * cols + col)])];
                const std::size_t o = std::size_t(y) * W + x;
                mx[o] = static_cast<float>((fx + src.x0 - to.x0 + 0.5) * sx - 0.5);
                my[o] = static_cast<float>((fy + src.y0 - to.y0 + 0.5) * sy - 0.5);
            }
        }
        b.remapStage(mx, my, Interpolation::Linear, BorderMode::Replicate, Rgb{0, 0, 0});
    }

    bool moveTargets(const OpParams& params, TargetFrame& f) const override {
        const auto& p = std::get<GridShuffleParams>(params);
        const std::vector<GridCell> cells = gridCells(p);
        // swap_tiles_on_keypoints: the first cell that holds the keypoint (none: it stays).
        for (Keypoint& k : f.keypoints)
            for (std::size_t c = 0; c < cells.size(); ++c) {
                const GridCell& a = cells[c];
                if (!(k.x >= a.x0 && k.x < a.x1 && k.y >= a.y0 && k.y < a.y1)) continue;
                const GridCell& to = cells[std::size_t(p.mapping[c])];
                k.x = k.x - a.x0 + to.x0;
                k.y = k.y - a.y0 + to.y0;
                break;
            }
        // bboxes_grid_shuffle: the box's pixels (masks_from_bboxes: truncated edges, half-open), cut by
        // the cells and moved with them, split into 8-connected pieces (cv2.connectedComponents, in the
        // order of their first pixel); a piece whose share of the box's area is below min_visibility, or
        // whose area is below min_area, is dropped; each other becomes a box [x0, y0, x1 + 1, y1 + 1].
        const BoxRules* rules = f.rules ? &f.rules->boxes : nullptr;
        std::vector<Box> out;
        for (const Box& box : f.boxes) {
            // astype(int) truncates toward zero; the mask keeps what lies in the frame.
            const auto edge = [](double v, int size) {
                return static_cast<int>(std::clamp(v, 0.0, double(size)));
            };
            const int bx0 = edge(box.x0, f.width), bx1 = edge(box.x1, f.width);
            const int by0 = edge(box.y0, f.height), by1 = edge(box.y1, f.height);
            std::vector<GridCell> parts;
            for (std::size_t c = 0; c < cells.size(); ++c) {
                const GridCell& a = cells[c];
                const GridCell cut{std::max(a.x0, bx0), std::max(a.y0, by0), std::min(a.x1, bx1),
                                   std::min(a.y1, by1)};
                if (cut.x0 >= cut.x1 || cut.y0 >= cut.y1) continue;
                const GridCell& to = cells[std::size_t(p.mapping[c])];
                parts.push_back({cut.x0 - a.x0 + to.x0, cut.y0 - a.y0 + to.y0, cut.x1 - a.x0 + to.x0,
                                 cut.y1 - a.y0 + to.y0});
            }
            const double area = double(std::max(0, bx1 - bx0)) * std::max(0, by1 - by0);
            // Pieces: rectangles that overlap or touch (a corner is enough) are connected.
            std::vector<int> parent(parts.size());
            std::iota(parent.begin(), parent.end(), 0);
            const auto root = [&](int i) {
                while (parent[std::size_t(i)] != i)
                    i = parent[std::size_t(i)] = parent[std::size_t(parent[std::size_t(i)])];
                return i;
            };
            for (std::size_t i = 0; i < parts.size(); ++i)
                for (std::size_t j = i + 1; j < parts.size(); ++j) {
                    const GridCell &a = parts[i], &c = parts[j];
                    if (a.x0 <= c.x1 && c.x0 <= a.x1 && a.y0 <= c.y1 && c.y0 <= a.y1)
                        parent[std::size_t(root(int(i)))] = root(int(j));
                }
            struct Piece {
                GridCell bounds{INT32_MAX, INT32_MAX, INT32_MIN, INT32_MIN};
                int firstY = INT32_MAX, firstX = INT32_MAX;  // the piece's first pixel in raster order
                double area = 0;
            };
            std::map<int, Piece> pieces;
            for (std::size_t i = 0; i < parts.size(); ++i) {
                Piece& q = pieces[root(int(i))];
                const GridCell& a = parts[i];
                q.bounds = {std::min(q.bounds.x0, a.x0), std::min(q.bounds.y0, a.y0),
                            std::max(q.bounds.x1, a.x1), std::max(q.bounds.y1, a.y1)};
                if (a.y0 < q.firstY || (a.y0 == q.firstY && a.x0 < q.firstX))
                    q.firstY = a.y0, q.firstX = a.x0;
                q.area += double(a.x1 - a.x0) * (a.y1 - a.y0);
            }
            std::vector<Piece> ordered;
            for (const auto& [r, q] : pieces) ordered.push_back(q);
            std::sort(ordered.begin(), ordered.end(), [](const Piece& a, const Piece& c) {
                return a.firstY != c.firstY ? a.firstY < c.firstY : a.firstX < c.firstX;
            });
            for (const Piece& q : ordered) {
                const double minArea = rules ? rules->minArea : 0,
                             minVisibility = rules ? rules->minVisibility : 0;
                if (!(q.area >= minArea && q.area / area >= minVisibility)) {
                    Box gone = box;
                    gone.x0 = q.bounds.x0, gone.y0 = q.bounds.y0, gone.x1 = q.bounds.x1,
                    gone.y1 = q.bounds.y1;
                    f.removed.push_back(gone);
                    continue;
                }
                Box b = box;
                b.x0 = q.bounds.x0, b.y0 = q.bounds.y0, b.x1 = q.bounds.x1, b.y1 = q.bounds.y1;
                b.visibility *= q.area / area;
                out.push_back(b);
            }
            if (pieces.empty()) f.removed.push_back(box);
        }
        f.boxes = std::move(out);
        return true;
    }

    std::vector<std::string> albumentationsClasses() const override { return {"RandomGridShuffle"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        const Size2 g = e.op->size("grid");
        Json j = exporting::start("RandomGridShuffle", e.op->p);
        j["grid"] = Json::array({g.height, g.width});
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5}, {"grid", {3, 3}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        const JsonReader g = a.get("grid");
        if (g.arraySize() != 2) a.fail(g, "expected [rows, columns]");
        const auto side = [&](std::size_t i) {
            const JsonReader v = g.element(i);
            const std::int64_t n = v.integer(1, INT32_MAX);
            if (n > 64) a.warn(v, std::to_string(n) + " cells limited to 64.");
            return static_cast<int>(std::min<std::int64_t>(n, 64));
        };
        op.set("grid", Size2{side(0), side(1)});
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        exporting::onlyInAlbumentations(e, x, "grid shuffle");
    }
};

}  // namespace

std::vector<GridCell> gridCells(const GridShuffleParams& p) {
    const std::vector<int> ys = starts(p.rowHeights), xs = starts(p.colWidths);
    std::vector<GridCell> cells;
    for (std::size_t i = 0; i < p.rowHeights.size(); ++i)
        for (std::size_t j = 0; j < p.colWidths.size(); ++j)
            cells.push_back({xs[j], ys[i], xs[j + 1], ys[i + 1]});
    return cells;
}

const OpModule& randomGridShuffleModule() {
    static const RandomGridShuffleModule module;
    return module;
}

}  // namespace auglab
