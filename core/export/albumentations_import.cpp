// Reads Albumentations 1.4.x / 2.0.x (and AlbumentationsX) A.save JSON into a preset. Every key is
// either mapped, or known to matter for masks/boxes only, or reported with its JSON path. A key the
// file leaves out takes the default of the library version that wrote it (and says so), as A.load
// would. The unit conversions are the inverse of albumentations_export.cpp.

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "albumentations_transform_reader.h"
#include "error.h"
#include "export_common.h"
#include "json_reader.h"
#include "preset.h"

namespace auglab {

namespace {

using json = nlohmann::json;

std::string shortClassName(const std::string& full) {
    const std::size_t dot = full.rfind('.');
    return dot == std::string::npos ? full : full.substr(dot + 1);
}

/// Restores name, description, seed and disabled ops from an AugLab export's own section.
void readMetadata(const JsonReader& m, Preset& preset) {
    m.requireObject({"format", "version", "name", "description", "seed", "disabled_ops", "warnings"});
    if (m.member("format").string() != "auglab-albumentations")
        m.member("format").fail("expected \"auglab-albumentations\"");
    if (m.member("version").integer(1, INT64_MAX) > 1)
        m.member("version").fail("written by a newer AugLab; update AugLab");
    if (m.has("name")) preset.name = m.member("name").string();
    if (m.has("description")) preset.description = m.member("description").string();
    if (m.has("seed")) preset.seed = m.member("seed").unsignedInteger();
    if (!m.has("disabled_ops")) return;
    const JsonReader list = m.member("disabled_ops");
    for (std::size_t i = 0; i < list.arraySize(); ++i) {
        const JsonReader entry = list.element(i);
        if (entry.has("group"))
            entry.requireObject({"position", "parent", "group"});
        else
            entry.requireObject({"position", "parent", "op"});
        const auto position = static_cast<std::size_t>(entry.member("position").integer(0, 1000000));
        const JsonReader item = entry.member(entry.has("group") ? "group" : "op");
        // The entry is a preset pipeline entry: read it with the preset parser, strictly.
        const json wrapper = {
            {"format", "auglab-preset"}, {"version", 1}, {"pipeline", json::array({item.json()})}};
        Preset one;
        try {
            one = parsePreset(wrapper.dump(), entry.path());
        } catch (const InputError& e) {
            item.fail(std::string("not a valid AugLab entry: ") + e.what());
        }
        int parent = -1;
        if (entry.has("parent"))
            parent = static_cast<int>(
                entry.member("parent").integer(-1, int(preset.pipeline.groups().size()) - 1));
        // At its place in its group; where the file was edited since, as near as the groups allow.
        std::size_t at = std::min(position, preset.pipeline.size());
        if (parent >= 0) {
            const OpGroup& g = preset.pipeline.groups()[static_cast<std::size_t>(parent)];
            at = std::clamp(at, g.first, g.end());
        }
        try {
            preset.pipeline.insertInto(at, one.pipeline, parent);
        } catch (const std::invalid_argument&) {
            entry.member("position")
                .fail("no place for it in the pipeline read from the Compose (edited since?)");
        }
    }
}

/// BboxParams or KeypointParams (`boxes`) into the preset's targets section: each member the section
/// has is read strictly (its JSON path in errors), any other is reported and ignored.
void readTargetParams(const JsonReader& v, bool boxes, ImportResult& result) {
    v.requireObject();
    static const std::vector<std::string> boxKeys{
        "format",     "label_fields",         "min_area", "min_visibility",   "min_width",
        "min_height", "check_each_transform", "clip",     "max_accept_ratio", "filter_invalid_bboxes"};
    static const std::vector<std::string> keypointKeys{"format", "label_fields", "remove_invisible",
                                                       "angle_in_degrees", "check_each_transform"};
    const auto& known = boxes ? boxKeys : keypointKeys;
    json section = json::object();
    for (const auto& item : v.json().items()) {
        if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
            result.warnings.push_back(v.path() + "." + item.key() + ": not a " +
                                      (boxes ? "BboxParams" : "KeypointParams") +
                                      " setting AugLab knows: ignored.");
            continue;
        }
        if (item.key() == "label_fields" && item.value().is_null())
            section[item.key()] = json::array();
        else
            section[item.key()] = item.value();
    }
    if (!boxes && section.contains("format") && section["format"] == "xyz") {
        result.warnings.push_back(v.path() + ".format: 3D keypoints (xyz) are not supported: xy is used.");
        section["format"] = "xy";
    }
    json whole = json::object();
    if (result.preset.targets) whole = targetSettingsToJson(*result.preset.targets);
    whole[boxes ? "boxes" : "keypoints"] = section;
    // Paths in errors: the file's own (v.path()) for the member that is wrong.
    try {
        result.preset.targets = readTargetSettings(JsonReader(whole, ""));
    } catch (const InputError& e) {
        std::string msg = e.what();
        const std::string prefix = boxes ? "boxes" : "keypoints";
        if (msg.rfind(prefix, 0) == 0) msg = v.path() + msg.substr(prefix.size());
        throw InputError(msg);
    }
}

/// A nested Compose's bbox_params or keypoint_params. AugLab has one set of label settings for the
/// pipeline: the nested ones are those when the pipeline gives none, and must agree with them
/// otherwise.
void readNestedTargetParams(const JsonReader& v, bool boxes, ImportResult& result) {
    ImportResult nested;
    nested.preset.targets = result.preset.targets;
    readTargetParams(v, boxes, nested);
    result.warnings.insert(result.warnings.end(), nested.warnings.begin(), nested.warnings.end());
    const char* what = boxes ? "bbox_params" : "keypoint_params";
    if (!result.preset.targets) {
        result.preset.targets = nested.preset.targets;
        result.warnings.push_back(v.path() + ": a nested Compose's " + what +
                                  " read as the pipeline's (AugLab has one set of label settings).");
    } else if (targetSettingsToJson(*nested.preset.targets) != targetSettingsToJson(*result.preset.targets)) {
        result.warnings.push_back(v.path() + ": a nested Compose's " + what +
                                  " differ from the pipeline's; AugLab has one set of label settings: "
                                  "the pipeline's apply.");
    }
}

bool groupClass(const std::string& cls, GroupKind& kind) {
    for (GroupKind k : {GroupKind::OneOf, GroupKind::SomeOf, GroupKind::Sequential, GroupKind::RandomOrder})
        if (cls == exporting::albumentationsGroupClass(k)) {
            kind = k;
            return true;
        }
    return false;
}

void readTransforms(const JsonReader& list, const exporting::LibraryVersion& version, ImportResult& result,
                    std::vector<OpGroup>& groups, std::vector<std::string>& paths);

/// A OneOf, SomeOf, Sequential or RandomOrder (`t`) as a group of the ops read from its transforms.
void readGroup(const JsonReader& t, GroupKind kind, const exporting::LibraryVersion& version,
               ImportResult& result, std::vector<OpGroup>& groups, std::vector<std::string>& paths,
               bool nestedCompose = false) {
    OpGroup g;
    g.kind = kind;
    g.p = nestedCompose ? 1.0 : defaultGroupP(kind);
    for (const auto& item : t.json().items()) {
        const std::string& key = item.key();
        const JsonReader v = t.member(key);
        if (key == "__class_fullname__" || key == "transforms") continue;
        if (key == "p")
            g.p = v.numberIn(0.0, 1.0);
        else if (key == "n" && groupHasCount(kind))
            g.n = static_cast<int>(v.integer(1, 1000));
        else if (key == "replace" && groupHasCount(kind))
            g.replace = v.boolean();
        else if (key == "mask_interpolation" && v.json().is_null())
            continue;  // the masks' interpolation inherited from the Compose: none given
        else if (nestedCompose &&
                 (key == "is_check_shapes" || key == "strict" || key == "save_applied_params" ||
                  key == "save_key" ||
                  ((key == "bbox_params" || key == "keypoint_params" || key == "seed") &&
                   v.json().is_null()) ||
                  (key == "additional_targets" && v.json().is_object() && v.json().empty())))
            continue;  // a nested Compose's checks and empty settings: no effect on the pixels
        else if (nestedCompose && (key == "bbox_params" || key == "keypoint_params"))
            readNestedTargetParams(v, key == "bbox_params", result);
        else
            result.warnings.push_back(
                v.path() + ": not an argument of " +
                (nestedCompose ? "a nested Compose" : exporting::albumentationsGroupClass(kind)) +
                " AugLab knows: ignored.");
    }
    if (kind == GroupKind::SomeOf && version.before2())
        result.warnings.push_back(
            t.path() +
            ": read with Albumentations 2.0's SomeOf (children drawn uniformly, each then applied "
            "with its own p); releases before 2.0 drew them with their p as weights and applied them "
            "for sure.");
    if (nestedCompose && !version.before2()) {
        // Kept to be written back as it was (AlbumentationsOrigin): the dict without its children.
        json own = t.json();
        own.erase("transforms");
        g.origin = std::make_shared<const AlbumentationsOrigin>(AlbumentationsOrigin{version.text, std::move(own)});
    }
    Pipeline& pipeline = result.preset.pipeline;
    g.first = pipeline.size();
    const std::size_t at = groups.size();
    groups.push_back(g);
    paths.push_back(t.path());
    readTransforms(t.member("transforms"), version, result, groups, paths);
    OpGroup& read = groups[at];
    read.count = pipeline.size() - read.first;
    if (read.count == 0) {
        // Nothing in it runs in AugLab: the group itself is empty there (and a no-op in the library).
        groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(at));
        paths.erase(paths.begin() + static_cast<std::ptrdiff_t>(at));
        result.warnings.push_back(t.path() + ": " + exporting::albumentationsGroupClass(kind) +
                                  " holds no transform AugLab has: left out.");
        return;
    }
    if (groupHasCount(kind) && !read.replace) {
        // Children left out (no AugLab op) make the group smaller: the library clamps n the same way.
        std::size_t children = 0;
        for (std::size_t i = read.first, k = at + 1; i < read.end(); ++children) {
            if (k < groups.size() && groups[k].first == i) {
                i = groups[k].end();
                while (k < groups.size() && groups[k].first < i) ++k;  // the sub-group and its own
            } else {
                ++i;
            }
        }
        if (static_cast<std::size_t>(read.n) > children) {
            result.warnings.push_back(
                t.path() + ".n: " + std::to_string(read.n) + " is more than the " + std::to_string(children) +
                " children AugLab reads: " + std::to_string(children) + " (the library clamps it too).");
            read.n = static_cast<int>(children);
        }
    }
}

