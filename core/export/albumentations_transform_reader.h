#pragma once
// One Albumentations transform (an element of Compose.transforms) to one AugLab op.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "json_reader.h"
#include "pipeline.h"

namespace auglab::exporting {

/// The library version that wrote the file: it decides old key names and the defaults of keys the
/// file leaves out.
struct LibraryVersion {
    std::string text = "2.0.8";
    std::array<int, 3> number{2, 0, 8};
    bool before2() const { return number[0] < 2; }
    /// AlbumentationsX continues the 2.0 numbering after Albumentations' last release, 2.0.8.
    bool albumentationsX() const { return number[0] == 2 && number[1] == 0 && number[2] > 8; }
};

/// The version a file's "__version__" names ("1.4.24"); a text that is not one gives {0, 0, 0}.
LibraryVersion libraryVersion(const std::string& text);

/// The op for transform `t` of class `cls` (short name), or nullopt for a transform AugLab has no
/// op for (reported in `warnings`). Keys that cannot be mapped are reported with their JSON path;
/// values of the wrong type throw InputError. The op keeps `t` as its origin (OpConfig::origin) when
/// the file is of Albumentations 2 (1.x spellings are not 2.x's: those export in 2.x's form).
std::optional<OpConfig> readTransform(const JsonReader& t, const std::string& cls, const LibraryVersion& version,
                                      std::vector<std::string>& warnings);

}  // namespace auglab::exporting
