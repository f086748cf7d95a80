#pragma once
// Atomic file replacement: write a temporary file beside the target, flush it to disk, rename.

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace auglab {

/// When a write reaches the disk.
enum class Durability {
    Now,    ///< the file and its folder entry are synced before writeFileAtomically returns
    Batch,  ///< not synced: the caller syncs a whole batch at once with syncFileSystem() (a sync per
            ///< file costs a fifth of `augment`'s time). The file is still atomic: a crash or kill
            ///< never leaves a half-written file under its name, only (after a power loss) maybe none.
};

/// Writes `data` to `path` atomically. Throws RuntimeError (or InputError when the folder does not
/// exist) with the path in the message; on any failure the old file is untouched and no temporary
/// file is left behind.
void writeFileAtomically(const std::filesystem::path& path, std::string_view data,
                         Durability durability = Durability::Now);
void writeFileAtomically(const std::filesystem::path& path, const std::vector<std::uint8_t>& data,
                         Durability durability = Durability::Now);

/// Flushes everything written to the file system holding `folder` to disk (syncfs): the end of a
/// batch of Durability::Batch writes. Throws RuntimeError naming the folder when it cannot.
void syncFileSystem(const std::filesystem::path& folder);

/// Reads a whole file; throws InputError naming the path when it cannot.
std::vector<std::uint8_t> readFileBytes(const std::filesystem::path& path);
/// The first `limit` bytes of a file (all of it when shorter). Throws InputError as readFileBytes.
std::vector<std::uint8_t> readFileBytes(const std::filesystem::path& path, std::size_t limit);
std::string readFileText(const std::filesystem::path& path);

}  // namespace auglab
