#pragma once
// Exporters write a preset for the training code of another library, with the same meaning the
// preview showed (SPEC §5). Where a target cannot express something (an op, a distribution, a
// sign, a per-axis range) the result says so in `warnings` (and in a comment or warning field of
// the text itself): nothing is dropped silently.

#include <string>
#include <string_view>
#include <vector>

#include "pipeline.h"

namespace auglab {

struct ExportResult {
    std::string text;                   ///< the file contents
    std::vector<std::string> warnings;  ///< what the target cannot express, one sentence each
};

struct ExportTarget {
    std::string name;         ///< "albumentations", "torchvision", ...
    std::string description;  ///< one line for menus and --help
    std::string extension;    ///< ".json" or ".py"
    ExportResult (*write)(const Preset&);
};

/// Every export target, in the order menus list them.
const std::vector<ExportTarget>& exportTargets();
/// Throws InputError for an unknown target (the message lists the known ones).
ExportResult exportPreset(const Preset& preset, std::string_view target);

struct ImportResult {
    Preset preset;
    std::vector<std::string> warnings;  ///< every key or transform that could not be mapped, with its path
};

/// Reads Albumentations 1.4.x / 2.0.x `A.save` JSON (and AlbumentationsX) into a preset. Throws
/// InputError (with the JSON path) for a document that is not such a file.
ImportResult importAlbumentations(std::string_view json, const std::string& what = "albumentations file");
/// The label settings a Compose's bbox_params and keypoint_params give (as the importer reads them;
/// nullopt without either): the exporter writes an imported Compose back while they are the preset's.
std::optional<TargetSettings> albumentationsComposeTargets(const nlohmann::json& compose);

// The writers, one per target (each in its own file).
ExportResult exportAlbumentations(const Preset& preset);
ExportResult exportAlbumentationsX(const Preset& preset);
ExportResult exportAlbumentationsPython(const Preset& preset);
ExportResult exportTorchvision(const Preset& preset);
ExportResult exportKeras(const Preset& preset);
ExportResult exportTfDeotte(const Preset& preset);
ExportResult exportDali(const Preset& preset);

}  // namespace auglab
