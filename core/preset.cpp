#include "preset.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "atomic_file.h"
#include "error.h"
#include "json_reader.h"
#include "ops/op_module.h"

namespace auglab {

namespace {

ParamValue readParam(const JsonReader& r, const ParamDesc& pd) {
    switch (pd.kind) {
        case ParamKind::FloatRange:
            return r.range(pd.lower, pd.upper, false);
        case ParamKind::IntRange: {
            const Range v = r.range(pd.lower, pd.upper, true);
            if (pd.odd && (std::fmod(v.min, 2) == 0 || std::fmod(v.max, 2) == 0))
                r.fail("expected odd sizes (" + formatNumber(v.min) + ", " + formatNumber(v.max) +
                       " given): a kernel has a centre pixel");
            return v;
        }
        case ParamKind::Float:
            if (pd.integer)
                return static_cast<double>(
                    r.integer(static_cast<std::int64_t>(pd.lower), static_cast<std::int64_t>(pd.upper)));
            return r.numberIn(pd.lower, pd.upper);
        case ParamKind::Bool:
            return r.boolean();
        case ParamKind::Choice: {
            const std::string s = r.string();
            for (const std::string& c : pd.choices)
                if (c == s) return s;
            std::string list;
            for (const std::string& c : pd.choices) list += (list.empty() ? "\"" : ", \"") + c + "\"";
            r.fail("unknown value \"" + s + "\" (expected one of " + list + ")");
        }
        case ParamKind::Fill: {
            Fill f;
            if (r.json().is_string()) {
                const std::string s = r.string();
                if (pd.allowsRandomFill && s == "random")
                    f.mode = Fill::Mode::Random;
                else if (pd.allowsRandomFill && s == "random_uniform")
                    f.mode = Fill::Mode::RandomUniform;
                else
                    r.fail("unknown fill \"" + s + "\" (expected [r, g, b]" +
                           (pd.allowsRandomFill ? std::string(", \"random\" or \"random_uniform\")") : ")"));
                return f;
            }
            if (r.arraySize() != 3) r.fail("expected [r, g, b] with 3 integers 0..255");
            for (std::size_t i = 0; i < 3; ++i) f.rgb[i] = static_cast<int>(r.element(i).integer(0, 255));
            return f;
        }
        case ParamKind::Size: {
            if (r.arraySize() != 2) r.fail("expected [height, width] in pixels");
            const auto lo = static_cast<std::int64_t>(pd.lower), hi = static_cast<std::int64_t>(pd.upper);
            return Size2{static_cast<int>(r.element(0).integer(lo, hi)),
                         static_cast<int>(r.element(1).integer(lo, hi))};
        }
        case ParamKind::Triple: {
            if (r.arraySize() != 3) r.fail("expected [r, g, b]: three numbers, one per channel");
            Triple t;
            for (std::size_t i = 0; i < 3; ++i) t.v[i] = r.element(i).numberIn(pd.lower, pd.upper);
            return t;
        }
    }
    r.fail("internal: unknown parameter kind");
}

/// An "albumentations" origin (AlbumentationsOrigin): {"version": "2.x.y", "transform": {...}}, the
/// transform's class one of `classes` (`what` names their owner in the error); a group's or the
/// pipeline's without "transforms".
std::shared_ptr<const AlbumentationsOrigin> readOrigin(const JsonReader& r, const std::vector<std::string>& classes,
                                                       const std::string& what, bool withoutTransforms) {
    r.requireObject({"version", "transform"});
    auto origin = std::make_shared<AlbumentationsOrigin>();
    origin->version = r.member("version").string();
    if (origin->version.rfind("2.", 0) != 0)
        r.member("version").fail("expected an Albumentations 2.x version, got \"" + origin->version + "\"");
    const JsonReader t = r.member("transform");
    t.requireObject();
    std::string cls = t.member("__class_fullname__").string();
    if (const std::size_t dot = cls.rfind('.'); dot != std::string::npos) cls = cls.substr(dot + 1);
    if (std::find(classes.begin(), classes.end(), cls) == classes.end()) {
        std::string list;
        for (const std::string& c : classes) list += (list.empty() ? "" : ", ") + c;
        t.member("__class_fullname__")
            .fail("\"" + cls + "\" is not a transform of " + what + " (expected " +
                  (list.empty() ? std::string("none: it has no Albumentations transform") : list) + ")");
    }
    if (withoutTransforms && t.has("transforms"))
        t.member("transforms").fail("the children are the preset's own: not kept here");
    origin->transform = t.json();
    return origin;
}

OpConfig readOp(const JsonReader& r) {
    r.requireObject();
    const std::string name = r.member("op").string();
    const OpDesc* desc = findOp(name);
    if (!desc) {
        std::string list;
        for (const OpDesc& d : opRegistry()) list += (list.empty() ? "" : ", ") + d.name;
        r.member("op").fail("unknown op \"" + name + "\" (known ops: " + list + ")");
    }
    OpConfig op(*desc);
    for (const auto& item : r.json().items()) {
        const std::string& key = item.key();
        const JsonReader v = r.member(key);
        if (key == "op") continue;
        if (key == "enabled") {
            op.enabled = v.boolean();
        } else if (key == "p") {
            op.p = v.numberIn(0.0, 1.0);
        } else if (const ParamDesc* pd = desc->param(key)) {
            op.set(key, readParam(v, *pd));
        } else if (key == "albumentations") {
            op.origin = readOrigin(v, opModule(desc->id).albumentationsClasses(), name, false);
        } else {
            std::string list = "op, enabled, p, albumentations";
            for (const ParamDesc& pd2 : desc->params) list += ", " + pd2.key;
            v.fail("unknown key for " + name + " (expected one of: " + list + ")");
        }
    }
    for (const ParamAlternative& alt : desc->alternatives) {
        std::size_t given = 0;
        for (const std::string& k : alt.keys) given += op.has(k);
        if (given != 0 && given != alt.keys.size()) r.fail(alt.bothOrNeither);
        if (given != 0)
            for (const std::string& k : alt.replaces)
                if (r.has(k)) r.fail(alt.notBoth);
    }
    return op;
}

/// Reads the pipeline entries of `list` (ops and groups) into `pipeline`, groups in order, outer first;
/// `readers` gets each op's reader, for errors found later. Returns the entries' p.
std::vector<double> readNodes(const JsonReader& list, Pipeline& pipeline, std::vector<OpGroup>& groups,
                              std::vector<JsonReader>& readers) {
    const std::size_t n = list.arraySize();
    std::vector<double> ps;
    for (std::size_t i = 0; i < n; ++i) {
        const JsonReader item = list.element(i);
        item.requireObject();
        if (!item.has("group")) {
            pipeline.push_back(readOp(item));
            readers.push_back(item);
            ps.push_back(pipeline.back().p);
            continue;
        }
        if (item.has("op")) item.fail("an entry is an op (\"op\") or a group (\"group\"), not both");
        OpGroup g;
        const std::string kind = item.member("group").string();
        if (!groupKindFromName(kind, g.kind))
            item.member("group").fail("unknown group \"" + kind +
                                      "\" (expected one of \"one_of\", \"some_of\", \"sequential\", "
                                      "\"random_order\")");
        if (groupHasCount(g.kind))
            item.requireObject({"group", "enabled", "p", "n", "replace", "children"});
        else if (g.kind == GroupKind::Sequential)
            item.requireObject({"group", "enabled", "p", "children", "albumentations"});
        else
            item.requireObject({"group", "enabled", "p", "children"});
        if (item.has("albumentations"))
            g.origin = readOrigin(item.member("albumentations"), {"Compose", "ReplayCompose"}, "a sequential", true);
        g.p = defaultGroupP(g.kind);
        if (item.has("enabled")) g.enabled = item.member("enabled").boolean();
        if (item.has("p")) g.p = item.member("p").numberIn(0.0, 1.0);
        if (item.has("n")) g.n = static_cast<int>(item.member("n").integer(1, 1000));
        if (item.has("replace")) g.replace = item.member("replace").boolean();
        const JsonReader children = item.member("children");
        const std::size_t count = children.arraySize();
        if (count == 0) children.fail("a group needs at least one op or group");
        if (groupHasCount(g.kind) && !g.replace && static_cast<std::size_t>(g.n) > count)
            item.member("n").fail("n " + std::to_string(g.n) + " > " + std::to_string(count) +
                                  " children, drawn without replacement");
        g.first = pipeline.size();
        const std::size_t at = groups.size();
        groups.push_back(g);
        const std::vector<double> weights = readNodes(children, pipeline, groups, readers);
        groups[at].count = pipeline.size() - groups[at].first;
        // Albumentations' OneOf divides by the sum of its children's p.
        if (g.kind == GroupKind::OneOf && !(std::accumulate(weights.begin(), weights.end(), 0.0) > 0))
            children.fail("the children's p (a one_of's weights) are all 0");
        ps.push_back(g.p);
    }
    return ps;
}

nlohmann::ordered_json paramToJson(const ParamDesc& pd, const ParamValue& v) {
    switch (pd.kind) {
        case ParamKind::FloatRange: {
            const Range r = std::get<Range>(v);
            return nlohmann::ordered_json::array({r.min, r.max});
        }
        case ParamKind::IntRange: {
            const Range r = std::get<Range>(v);
            return nlohmann::ordered_json::array({std::llround(r.min), std::llround(r.max)});
        }
        case ParamKind::Float:
            if (pd.integer) return std::llround(std::get<double>(v));
            return std::get<double>(v);
        case ParamKind::Bool:
            return std::get<bool>(v);
        case ParamKind::Choice:
            return std::get<std::string>(v);
        case ParamKind::Fill: {
            const Fill& f = std::get<Fill>(v);
            if (f.mode == Fill::Mode::Random) return "random";
            if (f.mode == Fill::Mode::RandomUniform) return "random_uniform";
            return nlohmann::ordered_json::array({f.rgb[0], f.rgb[1], f.rgb[2]});
        }
        case ParamKind::Size: {
            const Size2 z = std::get<Size2>(v);
            return nlohmann::ordered_json::array({z.height, z.width});
        }
        case ParamKind::Triple: {
            const Triple& t = std::get<Triple>(v);
            return nlohmann::ordered_json::array({t.v[0], t.v[1], t.v[2]});
        }
    }
    return nullptr;
}

}  // namespace

nlohmann::ordered_json originToJson(const AlbumentationsOrigin& origin) {
    nlohmann::ordered_json j;
    j["version"] = origin.version;
    j["transform"] = origin.transform;
    return j;
}

nlohmann::ordered_json opConfigToJson(const OpConfig& op) {
    nlohmann::ordered_json j;
    j["op"] = op.name();
    j["enabled"] = op.enabled;
    j["p"] = op.p;
    const auto& params = op.desc().params;
    for (std::size_t i = 0; i < params.size(); ++i) {
        const auto& value = op.values()[i];
        if (!value) continue;
        // What an alternative replaces is not written: both would not load back.
        if (op.isReplaced(params[i].key)) continue;
        j[params[i].key] = paramToJson(params[i], *value);
    }
    if (op.origin) j["albumentations"] = originToJson(*op.origin);
    return j;
}

nlohmann::ordered_json groupToJson(const OpGroup& g) {
    nlohmann::ordered_json j;
    j["group"] = groupKindName(g.kind);
    j["enabled"] = g.enabled;
    j["p"] = g.p;
    if (groupHasCount(g.kind)) {
        j["n"] = g.n;
        j["replace"] = g.replace;
    }
    if (g.origin) j["albumentations"] = originToJson(*g.origin);
    return j;
}

namespace {

nlohmann::ordered_json nodesToJson(const Pipeline& pipeline, const PipelineNode& node) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const PipelineNode& c : node.children) {
        if (c.op >= 0) {
            list.push_back(opConfigToJson(pipeline[static_cast<std::size_t>(c.op)]));
        } else {
            nlohmann::ordered_json g = groupToJson(pipeline.groups()[static_cast<std::size_t>(c.group)]);
            g["children"] = nodesToJson(pipeline, c);
            list.push_back(std::move(g));
        }
    }
    return list;
}

}  // namespace

