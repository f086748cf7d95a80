// random_rain: Albumentations 2.0.8 RandomRain on 8-bit RGB (pixel/transforms.py RandomRain,
// functional.py add_rain): slant ~ U(slant); height // 3 drops (drizzle height // 4, heavy height,
// torrential 2 height), each of length drop_length (when not given, max(1, height // 8)); each
// drop's upper end uniform over the integers x in [0, width), y in [0, height - length) (an error
// for that image when that is empty, as numpy raises), its lower end (x + slant, y + length)
// truncated towards zero as numpy's astype(int32) does. The drops are drawn in drop_color on a black
// layer by cv2.polylines (4-connected lines of drop_width, OpenCV's rasteriser: core/raster.h), the
// layer blurred by cv2.blur (blur_value x blur_value, border reflect_101, OpenCV's 8-bit rounding),
// added to the image with saturation, and the image multiplied by brightness_coefficient
// (cv2.multiply: rounded to nearest) - a RainStep. The draws are AugLab's counter-based ones (the
// same distributions); the replay lists every drop. The GPU backends apply it as keyed tables
// (core/keyed_tables.h): a key per pixel, its blur window's count of drop pixels, drawn on the host.
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/random_rain.h"

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

constexpr std::uint32_t kSlantDraw = 1, kFirstDropDraw = 16;  // 2 draws per drop
constexpr double kMaxSlant = 45;                              // the library's MAX_RAIN_ANGLE

int dropCount(const std::string& type, int height) {
    if (type == "drizzle") return height / 4;
    if (type == "heavy") return height;
    if (type == "torrential") return height * 2;
    return height / 3;
}

class RandomRainModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        ParamDesc colour = fill("drop_color", false, "The drops' colour before the blur.");
        colour.label = "Drop colour";
        colour.defaultValue = Fill{Fill::Mode::Constant, {200, 200, 200}};
        OpDesc d = makeOp(
            id, "random_rain", "Rain", OpCategory::Pixel,
            "Albumentations 2.0.8 RandomRain: slanted drops drawn on a layer, blurred and added, and "
            "the image darkened.",
            {
                floatRange("slant", "Slant", "px", -kMaxSlant, kMaxSlant, {-10, 10},
                           "How far each drop's lower end lies right of its upper end (the library calls "
                           "it an angle; it is added to x), one value per image."),
                optionalParam(integer("drop_length", "Drop length", "px", 0, 100000, 20,
                                      "Each drop's height; without it max(1, height // 8).")),
                integer("drop_width", "Drop width", "px", 1, 50, 1, "The drops' line thickness."),
                colour,
                integer("blur_value", "Blur", "px", 1, 99, 7,
                        "The box blur's size over the drops (1: none)."),
                number("brightness_coefficient", "Brightness", "", 0.01, 1, 0.7,
                       "The whole image's brightness factor after the rain (rainy days are darker)."),
                choice("rain_type", "Rain type", {"default", "drizzle", "heavy", "torrential"}, "default",
                       "How many drops: height / 3 (default), height / 4 (drizzle), height (heavy), "
                       "2 x height (torrential)."),
            });
        typical(d, "drop_length", 1, 200);
        typical(d, "drop_width", 1, 5);
        typical(d, "blur_value", 1, 15);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int w, int h) const override {
        RainParams p;
        p.length = op.has("drop_length") ? static_cast<int>(op.number("drop_length")) : std::max(1, h / 8);
        p.slant = d.uniform(kSlantDraw, op.range("slant"));
        p.width = static_cast<int>(op.number("drop_width"));
        const auto& c = op.fill("drop_color").rgb;
        p.colour = {std::uint8_t(c[0]), std::uint8_t(c[1]), std::uint8_t(c[2])};
        p.blur = static_cast<int>(op.number("blur_value"));
        p.brightness = op.number("brightness_coefficient");
        const int n = dropCount(op.choice("rain_type"), h);
        if (n > 0 && h - p.length <= 0)
            throw InputError("random_rain: drops of length " + std::to_string(p.length) + " do not fit a " +
                             std::to_string(w) + " x " + std::to_string(h) +
                             " image (their upper ends lie in rows 0 to height - length, left out): "
                             "shorten drop_length");
        for (int i = 0; i < n; ++i) {
            const std::uint32_t draw = kFirstDropDraw + 2 * std::uint32_t(i);
            p.drops.push_back({static_cast<int>(d.randint(draw, 0, w - 1)),
                               static_cast<int>(d.randint(draw + 1, 0, h - p.length - 1))});
        }
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<RainParams>(params);
        j["slant"] = p.slant;
        j["drop_length"] = p.length;
        j["drop_width"] = p.width;
        j["drop_color"] = rgbJson(p.colour);
        j["blur_value"] = p.blur;
        j["brightness_coefficient"] = p.brightness;
        Json drops = Json::array();
        for (const auto& v : p.drops) drops.push_back({v[0], v[1]});
        j["drops"] = std::move(drops);
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "slant", "drop_length", "drop_width", "drop_color", "blur_value",
                         "brightness_coefficient", "drops"});
        RainParams p;
        p.slant = num(r, "slant", -kMaxSlant, kMaxSlant);
        p.length = static_cast<int>(r.member("drop_length").integer(0, 100000));
        p.width = static_cast<int>(r.member("drop_width").integer(1, 50));
        p.colour = readRgb(r.member("drop_color"));
        p.blur = static_cast<int>(r.member("blur_value").integer(1, 99));
        p.brightness = num(r, "brightness_coefficient", 0.01, 1);
        const JsonReader list = r.member("drops");
        for (std::size_t i = 0, n = list.arraySize(); i < n; ++i) {
            const JsonReader v = list.element(i);
            if (v.arraySize() != 2) v.fail("expected [x, y]");
            p.drops.push_back(
                {int(v.element(0).integer(0, 1'000'000)), int(v.element(1).integer(0, 1'000'000))});
        }
        return p;
    }

    void checkReplay(const OpParams& params, const JsonReader& r, int frameW, int frameH) const override {
        const auto& p = std::get<RainParams>(params);
        for (std::size_t i = 0; i < p.drops.size(); ++i)
            if (p.drops[i][0] >= frameW || p.drops[i][1] >= frameH)
                r.member("drops").element(i).fail("drop outside the " + std::to_string(frameW) + " x " +
                                                  std::to_string(frameH) + " frame");
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<RainParams>(params);
        if (key == "slant") return {p.slant};
        if (key == "drop_count") return {double(p.drops.size())};
        // The first drop's upper end (the library's test compares where drops fall).
        if (key == "first_x" && !p.drops.empty()) return {double(p.drops[0][0])};
        if (key == "first_y" && !p.drops.empty()) return {double(p.drops[0][1])};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<RainParams>(params);
        const double sx = b.sx(), sy = b.sy(), s = 0.5 * (sx + sy);
        const bool full = std::abs(sx - 1) < 1e-12 && std::abs(sy - 1) < 1e-12;
        const auto at = [](double v, double scale) {
            return static_cast<int>(std::floor((v + 0.5) * scale));
        };
        RainStep step;
        for (const auto& v : p.drops) {
            // The lower end as the library computes it: float64 then truncated towards zero.
            const int ex = static_cast<int>(std::trunc(v[0] + p.slant)), ey = v[1] + p.length;
            if (full)
                step.lines.push_back({v[0], v[1], ex, ey});
            else  // at tile scale, the drops scaled with the frame
                step.lines.push_back({at(v[0], sx), at(v[1], sy), at(ex, sx), at(ey, sy)});
        }
        step.width = full ? p.width : std::max(1, static_cast<int>(std::lround(p.width * s)));
        step.blur = full || p.blur == 1 ? p.blur : std::max(1, static_cast<int>(std::lround(p.blur * s)));
        step.colour = p.colour;
        step.brightness = p.brightness;
        b.pixel(std::move(step));
    }

    std::vector<std::string> albumentationsClasses() const override { return {"RandomRain"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("RandomRain", op.p);
        j["blur_value"] = std::llround(op.number("blur_value"));
        j["brightness_coefficient"] = op.number("brightness_coefficient");
        const auto& c = op.fill("drop_color").rgb;
        j["drop_color"] = Json::array({c[0], c[1], c[2]});
        j["drop_length"] =
            op.has("drop_length") ? Json(std::llround(op.number("drop_length"))) : Json(nullptr);
        j["drop_width"] = std::llround(op.number("drop_width"));
        j["rain_type"] = op.choice("rain_type");
        j["slant_range"] = pair(op.range("slant"));
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion& v) const override {
        nlohmann::json d = {{"p", 0.5},
                            {"blur_value", 7},
                            {"brightness_coefficient", 0.7},
                            {"drop_color", {200, 200, 200}},
                            {"drop_length", nullptr},
                            {"drop_width", 1},
                            {"rain_type", "default"},
                            {"slant_range", {-10.0, 10.0}}};
        if (v.before2()) {  // 1.4: a drop length of 20 and no rain type by default
            d["drop_length"] = 20;
            d["rain_type"] = nullptr;
        }
        return d;
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        if (a.version().before2() && !a.find({"slant_range"}) && a.find({"slant_lower"})) {
            const JsonReader lo = a.get("slant_lower"), hi = a.get("slant_upper");
            op.set("slant", a.clamp(lo, Range{lo.number(), hi.number()}, -kMaxSlant, kMaxSlant));
        } else {
            const JsonReader r = a.get("slant_range");
            op.set("slant", a.clamp(r, pair(r), -kMaxSlant, kMaxSlant));
        }
        const JsonReader length = a.get("drop_length");
        if (!length.json().is_null()) op.set("drop_length", double(length.integer(0, 100000)));
        op.set("drop_width", double(a.get("drop_width").integer(1, 50)));
        const JsonReader colour = a.get("drop_color");
        const Rgb c = readRgb(colour);
        op.set("drop_color", Fill{Fill::Mode::Constant, {c[0], c[1], c[2]}});
        op.set("blur_value", double(a.get("blur_value").integer(1, 99)));
        const JsonReader bright = a.get("brightness_coefficient");
        const double v = bright.number();
        if (v <= 0 || v > 1) a.fail(bright, "brightness_coefficient must be in (0, 1]");
        op.set("brightness_coefficient", std::max(v, 0.01));
        if (v < 0.01) a.warn(bright, "brightness_coefficient below AugLab's 0.01: 0.01 used");
        const JsonReader type = a.get("rain_type");
        if (type.json().is_null()) {
            op.set("rain_type", std::string("default"));
        } else {
            const std::string t = type.string();
            if (t != "default" && t != "drizzle" && t != "heavy" && t != "torrential")
                type.fail("expected \"default\", \"drizzle\", \"heavy\" or \"torrential\"");
            op.set("rain_type", t);
        }
        if (a.version().before2())
            a.warn(a.get("blur_value"),
                   "RandomRain of Albumentations 1.x is read with 2.0.8's meaning: AugLab draws and "
                   "renders rain as 2.0.8 does (drops on their own layer, blurred, then added)");
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        exporting::onlyInAlbumentations(e, x, "RandomRain");
    }
};

}  // namespace

const OpModule& randomRainModule() {
    static const RandomRainModule module;
    return module;
}

}  // namespace auglab
