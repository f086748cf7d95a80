#pragma once
// The manifest of `auglab-cli augment`: `auglab-manifest.jsonl` in the output folder, one JSON
// object per line. Line 1 says what the run was (format, version, input folder, preset, seed,
// copies, image format); every other line is one output written (with its full replay) or one
// input that failed. Lines are appended as outputs finish, so an interrupted run keeps what it
// did; at the start and end of every run the file is rewritten atomically, sorted and deduplicated.
// A shard of a run (augment_shard.h) keeps a manifest of its own beside the other shards' and has
// "shard": {"index", "count", "complete"} at the end of its header.
// Also here: what a run checks and locks in its output folder before writing anything.

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace auglab::cli {

inline constexpr const char* kManifestName = "auglab-manifest.jsonl";
inline constexpr const char* kManifestFormat = "auglab-augment-manifest";
inline constexpr int kManifestVersion = 1;

/// One line after the header. Paths are relative to the header's input folder and to the folder
/// holding the manifest, UTF-8, with '/' separators.
struct ManifestEntry {
    bool ok = false;          ///< "status": "ok" (an output) or "failed" (an input)
    std::string input;        ///< relative input path
    std::string output;       ///< relative output path ("" for a failed input)
    int copy = -1;            ///< copy number k (-1 for a failed input)
    std::uint64_t index = 0;  ///< sample index
    std::uint64_t seed = 0;
    std::uint64_t bytes = 0;  ///< size of the output file
    std::string labels;       ///< relative path of the output's label file ("" when none, or COCO)
    std::string line;         ///< the line as written, without its newline
};

/// An output line: every field above plus the backend that rendered it and the replay, and, for a
/// labelled dataset, "labels": {"file": its label file} or {"coco": a COCO document of the output
/// alone}, with "summary", what survived.
ManifestEntry outputEntry(const std::string& input, const std::string& output, int copy, std::uint64_t seed,
                          std::uint64_t index, std::uint64_t bytes, const std::string& backend,
                          const nlohmann::ordered_json& replay,
                          const nlohmann::ordered_json& labels = nullptr);
ManifestEntry failedEntry(const std::string& input, const std::string& error);

struct Manifest {
    nlohmann::ordered_json header;
    std::vector<ManifestEntry> entries;  ///< in file order
    int skippedLines = 0;                ///< unreadable lines (a line cut by a crash), ignored
};

/// Reads a manifest. Throws InputError when the file is not an augment manifest or is of a newer
/// version; a line that cannot be read is counted in skippedLines and otherwise ignored.
Manifest readManifest(const std::filesystem::path& path);

/// What differs between a manifest header and the header of the run asked for now, in the user's
/// words ("seed 5 there, 6 now", or with other names for the two sides); empty when the runs are
/// the same. Only the fields that decide the outputs count (not the tool version, the backend or the
/// shard).
std::vector<std::string> headerDifferences(const nlohmann::ordered_json& existing,
                                           const nlohmann::ordered_json& wanted,
                                           const std::string& there = "there",
                                           const std::string& now = "now");

/// Replaces the manifest atomically with the header and `entries`, sorted by input then copy.
void writeManifest(const std::filesystem::path& path, const nlohmann::ordered_json& header,
                   std::vector<ManifestEntry> entries);

/// Appends lines to a manifest; each line goes out in one write() on an O_APPEND descriptor, so a
/// crash can at most cut the last line, which readManifest() then ignores.
class ManifestAppender {
public:
    explicit ManifestAppender(const std::filesystem::path& path);
    ~ManifestAppender();
    ManifestAppender(const ManifestAppender&) = delete;
    ManifestAppender& operator=(const ManifestAppender&) = delete;

    void append(const ManifestEntry& entry);  ///< throws RuntimeError when the write fails
    void close();

private:
    std::filesystem::path path_;
    int fd_ = -1;
};

/// A lock (flock) on the output folder for a whole run: a second augment into the same folder is
/// refused (InputError) instead of interleaving two runs' outputs and manifest lines. The kernel
/// drops it when the process dies, so a killed run leaves no stale lock; on a file system without
/// flock the run goes on unlocked.
class OutputFolderLock {
public:
    /// The folder alone, for a run over every input or a merge of shard manifests.
    explicit OutputFolderLock(const std::filesystem::path& folder);
    /// One shard's part: the folder shared with the other shards (never with a whole run or a merge)
    /// and the shard's own lock file `lockName` in it (created if missing) alone, so that the same
    /// shard never runs twice at once.
    OutputFolderLock(const std::filesystem::path& folder, const std::string& lockName,
                     const std::string& shardText);
    ~OutputFolderLock();
    OutputFolderLock(const OutputFolderLock&) = delete;
    OutputFolderLock& operator=(const OutputFolderLock&) = delete;

private:
    int fd_ = -1, shardFd_ = -1;
};

/// Which files of the output folder a run owns. A run over every input owns the folder; a shard
/// shares it with the other shards of its run, which may be writing there at the same time.
struct RunFiles {
    std::string manifest = kManifestName;  ///< its manifest's name in the folder
    bool shard = false;
    /// A shard's outputs and label files (relative, UTF-8, '/'): the only files whose temporaries,
    /// left by a killed run, it removes (its manifest's too). Unused for a whole run: it removes all.
    std::set<std::string> owned;
};

/// Makes the manifest `files.manifest` in `folder` ready for the run that `header` describes and
/// returns the outputs already done (listed, and on disk with their recorded size); removes the
/// temporary files a killed run left (a shard: of its own files only). Throws InputError when the
/// manifest is of a run with other arguments, or there is none and the folder is not empty, unless
/// `overwrite`: then the outputs the old manifest lists (and nothing else) are deleted and a new
/// manifest is started. A shard may also start in a folder that holds other shards' manifests (or
/// a merged one) of a run with the same arguments, and is refused where they have other ones. Notes
/// go to `messages` (may be null).
std::vector<ManifestEntry> prepareOutputFolder(const std::filesystem::path& folder,
                                               const nlohmann::ordered_json& header, bool overwrite,
                                               std::ostream* messages, const RunFiles& files = {});

}  // namespace auglab::cli
