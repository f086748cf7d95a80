#pragma once
// Reading and writing `*.auglab.json` presets (SPEC §4), strictly.

#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pipeline.h"

namespace auglab {

/// Parses a preset document. Any fault (syntax, unknown key, wrong type, min > max, a value out
/// of bounds, unknown op, newer version) throws InputError naming the JSON path, e.g.
/// "pipeline[2].holes: min 9 > max 8". `what` (a file name) prefixes syntax errors.
Preset parsePreset(std::string_view text, const std::string& what = "preset");
Preset loadPreset(const std::filesystem::path& path);

/// Every parameter is written explicitly, so the file means the same whatever later defaults are.
nlohmann::ordered_json presetToJson(const Preset& preset);
std::string serializePreset(const Preset& preset);
/// Atomic: a failed save leaves the previous file intact.
void savePreset(const std::filesystem::path& path, const Preset& preset);

/// An imported op's, group's or pipeline's Albumentations origin as the preset writes it
/// ("albumentations": {"version", "transform"}).
nlohmann::ordered_json originToJson(const AlbumentationsOrigin& origin);

/// One op as JSON (the pipeline entry) and back; shared with the replay format.
nlohmann::ordered_json opConfigToJson(const OpConfig& op);

/// A group's own members (no "children"), and a whole pipeline as the preset's "pipeline" array.
nlohmann::ordered_json groupToJson(const OpGroup& group);
nlohmann::ordered_json pipelineToJson(const Pipeline& pipeline);

/// The JSON Schema (draft 2020-12) of the preset format, generated from the op registry.
/// presets/auglab-preset.schema.json holds this text; a test keeps the two identical.
nlohmann::ordered_json presetSchema();

}  // namespace auglab
