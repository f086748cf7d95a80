#include "augment_manifest.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <system_error>
#include <tuple>

#include "atomic_file.h"
#include "augment_inputs.h"
#include "error.h"
#include "utf8_paths.h"

namespace auglab::cli {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

void say(std::ostream* messages, const std::string& line) {
    if (messages) *messages << line << "\n" << std::flush;
}

// A manifest names files inside its folder; anything else (a hand-edited "../x") is not touched.
bool insideFolder(const std::string& relative) {
    const fs::path p = fromUtf8(relative);
    if (relative.empty() || p.is_absolute()) return false;
    for (const fs::path& part : p)
        if (part == "..") return false;
    return true;
}

// Where a file of `folder` lies in it: UTF-8, '/' separators.
std::string relativeTo(const fs::path& p, const fs::path& folder) {
    const std::u8string s = p.lexically_relative(folder).generic_u8string();
    return std::string(s.begin(), s.end());
}

// Temporary files of writes cut short by a kill -9 or a power cut (atomic_file.cpp names them
// ".<name>.auglab-tmp-<pid>-<n>", the name cut at 180 bytes). The folder lock says no other run is
// writing them now; a shard's lock says that only of the shard's own files, so it removes only the
// temporaries of those: the other shards in the folder may be writing theirs at this moment.
void removeStaleTemporaries(const fs::path& folder, const RunFiles& files) {
    constexpr std::size_t kNameCut = 180;
    const auto key = [&](const std::string& relative) {
        const std::size_t slash = relative.rfind('/');
        const std::size_t name = slash == std::string::npos ? 0 : slash + 1;
        return relative.substr(0, name) + relative.substr(name, kNameCut);
    };
    std::set<std::string> owned;
    if (files.shard) {
        for (const std::string& f : files.owned) owned.insert(key(f));
        owned.insert(key(files.manifest));
    }
    std::error_code ec;
    std::vector<fs::path> stale;
    for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const std::size_t tmp = name.rfind(".auglab-tmp-");
        if (name.size() < 2 || name[0] != '.' || tmp == std::string::npos || tmp < 1) continue;
        if (files.shard) {
            const std::string parent = relativeTo(it->path().parent_path(), folder);
            const std::string target = name.substr(1, tmp - 1);
            if (!owned.count(parent == "." ? target : parent + "/" + target)) continue;
        }
        stale.push_back(it->path());
    }
    for (const fs::path& p : stale) fs::remove(p, ec);
}

// The other manifests in a shard's folder: the other shards' and a merged one, by file name.
std::vector<fs::path> siblingManifests(const fs::path& folder, const std::string& own) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name != own && name.rfind("auglab-manifest", 0) == 0 && name.ends_with(".jsonl"))
            out.push_back(it->path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// True when the folder holds only manifests and the hidden files of shards (their lock files, the
// temporaries of their first manifests): what shards starting together leave before any output.
bool onlyManifests(const fs::path& folder) {
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const bool manifest = name.rfind("auglab-manifest", 0) == 0 && name.ends_with(".jsonl");
        if (!manifest && name.rfind(".auglab-manifest", 0) != 0) return false;
    }
    return !ec;
}

std::string joined(const std::vector<std::string>& parts) {
    std::string what;
    for (const std::string& d : parts) what += (what.empty() ? "" : "; ") + d;
    return what;
}

// One line of JSON. Output paths are UTF-8 (inputs with other names fail when listed); the name of
// such an input, or a folder name, that is not UTF-8 is written with U+FFFD where bytes are invalid.
std::string oneLine(const Json& j) {
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::optional<ManifestEntry> entryFromLine(const std::string& line) {
    const Json j = Json::parse(line);  // throws on a cut line
    if (!j.is_object() || !j.contains("status") || !j.contains("input")) return std::nullopt;
    ManifestEntry e;
    e.ok = j.at("status") == "ok";
    e.input = j.at("input").get<std::string>();
    if (e.ok) {
        e.output = j.at("output").get<std::string>();
        e.copy = j.at("copy").get<int>();
        e.index = j.at("index").get<std::uint64_t>();
        e.seed = j.at("seed").get<std::uint64_t>();
        e.bytes = j.at("bytes").get<std::uint64_t>();
        if (j.contains("labels") && j["labels"].is_object() && j["labels"].contains("file"))
            e.labels = j["labels"]["file"].get<std::string>();
    } else if (j.at("status") != "failed") {
        return std::nullopt;
    }
    return e;
}

}  // namespace

