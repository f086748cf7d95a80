#pragma once
// Shared by the import suites (test_import.cpp, test_import_ops.cpp): reading the reference files
// and the importer's warnings and errors.

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <QString>

#include "error.h"
#include "export_test_support.h"
#include "exporter.h"

namespace auglab::testing {

/// The real pipelines of tests/data/import/pipelines (A.save files of public training code), sorted.
inline std::vector<std::filesystem::path> realPipelineFiles() {
    const std::filesystem::path dir = std::filesystem::path(AUGLAB_SOURCE_DIR) / "tests/data/import/pipelines";
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

inline ImportResult importFile(const char* name) {
    return importAlbumentations(readFileText(kExportData / "reference" / name), name);
}

inline bool hasWarning(const ImportResult& r, const std::string& part) {
    for (const std::string& w : r.warnings)
        if (w.find(part) != std::string::npos) return true;
    return false;
}

inline QString warningsOf(const ImportResult& r) {
    QString s;
    for (const std::string& w : r.warnings) s += QString::fromStdString(w) + "\n";
    return s;
}

inline std::string importError(const std::string& json) {
    try {
        importAlbumentations(json, "t.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return "NO ERROR";
}

}  // namespace auglab::testing