/// Once the groups are known: a OneOf's weights not all 0. `paths`: each group's JSON path.
void checkGroups(ImportResult& result, const std::vector<std::string>& paths) {
    const Pipeline& pipeline = result.preset.pipeline;
    const std::function<void(const PipelineNode&)> check = [&](const PipelineNode& node) {
        for (const PipelineNode& c : node.children) {
            if (c.group < 0) continue;
            const auto gi = static_cast<std::size_t>(c.group);
            const OpGroup& g = pipeline.groups()[gi];
            if (g.kind == GroupKind::OneOf) {
                double sum = 0;
                for (const PipelineNode& k : c.children)
                    sum += k.op >= 0 ? pipeline[static_cast<std::size_t>(k.op)].p
                                     : pipeline.groups()[static_cast<std::size_t>(k.group)].p;
                if (!(sum > 0))
                    throw InputError(paths[gi] + ".transforms: the children's p (OneOf's weights) are all 0");
            }
            check(c);
        }
    };
    check(pipeline.tree());
}

/// Albumentations 1.x Flip (removed in 2.0): d = randint(-1, 1) flips vertically (0), horizontally
/// (1) or both ways (-1), each a third of the time. Read as a one_of with Flip's p of a horizontal
/// flip, a vertical flip and a sequential of both (weights 1, 1, 1).
void readOldFlip(const JsonReader& t, const exporting::LibraryVersion& version, ImportResult& result,
                 std::vector<OpGroup>& groups, std::vector<std::string>& paths) {
    exporting::TransformArgs a(t, "Flip", version, result.warnings);
    const JsonReader p = a.get("p");
    if (p.number() < 0 || p.number() > 1) a.fail(p, "p must be in [0, 1]");
    a.finish();
    Pipeline& pipeline = result.preset.pipeline;
    OpGroup either;
    either.kind = GroupKind::OneOf;
    either.first = pipeline.size();
    either.count = 4;
    either.p = p.number();
    OpGroup both;
    both.kind = GroupKind::Sequential;
    both.first = pipeline.size() + 2;
    both.count = 2;
    both.p = 1.0;
    for (const char* name : {"horizontal_flip", "vertical_flip", "horizontal_flip", "vertical_flip"}) {
        OpConfig op = OpConfig::withDefaults(name);
        op.p = 1.0;
        pipeline.push_back(std::move(op));
    }
    groups.push_back(either);
    paths.push_back(t.path());
    groups.push_back(both);
    paths.push_back(t.path());
    result.warnings.push_back(
        t.path() +
        ": Flip (Albumentations 1.x) read as a one_of of horizontal_flip, vertical_flip "
        "and both (each a third of the time, as its d = randint(-1, 1)).");
}