ManifestEntry outputEntry(const std::string& input, const std::string& output, int copy, std::uint64_t seed,
                          std::uint64_t index, std::uint64_t bytes, const std::string& backend,
                          const Json& replay, const Json& labels) {
    Json j;
    j["status"] = "ok";
    j["input"] = input;
    j["output"] = output;
    j["copy"] = copy;
    j["seed"] = seed;
    j["index"] = index;
    j["bytes"] = bytes;
    j["backend"] = backend;
    j["replay"] = replay;
    std::string labelFile;
    if (!labels.is_null()) {
        j["labels"] = labels;
        if (labels.contains("file")) labelFile = labels["file"].get<std::string>();
    }
    return {true, input, output, copy, index, seed, bytes, labelFile, oneLine(j), {}};
}

ManifestEntry failedEntry(const std::string& input, const std::string& error) {
    Json j;
    j["status"] = "failed";
    j["input"] = input;
    j["error"] = error;
    ManifestEntry e;
    e.input = input;
    e.line = oneLine(j);
    return e;
}

Manifest readManifest(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("cannot read '" + shown(path) + "': " + std::generic_category().message(errno));
    const auto file = std::make_shared<const fs::path>(path);
    Manifest m;
    bool first = true;
    std::uint64_t offset = 0;
    for (std::string line; std::getline(in, line); offset += line.size() + 1) {
        if (line.empty()) continue;
        if (first) {
            first = false;
            Json header;
            try {
                header = Json::parse(line);
            } catch (const nlohmann::json::exception&) {
            }
            if (!header.is_object() || header.value("format", "") != kManifestFormat)
                throw InputError("'" + shown(path) + "' is not an AugLab augment manifest");
            if (header.value("version", 0) > kManifestVersion)
                throw InputError("'" + shown(path) + "' was written by a newer AugLab (manifest version " +
                                 std::to_string(header.value("version", 0)) + ")");
            m.header = std::move(header);
            continue;
        }
        try {
            if (auto e = entryFromLine(line)) {
                e->place = {file, offset, line.size()};
                m.entries.push_back(std::move(*e));
            } else {
                ++m.skippedLines;
            }
        } catch (const nlohmann::json::exception&) {
            ++m.skippedLines;  // a line cut by a crash or a kill: its output is simply done again
        }
    }
    if (in.bad()) throw InputError("cannot read '" + shown(path) + "'");
    if (first) throw InputError("'" + shown(path) + "' is empty, not an AugLab augment manifest");
    return m;
}

ManifestLines::~ManifestLines() {
    for (const auto& [path, fd] : open_) ::close(fd);
}

