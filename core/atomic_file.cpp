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

}  // namespace

void writeFileAtomically(const fs::path& path, std::string_view data, Durability durability) {
    std::error_code ec;
    // Saving through a symbolic link replaces the file it points to, not the link.
    fs::path target = path;
    if (fs::is_symlink(path, ec)) {
        const fs::path resolved = fs::canonical(path, ec);
        if (!ec) {
            target = resolved;
        }
    }
    if (target.filename().empty()) {
        throw InputError("cannot write '" + shown(path) + "': not a file name");
    }
    const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    if (!fs::is_directory(folder, ec)) {
        const bool exists = fs::exists(folder, ec);
        throw InputError("cannot write '" + shown(path) + "': '" + shown(folder) + "' " +
                         (exists ? "is not a folder" : "does not exist"));
    }
    struct stat old {};
    const bool replacing = ::stat(target.c_str(), &old) == 0;
    if (replacing && S_ISDIR(old.st_mode)) {
        throw InputError("cannot write '" + shown(path) + "': it is a folder");
    }

    TempFile temp;
    if (const int err = temp.create(target); err != 0) {
        failWrite(path, "cannot create a temporary file in '" + shown(folder) + "': " + errnoText(err));
    }
    if (replacing) {
        // Keep the permissions of the file being replaced (best effort: we may not own it).
        ::fchmod(temp.fd(), old.st_mode & 07777);
    }
    if (const int err = writeAll(temp.fd(), data.data(), data.size()); err != 0) {
        failWrite(path, errnoText(err));
    }
    // Some file systems cannot sync (EINVAL, ENOTSUP); the data is then as safe as they allow.
    if (durability == Durability::Now && ::fsync(temp.fd()) != 0 && errno != EINVAL && errno != ENOTSUP) {
        failWrite(path, errnoText(errno));
    }
    if (const int err = temp.close(); err != 0) {
        failWrite(path, errnoText(err));
    }
    if (::rename(temp.path().c_str(), target.c_str()) != 0) {
        failWrite(path, errnoText(errno));
    }
    temp.release();
    if (durability == Durability::Now) {
        syncFolder(folder);
    }
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
