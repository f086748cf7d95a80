// random_shadow: Albumentations 2.0.8 RandomShadow on 8-bit images (pixel/transforms.py
// RandomShadow, functional.py add_shadow): n ~ randint(num_shadows) shadows, both ends included;
// the region of interest in pixels is x from int(roi_x.min * width) to int(roi_x.max * width) and
// y likewise; each shadow is a polygon of shadow_dimension vertices, each coordinate an integer of
// the region with the upper end left out (numpy's integers), and its intensity ~ U(shadow_intensity).
// Each polygon in order: the pixels cv2.fillPoly covers (OpenCV's own edges and scanlines,
// core/raster.h) become trunc(v * (1 - intensity)) in float64 (a ShadowStep). An empty region (an
// end equal to the other after truncation) is an error for that image, as numpy raises there. The
// draws are AugLab's counter-based ones (the same distributions). The GPU backends draw the polygons
// on the host as keys and tables (core/keyed_tables.h) and darken on the device. Everything AugLab knows
// about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/random_shadow.h"

#include <algorithm>
#include <cmath>
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

constexpr int kMaxShadows = 20, kMaxDimension = 100;
// Draw numbers: 1 the count, 2.. the intensities, then 2 * kMaxDimension per shadow for its vertices.
constexpr std::uint32_t kCountDraw = 1, kFirstIntensityDraw = 2, kFirstVertexDraw = 64;

/// The region's pixel bounds along one side: [int(lo * side), int(hi * side)).
std::pair<int, int> regionOf(const Range& r, int side) {
    return {static_cast<int>(r.min * side), static_cast<int>(r.max * side)};
}

class RandomShadowModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "random_shadow", "Shadow", OpCategory::Pixel,
            "Albumentations 2.0.8 RandomShadow: random polygons in a region of the image, each darkening "
            "the pixels it covers.",
            {
                floatRange("roi_x", "Region across", "fraction of width", 0, 1, {0, 1},
                           "Where the shadows' vertices fall across the image (shadow_roi's x ends)."),
                floatRange("roi_y", "Region down", "fraction of height", 0, 1, {0.5, 1},
                           "Where the shadows' vertices fall down the image (shadow_roi's y ends)."),
                intRange("num_shadows", "Shadows", "", 1, kMaxShadows, {1, 2},
                         "How many shadows, inclusive range."),
                integer("shadow_dimension", "Vertices", "", 3, kMaxDimension, 5,
                        "Vertices per shadow polygon (random points: the polygon may cross itself)."),
                floatRange("shadow_intensity", "Intensity", "", 0, 1, {0.5, 0.5},
                           "How much each shadow darkens: the pixels keep 1 - intensity of their value."),
            });
        typical(d, "shadow_dimension", 3, 12);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int w, int h) const override {
        ShadowParams p;
        const Range count = op.range("num_shadows");
        const auto n =
            static_cast<int>(d.randint(kCountDraw, std::llround(count.min), std::llround(count.max)));
        const auto [x0, x1] = regionOf(op.range("roi_x"), w);
        const auto [y0, y1] = regionOf(op.range("roi_y"), h);
        if (x1 <= x0 || y1 <= y0)
            throw InputError("random_shadow: the shadow region of a " + std::to_string(w) + " x " +
                             std::to_string(h) + " image is empty (columns " + std::to_string(x0) + " to " +
                             std::to_string(x1) + ", rows " + std::to_string(y0) + " to " +
                             std::to_string(y1) + ", the end left out): widen roi_x or roi_y");
        const int dimension = static_cast<int>(op.number("shadow_dimension"));
        for (int i = 0; i < n; ++i) {
            ShadowParams::Shadow s;
            const std::uint32_t first = kFirstVertexDraw + std::uint32_t(i) * 2 * kMaxDimension;
            for (int j = 0; j < dimension; ++j)
                s.vertices.push_back(
                    {static_cast<int>(d.randint(first + 2 * std::uint32_t(j), x0, x1 - 1)),
                     static_cast<int>(d.randint(first + 2 * std::uint32_t(j) + 1, y0, y1 - 1))});
            s.intensity = d.uniform(kFirstIntensityDraw + std::uint32_t(i), op.range("shadow_intensity"));
            p.shadows.push_back(std::move(s));
        }
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        Json shadows = Json::array();
        for (const auto& s : std::get<ShadowParams>(params).shadows) {
            Json vertices = Json::array();
            for (const auto& v : s.vertices) vertices.push_back({v[0], v[1]});
            shadows.push_back({{"intensity", s.intensity}, {"vertices", std::move(vertices)}});
        }
        j["shadows"] = std::move(shadows);
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "shadows"});
        ShadowParams p;
        const JsonReader list = r.member("shadows");
        for (std::size_t i = 0, n = list.arraySize(); i < n; ++i) {
            const JsonReader s = list.element(i);
            s.requireObject({"intensity", "vertices"});
            ShadowParams::Shadow shadow;
            shadow.intensity = num(s, "intensity", 0, 1);
            const JsonReader vertices = s.member("vertices");
            if (vertices.arraySize() < 3) vertices.fail("expected at least 3 vertices [x, y]");
            for (std::size_t k = 0; k < vertices.arraySize(); ++k) {
                const JsonReader v = vertices.element(k);
                if (v.arraySize() != 2) v.fail("expected [x, y]");
                shadow.vertices.push_back(
                    {int(v.element(0).integer(0, 1'000'000)), int(v.element(1).integer(0, 1'000'000))});
            }
            p.shadows.push_back(std::move(shadow));
        }
        return p;
    }

    void checkReplay(const OpParams& params, const JsonReader& r, int frameW, int frameH) const override {
        const auto& p = std::get<ShadowParams>(params);
        for (std::size_t i = 0; i < p.shadows.size(); ++i)
            for (std::size_t k = 0; k < p.shadows[i].vertices.size(); ++k) {
                const auto& v = p.shadows[i].vertices[k];
                if (v[0] >= frameW || v[1] >= frameH)
                    r.member("shadows")
                        .element(i)
                        .member("vertices")
                        .element(k)
                        .fail("vertex outside the " + std::to_string(frameW) + " x " +
                              std::to_string(frameH) + " frame");
            }
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<ShadowParams>(params);
        std::vector<double> out;
        if (key == "num_shadows") return {double(p.shadows.size())};
        for (const auto& s : p.shadows) {
            if (key == "shadow_intensity") out.push_back(s.intensity);
            // The first vertex of each shadow (the library's test compares where they fall).
            if (key == "first_x") out.push_back(s.vertices.front()[0]);
            if (key == "first_y") out.push_back(s.vertices.front()[1]);
        }
        return out;
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const double sx = b.sx(), sy = b.sy();
        ShadowStep step;
        for (const auto& s : std::get<ShadowParams>(params).shadows) {
            ShadowStep::Polygon poly;
            poly.darkness = 1 - s.intensity;
            for (const auto& v : s.vertices)  // at tile scale, the polygon scaled with the frame
                poly.vertices.push_back({static_cast<int>(std::floor((v[0] + 0.5) * sx)),
                                         static_cast<int>(std::floor((v[1] + 0.5) * sy))});
            step.polygons.push_back(std::move(poly));
        }
        b.pixel(std::move(step));
    }

    std::vector<std::string> albumentationsClasses() const override { return {"RandomShadow"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("RandomShadow", op.p);
        const Range count = op.range("num_shadows");
        j["num_shadows_limit"] = Json::array({std::llround(count.min), std::llround(count.max)});
        j["shadow_dimension"] = std::llround(op.number("shadow_dimension"));
        j["shadow_intensity_range"] = pair(op.range("shadow_intensity"));
        const Range x = op.range("roi_x"), y = op.range("roi_y");
        j["shadow_roi"] = Json::array({x.min, y.min, x.max, y.max});
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5},
                {"num_shadows_limit", {1, 2}},
                {"shadow_dimension", 5},
                {"shadow_intensity_range", {0.5, 0.5}},
                {"shadow_roi", {0.0, 0.5, 1.0, 1.0}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        const JsonReader roi = a.get("shadow_roi");
        if (roi.arraySize() != 4) roi.fail("expected [x_min, y_min, x_max, y_max]");
        std::array<double, 4> v{};
        for (std::size_t i = 0; i < 4; ++i) v[i] = roi.element(i).number();
        if (!(0 <= v[0] && v[0] <= v[2] && v[2] <= 1 && 0 <= v[1] && v[1] <= v[3] && v[3] <= 1))
            roi.fail("expected 0 <= x_min <= x_max <= 1 and 0 <= y_min <= y_max <= 1");
        op.set("roi_x", Range{v[0], v[2]});
        op.set("roi_y", Range{v[1], v[3]});
        if (a.version().before2() && !a.find({"num_shadows_limit"}) && a.find({"num_shadows_lower"})) {
            const JsonReader lo = a.get("num_shadows_lower"), hi = a.get("num_shadows_upper");
            op.set("num_shadows", a.clamp(lo, Range{lo.number(), hi.number()}, 1, kMaxShadows));
        } else {
            const JsonReader n = a.get("num_shadows_limit");
            op.set("num_shadows", a.clamp(n, pair(n), 1, kMaxShadows));
        }
        const JsonReader dim = a.get("shadow_dimension");
        op.set("shadow_dimension", double(dim.integer(3, kMaxDimension)));
        const JsonReader intensity = a.get("shadow_intensity_range");
        op.set("shadow_intensity", a.clamp(intensity, pair(intensity), 0, 1));
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        exporting::onlyInAlbumentations(e, x, "RandomShadow");
    }
};

}  // namespace

const OpModule& randomShadowModule() {
    static const RandomShadowModule module;
    return module;
}

}  // namespace auglab
