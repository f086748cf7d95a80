// Albumentations 2.0.x / AlbumentationsX JSON for A.load(). Every argument is written, with the
// names and value forms A.save of Albumentations 2.0.8 writes (shared/reference/albumentations), so
// the file means the same whatever a later release changes in its defaults.
//
// What each op writes (and why) is in its module (core/ops/).

#include <cmath>
#include <functional>

#include "albumentations_common.h"
#include "albumentations_transform_reader.h"
#include "export_common.h"
#include "exporter.h"
#include "json_reader.h"
#include "ops/op_module.h"
#include "preset.h"

namespace auglab::exporting {

using json = nlohmann::ordered_json;

int cvInterpolation(const std::string& name) {
    return name == "nearest" ? 0 : 1;
}

int cvBorder(const std::string& name) {
    if (name == "replicate") return 1;
    if (name == "reflect") return 2;
    if (name == "wrap") return 3;
    if (name == "reflect_101") return 4;
    return 0;
}

json pair(const Range& r) {
    return json::array({r.min, r.max});
}
json intPair(const Range& r) {
    return json::array({std::llround(r.min), std::llround(r.max)});
}
json xy(const Range& x, const Range& y) {
    return json{{"x", pair(x)}, {"y", pair(y)}};
}

/// A constant fill as Albumentations stores it: one float for a grey, else three floats.
json fillValue(const Fill& f) {
    if (isGray(f)) return static_cast<double>(f.rgb[0]);
    return remapFillValue(f);
}

json remapFillValue(const Fill& f) {
    if (f.rgb == std::array<int, 3>{0, 0, 0}) return 0.0;  // (0, 0, 0, 0) either way
    return json::array(
        {static_cast<double>(f.rgb[0]), static_cast<double>(f.rgb[1]), static_cast<double>(f.rgb[2])});
}

json start(const char* className, double p) {
    return json{{"__class_fullname__", className}, {"p", p}};
}

/// A fractional hole range. Albumentations reads an upper end of exactly 1.0 as pixels, so 1.0 is
/// written as the largest double below it (the drawn sizes are the same: trunc(H * u) < H).
json fractionPair(const ExportedOp& e, const char* key, Range r, std::vector<std::string>& warnings) {
    if (r.max >= 1.0) {
        warnings.push_back(
            e.label() + ": " + key +
            " ends at 1.0, which Albumentations would read as 1 pixel; "
            "written as 0.9999999999999999 (same hole sizes; the importer reads it back as 1.0).");
        r.max = std::nextafter(1.0, 0.0);
        r.min = std::min(r.min, r.max);
    }
    return pair(r);
}

namespace {

/// Whether an origin's file was written by the library `flavour` targets (Albumentations 2.0.x up
/// to 2.0.8, or AlumentationsX after it): only then are its spellings the target's.
bool sameFamily(const AlbumentationsOrigin& o, AlbumentationsFlavour flavour) {
    return libraryVersion(o.version).albumentationsX() == (flavour == AlbumentationsFlavour::AlbumentationsX);
}

/// `own` (an imported group's or Compose's dict without its children: AlbumentationsOrigin) with
/// `p` and `transforms`, in A.save's order: the class, p, the transforms, then the rest.
json withChildren(const nlohmann::json& own, double p, json transforms) {
    json t = start("", p);
    t["__class_fullname__"] = own.at("__class_fullname__");
    t["transforms"] = std::move(transforms);
    for (const auto& item : own.items())
        if (item.key() != "__class_fullname__" && item.key() != "p") t[item.key()] = json::parse(item.value().dump());
    return t;
}

/// The transform `e`'s op was imported from (OpConfig::origin), as the file wrote it with the op's p,
/// while the op is what that transform reads to (only p or enabled changed since); null otherwise,
/// for an op edited since (said in `warnings`: AugLab's form of it is written) or without an origin.
json originalTransform(const ExportedOp& e, AlbumentationsFlavour flavour, std::vector<std::string>& warnings) {
    const OpConfig& op = *e.op;
    if (!op.origin || !sameFamily(*op.origin, flavour)) return nullptr;
    const AlbumentationsOrigin& o = *op.origin;
    std::string cls = o.transform.value("__class_fullname__", std::string());
    if (const std::size_t dot = cls.rfind('.'); dot != std::string::npos) cls = cls.substr(dot + 1);
    std::vector<std::string> readWarnings;
    std::optional<OpConfig> again;
    try {
        again = readTransform(JsonReader(o.transform, e.label() + ".albumentations.transform"), cls,
                              libraryVersion(o.version), readWarnings);
    } catch (const std::exception&) {
        again.reset();
    }
    if (again) {
        again->p = op.p;
        again->enabled = op.enabled;
    }
    if (!again || !(*again == op)) {
        warnings.push_back(e.label() + ": edited since it was imported from " + cls +
                           ": written in AugLab's form (same meaning as the preview), not as the file had it.");
        return nullptr;
    }
    // A.save's member order starts with the class and p; the rest as the file had them (sorted).
    json t = start("", op.p);
    t["__class_fullname__"] = o.transform.at("__class_fullname__");
    for (const auto& item : o.transform.items())
        if (item.key() != "__class_fullname__" && item.key() != "p") t[item.key()] = json::parse(item.value().dump());
    if (!readWarnings.empty())
        warnings.push_back(e.label() + ": written as the imported file had it (" + cls +
                           "); AugLab previews what its import read: " + readWarnings.front() +
                           (readWarnings.size() > 1 ? " (and " + std::to_string(readWarnings.size() - 1) + " more)" : ""));
    return t;
}

/// Writes the children of `node` into `list`: each enabled op's transform, each enabled group as its
/// composition class; what is left out (disabled, or with no transform) goes to `kept` with its place
/// (position, and the group it sits in) so that the importer restores it.
void writeNodes(const Preset& preset, const PipelineNode& node, AlbumentationsFlavour flavour, json& list,
                json& kept, std::vector<std::string>& warnings) {
    const Pipeline& pipeline = preset.pipeline;
    for (const PipelineNode& child : node.children) {
        if (child.op >= 0) {
            const auto i = static_cast<std::size_t>(child.op);
            const ExportedOp e{i, &pipeline[i], pipeline.path(i)};
            json place{{"position", i}};
            if (pipeline.groupOf(i) >= 0) place["parent"] = pipeline.groupOf(i);
            place["op"] = opConfigToJson(*e.op);
            if (e.op->enabled) {
                json t = originalTransform(e, flavour, warnings);
                if (t.is_null()) t = opModule(e.op->id()).albumentationsTransform(e, flavour, warnings);
                // An op without a transform (the module said why) is kept for the importer.
                if (t.is_null())
                    kept.push_back(std::move(place));
                else
                    list.push_back(std::move(t));
            } else {
                warnings.push_back(e.label() +
                                   " is disabled (never runs): left out of the Compose and kept in the "
                                   "\"auglab\" section, so importing the file restores it.");
                kept.push_back(std::move(place));
            }
            continue;
        }
        const auto g = static_cast<std::size_t>(child.group);
        const OpGroup& group = pipeline.groups()[g];
        if (!group.enabled) {
            warnings.push_back(
                pipeline.groupPath(g) + " (" + groupKindName(group.kind) +
                ") is disabled (never runs): left out of the Compose and kept in the \"auglab\" "
                "section, so importing the file restores it.");
            Pipeline sub(std::vector<OpConfig>(pipeline.begin() + static_cast<std::ptrdiff_t>(group.first),
                                               pipeline.begin() + static_cast<std::ptrdiff_t>(group.end())));
            std::vector<OpGroup> inner;
            // The group and its descendants: the groups after it (in order) that lie in its range.
            for (std::size_t h = g;
                 h < pipeline.groups().size() && pipeline.groups()[h].end() <= group.end() &&
                 pipeline.groups()[h].first < group.end();
                 ++h) {
                OpGroup copy = pipeline.groups()[h];
                copy.first -= group.first;
                inner.push_back(copy);
            }
            sub.setGroups(inner);
            json place{{"position", group.first}};
            if (pipeline.parentGroup(g) >= 0) place["parent"] = pipeline.parentGroup(g);
            place["group"] = pipelineToJson(sub).front();
            kept.push_back(std::move(place));
            continue;
        }
        if (group.origin && sameFamily(*group.origin, flavour) && group.kind == GroupKind::Sequential) {
            // A nested Compose (or ReplayCompose) it was imported from, written back as it was.
            json children = json::array();
            writeNodes(preset, child, flavour, children, kept, warnings);
            list.push_back(withChildren(group.origin->transform, group.p, std::move(children)));
            continue;
        }
        if (group.origin)
            warnings.push_back(pipeline.groupPath(g) + ": no longer the sequential it was imported as (" +
                               group.origin->transform.value("__class_fullname__", std::string()) +
                               "): written as " + albumentationsGroupClass(group.kind) + ".");
        // A.save's member order: __class_fullname__, p, transforms, then SomeOf's n and replace.
        json t = start(albumentationsGroupClass(group.kind), group.p);
        t["transforms"] = json::array();
        writeNodes(preset, child, flavour, t["transforms"], kept, warnings);
        if (groupHasCount(group.kind)) {
            // AugLab draws among the children that run; so does the library, which clamps n too.
            int n = group.n;
            if (!group.replace && static_cast<std::size_t>(n) > t["transforms"].size())
                n = static_cast<int>(t["transforms"].size());
            t["n"] = n;
            t["replace"] = group.replace;
        }
        list.push_back(std::move(t));
    }
}

}  // namespace

nlohmann::ordered_json albumentationsDocument(const Preset& preset, AlbumentationsFlavour flavour,
                                              std::vector<std::string>& warnings) {
    const bool ax = flavour == AlbumentationsFlavour::AlbumentationsX;
    json compose = start("Compose", 1.0);
    compose["transforms"] = json::array();
    json disabled = json::array();
    writeNodes(preset, preset.pipeline.tree(), flavour, compose["transforms"], disabled, warnings);
    compose["bbox_params"] = nullptr;
    compose["keypoint_params"] = nullptr;
    if (preset.targets) {
        // BboxParams and KeypointParams as A.save writes them (to_dict_private's members, in order).
        const TargetSettings& s = *preset.targets;
        const BoxRules& b = s.boxes;
        json bp;
        bp["format"] = boxFormatName(b.format);
        bp["label_fields"] = b.labelFields.empty() ? json(nullptr) : json(b.labelFields);
        bp["min_area"] = b.minArea;
        bp["min_visibility"] = b.minVisibility;
        bp["min_width"] = b.minWidth;
        bp["min_height"] = b.minHeight;
        bp["check_each_transform"] = b.checkEachTransform;
        bp["clip"] = b.clip;
        bp["max_accept_ratio"] = b.maxAcceptRatio ? json(*b.maxAcceptRatio) : json(nullptr);
        if (b.filterInvalid) {
            // A.load passes it to BboxParams, but A.save never writes it back.
            bp["filter_invalid_bboxes"] = true;
            warnings.push_back(
                "targets.boxes.filter_invalid_bboxes is written for A.load, but A.save drops it: "
                "set BboxParams(filter_invalid_bboxes=True) again if you save the pipeline.");
        }
        compose["bbox_params"] = bp;
        const KeypointRules& k = s.keypoints;
        json kp;
        kp["format"] = k.format;
        kp["label_fields"] = k.labelFields.empty() ? json(nullptr) : json(k.labelFields);
        kp["remove_invisible"] = k.removeInvisible;
        kp["angle_in_degrees"] = k.angleInDegrees;
        kp["check_each_transform"] = k.checkEachTransform;
        compose["keypoint_params"] = kp;
        // The mask's fill outside the image, wherever a transform has one.
        const std::function<void(json&)> setMaskFill = [&](json& list) {
            for (json& t : list) {
                if (t.contains("fill_mask") && !t["fill_mask"].is_null()) t["fill_mask"] = double(s.maskFill);
                if (t.contains("transforms")) setMaskFill(t["transforms"]);
            }
        };
        setMaskFill(compose["transforms"]);
    }
    compose["additional_targets"] = json::object();
    compose["is_check_shapes"] = true;
    if (ax) compose["seed"] = nullptr;
    if (const auto& o = preset.albumentations; o && sameFamily(*o, flavour)) {
        // The Compose the pipeline was imported from, as the file wrote it, while its label settings
        // are still the preset's (additional_targets, save_key, a keypoint_params of None kept).
        std::optional<TargetSettings> read;
        try {
            read = albumentationsComposeTargets(o->transform);
        } catch (const std::exception&) {
            read.reset();
        }
        if (read == preset.targets) {
            const double p = o->transform.value("p", 1.0);
            if (p != 1.0)
                warnings.push_back("transform.p: the file's " + formatNumber(p) +
                                   " is written back; AugLab's preview runs the whole pipeline always.");
            compose = withChildren(o->transform, p, std::move(compose["transforms"]));
        } else {
            warnings.push_back("the label settings changed since the pipeline was imported: its " +
                               o->transform.value("__class_fullname__", std::string("Compose")) +
                               " is written as AugLab's Compose with them.");
        }
    }

    json doc;
    doc["__version__"] = ax ? "2.0.16" : "2.0.8";
    doc["transform"] = compose;
    doc[kMetadataKey] = json{{"format", "auglab-albumentations"},
                             {"version", 1},
                             {"name", preset.name},
                             {"description", preset.description},
                             {"seed", preset.seed},
                             {"disabled_ops", disabled},
                             {"warnings", warnings}};
    return doc;
}

}  // namespace auglab::exporting

namespace auglab {

ExportResult exportAlbumentations(const Preset& preset) {
    ExportResult r;
    r.text = exporting::albumentationsDocument(preset, exporting::AlbumentationsFlavour::Albumentations,
                                               r.warnings)
                 .dump(2) +
             "\n";
    return r;
}

ExportResult exportAlbumentationsX(const Preset& preset) {
    ExportResult r;
    r.text = exporting::albumentationsDocument(preset, exporting::AlbumentationsFlavour::AlbumentationsX,
                                               r.warnings)
                 .dump(2) +
             "\n";
    return r;
}

}  // namespace auglab
