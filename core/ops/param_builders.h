#pragma once
// Shorthands the op modules describe their parameters with (OpModule::describe).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "op_registry.h"

namespace auglab::params {

inline ParamDesc floatRange(std::string key, std::string label, std::string unit, double lower, double upper,
                            Range def, std::string help) {
    ParamDesc d;
    d.key = std::move(key);
    d.label = std::move(label);
    d.unit = std::move(unit);
    d.kind = ParamKind::FloatRange;
    d.lower = lower;
    d.upper = upper;
    d.defaultValue = def;
    d.help = std::move(help);
    return d;
}

inline ParamDesc intRange(std::string key, std::string label, std::string unit, double lower, double upper,
                          Range def, std::string help) {
    ParamDesc d =
        floatRange(std::move(key), std::move(label), std::move(unit), lower, upper, def, std::move(help));
    d.kind = ParamKind::IntRange;
    return d;
}

inline ParamDesc number(std::string key, std::string label, std::string unit, double lower, double upper,
                        double def, std::string help) {
    ParamDesc d =
        floatRange(std::move(key), std::move(label), std::move(unit), lower, upper, {}, std::move(help));
    d.kind = ParamKind::Float;
    d.defaultValue = def;
    return d;
}

/// A whole number in [lower, upper] (ParamDesc::integer).
inline ParamDesc integer(std::string key, std::string label, std::string unit, double lower, double upper,
                         double def, std::string help) {
    ParamDesc d =
        number(std::move(key), std::move(label), std::move(unit), lower, upper, def, std::move(help));
    d.integer = true;
    return d;
}

inline ParamDesc sizeParam(std::string key, std::string label, double lower, double upper, Size2 def,
                           std::string help) {
    ParamDesc d =
        floatRange(std::move(key), std::move(label), "px (height, width)", lower, upper, {}, std::move(help));
    d.kind = ParamKind::Size;
    d.defaultValue = def;
    return d;
}

inline ParamDesc triple(std::string key, std::string label, std::string unit, double lower, double upper,
                        Triple def, std::string help) {
    ParamDesc d =
        floatRange(std::move(key), std::move(label), std::move(unit), lower, upper, {}, std::move(help));
    d.kind = ParamKind::Triple;
    d.defaultValue = def;
    return d;
}

inline ParamDesc boolean(std::string key, std::string label, bool def, std::string help) {
    ParamDesc d;
    d.key = std::move(key);
    d.label = std::move(label);
    d.kind = ParamKind::Bool;
    d.defaultValue = def;
    d.help = std::move(help);
    return d;
}

inline ParamDesc choice(std::string key, std::string label, std::vector<std::string> choices, std::string def,
                        std::string help) {
    ParamDesc d;
    d.key = std::move(key);
    d.label = std::move(label);
    d.kind = ParamKind::Choice;
    d.choices = std::move(choices);
    d.defaultValue = std::move(def);
    d.help = std::move(help);
    return d;
}

inline ParamDesc fill(std::string key, bool allowsRandom, std::string help) {
    ParamDesc d;
    d.key = std::move(key);
    d.label = "Fill";
    d.unit = "RGB 0-255";
    d.kind = ParamKind::Fill;
    d.lower = 0;
    d.upper = 255;
    d.defaultValue = Fill{};
    d.allowsRandomFill = allowsRandom;
    d.help = std::move(help);
    return d;
}

inline ParamDesc logScale(ParamDesc d) {
    d.logScale = true;
    return d;
}

inline ParamDesc optionalParam(ParamDesc d) {
    d.optional = true;
    return d;
}

/// An op's description with no alternatives and no frame or stage rules (set those after).
/// Sets the slider's span of parameter `key` of `d` for tuning (ParamDesc::typicalLower,
/// typicalUpper), on a logarithmic axis when `log`.
inline void typical(OpDesc& d, std::string_view key, double lower, double upper, bool log = false) {
    for (ParamDesc& p : d.params)
        if (p.key == key) {
            p.typicalLower = lower;
            p.typicalUpper = upper;
            p.logScale = p.logScale || log;
        }
}

/// A pixel size whose slider spans `lower` to `fraction` of the current image's longer side.
inline void typicalOfImage(OpDesc& d, std::string_view key, double lower, double fraction) {
    for (ParamDesc& p : d.params)
        if (p.key == key) {
            p.typicalLower = lower;
            p.typicalImageFraction = fraction;
        }
}

inline OpDesc makeOp(OpId id, std::string name, std::string label, OpCategory category, std::string help,
                     std::vector<ParamDesc> params) {
    OpDesc d;
    d.id = id;
    d.name = std::move(name);
    d.label = std::move(label);
    d.category = category;
    d.help = std::move(help);
    d.params = std::move(params);
    return d;
}

}  // namespace auglab::params
