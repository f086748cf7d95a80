#include "augment_inputs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <system_error>

#include <nlohmann/json.hpp>

#include "error.h"
#include "utf8_paths.h"

namespace auglab::cli {

namespace fs = std::filesystem;

namespace {

// "'path'", built by appending: GCC 12 warns falsely (-Wrestrict) about "literal" + std::string&&.
std::string quoted(const fs::path& p) {
    std::string s(1, '\'');
    s += utf8(p);
    s += '\'';
    return s;
}

bool isUtf8(const std::string& s) {
    try {
        (void)nlohmann::json(s).dump();  // strict: throws on an invalid sequence
        return true;
    } catch (const nlohmann::json::type_error&) {
        return false;
    }
}

// An absolute, normalized path without a trailing separator.
fs::path normalized(const fs::path& p) {
    fs::path n = p.lexically_normal();
    if (n.filename().empty() && n.has_relative_path()) n = n.parent_path();
    return n;
}

bool isInside(const fs::path& child, const fs::path& parent) {
    const auto [p, c] = std::mismatch(parent.begin(), parent.end(), child.begin(), child.end());
    return p == parent.end() && c != child.end();
}

void walk(const fs::path& dir, const std::string& relative, std::vector<PlannedInput>& out) {
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    const auto failed = [&] {
        PlannedInput folder;
        folder.source = dir;
        folder.relative = relative + "/";
        folder.error = "cannot list folder '" + utf8(dir) + "': " + ec.message();
        out.push_back(std::move(folder));
    };
    if (ec) return failed();
    for (const fs::directory_iterator end; it != end; it.increment(ec)) {
        const fs::directory_entry& entry = *it;
        const std::string name = utf8(entry.path().filename());
        if (name.empty() || name[0] == '.') continue;  // hidden: .git, ._photo.jpg, temporary files
        const std::string childRelative = relative.empty() ? name : relative + "/" + name;
        std::error_code ignored;
        if (entry.is_directory(ignored)) {
            if (!entry.is_symlink(ignored)) walk(entry.path(), childRelative, out);  // no link cycles
        } else if (entry.is_regular_file(ignored) && hasImageExtension(entry.path())) {
            PlannedInput file;
            file.source = entry.path();
            file.relative = childRelative;
            out.push_back(std::move(file));
        }
    }
    if (ec) failed();
}

}  // namespace

std::uint64_t augmentSampleIndex(std::string_view relativePath, int copy) {
    std::uint64_t h = 14695981039346656037ull;  // FNV-1a, 64 bits
    for (const unsigned char c : relativePath) {
        h ^= c;
        h *= 1099511628211ull;
    }
    // FNV's high bits are its well-mixed ones: the top 37 carry the file, the low 16 the copy. The
    // index stays below 2^53, so JSON readers that hold numbers as doubles (JavaScript, jq) read
    // the manifest's indices exactly.
    return ((h >> 27) << 16) | static_cast<std::uint64_t>(copy & 0xFFFF);
}

std::string augmentOutputPath(const std::string& relativePath, int copy, ImageFormat format) {
    const std::size_t slash = relativePath.rfind('/');
    const std::string folder = slash == std::string::npos ? "" : relativePath.substr(0, slash + 1);
    const std::string name = relativePath.substr(folder.size());
    const std::string stem = name.substr(0, name.rfind('.'));  // as path::stem(): photo.v2.jpg -> photo.v2
    return folder + stem + "_aug" + std::to_string(copy) + (format == ImageFormat::Png ? ".png" : ".jpg");
}

AugmentFolders checkFolders(const fs::path& input, const fs::path& output) {
    std::error_code ec;
    AugmentFolders f;
    f.input = fs::canonical(input, ec);
    if (ec || !fs::is_directory(f.input, ec))
        throw InputError("--input '" + utf8(input) + "' " +
                         (fs::exists(input, ec) ? "is not a folder" : "does not exist"));
    f.output = normalized(fs::weakly_canonical(fs::absolute(output), ec));
    if (ec) throw InputError("--output '" + utf8(output) + "': " + ec.message());
    if (fs::exists(f.output, ec) && !fs::is_directory(f.output, ec))
        throw InputError("--output '" + utf8(output) + "' is not a folder");
    if (f.output == f.input)
        throw InputError(
            "--output is the --input folder: augment never writes among its inputs; choose another folder");
    if (isInside(f.output, f.input))
        throw InputError("--output '" + utf8(output) + "' is inside --input '" + utf8(input) +
                         "': its images would become inputs of the next run; choose a folder outside it");
    if (isInside(f.input, f.output))
        throw InputError("--input '" + utf8(input) + "' is inside --output '" + utf8(output) +
                         "': augment never writes among its inputs; choose an output folder outside it");
    return f;
}

std::string outputPathProblem(const fs::path& root, const std::string& relative) {
    const fs::path rel = fromUtf8(relative);
    if (relative.empty() || rel.is_absolute()) return "'" + relative + "' is not a path inside --output";
    // The longest name this file system takes (255 bytes on most), once per folder.
    const long nameMax = [&] {
        errno = 0;
        const long n = ::pathconf(root.c_str(), _PC_NAME_MAX);
        return n > 0 ? n : 255;
    }();
    fs::path at = root;
    bool exists = true;  // the parts so far exist (past a missing one, nothing below it can)
    for (const fs::path& part : rel) {
        const std::string name = part.string();
        if (name == ".." || name == ".") return "'" + relative + "' is not a path inside --output";
        if (static_cast<long>(name.size()) > nameMax)
            return "the name '" + utf8(part).substr(0, 40) + "...' is " + std::to_string(name.size()) +
                   " bytes, more than the " + std::to_string(nameMax) +
                   " the output folder's file system takes (rename the input, or use a shorter folder name)";
        at /= part;
        if (!exists) continue;
        struct stat st {};
        if (::lstat(at.c_str(), &st) != 0) {
            exists = false;
            continue;
        }
        if (!S_ISLNK(st.st_mode)) continue;
        std::error_code ec;
        const fs::path target = fs::canonical(at, ec);
        const std::string shownLink = quoted(at);
        if (ec)
            return shownLink + " is a symbolic link to nothing (" + ec.message() +
                   "): augment writes only inside --output '" + utf8(root) + "', never through a link; remove it";
        if (target != root && !isInside(target, root))
            return shownLink + " is a symbolic link to " + quoted(target) + ", outside --output '" + utf8(root) +
                   "': augment writes and deletes only inside its output folder; remove the link (or give its "
                   "target as --output)";
        at = target;
    }
    return {};
}

std::vector<PlannedInput> planInputs(const fs::path& input, int copies, ImageFormat format) {
    std::vector<PlannedInput> planned;
    walk(input, "", planned);
    if (planned.size() == 1 && planned.front().relative == "/")  // the input folder itself
        throw InputError(planned.front().error);
    // Byte order of UTF-8 is code point order: the same on every machine and file system.
    std::sort(planned.begin(), planned.end(),
              [](const PlannedInput& a, const PlannedInput& b) { return a.relative < b.relative; });
    const bool anyImage = std::any_of(planned.begin(), planned.end(), [](const PlannedInput& p) {
        return p.relative.empty() || p.relative.back() != '/';
    });
    if (!anyImage) throw InputError("no image files in '" + utf8(input) + "' or its subfolders");

    std::map<std::string, std::string> claimedBy;  // first output name -> the input that has it
    for (PlannedInput& p : planned) {
        if (!p.error.empty()) continue;
        if (!isUtf8(p.relative)) {
            p.error = quoted(p.source) + ": the file name is not valid UTF-8 (the manifest is UTF-8 JSON)";
            continue;
        }
        // Output names differ exactly when the input's folder and stem differ, so copy 0 decides.
        const std::string first = augmentOutputPath(p.relative, 0, format);
        if (const auto [it, fresh] = claimedBy.emplace(first, p.relative); !fresh) {
            p.error = quoted(p.source) + ": its outputs would have the names of those of '" + it->second +
                      "' (" + first + "); rename one of the two";
            continue;
        }
        for (int k = 0; k < copies; ++k) p.outputs.push_back(augmentOutputPath(p.relative, k, format));
    }
    return planned;
}

}  // namespace auglab::cli