std::string ManifestLines::get(const ManifestEntry& e) {
    if (!e.place.file) return e.line;
    auto it = open_.find(*e.place.file);
    if (it == open_.end()) {
        const int fd = ::open(e.place.file->c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            throw RuntimeError("cannot read '" + shown(*e.place.file) + "': " + std::generic_category().message(errno));
        it = open_.emplace(*e.place.file, fd).first;
    }
    std::string line(e.place.length, '\0');
    std::size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = ::pread(it->second, line.data() + done, line.size() - done,
                                  static_cast<off_t>(e.place.offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw RuntimeError("cannot read '" + shown(*e.place.file) + "': " +
                               (n < 0 ? std::generic_category().message(errno) : std::string("it got shorter")));
        done += static_cast<std::size_t>(n);
    }
    return line;
}

std::string manifestLine(const ManifestEntry& entry) {
    ManifestLines lines;
    return lines.get(entry);
}

std::vector<std::string> headerDifferences(const Json& existing, const Json& wanted, const std::string& there,
                                           const std::string& now) {
    std::vector<std::string> out;
    const auto scalar = [&](const char* key, const char* label) {
        const Json a = existing.contains(key) ? existing[key] : Json();
        const Json b = wanted.contains(key) ? wanted[key] : Json();
        if (a != b) {
            const auto show = [](const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
            out.push_back(std::string(label) + " " + show(a) + " " + there + ", " + show(b) + " " + now);
        }
    };
    scalar("input", "input folder");
    const auto pipeline = [](const Json& h) {
        return h.contains("preset") && h["preset"].contains("pipeline") ? h["preset"]["pipeline"] : Json();
    };
    if (pipeline(existing) != pipeline(wanted)) out.push_back("a different preset pipeline");
    const auto targets = [](const Json& h) {
        return h.contains("preset") && h["preset"].contains("targets") ? h["preset"]["targets"] : Json();
    };
    if (targets(existing) != targets(wanted)) out.push_back("a different targets section");
    scalar("labels", "labels");
    scalar("seed", "seed");
    scalar("copies", "copies");
    scalar("image_format", "format");
    scalar("jpeg_quality", "quality");
    scalar("sample_index", "sample index rule");
    return out;
}

std::vector<ManifestEntry> writeManifest(const fs::path& path, const Json& header,
                                         std::vector<ManifestEntry> entries) {
    std::stable_sort(entries.begin(), entries.end(), [](const ManifestEntry& a, const ManifestEntry& b) {
        return std::tie(a.input, a.copy) < std::tie(b.input, b.copy);
    });
    // Lines are read (from this very file, perhaps: the old one stays readable until the rename)
    // and written one at a time, in chunks.
    ManifestLines lines;
    AtomicFileWriter out(path);
    const auto file = std::make_shared<const fs::path>(path);
    std::string chunk = oneLine(header) + "\n";
    std::uint64_t offset = chunk.size();
    for (ManifestEntry& e : entries) {
        const std::string line = lines.get(e);
        chunk += line;
        chunk += '\n';
        std::string().swap(e.line);
        e.place = {file, offset, line.size()};
        offset += line.size() + 1;
        if (chunk.size() >= (std::size_t{1} << 20)) {
            out.write(chunk);
            chunk.clear();
        }
    }
    out.write(chunk);
    out.commit();
    return entries;
}

ManifestAppender::ManifestAppender(const fs::path& path) : path_(std::make_shared<const fs::path>(path)) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd_ < 0)
        throw RuntimeError("cannot open '" + shown(path) + "': " + std::generic_category().message(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        const int error = errno;
        ::close(fd_);
        throw RuntimeError("cannot open '" + shown(path) + "': " + std::generic_category().message(error));
    }
    size_ = static_cast<std::uint64_t>(st.st_size);
}

ManifestAppender::~ManifestAppender() {
    close();
}

void ManifestAppender::append(ManifestEntry& entry) {
    if (entry.place.file) entry.line = manifestLine(entry);  // a line of another file: copied here
    const std::string text = entry.line + "\n";
    // One write() per line; a short write (disk full) is an error, not something to finish later.
    ssize_t n;
    do {
        n = ::write(fd_, text.data(), text.size());
    } while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(text.size()))
        throw RuntimeError("cannot append to '" + shown(*path_) + "': " +
                           (n < 0 ? std::generic_category().message(errno) : std::string("short write")));
    entry.place = {path_, size_, entry.line.size()};
    size_ += text.size();
    std::string().swap(entry.line);  // the file holds it now (assigning "" would keep the buffer)
}

void ManifestAppender::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

OutputFolderLock::OutputFolderLock(const fs::path& folder) {
    fd_ = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0)
        throw RuntimeError("cannot open '" + shown(folder) + "': " + std::generic_category().message(errno));
    // A file system without flock (some network mounts) runs without the lock: it is a guard
    // against a mistake, not something the run depends on.
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        ::close(fd_);
        throw InputError(
            "another auglab-cli augment (a run, shards of one, or a --merge-manifests) is writing to '" +
            shown(folder) + "' now");
    }
}