void readTransforms(const JsonReader& list, const exporting::LibraryVersion& version, ImportResult& result,
                    std::vector<OpGroup>& groups, std::vector<std::string>& paths) {
    for (std::size_t i = 0; i < list.arraySize(); ++i) {
        const JsonReader tr = list.element(i);
        tr.requireObject();
        const std::string cls = shortClassName(tr.member("__class_fullname__").string());
        GroupKind kind{};
        if (groupClass(cls, kind))
            readGroup(tr, kind, version, result, groups, paths);
        else if (cls == "Compose" || cls == "ReplayCompose")
            // A Compose inside a pipeline runs its transforms in order with its own p (default 1), as
            // Sequential does (and it is written back as one); a ReplayCompose is a Compose that also
            // records its draws.
            readGroup(tr, GroupKind::Sequential, version, result, groups, paths, true);
        else if (cls == "Flip")
            readOldFlip(tr, version, result, groups, paths);
        else if (std::optional<OpConfig> op = exporting::readTransform(tr, cls, version, result.warnings))
            result.preset.pipeline.push_back(std::move(*op));
    }
}

void readCompose(const JsonReader& t, const exporting::LibraryVersion& version, ImportResult& result) {
    t.requireObject();
    for (const auto& item : t.json().items()) {
        const std::string& key = item.key();
        const JsonReader v = t.member(key);
        const json& j = v.json();
        if (key == "__class_fullname__" || key == "transforms") continue;
        if (key == "p") {
            if (v.number() != 1.0)
                result.warnings.push_back(v.path() + ": the whole pipeline applies with probability " +
                                          formatNumber(v.number()) +
                                          "; AugLab has no such setting: ignored "
                                          "(every op keeps its own p).");
        } else if (key == "bbox_params" || key == "keypoint_params") {
            if (!j.is_null()) readTargetParams(v, key == "bbox_params", result);
        } else if (key == "additional_targets") {
            if (!(j.is_object() && j.empty()))
                result.warnings.push_back(v.path() + ": AugLab augments one image at a time: ignored.");
        } else if (key == "seed") {
            if (!j.is_null())
                result.warnings.push_back(v.path() +
                                          ": Albumentations' seed drives another generator; AugLab's "
                                          "seed is kept as it is: ignored.");
        } else if (key == "is_check_shapes" || key == "strict" || key == "save_applied_params" ||
                   key == "save_key" ||
                   key == "telemetry" || (key == "mask_interpolation" && j.is_null())) {
            // Checks and bookkeeping with no effect on the pixels of an image.
        } else {
            result.warnings.push_back(v.path() + ": unknown Compose argument: ignored.");
        }
    }
    if (!version.before2()) {
        json own = t.json();
        own.erase("transforms");
        result.preset.albumentations =
            std::make_shared<const AlbumentationsOrigin>(AlbumentationsOrigin{version.text, std::move(own)});
    }
    std::vector<OpGroup> groups;
    std::vector<std::string> paths;
    readTransforms(t.member("transforms"), version, result, groups, paths);
    try {
        result.preset.pipeline.setGroups(std::move(groups));
    } catch (const std::invalid_argument& e) {
        throw InputError(t.path() + ".transforms: " + e.what());  // not expected: the reader nests them
    }
    checkGroups(result, paths);
}

