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

/// The op for transform `t` of class `cls` (short name), or nullopt for a transform AugLab has no
/// op for (reported in `warnings`). Keys that cannot be mapped are reported with their JSON path;
/// values of the wrong type throw InputError.
std::optional<OpConfig> readTransform(const JsonReader& t, const std::string& cls, const LibraryVersion& version,
                                      std::vector<std::string>& warnings);

}  // namespace auglab::exporting
