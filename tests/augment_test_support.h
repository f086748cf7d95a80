#pragma once
// What the augment suites share: folders of real photos to augment, the manifest as a test reads
// it, and snapshots of every file in a folder to tell what a run wrote, rewrote or left alone.

#include <sys/stat.h>

#include <QByteArray>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>

#include "cli_test_support.h"
#include "image_io.h"
#include "test_support.h"

namespace auglab::testing {

inline std::filesystem::path native(const QString& path) {
    return std::filesystem::path(path.toStdString());
}  // UTF-8 on Linux

// A small crop of a bundled photo, written as PNG or JPEG (from the extension).
inline void writePhoto(const QString& path, const char* photo, int w, int h, int channels = 3) {
    QDir().mkpath(QFileInfo(path).path());
    saveImage(native(path), photoCrop(photo, w, h, channels), 90);
}

// Four real photos, two of them in subfolders and one with a non-ASCII folder and file name.
inline const QStringList kInputs{"chelsea.png", "cats/coffee.jpg", "cats/rocket.jpg", "ñandú/日本 café.png"};

inline void makeInput(const QString& dir) {
    writePhoto(dir + "/chelsea.png", "chelsea.png", 120, 80);
    writePhoto(dir + "/cats/coffee.jpg", "coffee.png", 100, 70);
    writePhoto(dir + "/cats/rocket.jpg", "rocket.jpg", 96, 96);
    writePhoto(dir + "/ñandú/日本 café.png", "astronaut.png", 90, 90);
}

// The documented sample index, computed here independently: (FNV-1a-64(path) >> 27) * 65536 + copy.
inline qint64 expectedIndex(const QString& relative, int copy) {
    quint64 h = 14695981039346656037ull;
    for (const char c : relative.toUtf8()) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return static_cast<qint64>(((h >> 27) << 16) + static_cast<quint64>(copy));
}

struct Manifest {
    bool valid = false;  // every line is a JSON object
    QJsonObject header;
    QList<QJsonObject> ok, failed;
    QList<QByteArray> okLines;  // as written: Qt's JSON holds numbers as doubles, 64-bit seeds do not fit
    QJsonObject output(const QString& relative) const {
        for (const QJsonObject& o : ok)
            if (o["output"].toString() == relative) return o;
        return {};
    }
};

/// The manifest `name` in `outDir`.
inline Manifest readManifest(const QString& outDir, const QString& name = "auglab-manifest.jsonl") {
    Manifest m;
    const QList<QByteArray> lines = readAll(outDir + "/" + name).split('\n');
    m.valid = lines.size() > 1 && lines.last().isEmpty();  // ends with a newline
    for (int i = 0; i + 1 < lines.size(); ++i) {
        const QJsonDocument doc = QJsonDocument::fromJson(lines[i]);
        if (!doc.isObject()) m.valid = false;
        const QJsonObject o = doc.object();
        if (i == 0) {
            m.header = o;
        } else if (o["status"] == "ok") {
            m.ok.append(o);
            m.okLines.append(lines[i]);
        } else {
            m.failed.append(o);
        }
    }
    return m;
}

// Every file under a folder (hidden ones too) with what changes when it is rewritten.
struct FileState {
    std::uintmax_t size;
    std::int64_t mtimeNs;
    ino_t inode;
    bool operator==(const FileState&) const = default;
};
using Snapshot = std::map<std::string, FileState>;

inline Snapshot snapshot(const QString& dir) {
    Snapshot s;
    std::error_code ec;
    for (std::filesystem::recursive_directory_iterator it(native(dir), ec), end; !ec && it != end;
         it.increment(ec)) {
        struct stat st {};
        if (!it->is_regular_file() || ::stat(it->path().c_str(), &st) != 0) continue;
        s[std::filesystem::relative(it->path(), native(dir)).generic_string()] = {
            static_cast<std::uintmax_t>(st.st_size), st.st_mtim.tv_sec * 1'000'000'000ll + st.st_mtim.tv_nsec,
            st.st_ino};
    }
    return s;
}

inline QString outputName(const QString& input, int copy, const QString& ext) {
    return input.left(input.lastIndexOf('.')) + "_aug" + QString::number(copy) + "." + ext;
}

}  // namespace auglab::testing
