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
#include <map>
#include <memory>
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
    /// The line as written, without its newline, while only memory holds it (a new entry until
    /// ManifestAppender::append). Once the line is in a manifest file, `place` says where and this
    /// is empty: a run keeps a few hundred bytes per output instead of its replay's KB (manifestLine()).
    std::string line;
    struct Place {
        std::shared_ptr<const std::filesystem::path> file;  ///< null: the line is in `line`
        std::uint64_t offset = 0;
        std::uint64_t length = 0;
    } place;
};

/// The entry's line: `line`, or read back from its manifest file. ManifestLines reads many.
std::string manifestLine(const ManifestEntry& entry);

/// Reads entries' lines back from their manifest files, keeping each file open: a rewrite of a
/// manifest of a million lines opens it once.
class ManifestLines {
public:
    ManifestLines() = default;
    ~ManifestLines();
    ManifestLines(const ManifestLines&) = delete;
    ManifestLines& operator=(const ManifestLines&) = delete;
    std::string get(const ManifestEntry& entry);  ///< throws RuntimeError when the file cannot be read

private:
    std::map<std::filesystem::path, int> open_;
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

/// Reads a manifest, line by line (the entries keep where their lines are, not the lines).
/// Throws InputError when the file is not an augment manifest or is of a newer
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

/// Replaces the manifest atomically with the header and `entries`, sorted by input then copy,
/// written as they are read (never the whole file in memory; an entry's line may be in the file
/// being replaced). Returns the entries in that order, their places in the new file.
std::vector<ManifestEntry> writeManifest(const std::filesystem::path& path, const nlohmann::ordered_json& header,
                                         std::vector<ManifestEntry> entries);

/// Appends lines to a manifest; each line goes out in one write() on an O_APPEND descriptor, so a
/// crash can at most cut the last line, which readManifest() then ignores.
class ManifestAppender {
public:
    explicit ManifestAppender(const std::filesystem::path& path);
    ~ManifestAppender();
    ManifestAppender(const ManifestAppender&) = delete;
    ManifestAppender& operator=(const ManifestAppender&) = delete;

    /// Appends the entry's line; the entry then keeps only its place in the file. Throws
    /// RuntimeError when the write fails (the entry keeps its line).
    void append(ManifestEntry& entry);
    void close();

private:
    std::shared_ptr<const std::filesystem::path> path_;
    int fd_ = -1;
    std::uint64_t size_ = 0;  ///< where the next line goes
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
