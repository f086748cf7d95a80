#include "augment_shard.h"

#include <charconv>
#include <map>
#include <ostream>
#include <set>
#include <system_error>

#include "annotations.h"
#include "args.h"
#include "augment_inputs.h"
#include "augment_manifest.h"
#include "dataset_augmenter.h"
#include "error.h"
#include "utf8_paths.h"

namespace auglab::cli {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

// A whole decimal number of digits only: no sign, no space, no "0x".
std::optional<long long> digits(std::string_view s) {
    long long v = 0;
    if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string_view::npos)
        return std::nullopt;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

// "a, b, c and 7 more": error messages name what is wrong without listing a thousand shards.
std::string listed(const std::vector<std::string>& items, std::size_t most = 8,
                   const char* separator = ", ") {
    std::string out;
    for (std::size_t i = 0; i < items.size() && i < most; ++i) out += (i ? separator : "") + items[i];
    if (items.size() > most) out += " and " + std::to_string(items.size() - most) + " more";
    return out;
}

struct ShardManifest {
    Shard shard;
    fs::path path;
    Manifest manifest;
};

// Every shard manifest in the folder, checked to be the N shards of one split, each once.
std::vector<ShardManifest> findShards(const fs::path& folder) {
    std::map<int, std::map<int, fs::path>> bySplit;  // count -> index -> file
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
        if (const std::optional<Shard> s = shardOfManifestName(it->path().filename().string()))
            bySplit[s->count][s->index] = it->path();
    if (ec) throw InputError("cannot list '" + shown(folder) + "': " + ec.message());
    if (bySplit.empty())
        throw InputError("'" + shown(folder) +
                         "' has no shard manifests (auglab-manifest.shard-K-of-N.jsonl): run " +
                         "`auglab-cli augment --shard K/N --output " + shown(folder) + "` for every K first");
    if (bySplit.size() > 1) {
        std::vector<std::string> splits;
        for (const auto& [count, files] : bySplit)
            splits.push_back(std::to_string(files.size()) + " of " + std::to_string(count) + " shards");
        throw InputError("'" + shown(folder) + "' holds the manifests of runs split different ways (" +
                         listed(splits) +
                         "): a run is split one way; remove the manifests of the split you gave up");
    }
    const auto& [count, files] = *bySplit.begin();
    std::vector<std::string> missing;
    for (int k = 0; k < count; ++k)
        if (!files.count(k)) missing.push_back(Shard{k, count}.text());
    if (!missing.empty())
        throw InputError(
            (missing.size() == 1 ? "shard " + missing.front() + " has"
                                 : std::to_string(missing.size()) + " of the " + std::to_string(count) +
                                       " shards (" + listed(missing) + ") have") +
            " no manifest in '" + shown(folder) +
            "': run them into this folder (or copy their manifests and outputs here), then merge");
    std::vector<ShardManifest> out;
    for (const auto& [index, path] : files) out.push_back({Shard{index, count}, path, readManifest(path)});
    return out;
}

// The shard a manifest's header says it is, or nothing.
std::optional<Shard> headerShard(const Json& header) {
    if (!header.contains("shard") || !header["shard"].is_object()) return std::nullopt;
    const Json& s = header["shard"];
    if (!s.contains("index") || !s.contains("count") || !s["index"].is_number_integer() ||
        !s["count"].is_number_integer())
        return std::nullopt;
    return Shard{s["index"].get<int>(), s["count"].get<int>()};
}

// Throws unless every shard is whole, of the first one's run, and lists only its own inputs, each
// output once and on disk as recorded.
void checkShards(const fs::path& folder, const std::vector<ShardManifest>& shards) {
    const Json& first = shards.front().manifest.header;
    std::set<std::string> outputs;
    std::vector<std::string> lost;
    for (const ShardManifest& s : shards) {
        const std::string name = "shard " + s.shard.text() + " (" + shown(s.path.filename()) + ")";
        const std::optional<Shard> said = headerShard(s.manifest.header);
        if (!said || said->index != s.shard.index || said->count != s.shard.count)
            throw InputError(name + ": its header says " +
                             (said ? "shard " + said->text() : std::string("it is no shard")) +
                             "; a manifest keeps the name its shard gave it");
        const std::vector<std::string> differences =
            headerDifferences(first, s.manifest.header, "in shard " + shards.front().shard.text(),
                              "in shard " + s.shard.text());
        if (!differences.empty()) {
            const std::string what = listed(differences, differences.size(), "; ");
            throw InputError(
                "the shards were not run with the same arguments (" + what +
                "): their outputs are not one run's; rerun the odd ones with the others' arguments "
                "(--overwrite) or merge into another folder");
        }
        if (!s.manifest.header["shard"].value("complete", false))
            throw InputError(name +
                             " did not finish (it was interrupted or stopped by an error): run it again, "
                             "it resumes, then merge");
        if (s.manifest.skippedLines > 0)
            throw InputError(name + " has " + std::to_string(s.manifest.skippedLines) +
                             " unreadable line(s) although it finished: it was edited since; run it again "
                             "to rewrite it, then merge");
        for (const ManifestEntry& e : s.manifest.entries) {
            const int owner = shardOf(e.input, s.shard.count);
            if (owner != s.shard.index)
                throw InputError(name + " lists '" + e.input + "', an input of shard " +
                                 Shard{owner, s.shard.count}.text() +
                                 ": the manifests were edited or renamed");
            if (!e.ok) continue;
            if (!outputs.insert(e.output).second)
                throw InputError("'" + e.output + "' is listed twice, the second time by " + name);
            std::error_code ec;
            const std::uintmax_t size = fs::file_size(folder / fromUtf8(e.output), ec);
            const bool labelled = e.labels.empty() || fs::exists(folder / fromUtf8(e.labels), ec);
            if (ec || size != e.bytes || !labelled)
                lost.push_back(e.output + " (shard " + s.shard.text() + ")");
        }
    }
    if (!lost.empty())
        throw InputError(std::to_string(lost.size()) +
                         " output(s) the shards list are missing or changed in '" + shown(folder) + "' (" +
                         listed(lost, 5) +
                         ", or their label files): run those shards again, they redo them, then merge");
}

}  // namespace

