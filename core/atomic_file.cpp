#include "atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "error.h"

namespace fs = std::filesystem;

namespace auglab {

namespace {

// UTF-8 on every platform (path::string() would be the ANSI code page on Windows).
std::string shown(const fs::path& p) {
    const std::u8string s = p.u8string();
    return std::string(s.begin(), s.end());
}

std::string errnoText(int err) {
    return std::generic_category().message(err);
}

[[noreturn]] void failWrite(const fs::path& path, const std::string& why) {
    throw RuntimeError("cannot write '" + shown(path) + "': " + why);
}

// Closes the descriptor and removes the temporary file unless the rename happened.
class TempFile {
public:
    TempFile() = default;
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    ~TempFile() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
        if (!path_.empty()) {
            ::unlink(path_.c_str());
        }
    }

    // Creates a new, unique file beside `target` (O_EXCL: never reuses an existing name).
    int create(const fs::path& target) {
        static std::atomic<unsigned> counter{0};
        // Hidden, and with no image extension, so a folder scan never picks it up. Long names are
        // shortened so the temporary name stays within NAME_MAX.
        std::string stem = target.filename().string().substr(0, 180);
        for (int attempt = 0; attempt < 100; ++attempt) {
            const std::string name = "." + stem + ".auglab-tmp-" + std::to_string(::getpid()) + "-" +
                                     std::to_string(counter.fetch_add(1));
            const fs::path candidate = target.parent_path() / name;
            const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (fd >= 0) {
                fd_ = fd;
                path_ = candidate;
                return 0;
            }
            if (errno != EEXIST) {
                return errno;
            }
        }
        return EEXIST;
    }

    // A second name (a hard link) for the existing file `target`, beside it; no descriptor.
    int createLink(const fs::path& target) {
        static std::atomic<unsigned> counter{0};
        const std::string stem = target.filename().string().substr(0, 180);
        for (int attempt = 0; attempt < 100; ++attempt) {
            const fs::path candidate = target.parent_path() / ("." + stem + ".auglab-tmp-" + std::to_string(::getpid()) +
                                                               "-old-" + std::to_string(counter.fetch_add(1)));
            if (::link(target.c_str(), candidate.c_str()) == 0) {
                path_ = candidate;
                return 0;
            }
            if (errno != EEXIST) {
                return errno;
            }
        }
        return EEXIST;
    }

    int fd() const { return fd_; }
    const fs::path& path() const { return path_; }

    // Closes the descriptor and reports close()'s error (a delayed write error on some file systems).
    int close() {
        const int rc = ::close(fd_);
        fd_ = -1;
        return rc == 0 ? 0 : errno;
    }

