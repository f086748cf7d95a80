#pragma once
// The auglab-cli commands. Each returns the process exit code: 0 success, 2 bad usage or bad
// input, 1 any other failure (SPEC §7). They use core alone.

#include <string>
#include <vector>

namespace auglab::cli {

int runInfo(const std::vector<std::string>& args);
int runValidate(const std::vector<std::string>& args);
int runRender(const std::vector<std::string>& args);
int runApply(const std::vector<std::string>& args);
int runReplay(const std::vector<std::string>& args);
int runSchema(const std::vector<std::string>& args);
int runBench(const std::vector<std::string>& args);
int runExport(const std::vector<std::string>& args);  // commands_export.cpp
int runImport(const std::vector<std::string>& args);
int runAugment(const std::vector<std::string>& args);  // commands_augment.cpp

/// Help text of a command ("" for the overview).
std::string helpText(const std::string& command);
/// Help of export and import, and the overview with their lines added (commands_export.cpp).
std::string exportHelpText();
std::string importHelpText();
std::string augmentHelpText();
std::string withExportCommands(std::string overview);

}  // namespace auglab::cli
