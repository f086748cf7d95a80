#pragma once
// Running the real auglab-cli from a test, as a user would (AUGLAB_CLI is its path, set by CMake).

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace auglab::testing {

struct CliRun {
    int code = -1;  ///< the exit code; -1 when it crashed, -2 when it timed out
    QString out, err;
};

inline CliRun cli(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(AUGLAB_CLI), args);
    if (!p.waitForFinished(120000)) return {-2, {}, "timed out"};
    CliRun r;
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;  // a crash is never a pass
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

/// A preset that uses several ops and every random stream (affine, flip, random-fill cutout, HSV, noise).
inline const char* const kBusyPreset = R"({"format": "auglab-preset", "version": 1, "name": "t", "seed": 5, "pipeline": [
  {"op": "affine", "rotate_deg": [-25, 25], "border": "reflect"},
  {"op": "horizontal_flip", "p": 0.5},
  {"op": "coarse_dropout", "p": 0.7, "fill": "random"},
  {"op": "hue_saturation_value"},
  {"op": "gauss_noise", "p": 0.5}]})";

inline QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Writes the file (its folder made first); false when it could not be written whole.
inline bool writeBytes(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

}  // namespace auglab::testing