OutputFolderLock::OutputFolderLock(const fs::path& folder, const std::string& lockName,
                                   const std::string& shardText) {
    fd_ = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0)
        throw RuntimeError("cannot open '" + shown(folder) + "': " + std::generic_category().message(errno));
    if (::flock(fd_, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        ::close(fd_);
        throw InputError("a run over every input, or a --merge-manifests, is writing to '" + shown(folder) +
                         "' now: shards share a folder only with the other shards of their run");
    }
    // The folder lock is shared among shards, so each also locks a file of its own. Taken after the
    // folder's: a merge, holding the folder alone, may remove these files.
    const fs::path lockPath = folder / lockName;
    shardFd_ = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (shardFd_ < 0) {
        const int error = errno;
        ::close(fd_);
        throw RuntimeError("cannot create '" + shown(lockPath) +
                           "': " + std::generic_category().message(error));
    }
    if (::flock(shardFd_, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        ::close(shardFd_);
        ::close(fd_);
        throw InputError("shard " + shardText + " is already running into '" + shown(folder) + "'");
    }
}

OutputFolderLock::~OutputFolderLock() {
    if (shardFd_ >= 0) ::close(shardFd_);
    ::close(fd_);
}

std::vector<ManifestEntry> prepareOutputFolder(const fs::path& folder, const Json& header, bool overwrite,
                                               std::ostream* messages, const RunFiles& files) {
    const fs::path manifestPath = folder / files.manifest;
    if (const std::string why = outputPathProblem(folder, files.manifest); !why.empty()) throw InputError(why);
    removeStaleTemporaries(folder, files);  // first: a run killed while writing its first manifest left one
    std::error_code ec;
    std::vector<ManifestEntry> kept;
    // Compared as it reads back from a file (the same text, whatever bytes the paths hold).
    const Json wanted = Json::parse(oneLine(header));
    if (fs::exists(manifestPath, ec)) {
        Manifest m = readManifest(manifestPath);
        const std::vector<std::string> differences = headerDifferences(m.header, wanted);
        if (!differences.empty() && !overwrite)
            throw InputError(
                "'" + shown(folder) + "' holds the outputs of a run with other arguments (" +
                joined(differences) +
                "); augment never mixes two runs: choose another --output folder, or add --overwrite "
                "to delete that run's outputs and start again");
        if (overwrite) {
            std::size_t removed = 0;
            // Only what lies inside the folder: a link in it to elsewhere (images -> /data) is not
            // followed, whatever the manifest lists.
            const auto removable = [&](const std::string& relative) {
                if (!insideFolder(relative)) return false;
                const std::string why = outputPathProblem(folder, relative);
                if (!why.empty()) say(messages, "--overwrite: not removed: " + why);
                return why.empty();
            };
            for (const ManifestEntry& e : m.entries)
                if (e.ok && removable(e.output) && fs::remove(folder / fromUtf8(e.output), ec)) {
                    ++removed;
                    if (!e.labels.empty() && removable(e.labels)) fs::remove(folder / fromUtf8(e.labels), ec);
                }
            say(messages, "--overwrite: removed " + std::to_string(removed) + " outputs of the previous run");
        } else {
            if (m.skippedLines > 0)
                say(messages,
                    "note: " + std::to_string(m.skippedLines) +
                        " unreadable manifest line(s) ignored (a run was killed); their outputs are "
                        "written again");
            std::map<std::string, ManifestEntry> latest;  // an output done twice: the last line counts
            for (ManifestEntry& e : m.entries)
                if (e.ok && insideFolder(e.output)) latest[e.output] = std::move(e);
            for (auto& [output, e] : latest) {
                const std::uintmax_t size = fs::file_size(folder / fromUtf8(output), ec);
                // Labels are written before their image: an image without them was not done.
                const bool labelled = e.labels.empty() ||
                                      (insideFolder(e.labels) && fs::exists(folder / fromUtf8(e.labels), ec));
                if (!ec && size == e.bytes && labelled) kept.push_back(std::move(e));
            }
        }
    } else if (files.shard && !overwrite) {
        // The other shards of the run (or their merged manifest) may be here already, and are
        // writing now perhaps. Their headers must be this run's: shards of two runs never mix.
        // Looked at before the manifests: a shard writes its manifest before anything else, so an
        // output seen here belongs to a manifest listed below or to no run of ours.
        const bool onlyShardFiles = onlyManifests(folder);
        bool sameRun = false;
        for (const fs::path& other : siblingManifests(folder, files.manifest)) {
            const Manifest m = readManifest(other);
            const std::vector<std::string> differences = headerDifferences(m.header, wanted);
            if (!differences.empty())
                throw InputError("'" + shown(folder) + "' holds the outputs of a run with other arguments (" +
                                 shown(other.filename()) + ": " + joined(differences) +
                                 "); shards of two runs never mix: choose another --output folder");
            sameRun = true;
        }
        if (!sameRun && !onlyShardFiles)
            throw InputError("'" + shown(folder) +
                             "' is not empty and has no manifest of this run: augment "
                             "writes only into an empty folder or one it wrote before (add --overwrite to "
                             "write into it anyway)");
    } else if (!overwrite && !fs::is_empty(folder, ec)) {
        const std::vector<fs::path> others = siblingManifests(folder, kManifestName);
        const bool shards = std::any_of(others.begin(), others.end(), [](const fs::path& p) {
            return p.filename().string().rfind("auglab-manifest.shard-", 0) == 0;
        });
        if (shards)
            throw InputError("'" + shown(folder) +
                             "' holds the manifests of a run split into shards and no " + kManifestName +
                             ": join them first with `auglab-cli augment --merge-manifests " + shown(folder) +
                             "`, then this run resumes theirs");
        throw InputError(
            "'" + shown(folder) + "' is not empty and has no " + kManifestName +
            ": augment writes only into an empty folder or one it wrote before (add --overwrite to "
            "write into it anyway)");
    }
    return writeManifest(manifestPath, header, std::move(kept));  // a fresh manifest, or the old one compacted
}

}  // namespace auglab::cli
