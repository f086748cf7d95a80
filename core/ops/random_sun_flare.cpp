// random_sun_flare: Albumentations 2.0.8 RandomSunFlare on 8-bit RGB (pixel/transforms.py
// RandomSunFlare, functional.py add_sun_flare_overlay and add_sun_flare_physics_based). The draws:
// the direction 2 pi U(angle) of the flare line, the sun at (int(width U(roi_x)), int(height U(roi_y))),
// randint(num_flare_circles) circles (both ends included); the line's points every max(1,
// int(diagonal * 0.01)) pixels of t from -x to width - x (left out), each circle at one of them
// (uniform, int() of each coordinate), with alpha ~ U(0.05, 0.2), rad ~ randint(1, max(2,
// int(height * 0.01))) and each channel ~ randint(max(c - r, 0), c) for the sun colour's c, r =
// int(max(src_color) * 0.2). The drawing (a FlareStep):
// - overlay (the library's default): each circle, radius rad ** 3, painted on an overlay that keeps
//   every circle, and the whole image blended with it (simsimd's weighted sum: float32, rounded);
//   then the sun: src_radius // 10 discs of radii linspace(1, src_radius) painted on a copy of the
//   result, each blend weighted by linspace(0, min(5 sum(alpha size) / sum(size), 1))'s values cubed,
//   largest weight first;
// - physics_based: a float32 layer with the sun's disc, four diffraction spikes (two-pixel lines at
//   0, 45, 90 and 135 degrees to max(width, height) away) and each circle (radius int(size ** 0.33)),
//   blurred by a Gaussian of sigma 15 (OpenCV's float kernel, 121 taps, reflect_101), faded by
//   1 - min(distance / (0.7 max(width, height)), 1), R blurred again at sigma 3 and B at sigma 5
//   (chromatic aberration), and screen-blended: 255 - (255 - v)(255 - f) / 255 in float32, truncated.
// The draws are AugLab's counter-based ones (the same distributions). The GPU backends apply the
// overlay method as keyed tables (core/keyed_tables.h: a key per set of covering discs); CUDA draws
// physics_based's shapes on the host as keys and colours the layer, blurs (float64 sums in the CPU's
// order), fades and blends it on the device; GL runs physics_based on the host (float64 sums:
// OpDesc::runsOnHostGl, runsOnHostWhen). Everything AugLab knows about the op is here
// (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/random_sun_flare.h"

#include <algorithm>
#include <cmath>
#include <numbers>
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

constexpr int kMaxCircles = 100;
// Draw numbers: 1 the angle, 2 and 3 the sun's place, 4 the count, then 6 per circle from 16.
constexpr std::uint32_t kAngleDraw = 1, kXDraw = 2, kYDraw = 3, kCountDraw = 4, kFirstCircleDraw = 16;

Rgb sunRgb(const Fill& f) {
    return {std::uint8_t(f.rgb[0]), std::uint8_t(f.rgb[1]), std::uint8_t(f.rgb[2])};
}

class RandomSunFlareModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        ParamDesc colour =
            fill("src_color", false, "The sun's colour (the circles' colours are drawn below it).");
        colour.label = "Sun colour";
        colour.defaultValue = Fill{Fill::Mode::Constant, {255, 255, 255}};
        OpDesc d = makeOp(
            id, "random_sun_flare", "Sun flare", OpCategory::Pixel,
            "Albumentations 2.0.8 RandomSunFlare: a bright sun and translucent circles along a line "
            "through it (a lens flare).",
            {
                floatRange("roi_x", "Sun across", "fraction of width", 0, 1, {0, 1},
                           "Where the sun's centre falls across the image (flare_roi's x ends; equal ends "
                           "fix it)."),
                floatRange("roi_y", "Sun down", "fraction of height", 0, 1, {0, 0.5},
                           "Where the sun's centre falls down the image (flare_roi's y ends; equal ends "
                           "fix it)."),
                floatRange("angle", "Flare direction", "fraction of a turn", 0, 1, {0, 1},
                           "The direction of the line the circles lie on, times 360 degrees."),
                intRange("num_flare_circles", "Circles", "", 1, kMaxCircles, {6, 10},
                         "How many flare circles, inclusive range."),
                integer("src_radius", "Sun radius", "px", 2, 100000, 400, "The sun's radius."),
                colour,
                choice("method", "Method", {"overlay", "physics_based"}, "overlay",
                       "overlay: the circles and the sun blended in; physics_based: a blurred flare "
                       "layer with diffraction spikes and colour fringes, screen-blended."),
            });
        typical(d, "src_radius", 10, 1000);
        typicalOfImage(d, "src_radius", 10, 1.0);
        d.runsOnHostGl = true;
        d.runsOnHostWhen = "method physics_based";
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int w, int h) const override {
        const Range roiX = op.range("roi_x"), roiY = op.range("roi_y");
        SunFlareParams p;
        p.sunRadius = static_cast<int>(op.number("src_radius"));
        p.sunColour = sunRgb(op.fill("src_color"));
        p.physics = op.choice("method") == "physics_based";
        p.angle = d.uniform(kAngleDraw, op.range("angle"));
        const double angle = 2 * std::numbers::pi * p.angle;
        p.x = static_cast<int>(w * d.uniform(kXDraw, roiX));
        p.y = static_cast<int>(h * d.uniform(kYDraw, roiY));
        const Range count = op.range("num_flare_circles");
        const auto n =
            static_cast<int>(d.randint(kCountDraw, std::llround(count.min), std::llround(count.max)));
        const double diagonal = std::sqrt(double(h) * h + double(w) * w);
        const int step = std::max(1, static_cast<int>(diagonal * 0.01));
        const int maxRadius = std::max(2, static_cast<int>(h * 0.01));
        const int colourRange =
            static_cast<int>(std::max({p.sunColour[0], p.sunColour[1], p.sunColour[2]}) * 0.2);
        const int points = (w + step - 1) / step;  // range(-x, width - x, step)
        const double c = std::cos(angle), s = std::sin(angle);
        for (int i = 0; i < n; ++i) {
            const std::uint32_t draw = kFirstCircleDraw + 6 * std::uint32_t(i);
            SunFlareParams::Circle circle;
            circle.alpha = d.uniform(draw, 0.05, 0.2);
            const auto t = static_cast<double>(-p.x + step * d.randint(draw + 1, 0, points - 1));
            circle.x = static_cast<int>(p.x + t * c);
            circle.y = static_cast<int>(p.y + t * s);
            const auto rad = static_cast<int>(d.randint(draw + 2, 1, maxRadius));
            circle.size = rad * rad * rad;
            for (std::size_t k = 0; k < 3; ++k) {
                const int top = p.sunColour[k];
                circle.colour[k] = static_cast<std::uint8_t>(
                    d.randint(draw + 3 + std::uint32_t(k), std::max(top - colourRange, 0), top));
            }
            p.circles.push_back(circle);
        }
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<SunFlareParams>(params);
        j["angle"] = p.angle;
        j["center"] = {p.x, p.y};
        Json circles = Json::array();
        for (const auto& c : p.circles)
            circles.push_back(
                {{"alpha", c.alpha}, {"center", {c.x, c.y}}, {"size", c.size}, {"color", rgbJson(c.colour)}});
        j["circles"] = std::move(circles);
        j["src_radius"] = p.sunRadius;
        j["src_color"] = rgbJson(p.sunColour);
        j["method"] = p.physics ? "physics_based" : "overlay";
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "angle", "center", "circles", "src_radius", "src_color", "method"});
        SunFlareParams p;
        p.angle = num(r, "angle", 0, 1);
        const auto point = [](const JsonReader& v, int& x, int& y) {
            if (v.arraySize() != 2) v.fail("expected [x, y]");
            x = static_cast<int>(v.element(0).integer(-10'000'000, 10'000'000));
            y = static_cast<int>(v.element(1).integer(-10'000'000, 10'000'000));
        };
        point(r.member("center"), p.x, p.y);
        const JsonReader list = r.member("circles");
        for (std::size_t i = 0, n = list.arraySize(); i < n; ++i) {
            const JsonReader c = list.element(i);
            c.requireObject({"alpha", "center", "size", "color"});
            SunFlareParams::Circle circle;
            circle.alpha = num(c, "alpha", 0, 1);
            point(c.member("center"), circle.x, circle.y);
            circle.size = static_cast<int>(c.member("size").integer(1, 1'000'000'000));
            circle.colour = readRgb(c.member("color"));
            p.circles.push_back(circle);
        }
        p.sunRadius = static_cast<int>(r.member("src_radius").integer(2, 100000));
        p.sunColour = readRgb(r.member("src_color"));
        p.physics = eitherOf(r.member("method"), "overlay", "physics_based") == "physics_based";
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<SunFlareParams>(params);
        if (key == "angle") return {p.angle};
        if (key == "num_flare_circles") return {double(p.circles.size())};
        if (key == "center_x") return {double(p.x)};
        if (key == "center_y") return {double(p.y)};
        std::vector<double> out;
        for (const auto& c : p.circles) {
            if (key == "circle_alpha") out.push_back(c.alpha);
            if (key == "circle_size") out.push_back(c.size);
            if (key == "circle_red") out.push_back(c.colour[0]);
        }
        return out;
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<SunFlareParams>(params);
        const double sx = b.sx(), sy = b.sy(), s = 0.5 * (sx + sy);
        const bool full = std::abs(sx - 1) < 1e-12 && std::abs(sy - 1) < 1e-12;
        const auto at = [&](int v, double scale) {
            return full ? v : static_cast<int>(std::floor((v + 0.5) * scale));
        };
        const auto sized = [&](int r) { return full ? r : static_cast<int>(std::lround(r * s)); };
        FlareStep step;
        step.physics = p.physics;
        step.x = at(p.x, sx);
        step.y = at(p.y, sy);
        step.radius = sized(p.sunRadius);
        step.colour = p.sunColour;
        for (const auto& c : p.circles) {
            // physics_based: the library's int(size ** 0.33), which is below rad from 2 on.
            const int radius = p.physics ? static_cast<int>(std::pow(double(c.size), 0.33)) : c.size;
            step.circles.push_back({at(c.x, sx), at(c.y, sy), sized(radius), c.colour,
                                    static_cast<float>(c.alpha), static_cast<float>(1 - c.alpha)});
        }
        if (!p.physics) {
            // The sun's discs: radii linspace(1, src_radius, n) and weights linspace(0, top, n) cubed,
            // the largest weight with the smallest disc (numpy's linspace: i * step + start, the last
            // the end itself; one value is the start).
            double weighted = 0, total = 0;
            for (const auto& c : p.circles) {
                weighted += c.alpha * c.size;
                total += c.size;
            }
            const double top = std::min(weighted / total * 5, 1.0);
            const int n = p.sunRadius / 10;
            const auto linspace = [n](double a, double z, int i) {
                if (n == 1) return a;
                if (i == n - 1) return z;
                return i * ((z - a) / (n - 1)) + a;
            };
            for (int i = 0; i < n; ++i) {
                const double a = linspace(0, top, n - i - 1);
                const double weight = a * a * a;
                step.sun.push_back({step.x, step.y, sized(static_cast<int>(linspace(1, p.sunRadius, i))),
                                    p.sunColour, static_cast<float>(weight), static_cast<float>(1 - weight)});
            }
        }
        b.pixel(std::move(step));
    }

    std::vector<std::string> albumentationsClasses() const override { return {"RandomSunFlare"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>& warnings) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("RandomSunFlare", op.p);
        j["angle_range"] = pair(op.range("angle"));
        // The library refuses equal ends (a sun at a fixed place): they are written a millionth apart,
        // which moves the sun by at most a pixel on images up to a million pixels wide.
        Range x = op.range("roi_x"), y = op.range("roi_y");
        for (Range* r : {&x, &y})
            if (r->min == r->max) {
                if (r->max + 1e-6 <= 1)
                    r->max += 1e-6;
                else
                    r->min -= 1e-6;
                warnings.push_back(
                    "random_sun_flare: the library needs flare_roi's lower ends below its upper "
                    "ones; equal ends written 1e-6 apart");
            }
        j["flare_roi"] = Json::array({x.min, y.min, x.max, y.max});
        j["method"] = op.choice("method");
        const Range count = op.range("num_flare_circles");
        j["num_flare_circles_range"] = Json::array({std::llround(count.min), std::llround(count.max)});
        const auto& c = op.fill("src_color").rgb;
        j["src_color"] = Json::array({c[0], c[1], c[2]});
        j["src_radius"] = std::llround(op.number("src_radius"));
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5},
                {"angle_range", {0.0, 1.0}},
                {"flare_roi", {0.0, 0.0, 1.0, 0.5}},
                {"method", "overlay"},
                {"num_flare_circles_range", {6, 10}},
                {"src_color", {255, 255, 255}},
                {"src_radius", 400}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        const JsonReader roi = a.get("flare_roi");
        if (roi.arraySize() != 4) roi.fail("expected [x_min, y_min, x_max, y_max]");
        std::array<double, 4> v{};
        for (std::size_t i = 0; i < 4; ++i) v[i] = roi.element(i).number();
        if (!(0 <= v[0] && v[0] < v[2] && v[2] <= 1 && 0 <= v[1] && v[1] < v[3] && v[3] <= 1))
            roi.fail("expected 0 <= x_min < x_max <= 1 and 0 <= y_min < y_max <= 1");
        op.set("roi_x", Range{v[0], v[2]});
        op.set("roi_y", Range{v[1], v[3]});
        if (a.version().before2() && !a.find({"angle_range"}) && a.find({"angle_lower"})) {
            const JsonReader lo = a.get("angle_lower"), hi = a.get("angle_upper");
            op.set("angle", a.clamp(lo, Range{lo.number(), hi.number()}, 0, 1));
        } else {
            const JsonReader r = a.get("angle_range");
            op.set("angle", a.clamp(r, pair(r), 0, 1));
        }
        if (a.version().before2() && !a.find({"num_flare_circles_range"}) &&
            a.find({"num_flare_circles_lower"})) {
            const JsonReader lo = a.get("num_flare_circles_lower"), hi = a.get("num_flare_circles_upper");
            op.set("num_flare_circles", a.clamp(lo, Range{lo.number(), hi.number()}, 1, kMaxCircles));
        } else {
            const JsonReader r = a.get("num_flare_circles_range");
            op.set("num_flare_circles", a.clamp(r, pair(r), 1, kMaxCircles));
        }
        op.set("src_radius", double(a.get("src_radius").integer(2, 100000)));
        const JsonReader colour = a.get("src_color");
        if (colour.arraySize() != 3) colour.fail("expected [r, g, b]: AugLab draws flares on RGB images");
        const Rgb c = readRgb(colour);
        op.set("src_color", Fill{Fill::Mode::Constant, {c[0], c[1], c[2]}});
        op.set("method", eitherOf(a.get("method"), "overlay", "physics_based"));
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        exporting::onlyInAlbumentations(e, x, "RandomSunFlare");
    }
};

}  // namespace

const OpModule& randomSunFlareModule() {
    static const RandomSunFlareModule module;
    return module;
}

}  // namespace auglab