Shard parseShard(const std::string& value) {
    const std::size_t slash = value.find('/');
    const std::optional<long long> k =
        slash == std::string::npos ? std::nullopt : digits(value.substr(0, slash));
    const std::optional<long long> n =
        slash == std::string::npos ? std::nullopt : digits(value.substr(slash + 1));
    if (!k || !n)
        throw UsageError{"--shard: expected K/N, shard K (counted from 0) of N, such as 0/4, got '" + value +
                         "'"};
    if (*n < 1 || *n > kMaxShards)
        throw UsageError{"--shard " + value + ": N must be 1.." + std::to_string(kMaxShards)};
    if (*k >= *n)
        throw UsageError{"--shard " + value + ": K must be 0.." + std::to_string(*n - 1) +
                         ", counted from 0 (as $SLURM_ARRAY_TASK_ID with --array=0-" +
                         std::to_string(*n - 1) + " and $JOB_COMPLETION_INDEX are): the shards of " +
                         std::to_string(*n) + " are 0/" + std::to_string(*n) + " to " +
                         std::to_string(*n - 1) + "/" + std::to_string(*n)};
    return Shard{static_cast<int>(*k), static_cast<int>(*n)};
}

int shardOf(std::string_view relativePath, int count) {
    // The copy is in the low 16 bits; the 37 above are the file's. FNV-1a's high bits are its well
    // mixed ones, so the remainder spreads files evenly over the shards.
    return static_cast<int>((augmentSampleIndex(relativePath, 0) >> 16) % static_cast<std::uint64_t>(count));
}

std::string shardManifestName(const Shard& shard) {
    return "auglab-manifest.shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count) +
           ".jsonl";
}

