#pragma once
// Sharded `auglab-cli augment`: N workers (a Slurm array, a Kubernetes indexed Job) each process one
// of N disjoint parts of an input folder, `--shard K/N`, into one output folder (or folders copied
// together afterwards), and `--merge-manifests` joins their manifests into the one a single run
// writes. A file's shard comes from the same hash that fixes its sample index, so it depends on the
// file's path alone: not on the listing order, not on which other files exist.

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace auglab::cli {

/// The most shards a run may be split into (a Kubernetes indexed Job's limit of completions).
inline constexpr int kMaxShards = 100000;

/// Shard `index` of `count`. The index is 0-based, as Slurm's $SLURM_ARRAY_TASK_ID (with
/// --array=0-(N-1)) and Kubernetes' $JOB_COMPLETION_INDEX are.
struct Shard {
    int index = 0;
    int count = 1;
    std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

/// Parses the value of --shard, "K/N" with decimal digits only, 0 <= K < N <= kMaxShards. Throws
/// UsageError saying what is wrong with it.
Shard parseShard(const std::string& value);

/// The shard (0..count-1) of the input at `relativePath` (as augmentSampleIndex takes it): the 37
/// bits of its sample index that identify the file, modulo `count`.
int shardOf(std::string_view relativePath, int count);

/// "auglab-manifest.shard-K-of-N.jsonl": each shard's manifest has its own name, so shards that
/// share an output folder never write one another's.
std::string shardManifestName(const Shard& shard);
/// The shard a manifest's file name is for; nothing when the name is not a shard manifest's.
std::optional<Shard> shardOfManifestName(const std::string& fileName);
/// ".auglab-manifest.shard-K-of-N.lock": the file a running shard holds locked (augment_manifest.h).
std::string shardLockName(const Shard& shard);

/// What --merge-manifests did.
struct MergeSummary {
    int shards = 0;
    std::size_t outputs = 0;       ///< outputs listed in the merged manifest
    std::size_t failedInputs = 0;  ///< inputs listed as failed
    std::filesystem::path manifest;
    std::vector<std::filesystem::path> labelFiles;  ///< the COCO files rebuilt, for a COCO dataset
};

/// Joins the shard manifests in `folder` into its auglab-manifest.jsonl, the manifest a single run
/// with the same arguments writes, byte for byte (one backend assumed: each line names the backend
/// that rendered it), and for a COCO dataset writes the COCO file(s) listing every output (read from
/// the input folder, which must still be there). Throws InputError, before writing anything, unless
/// the shards are all there (0..N-1 of one N), finished, run with the same arguments, each listing
/// only inputs of its own shard, and every output and label file they list is on disk with its
/// recorded size; or when the folder's auglab-manifest.jsonl is another run's. The shard manifests
/// are kept (a shard can still be rerun); the lock files of the shards are removed.
MergeSummary mergeShardManifests(const std::filesystem::path& folder, std::ostream* messages);

}  // namespace auglab::cli