    void release() { path_.clear(); }

private:
    int fd_ = -1;
    fs::path path_;
};

int writeAll(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return 0;
}

// The rename is only durable once the folder entry is on disk too; a failure here loses nothing.
void syncFolder(const fs::path& folder) {
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

// Where a write of `path` goes (a symbolic link's target: saving through a link replaces the file it
// points to, not the link), checked: InputError when its folder is missing or it is a folder.
struct Target {
    fs::path path;    // what the rename replaces
    fs::path folder;  // where the temporary file goes
    bool replacing = false;
    mode_t mode = 0;  // of the file replaced
};

Target checkedTarget(const fs::path& path) {
    std::error_code ec;
    Target t;
    t.path = path;
    if (fs::is_symlink(path, ec)) {
        const fs::path resolved = fs::canonical(path, ec);
        if (!ec) {
            t.path = resolved;
        }
    }
    if (t.path.filename().empty()) {
        throw InputError("cannot write '" + shown(path) + "': not a file name");
    }
    t.folder = t.path.parent_path().empty() ? fs::path(".") : t.path.parent_path();
    if (!fs::is_directory(t.folder, ec)) {
        const bool exists = fs::exists(t.folder, ec);
        throw InputError("cannot write '" + shown(path) + "': '" + shown(t.folder) + "' " +
                         (exists ? "is not a folder" : "does not exist"));
    }
    struct stat old {};
    t.replacing = ::stat(t.path.c_str(), &old) == 0;
    if (t.replacing && S_ISDIR(old.st_mode)) {
        throw InputError("cannot write '" + shown(path) + "': it is a folder");
    }
    t.mode = old.st_mode;
    return t;
}

// Opens the temporary file of `t` (with the permissions of the file it replaces, best effort: we
// may not own it).
void openTemp(TempFile& temp, const Target& t, const fs::path& path) {
    if (const int err = temp.create(t.path); err != 0) {
        failWrite(path, "cannot create a temporary file in '" + shown(t.folder) + "': " + errnoText(err));
    }
    if (t.replacing) {
        ::fchmod(temp.fd(), t.mode & 07777);
    }
}

// Syncs (when asked) and closes the temporary file: what is left before the rename.
void finishTemp(TempFile& temp, const fs::path& path, Durability durability) {
    // Some file systems cannot sync (EINVAL, ENOTSUP); the data is then as safe as they allow.
    if (durability == Durability::Now && ::fsync(temp.fd()) != 0 && errno != EINVAL && errno != ENOTSUP) {
        failWrite(path, errnoText(errno));
    }
    if (const int err = temp.close(); err != 0) {
        failWrite(path, errnoText(err));
    }
}

}  // namespace

void writeFileAtomically(const fs::path& path, std::string_view data, Durability durability) {
    AtomicFileWriter w(path);
    w.write(data);
    w.commit(durability);
}

struct AtomicFileWriter::State {
    fs::path path;
    Target target;
    TempFile temp;
};

AtomicFileWriter::AtomicFileWriter(const fs::path& path) : s_(std::make_unique<State>()) {
    s_->path = path;
    s_->target = checkedTarget(path);
    openTemp(s_->temp, s_->target, path);
}

AtomicFileWriter::~AtomicFileWriter() = default;

void AtomicFileWriter::write(std::string_view data) {
    if (!s_ || s_->temp.fd() < 0) {
        throw RuntimeError("cannot write '" + shown(s_ ? s_->path : fs::path()) + "': already committed");
    }
    if (const int err = writeAll(s_->temp.fd(), data.data(), data.size()); err != 0) {
        failWrite(s_->path, errnoText(err));
    }
}

void AtomicFileWriter::commit(Durability durability) {
    finishTemp(s_->temp, s_->path, durability);
    if (::rename(s_->temp.path().c_str(), s_->target.path.c_str()) != 0) {
        failWrite(s_->path, errnoText(errno));
    }
    s_->temp.release();
    if (durability == Durability::Now) {
        syncFolder(s_->target.folder);
    }
}

AtomicFileSet::AtomicFileSet() = default;
AtomicFileSet::~AtomicFileSet() = default;

void AtomicFileSet::add(const fs::path& path, std::string data) {
    for (const Entry& e : files_) {
        if (e.path.lexically_normal() == path.lexically_normal()) {
            throw InputError("'" + shown(path) + "' is named twice among the files of one result");
        }
    }
    files_.push_back({path, std::move(data)});
}

void AtomicFileSet::add(const fs::path& path, const std::vector<std::uint8_t>& data) {
    add(path, std::string(reinterpret_cast<const char*>(data.data()), data.size()));
}

void AtomicFileSet::commit(Durability durability) {
    // Everything that can fail for one file (its folder, a full disk, permissions) fails here,
    // before any target is touched.
    std::vector<Target> targets;
    std::vector<std::unique_ptr<TempFile>> temps;
    for (const Entry& e : files_) {
        targets.push_back(checkedTarget(e.path));
        temps.push_back(std::make_unique<TempFile>());
        openTemp(*temps.back(), targets.back(), e.path);
        if (const int err = writeAll(temps.back()->fd(), e.data.data(), e.data.size()); err != 0) {
            failWrite(e.path, errnoText(err));
        }
        finishTemp(*temps.back(), e.path, durability);
    }
    for (std::size_t i = 0; i < targets.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (targets[j].path == targets[i].path) {
                throw InputError("'" + shown(files_[i].path) + "' and '" + shown(files_[j].path) +
                                 "' are the same file");
            }
        }
    }
    // The files being replaced are kept under a second name (a hard link, nothing copied) until
    // every rename has happened, so that a failed rename can put them back.
    std::vector<std::unique_ptr<TempFile>> kept(targets.size());
    for (std::size_t i = 0; i < targets.size(); ++i) {
        if (!targets[i].replacing) {
            continue;
        }
        kept[i] = std::make_unique<TempFile>();
        if (const int err = kept[i]->createLink(targets[i].path); err != 0) {
            kept[i].reset();  // no link (a file system without them): that file cannot be put back
        }
    }
    std::size_t done = 0;
    for (; done < targets.size(); ++done) {
        if (::rename(temps[done]->path().c_str(), targets[done].path.c_str()) != 0) {
            break;
        }
        temps[done]->release();
    }
    if (done < targets.size()) {
        const int err = errno;
        for (std::size_t i = 0; i < done; ++i) {
            if (kept[i]) {
                if (::rename(kept[i]->path().c_str(), targets[i].path.c_str()) == 0) {
                    kept[i]->release();
                }
            } else {
                ::unlink(targets[i].path.c_str());
            }
        }
        failWrite(files_[done].path, errnoText(err));
    }
    if (durability == Durability::Now) {
        for (const Target& t : targets) {
            syncFolder(t.folder);
        }
    }
    // `kept` removes the second names of the replaced files.
}

