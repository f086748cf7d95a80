#pragma once
// Running the real auglab-cli from a test, as a user would (AUGLAB_CLI is its path, set by CMake).

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

}  // namespace auglab::testing
