// The preset JSON Schema, generated from the op registry so that it cannot drift from the parser.

#include "preset.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;

/// A pair of numbers within the parameter's bounds: a [min, max] range or a [height, width] size.
Json pairSchema(const ParamDesc& pd, bool integers, const std::string& description) {
    Json item;
    item["type"] = integers ? "integer" : "number";
    item["minimum"] = pd.lower;
    item["maximum"] = pd.upper;
    Json s;
    s["description"] = description;
    s["type"] = "array";
    s["prefixItems"] = Json::array({item, item});
    s["items"] = false;
    s["minItems"] = 2;
    s["maxItems"] = 2;
    return s;
}

Json rangeSchema(const ParamDesc& pd, bool integers) {
    return pairSchema(pd, integers, pd.help + " [min, max], min <= max.");
}

Json paramSchema(const ParamDesc& pd) {
    switch (pd.kind) {
        case ParamKind::FloatRange:
            return rangeSchema(pd, false);
        case ParamKind::IntRange:
            return rangeSchema(pd, true);
        case ParamKind::Float: {
            Json s;
            s["description"] = pd.help;
            s["type"] = "number";
            s["minimum"] = pd.lower;
            s["maximum"] = pd.upper;
            return s;
        }
        case ParamKind::Bool: {
            Json s;
            s["description"] = pd.help;
            s["type"] = "boolean";
            return s;
        }
        case ParamKind::Choice: {
            Json s;
            s["description"] = pd.help;
            s["enum"] = pd.choices;
            return s;
        }
        case ParamKind::Fill: {
            Json rgb;
            rgb["$ref"] = "#/$defs/rgb";
            Json s;
            s["description"] = pd.help;
            if (pd.allowsRandomFill) {
                Json modes;
                modes["enum"] = Json::array({"random", "random_uniform"});
                s["oneOf"] = Json::array({rgb, modes});
            } else {
                s["$ref"] = "#/$defs/rgb";
            }
            return s;
        }
        case ParamKind::Size:
            return pairSchema(pd, true, pd.help + " [height, width].");
        case ParamKind::Triple: {
            Json item;
            item["type"] = "number";
            item["minimum"] = pd.lower;
            item["maximum"] = pd.upper;
            Json s;
            s["description"] = pd.help + " [r, g, b].";
            s["type"] = "array";
            s["items"] = item;
            s["minItems"] = 3;
            s["maxItems"] = 3;
            return s;
        }
    }
    return Json::object();
}

Json opSchema(const OpDesc& op) {
    Json props;
    Json opConst;
    opConst["const"] = op.name;
    props["op"] = opConst;
    props["enabled"] = Json{{"type", "boolean"}, {"description", "Off: the op is skipped (default on)."}};
    props["p"] = Json{{"type", "number"},
                      {"minimum", 0},
                      {"maximum", 1},
                      {"description", "Probability that the op applies (default 1)."}};
    for (const ParamDesc& pd : op.params) props[pd.key] = paramSchema(pd);
    Json s;
    s["title"] = op.label;
    s["description"] = op.help;
    s["type"] = "object";
    s["properties"] = props;
    s["required"] = Json::array({"op"});
    s["additionalProperties"] = false;
    for (const ParamAlternative& alt : op.alternatives) {
        // The alternative's keys come together and exclude what they replace.
        Json together;
        for (const std::string& k : alt.keys) {
            Json others = Json::array();
            for (const std::string& o : alt.keys)
                if (o != k) others.push_back(o);
            together[k] = others;
        }
        s["dependentRequired"] = together;
        Json given;
        given["required"] = Json::array({alt.keys.front()});
        Json anyReplaced = Json::array();
        for (const std::string& k : alt.replaces) anyReplaced.push_back(Json{{"required", {k}}});
        Json none;
        none["not"] = Json{{"anyOf", anyReplaced}};
        s["if"] = given;
        s["then"] = none;
    }
    return s;
}

}  // namespace

nlohmann::ordered_json presetSchema() {
    Json s;
    s["$schema"] = "https://json-schema.org/draft/2020-12/schema";
    s["$id"] = "https://auglab.invalid/schemas/auglab-preset.schema.json";
    s["title"] = "AugLab preset";
    s["description"] =
        "An ordered augmentation pipeline (SPEC section 4). Generated from AugLab's op registry by "
        "`auglab-cli schema`; do not edit by hand.";
    s["type"] = "object";
    Json props;
    props["format"] = Json{{"const", "auglab-preset"}};
    props["version"] = Json{{"type", "integer"}, {"const", Preset::kFormatVersion}};
    props["name"] = Json{{"type", "string"}};
    props["description"] = Json{{"type", "string"}};
    props["seed"] = Json{{"type", "integer"}, {"minimum", 0}, {"maximum", 18446744073709551615ull}};
    Json items;
    Json refs = Json::array();
    for (const OpDesc& op : opRegistry()) refs.push_back(Json{{"$ref", "#/$defs/op_" + op.name}});
    items["oneOf"] = refs;
    props["pipeline"] = Json{{"type", "array"}, {"items", items}};
    props["targets"] = targetSettingsSchema();
    s["properties"] = props;
    s["required"] = Json::array({"format", "version", "pipeline"});
    s["additionalProperties"] = false;
    Json defs;
    defs["rgb"] =
        Json{{"type", "array"},
             {"prefixItems", Json::array({Json{{"type", "integer"}, {"minimum", 0}, {"maximum", 255}},
                                          Json{{"type", "integer"}, {"minimum", 0}, {"maximum", 255}},
                                          Json{{"type", "integer"}, {"minimum", 0}, {"maximum", 255}}})},
             {"items", false},
             {"minItems", 3},
             {"maxItems", 3}};
    for (const OpDesc& op : opRegistry()) defs["op_" + op.name] = opSchema(op);
    s["$defs"] = defs;
    return s;
}

}  // namespace auglab
