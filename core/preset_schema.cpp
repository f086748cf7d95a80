// The preset JSON Schema, generated from the op registry so that it cannot drift from the parser.

#include "preset.h"

#include <string>
#include <vector>

#include "ops/op_module.h"

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
        case ParamKind::IntRange: {
            Json s = rangeSchema(pd, true);
            if (pd.odd)
                for (Json& item : s["prefixItems"]) item["not"] = {{"multipleOf", 2}};
            return s;
        }
        case ParamKind::Float: {
            Json s;
            s["description"] = pd.help;
            s["type"] = pd.integer ? "integer" : "number";
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

/// An imported "albumentations" origin: {"version": "2.x", "transform": {"__class_fullname__": one of
/// `classes`, ...}} (a group's or the pipeline's without "transforms").
Json originSchema(const std::vector<std::string>& classes, bool withoutTransforms, const char* description) {
    std::string pattern;
    for (const std::string& c : classes) pattern += (pattern.empty() ? "" : "|") + c;
    Json transform{{"type", "object"},
                   {"required", Json::array({"__class_fullname__"})},
                   {"properties",
                    Json{{"__class_fullname__", Json{{"type", "string"}, {"pattern", "(^|\\.)(" + pattern + ")$"}}}}},
                   {"description", "The dict as the file wrote it (A.to_dict's), class and arguments."}};
    if (withoutTransforms) transform["not"] = Json{{"required", Json::array({"transforms"})}};
    return Json{{"type", "object"},
                {"description", description},
                {"properties",
                 Json{{"version", Json{{"type", "string"}, {"pattern", "^2\\."},
                                       {"description", "The file's __version__ (2.x)."}}},
                      {"transform", transform}}},
                {"required", Json::array({"version", "transform"})},
                {"additionalProperties", false}};
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
    std::vector<std::string> classes = opModule(op.id).albumentationsClasses();
    if (!classes.empty())
        props["albumentations"] =
            originSchema(classes, false,
                         "The Albumentations transform the op was imported from, as the file wrote it "
                         "(auglab-cli import adds it): exported as it was while the op's parameters are "
                         "still what it reads to.");
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

Json groupSchema() {
    Json props;
    props["group"] = Json{{"enum", Json::array({"one_of", "some_of", "sequential", "random_order"})},
                          {"description",
                           "one_of: one child, chosen with the children's p as weights (it then runs for "
                           "sure); some_of: n children drawn uniformly, run in pipeline order, each with its "
                           "own p; sequential: every child, each with its own p; random_order: n children "
                           "drawn uniformly, run in the order drawn (Albumentations 2.0.8's OneOf, SomeOf, "
                           "Sequential, RandomOrder)."}};
    props["enabled"] =
        Json{{"type", "boolean"}, {"description", "Off: nothing in the group runs (default on)."}};
    props["p"] =
        Json{{"type", "number"},
             {"minimum", 0},
             {"maximum", 1},
             {"description",
              "Probability that the group runs (default 0.5 for one_of and sequential, 1 for some_of "
              "and random_order); inside a one_of, its weight."}};
    props["n"] = Json{{"type", "integer"},
                      {"minimum", 1},
                      {"maximum", 1000},
                      {"description", "some_of, random_order: how many children are drawn (default 1)."}};
    props["replace"] = Json{{"type", "boolean"},
                            {"description", "some_of, random_order: draw with replacement (default false)."}};
    props["children"] = Json{{"type", "array"}, {"minItems", 1}, {"items", Json{{"$ref", "#/$defs/entry"}}}};
    props["albumentations"] = originSchema(
        {"Compose", "ReplayCompose"}, true,
        "sequential: the nested Compose or ReplayCompose it was imported from, without its transforms "
        "(auglab-cli import adds it): exported as it was while the group is a sequential.");
    Json s;
    s["title"] = "Group";
    s["description"] = "Ops (and groups) run together as Albumentations' composition classes run them.";
    s["type"] = "object";
    s["properties"] = props;
    s["required"] = Json::array({"group", "children"});
    s["additionalProperties"] = false;
    // n and replace belong to the groups that draw n children; an imported Compose is a sequential.
    Json countOnly;
    countOnly["if"] = Json{{"properties", Json{{"group", Json{{"enum", Json::array({"one_of", "sequential"})}}}}}};
    countOnly["then"] = Json{
        {"not", Json{{"anyOf", Json::array({Json{{"required", {"n"}}}, Json{{"required", {"replace"}}}})}}}};
    Json originOnly;
    originOnly["if"] = Json{{"required", Json::array({"albumentations"})}};
    originOnly["then"] = Json{{"properties", Json{{"group", Json{{"const", "sequential"}}}}}};
    s["allOf"] = Json::array({countOnly, originOnly});
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
    props["pipeline"] = Json{{"type", "array"}, {"items", Json{{"$ref", "#/$defs/entry"}}}};
    props["targets"] = targetSettingsSchema();
    props["albumentations"] = originSchema(
        {"Compose", "ReplayCompose", "Sequential"}, true,
        "The Compose an imported pipeline came from, without its transforms (label settings as the file "
        "gave them, additional_targets, save_key...; auglab-cli import adds it): exported as it was while "
        "the targets section is still what it reads to.");
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
    Json refs = Json::array();
    for (const OpDesc& op : opRegistry()) refs.push_back(Json{{"$ref", "#/$defs/op_" + op.name}});
    refs.push_back(Json{{"$ref", "#/$defs/group"}});
    defs["entry"] = Json{{"description", "An op, or a group of entries."}, {"oneOf", refs}};
    defs["group"] = groupSchema();
    for (const OpDesc& op : opRegistry()) defs["op_" + op.name] = opSchema(op);
    s["$defs"] = defs;
    return s;
}

}  // namespace auglab