std::optional<Shard> shardOfManifestName(const std::string& fileName) {
    const std::string prefix = "auglab-manifest.shard-", suffix = ".jsonl";
    if (fileName.rfind(prefix, 0) != 0 || !fileName.ends_with(suffix)) return std::nullopt;
    const std::string middle =
        fileName.substr(prefix.size(), fileName.size() - prefix.size() - suffix.size());
    const std::size_t of = middle.find("-of-");
    if (of == std::string::npos) return std::nullopt;
    const std::optional<long long> k = digits(middle.substr(0, of)), n = digits(middle.substr(of + 4));
    if (!k || !n || *n < 1 || *n > kMaxShards || *k >= *n) return std::nullopt;
    const Shard s{static_cast<int>(*k), static_cast<int>(*n)};
    if (shardManifestName(s) != fileName) return std::nullopt;  // "01-of-4": not a name augment writes
    return s;
}

std::string shardLockName(const Shard& shard) {
    return ".auglab-manifest.shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count) +
           ".lock";
}

MergeSummary mergeShardManifests(const fs::path& folderArg, std::ostream* messages) {
    std::error_code ec;
    const fs::path folder = fs::canonical(folderArg, ec);
    if (ec || !fs::is_directory(folder, ec))
        throw InputError("--merge-manifests '" + shown(folderArg) + "' " +
                         (fs::exists(folderArg, ec) ? "is not a folder" : "does not exist"));
    // Alone in the folder: no shard is writing it (and none starts) while it is read and merged.
    const OutputFolderLock lock(folder);
    const std::vector<ShardManifest> shards = findShards(folder);
    checkShards(folder, shards);

    Json header = shards.front().manifest.header;
    header.erase("shard");  // what is left is a single run's header, byte for byte
    MergeSummary summary;
    summary.shards = static_cast<int>(shards.size());
    summary.manifest = folder / kManifestName;
    if (fs::exists(summary.manifest, ec)) {
        // A previous merge, or a single run's manifest of the same run, is replaced; another run's is not.
        const std::vector<std::string> differences =
            headerDifferences(readManifest(summary.manifest).header, header, "there", "in the shards");
        if (!differences.empty()) {
            const std::string what = listed(differences, differences.size(), "; ");
            throw InputError("'" + shown(summary.manifest) +
                             "' is the manifest of a run with other arguments (" + what +
                             "): the merge would replace it; move it away, or merge in another folder");
        }
    }
    if (const std::string why = outputPathProblem(folder, kManifestName); !why.empty()) throw InputError(why);
    std::vector<ManifestEntry> entries;
    for (const ShardManifest& s : shards)
        for (const ManifestEntry& e : s.manifest.entries) {
            (e.ok ? summary.outputs : summary.failedInputs) += 1;
            entries.push_back(e);
        }

    // A COCO dataset's file lists every output: the shards leave it to the merge, which needs the
    // input's COCO file for the categories and for which file each image belongs to.
    if (header.value("labels", Json()) == "coco") {
        const fs::path input = fromUtf8(header.value("input", std::string()));
        LabelReport report;
        const std::optional<LabelledDataset> labels =
            fs::is_directory(input, ec) ? detectLabels(input, report) : std::nullopt;
        if (!labels || labels->format() != LabelFormat::Coco)
            throw InputError(
                "the shards' outputs are labelled in COCO, and their COCO file is rebuilt from the "
                "input folder's: '" +
                shown(input) + "' " +
                (labels ? "is no COCO dataset now" : "is not there (or not a COCO dataset) here") +
                "; merge where the input folder is");
        summary.labelFiles = writeCocoFiles(*labels, input, folder, entries);
    }
    writeManifest(summary.manifest, header, std::move(entries));
    // No shard runs now (the folder is locked): their lock files go.
    for (const ShardManifest& s : shards) fs::remove(folder / shardLockName(s.shard), ec);
    if (messages && summary.failedInputs > 0)
        *messages << "note: " << summary.failedInputs << " input(s) failed in the shards; they are listed in "
                  << shown(summary.manifest) << "\n";
    return summary;
}

}  // namespace auglab::cli
