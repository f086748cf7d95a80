#pragma once
// Atomic file replacement: write a temporary file beside the target, flush it to disk, rename.

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace auglab {

/// Writes `data` to `path` atomically. Throws RuntimeError (or InputError when the folder does not
/// exist) with the path in the message; on any failure the old file is untouched and no temporary
/// file is left behind.
void writeFileAtomically(const std::filesystem::path& path, std::string_view data);
void writeFileAtomically(const std::filesystem::path& path, const std::vector<std::uint8_t>& data);

/// Reads a whole file; throws InputError naming the path when it cannot.
std::vector<std::uint8_t> readFileBytes(const std::filesystem::path& path);
/// The first `limit` bytes of a file (all of it when shorter). Throws InputError as readFileBytes.
std::vector<std::uint8_t> readFileBytes(const std::filesystem::path& path, std::size_t limit);
std::string readFileText(const std::filesystem::path& path);

}  // namespace auglab