nlohmann::ordered_json pipelineToJson(const Pipeline& pipeline) {
    return nodesToJson(pipeline, pipeline.tree());
}

Preset parsePreset(std::string_view text, const std::string& what) {
    const nlohmann::json doc = parseJsonStrict(text, what);
    const JsonReader root(doc, "");
    root.requireObject({"format", "version", "name", "description", "seed", "pipeline", "targets", "albumentations"});
    const std::string format = root.member("format").string();
    if (format != "auglab-preset")
        root.member("format").fail("expected \"auglab-preset\", got \"" + format + "\"");
    const JsonReader version = root.member("version");
    const std::int64_t v = version.integer(1, INT64_MAX);
    if (v > Preset::kFormatVersion)
        version.fail("preset version " + std::to_string(v) + " is newer than this AugLab reads (" +
                     std::to_string(Preset::kFormatVersion) + "); update AugLab");
    Preset preset;
    if (root.has("name")) preset.name = root.member("name").string();
    if (root.has("description")) preset.description = root.member("description").string();
    if (root.has("seed")) preset.seed = root.member("seed").unsignedInteger();
    std::vector<OpGroup> groups;
    std::vector<JsonReader> readers;
    readNodes(root.member("pipeline"), preset.pipeline, groups, readers);
    preset.pipeline.setGroups(std::move(groups));
    if (std::string why = opCountError(preset.pipeline); !why.empty()) throw InputError(why);
    if (root.has("targets")) preset.targets = readTargetSettings(root.member("targets"));
    if (root.has("albumentations"))
        preset.albumentations = readOrigin(root.member("albumentations"), {"Compose", "ReplayCompose", "Sequential"},
                                           "the pipeline", true);
    std::string why;
    if (const int bad = pipelineOrderError(preset.pipeline, why); bad >= 0)
        readers[static_cast<std::size_t>(bad)].member("op").fail(why);
    return preset;
}

Preset loadPreset(const std::filesystem::path& path) {
    const std::string text = readFileText(path);
    try {
        return parsePreset(text, path.string());
    } catch (const InputError& e) {
        const std::string msg = e.what();
        if (msg.rfind(path.string(), 0) == 0) throw;
        throw InputError(path.string() + ": " + msg);
    }
}

nlohmann::ordered_json presetToJson(const Preset& preset) {
    nlohmann::ordered_json j;
    j["format"] = "auglab-preset";
    j["version"] = Preset::kFormatVersion;
    j["name"] = preset.name;
    j["description"] = preset.description;
    j["seed"] = preset.seed;
    j["pipeline"] = pipelineToJson(preset.pipeline);
    if (preset.targets) j["targets"] = targetSettingsToJson(*preset.targets);
    if (preset.albumentations) j["albumentations"] = originToJson(*preset.albumentations);
    return j;
}

std::string serializePreset(const Preset& preset) {
    return presetToJson(preset).dump(2) + "\n";
}

void savePreset(const std::filesystem::path& path, const Preset& preset) {
    writeFileAtomically(path, serializePreset(preset));
}

}  // namespace auglab
