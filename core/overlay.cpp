#include "overlay.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "cpu_backend.h"
#include "ops/op_module.h"
#include "partners.h"
#include "plan_builder.h"
#include "source_levels.h"

namespace auglab {

std::vector<Mask> reduceMasks(const std::vector<Mask>& masks, int k) {
    if (k <= 0) return masks;
    std::vector<Mask> out;
    for (const Mask& m : masks) {
        Mask r;
        r.owner = m.owner;
        SourceLevels::levelSize(m.width, m.height, k, r.width, r.height);
        r.values.resize(static_cast<std::size_t>(r.width) * r.height);
        const int half = (1 << k) >> 1;
        for (int y = 0; y < r.height; ++y) {
            const int sy = std::min(m.height - 1, (y << k) + half);
            for (int x = 0; x < r.width; ++x)
                r.values[static_cast<std::size_t>(y) * r.width + x] =
                    m.at(std::min(m.width - 1, (x << k) + half), sy);
        }
        out.push_back(std::move(r));
    }
    return out;
}

int maskLevelFor(int width, int height, int longestSide) {
    int k = 0;
    while (k < 16 && (std::max(width, height) >> (k + 1)) >= 2 * std::max(1, longestSide)) ++k;
    return k;
}

std::vector<Mask> moveMasksPreview(const Replay& replay, const std::vector<Mask>& masks, int outWidth,
                                   int outHeight, int maskFill, int level) {
    std::vector<Mask> out;
    if (masks.empty()) return out;
    const int W = replay.imageWidth, H = replay.imageHeight;
    int w = W, h = H;
    SourceLevels::levelSize(W, H, level, w, h);
    for (const Mask& m : masks)
        if (m.width != w || m.height != h) return out;  // labels of another image: nothing to draw
    // The 4-image grid comes first when present: its canvas is composed (this image's cell; the
    // partners' masks are not at hand here and their cells stay at the fill), the rest fused after it.
    const MosaicParams* grid = nullptr;
    for (const ConcreteOp& op : replay.ops)
        if (op.applied)
            if (const auto* g = std::get_if<MosaicParams>(&op.params)) grid = g;
    const int frameW = grid ? grid->targetW : W, frameH = grid ? grid->targetH : H;
    int finalW = 0, finalH = 0;
    frameSize(replay, replay.ops.size(), finalW, finalH);
    PlanBuilder b = PlanBuilder::forMasks(frameW, frameH, outWidth, outHeight, maskFill, grid ? 0 : level,
                                          finalW, finalH);
    for (const ConcreteOp& op : replay.ops)
        if (op.applied && opDesc(op.id).category == OpCategory::Geometric &&
            !std::holds_alternative<MosaicParams>(op.params))
            opModule(op.id).lower(op.params, b);
    const Plan plan = b.finish();
    return movePackedMasks(masks, [&](Image packed, std::size_t) {
        if (grid) {
            const Rgb fill{std::uint8_t(maskFill), std::uint8_t(maskFill), std::uint8_t(maskFill)};
            packed = composeGrid(*grid, frameW, frameH, 3, true, fill, [&](const MosaicCell& c) {
                return c.primary ? GridSource{&packed, level, W, H} : GridSource{};
            });
            SourceLevels source(std::move(packed));
            return executePlanCpu(source, plan, RowLoop{});
        }
        SourceLevels source(std::move(packed), level, W, H);
        return executePlanCpu(source, plan, RowLoop{});
    });
}

TileOverlay tileOverlay(const SheetTile& tile, const Targets& targets, const TargetSettings& rules,
                        bool withMasks, const std::vector<Mask>* levelMasks, int level,
                        const PartnerLabelsFn& partners) {
    TileOverlay o;
    o.tile = -1;
    const MovedTargets m = moveTargets(tile.replay, rules, targets, partners);
    o.boxesIn = m.boxesIn;
    o.keypointsIn = m.keypointsIn;
    const double sx = double(tile.width) / m.width, sy = double(tile.height) / m.height;
    for (Box b : m.boxes) {
        b.x0 *= sx;
        b.x1 *= sx;
        b.y0 *= sy;
        b.y1 *= sy;
        o.boxes.push_back(b);
    }
    for (DroppedBox d : m.droppedBoxes) {
        const double dx = double(tile.width) / std::max(1, d.frameWidth),
                     dy = double(tile.height) / std::max(1, d.frameHeight);
        d.box.x0 *= dx;
        d.box.x1 *= dx;
        d.box.y0 *= dy;
        d.box.y1 *= dy;
        o.dropped.push_back(d);
    }
    for (Keypoint k : m.keypoints) {
        k.x = (k.x + 0.5) * sx - 0.5;
        k.y = (k.y + 0.5) * sy - 0.5;
        o.keypoints.push_back(k);
    }
    if (withMasks) {
        if (levelMasks && !levelMasks->empty())
            o.masks =
                moveMasksPreview(tile.replay, *levelMasks, tile.width, tile.height, rules.maskFill, level);
        else if (!levelMasks && !targets.masks.empty())
            o.masks = moveMasksPreview(tile.replay, targets.masks, tile.width, tile.height, rules.maskFill);
    }
    return o;
}

Rgb classColour(int label) {
    // Well separated hues, bright enough on photos (Tableau's 10, then a second turn).
    static const Rgb palette[] = {{31, 119, 180},  {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
                                  {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127},
                                  {188, 189, 34},  {23, 190, 207}};
    const int n = static_cast<int>(std::size(palette));
    const Rgb c = palette[((label % n) + n) % n];
    if (((label / n) % 2) == 0) return c;
    return {static_cast<std::uint8_t>(255 - (255 - c[0]) / 2),
            static_cast<std::uint8_t>(255 - (255 - c[1]) / 2),
            static_cast<std::uint8_t>(255 - (255 - c[2]) / 2)};
}

namespace {

void blend(Image& img, int x, int y, const Rgb& c, double a) {
    if (x < 0 || y < 0 || x >= img.width || y >= img.height) return;
    std::uint8_t* p = img.at(x, y);
    for (int k = 0; k < 3; ++k) p[k] = static_cast<std::uint8_t>(std::lround(p[k] * (1 - a) + c[k] * a));
}

}  // namespace

void drawOverlay(Image& sheet, const SheetTile& tile, const TileOverlay& o, double opacity) {
    const int ox = tile.x, oy = tile.y;
    // Each box's label by its id, looked up once a mask (not once a pixel: a COCO image of thousands
    // of instances has a mask each).
    std::unordered_map<int, int> labelOfBox;
    for (const Box& b : o.boxes) labelOfBox.emplace(b.id, b.label);
    const auto labelOf = [&](int owner) {
        const auto it = labelOfBox.find(owner);
        return it != labelOfBox.end() ? it->second : owner;
    };
    for (const Mask& m : o.masks) {
        const Rgb ownerColour = classColour(labelOf(m.owner));
        for (int y = 0; y < m.height && y < tile.height; ++y)
            for (int x = 0; x < m.width && x < tile.width; ++x) {
                const int v = m.at(x, y);
                if (v != 0) blend(sheet, ox + x, oy + y, m.owner >= 0 ? ownerColour : classColour(v), opacity);
            }
    }
    // Inside the tile only: a box that leaves it is cut at its edge.
    auto put = [&](int x, int y, const Rgb& c) {
        if (x >= 0 && y >= 0 && x < tile.width && y < tile.height) blend(sheet, ox + x, oy + y, c, 1.0);
    };
    for (const Box& b : o.boxes) {
        const Rgb c = classColour(b.label);
        const int x0 = static_cast<int>(std::floor(b.x0)), x1 = static_cast<int>(std::ceil(b.x1)) - 1;
        const int y0 = static_cast<int>(std::floor(b.y0)), y1 = static_cast<int>(std::ceil(b.y1)) - 1;
        for (int t = 0; t < 2; ++t) {
            for (int x = x0; x <= x1; ++x) {
                put(x, y0 + t, c);
                put(x, y1 - t, c);
            }
            for (int y = y0; y <= y1; ++y) {
                put(x0 + t, y, c);
                put(x1 - t, y, c);
            }
        }
    }
    for (const Keypoint& k : o.keypoints) {
        const Rgb c = classColour(k.owner >= 0 ? labelOf(k.owner) : k.label);
        const int cx = static_cast<int>(std::lround(k.x)), cy = static_cast<int>(std::lround(k.y));
        for (int dy = -3; dy <= 3; ++dy)
            for (int dx = -3; dx <= 3; ++dx) {
                const int r2 = dx * dx + dy * dy;
                if (r2 <= 9) put(cx + dx, cy + dy, r2 >= 5 ? Rgb{255, 255, 255} : c);
            }
    }
}

BoxStats boxStats(const std::vector<TileOverlay>& overlays) {
    BoxStats s;
    std::vector<double> v;
    for (const TileOverlay& o : overlays) {
        s.in += o.boxesIn;
        s.kept += o.boxes.size();
        for (const Box& b : o.boxes) v.push_back(b.visibility);
    }
    if (!v.empty()) {
        std::sort(v.begin(), v.end());
        const std::size_t n = v.size();
        s.medianVisibility = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
    return s;
}

}  // namespace auglab
