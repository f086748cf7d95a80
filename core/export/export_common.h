#pragma once
// Pieces shared by the exporters: which ops are exported, how each is named in messages, and
// Python literals and file headers for the code generators.

#include <string>
#include <vector>

#include "exporter.h"
#include "json_reader.h"  // formatNumber

namespace auglab::exporting {

/// An op of the preset together with its position, for messages ("pipeline[2] coarse_dropout").
struct ExportedOp {
    std::size_t index;
    const OpConfig* op;
    std::string label() const;
};

/// The enabled ops, in order. Each disabled op adds a warning (`target` names the library): a
/// disabled op never runs, so leaving it out keeps the meaning.
std::vector<ExportedOp> enabledOps(const Preset& preset, const std::string& target, std::vector<std::string>& warnings);

// Python literals. Floats use the shortest text that reads back as the same double ("0.1",
// "-15.0"), so generated code carries the preset's numbers exactly.
std::string pyFloat(double v);
std::string pyInt(double v);  ///< a whole number written without a decimal point
std::string pyString(const std::string& s);
std::string pyRange(const Range& r);      ///< "(min, max)" as floats
std::string pyIntRange(const Range& r);   ///< "(min, max)" as ints
std::string pyRgb(const Fill& f);         ///< "(r, g, b)" as ints (constant fills only)

/// The comment block that opens a generated Python file: where it came from, and every warning as
/// a bullet, so the file itself says what the target cannot express.
std::string pythonHeader(const Preset& preset, const std::string& target, const std::vector<std::string>& warnings);

/// True when every channel of a constant fill has the same value (targets with a scalar fill).
bool isGray(const Fill& f);

}  // namespace auglab::exporting