void writeFileAtomically(const fs::path& path, const std::vector<std::uint8_t>& data, Durability durability) {
    writeFileAtomically(path, std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), durability);
}

void syncFileSystem(const fs::path& folder) {
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        failWrite(folder, "cannot open it to sync: " + errnoText(errno));
    }
    const int result = ::syncfs(fd);
    const int err = errno;
    ::close(fd);
    if (result != 0) {
        failWrite(folder, "cannot sync it to disk: " + errnoText(err));
    }
}

namespace {

template <typename Bytes>
Bytes readWhole(const fs::path& path, std::size_t limit) {
    const auto fail = [&](const std::string& why) -> InputError {
        return InputError("cannot read '" + shown(path) + "': " + why);
    };
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        throw fail(errnoText(errno));
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};

    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        throw fail(errnoText(errno));
    }
    if (S_ISDIR(st.st_mode)) {
        throw fail("it is a folder");
    }
    // Read straight into the result, sized from the file's size; then on to the end rather than
    // trusting that size: the file may be growing, or be a pipe.
    Bytes out;
    std::size_t used = 0;
    out.resize(std::min(limit, S_ISREG(st.st_mode) && st.st_size > 0 ? static_cast<std::size_t>(st.st_size) + 1
                                                                       : std::size_t{1} << 16));
    while (used < limit) {
        if (used == out.size()) {
            out.resize(std::min(limit, out.size() * 2));
        }
        const ssize_t n = ::read(fd, out.data() + used, out.size() - used);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw fail(errnoText(errno));
        }
        if (n == 0) {
            break;
        }
        used += static_cast<std::size_t>(n);
    }
    out.resize(used);
    return out;
}

}  // namespace

std::vector<std::uint8_t> readFileBytes(const fs::path& path) {
    return readWhole<std::vector<std::uint8_t>>(path, SIZE_MAX);
}

std::vector<std::uint8_t> readFileBytes(const fs::path& path, std::size_t limit) {
    return readWhole<std::vector<std::uint8_t>>(path, limit);
}

std::string readFileText(const fs::path& path) {
    return readWhole<std::string>(path, SIZE_MAX);
}

}  // namespace auglab
