#pragma once
// The Albumentations document model shared by the JSON writers, the Python writer and the reader.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exporter.h"
#include "op_types.h"

namespace auglab::exporting {

/// Which library reads the file: Albumentations 2.0.8 (the last release of the original project)
/// or AlbumentationsX 2.0.16. Both take the same transform arguments; AlbumentationsX writes
/// `fill_mask: null` for some transforms and a `seed` for Compose (see shared/reference/albumentations).
enum class AlbumentationsFlavour { Albumentations, AlbumentationsX };

/// The whole `A.save` document for a preset: `__version__`, `transform` (a Compose with every
/// argument written explicitly, keys ordered as A.save orders them) and `auglab`, the preset's
/// name, description, seed and disabled ops, which A.load ignores and the importer restores.
nlohmann::ordered_json albumentationsDocument(const Preset& preset, AlbumentationsFlavour flavour,
                                              std::vector<std::string>& warnings);

struct ExportedOp;

// Pieces of transform JSON, as A.save writes them (for the op modules' albumentationsTransform).
nlohmann::ordered_json pair(const Range& r);                      ///< [min, max]
nlohmann::ordered_json intPair(const Range& r);                   ///< [min, max] as integers
nlohmann::ordered_json xy(const Range& x, const Range& y);        ///< {"x": [..], "y": [..]}
nlohmann::ordered_json fillValue(const Fill& f);                  ///< one float for a grey, else three
/// The fill of a transform that hands it to cv2.remap or cv2.warpPerspective as it is, where one
/// number v would paint (v, 0, 0) (readRemapFill): three floats, but 0.0 for black.
nlohmann::ordered_json remapFillValue(const Fill& f);
nlohmann::ordered_json start(const char* className, double p);   ///< {"__class_fullname__", "p"}
/// A fractional range whose upper end 1.0 (which Albumentations would read as pixels) is written as
/// the largest double below it, with a warning.
nlohmann::ordered_json fractionPair(const ExportedOp& e, const char* key, Range r, std::vector<std::string>& warnings);

/// OpenCV constants as Albumentations stores them.
int cvInterpolation(const std::string& auglabName);  ///< nearest 0, linear 1
int cvBorder(const std::string& auglabName);         ///< constant 0, replicate 1, reflect 2, wrap 3, reflect_101 4

/// The key of the top-level object that carries what Albumentations has no place for.
inline constexpr const char* kMetadataKey = "auglab";

}  // namespace auglab::exporting
