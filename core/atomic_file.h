#pragma once
// Atomic file replacement: write a temporary file beside the target, flush it to disk, rename.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
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

/// A file written piece by piece and put in place atomically by commit(), for contents too large to
/// hold in memory at once (a manifest of a million outputs). Until commit() only a hidden temporary
/// file beside the target exists; a writer destroyed without commit() (an exception) removes it and
/// leaves the old file untouched. Errors are writeFileAtomically's.
class AtomicFileWriter {
public:
    explicit AtomicFileWriter(const std::filesystem::path& path);
    ~AtomicFileWriter();
    AtomicFileWriter(const AtomicFileWriter&) = delete;
    AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

    void write(std::string_view data);
    void commit(Durability durability = Durability::Now);

private:
    struct State;
    std::unique_ptr<State> s_;
};

/// Files that appear together or not at all: an image with its labels, mask and replay. Each is
/// written to a temporary file beside its target first; only when all of them are written does
/// commit() rename them into place, and a rename that still fails puts back the files it replaced.
/// So a failure (a full disk, a folder without write permission, a name too long) leaves every
/// target as it was, with no temporary file.
class AtomicFileSet {
public:
    AtomicFileSet();
    ~AtomicFileSet();
    AtomicFileSet(const AtomicFileSet&) = delete;
    AtomicFileSet& operator=(const AtomicFileSet&) = delete;

    /// Adds a file (written at commit(); a path given twice is refused with InputError).
    void add(const std::filesystem::path& path, std::string data);
    void add(const std::filesystem::path& path, const std::vector<std::uint8_t>& data);
    void commit(Durability durability = Durability::Now);

private:
    struct Entry {
        std::filesystem::path path;
        std::string data;
    };
    std::vector<Entry> files_;
};

/// Flushes everything written to the file system holding `folder` to disk (syncfs): the end of a
/// batch of Durability::Batch writes. Throws RuntimeError naming the folder when it cannot.
void syncFileSystem(const std::filesystem::path& folder);

/// Reads a whole file; throws InputError naming the path when it cannot.
std::vector<std::uint8_t> readFileBytes(const std::filesystem::path& path);
/// The first `limit` bytes of a file (all of it when shorter). Throws InputError as readFileBytes.
std::vector<std::uint8_t> readFileBytes(const std::filesystem::path& path, std::size_t limit);
std::string readFileText(const std::filesystem::path& path);

}  // namespace auglab
