#include "albumentations_args.h"

#include "ops/op_module.h"

#include <algorithm>
#include <cmath>

namespace auglab::exporting {

namespace {

using json = nlohmann::json;

/// The defaults of class `cls` in the version that wrote the file, from the module that reads it
/// (shared/reference/albumentations lists them for 1.4.24, 2.0.8 and AlbumentationsX 2.0.16).
json defaultsFor(const std::string& cls, const LibraryVersion& v) {
    for (const OpModule* m : opModules())
        for (const std::string& c : m->albumentationsClasses())
            if (c == cls) return m->albumentationsDefaults(cls, v);
    return {{"p", 0.5}};
}

double numberAt(const JsonReader& r, std::size_t i) {
    return r.element(i).number();
}

}  // namespace

TransformArgs::TransformArgs(const JsonReader& t, std::string cls, const LibraryVersion& version,
                             std::vector<std::string>& warnings)
    : t_(t),
      cls_(std::move(cls)),
      version_(version),
      warnings_(warnings),
      defaults_(defaultsFor(cls_, version)) {
    used_.insert("__class_fullname__");
}

std::optional<JsonReader> TransformArgs::find(std::initializer_list<const char*> names) {
    for (const char* n : names)
        if (t_.has(n)) {
            used_.insert(n);
            return t_.member(n);
        }
    return std::nullopt;
}

JsonReader TransformArgs::get(const char* key, std::initializer_list<const char*> oldNames) {
    if (t_.has(key)) {
        used_.insert(key);
        return t_.member(key);
    }
    for (const char* n : oldNames)
        if (t_.has(n)) {
            used_.insert(n);
            return t_.member(n);
        }
    if (!defaults_.contains(key)) t_.fail(std::string("missing \"") + key + "\"");
    if (defaulted_.insert(key).second)
        warnings_.push_back(t_.path() + "." + key + ": absent; the default of Albumentations " +
                            version_.text + " (" + defaults_[key].dump() + ") is used, as A.load would.");
    return JsonReader(defaults_[key], t_.path() + "." + key);
}

void TransformArgs::noteDefault(const char* key, const std::string& meaning) {
    if (defaulted_.insert(key).second)
        warnings_.push_back(t_.path() + "." + key + ": absent; the Albumentations default (" + meaning +
                            ") is used.");
}

void TransformArgs::maskOnly(const char* key, std::initializer_list<const char*> oldNames) {
    std::optional<JsonReader> r = find({key});
    for (const char* n : oldNames)
        if (!r) r = find({n});
    if (!r) return;
    const json& v = r->json();
    const bool atDefault = v.is_null() || (v.is_number() && v.get<double>() == 0) || v == json("largest_box");
    if (!atDefault)
        warn(
            *r,
            "acts on masks or boxes only; AugLab moves them as Albumentations' defaults do (masks by nearest "
            "neighbour with the preset's targets.mask_fill outside, rotated boxes by their largest box): "
            "ignored.");
}

void TransformArgs::warn(const JsonReader& where, const std::string& message) {
    warnings_.push_back(where.path() + ": " + message);
}

Range TransformArgs::clamp(const JsonReader& where, Range r, double lower, double upper) {
    const Range c{std::clamp(r.min, lower, upper), std::clamp(r.max, lower, upper)};
    if (c != r)
        warn(where, std::string("[") + formatNumber(r.min) + ", " + formatNumber(r.max) +
                        "] is outside AugLab's bounds [" + formatNumber(lower) + ", " + formatNumber(upper) +
                        "]: limited to [" + formatNumber(c.min) + ", " + formatNumber(c.max) + "].");
    return c;
}

void TransformArgs::finish() {
    for (const auto& item : t_.json().items())
        if (!used_.count(item.key()))
            warnings_.push_back(t_.path() + "." + item.key() + ": no AugLab equivalent for this " + cls_ +
                                " argument: ignored.");
}

Range pair(const JsonReader& r) {
    if (r.arraySize() != 2) r.fail("expected [min, max]");
    const Range out{numberAt(r, 0), numberAt(r, 1)};
    if (out.min > out.max) r.fail("min " + formatNumber(out.min) + " > max " + formatNumber(out.max));
    return out;
}

Range fixedOrPair(const JsonReader& r) {
    if (r.json().is_number()) return {r.number(), r.number()};
    return pair(r);
}

Range symmetricRange(const JsonReader& r) {
    if (r.json().is_number()) return {-std::abs(r.number()), std::abs(r.number())};
    return pair(r);
}

Range lowZeroRange(const JsonReader& r) {
    if (r.json().is_number()) return {std::min(0.0, r.number()), std::max(0.0, r.number())};
    return pair(r);
}

std::pair<Range, Range> xyRanges(const JsonReader& r, double def) {
    if (!r.json().is_object()) {
        const Range both = fixedOrPair(r);
        return {both, both};
    }
    r.requireObject({"x", "y"});
    const Range x = r.has("x") ? fixedOrPair(r.member("x")) : Range{def, def};
    const Range y = r.has("y") ? fixedOrPair(r.member("y")) : Range{def, def};
    return {x, y};
}

Fill readFill(const JsonReader& r, TransformArgs& a, bool allowRandom, FillCast cast) {
    Fill f;
    if (r.json().is_string()) {
        const std::string s = r.string();
        if (allowRandom && s == "random")
            f.mode = Fill::Mode::Random;
        else if (allowRandom && s == "random_uniform")
            f.mode = Fill::Mode::RandomUniform;
        else
            a.warn(r, "fill \"" + s + "\" cannot be expressed: black [0, 0, 0] instead.");
        return f;
    }
    std::vector<double> values;
    if (r.json().is_number()) {
        values.assign(3, r.number());
    } else {
        const std::size_t n = r.arraySize();
        if (n != 1 && n != 3 && n != 4) r.fail("expected a number or [r, g, b]");
        for (std::size_t i = 0; i < 3; ++i) values.push_back(numberAt(r, n == 1 ? 0 : i));
        if (n == 4)
            a.warn(r, "the fourth (alpha) fill value is ignored: AugLab keeps alpha at 0 outside the image.");
    }
    for (std::size_t i = 0; i < 3; ++i) {
        const double whole = cast == FillCast::Truncated ? std::trunc(values[i]) : std::nearbyint(values[i]);
        f.rgb[i] = static_cast<int>(std::clamp(whole, 0.0, 255.0));
        if (f.rgb[i] != values[i])
            a.warn(r, "fill value " + formatNumber(values[i]) + " read as " + std::to_string(f.rgb[i]) +
                          (cast == FillCast::Truncated
                               ? " (the library assigns it to the 8-bit image with numpy, which truncates it)."
                               : " (OpenCV rounds it as it fills the 8-bit image)."));
    }
    return f;
}

Fill readRemapFill(const JsonReader& r, TransformArgs& a) {
    const bool one = r.json().is_number() || (r.json().is_array() && r.json().size() == 1);
    Fill f = readFill(r, a, false);
    if (one && f.rgb[0] != 0) {
        a.warn(r, "one number " + std::to_string(f.rgb[0]) + " as this transform's fill is what cv2 reads as the colour (" +
                      std::to_string(f.rgb[0]) + ", 0, 0), and the library paints that: read as [" +
                      std::to_string(f.rgb[0]) + ", 0, 0] (write three numbers for a grey).");
        f.rgb[1] = f.rgb[2] = 0;
    }
    return f;
}

const char* interpolationName(const JsonReader& r, TransformArgs& a) {
    const auto v = r.integer(INT32_MIN, INT32_MAX);
    if (v == 0) return "nearest";
    if (v != 1)
        a.warn(r, "OpenCV interpolation " + std::to_string(v) + " is not nearest (0) or linear (1): linear.");
    return "linear";
}

const char* borderName(const JsonReader& r, TransformArgs& a) {
    static const char* const kNames[] = {"constant", "replicate", "reflect", "wrap", "reflect_101"};
    const auto v = r.integer(INT32_MIN, INT32_MAX);
    if (v >= 0 && v <= 4) return kNames[v];
    a.warn(r, "OpenCV border mode " + std::to_string(v) + " has no AugLab equivalent: constant.");
    return "constant";
}

}  // namespace auglab::exporting