/// Whatever breaks an order rule (pipelineOrderError: a crop or resize in a some_of or random_order,
/// an op after the training tail) is left out, with a warning naming the rule.
void fixOrder(ImportResult& result) {
    Pipeline& ops = result.preset.pipeline;
    std::string why;
    for (int bad = pipelineOrderError(ops, why); bad >= 0; bad = pipelineOrderError(ops, why)) {
        const auto i = static_cast<std::size_t>(bad);
        result.warnings.push_back(ops.path(i) + " " + ops[i].name() + ": left out: " + why + ".");
        ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(i));
    }
}

}  // namespace

std::optional<TargetSettings> albumentationsComposeTargets(const nlohmann::json& compose) {
    ImportResult scratch;
    const JsonReader t(compose, "transform");
    for (const char* key : {"bbox_params", "keypoint_params"})
        if (t.has(key) && !t.member(key).json().is_null()) readTargetParams(t.member(key), key == std::string("bbox_params"), scratch);
    return scratch.preset.targets;
}

ImportResult importAlbumentations(std::string_view text, const std::string& what) {
    const json doc = parseJsonStrict(text, what);
    const JsonReader root(doc, "");
    root.requireObject();
    ImportResult result;
    result.preset.name = "imported";
    exporting::LibraryVersion version;
    if (root.has("__version__")) {
        version.text = root.member("__version__").string();
        version.number = exporting::libraryVersion(version.text).number;
        if (version.number[0] < 1 || version.number[0] > 2)
            result.warnings.push_back("__version__: " + version.text +
                                      " is neither 1.x nor 2.x; read as 2.0.8.");
    } else {
        result.warnings.push_back("__version__ is missing; the file is read as Albumentations 2.0.8.");
    }
    if (version.number[0] < 1 || version.number[0] > 2) version.number = {2, 0, 8};
    result.preset.description = "Imported from " + what + " (Albumentations " + version.text + ").";

    const JsonReader transform = root.member("transform");
    transform.requireObject();
    const std::string cls = shortClassName(transform.member("__class_fullname__").string());
    if (cls == "Compose" || cls == "Sequential" || cls == "ReplayCompose") {
        if (cls == "ReplayCompose")
            result.warnings.push_back(
                "transform: ReplayCompose read as a Compose (it also records each call's draws, which "
                "AugLab's replays do); exported as the ReplayCompose it is while the label settings are unedited.");
        readCompose(transform, version, result);
    } else if (std::optional<OpConfig> op =
                   exporting::readTransform(transform, cls, version, result.warnings)) {
        result.preset.pipeline.push_back(std::move(*op));
    }
    for (const auto& item : doc.items()) {
        if (item.key() == "__version__" || item.key() == "transform") continue;
        if (item.key() == exporting::kMetadataKey)
            readMetadata(root.member(item.key()), result.preset);
        else
            result.warnings.push_back(item.key() + ": unknown top-level key: ignored.");
    }
    fixOrder(result);
    return result;
}

}  // namespace auglab
