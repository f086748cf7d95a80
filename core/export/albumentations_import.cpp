// Reads Albumentations 1.4.x / 2.0.x (and AlbumentationsX) A.save JSON into a preset. Every key is
// either mapped, or known to matter for masks/boxes only, or reported with its JSON path. A key the
// file leaves out takes the default of the library version that wrote it (and says so), as A.load
// would. The unit conversions are the inverse of albumentations_export.cpp.

#include <algorithm>
#include <cmath>

#include "albumentations_common.h"
#include "albumentations_transform_reader.h"
#include "error.h"
#include "json_reader.h"
#include "preset.h"

namespace auglab {

namespace {

using json = nlohmann::json;

/// "1.4.24" -> {1, 4, 24}; anything unreadable gives {0, 0, 0}.
std::array<int, 3> parseVersion(const std::string& s) {
    std::array<int, 3> v{0, 0, 0};
    std::size_t pos = 0;
    for (int& part : v) {
        std::size_t used = 0;
        try {
            part = std::stoi(s.substr(pos), &used);
        } catch (const std::exception&) {
            return v;
        }
        pos += used + 1;
        if (pos > s.size()) break;
    }
    return v;
}

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
        entry.requireObject({"position", "op"});
        const auto position = static_cast<std::size_t>(entry.member("position").integer(0, 1000000));
        // The op is a preset pipeline entry: read it with the preset parser, strictly.
        const json wrapper = {{"format", "auglab-preset"},
                              {"version", 1},
                              {"pipeline", json::array({entry.member("op").json()})}};
        Preset one;
        try {
            one = parsePreset(wrapper.dump(), entry.path());
        } catch (const InputError& e) {
            entry.member("op").fail(std::string("not a valid AugLab op: ") + e.what());
        }
        OpConfig op = one.pipeline.front();
        const std::size_t at = std::min(position, preset.pipeline.size());
        preset.pipeline.insert(preset.pipeline.begin() + static_cast<std::ptrdiff_t>(at), op);
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
                   key == "telemetry" || (key == "mask_interpolation" && j.is_null())) {
            // Checks and bookkeeping with no effect on the pixels of an image.
        } else {
            result.warnings.push_back(v.path() + ": unknown Compose argument: ignored.");
        }
    }
    const JsonReader list = t.member("transforms");
    for (std::size_t i = 0; i < list.arraySize(); ++i) {
        const JsonReader tr = list.element(i);
        tr.requireObject();
        const std::string cls = shortClassName(tr.member("__class_fullname__").string());
        if (std::optional<OpConfig> op = exporting::readTransform(tr, cls, version, result.warnings))
            result.preset.pipeline.push_back(std::move(*op));
    }
}

/// AugLab sets the frame once, before every pixel op (pipelineOrderError: a crop); Albumentations
/// allows its crops anywhere. A later one is moved before the pixel ops, a second one is left out,
/// each with a warning.
void fixCropOrder(ImportResult& result) {
    auto& ops = result.preset.pipeline;
    const auto isCrop = [](const OpConfig& c) { return setsFrame(c); };
    const auto first = std::find_if(ops.begin(), ops.end(), isCrop);
    if (first == ops.end()) return;
    for (auto it = std::find_if(first + 1, ops.end(), isCrop); it != ops.end();
         it = std::find_if(it, ops.end(), isCrop)) {
        result.warnings.push_back("pipeline[" + std::to_string(it - ops.begin()) + "] " + it->name() +
                                  ": AugLab crops once; this second crop is left out.");
        it = ops.erase(it);
    }
    const auto pixel = std::find_if(ops.begin(), first,
                                    [](const OpConfig& c) { return c.desc().category == OpCategory::Pixel; });
    if (pixel == first) return;
    result.warnings.push_back(
        "pipeline[" + std::to_string(first - ops.begin()) + "] " + first->name() + ": moved to pipeline[" +
        std::to_string(pixel - ops.begin()) +
        "], before the pixel ops: AugLab crops first (colour "
        "ops give the same pixels; hole and blur sizes then refer to the resized crop).");
    std::rotate(pixel, first, first + 1);
}

}  // namespace

ImportResult importAlbumentations(std::string_view text, const std::string& what) {
    const json doc = parseJsonStrict(text, what);
    const JsonReader root(doc, "");
    root.requireObject();
    ImportResult result;
    result.preset.name = "imported";
    exporting::LibraryVersion version;
    if (root.has("__version__")) {
        version.text = root.member("__version__").string();
        version.number = parseVersion(version.text);
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
    if (cls == "Compose" || cls == "Sequential") {
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
    fixCropOrder(result);
    return result;
}

}  // namespace auglab
