#pragma once
// What the GUI suites share (tests/test_gui*.cpp): a fresh folder for autosaves per test, a real
// window, what the user sees of the grid, a labelled dataset, and a main that keeps the tests'
// settings out of the user's folders.

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

#include "main_window.h"
#include "preview_grid.h"
#include "suite_main.h"

namespace auglab::testing {

inline QString sample(const char* f) {
    return QString(AUGLAB_SOURCE_DIR) + "/resources/samples/" + f;
}

inline bool waitForGrid(MainWindow& w, int timeoutMs = 20000) {
    QSignalSpy spy(&w, &MainWindow::gridShown);
    return spy.wait(timeoutMs);
}

// What the user sees: the grid widget's framebuffer.
inline QImage seen(MainWindow& w) {
    QCoreApplication::processEvents();
    return w.grid()->grabFramebuffer().convertToFormat(QImage::Format_RGB32);
}

// A YOLO dataset in `root`: four photos in images/, one box each (class 0, x 0.2..0.4, y 0.3..0.7)
// in labels/, class names in data.yaml.
inline bool makeYoloFolder(const QString& root) {
    const QDir d(root);
    if (!d.mkpath("images") || !d.mkpath("labels")) return false;
    auto write = [](const QString& path, const QByteArray& text) {
        QFile f(path);
        return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
    };
    for (const char* f : {"astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg"}) {
        if (!QFile::copy(sample(f), d.filePath(QString("images/") + f))) return false;
        if (!write(d.filePath("labels/" + QFileInfo(f).completeBaseName() + ".txt"), "0 0.3 0.5 0.2 0.4\n"))
            return false;
    }
    return write(d.filePath("data.yaml"), "names: [cat, cup, person, rocket]\n");
}

/// The base of every GUI suite: a fresh folder per test (autosaves), and a shown, active window.
class GuiSuite : public QObject {
    Q_OBJECT

protected:
    std::unique_ptr<MainWindow> makeWindow() {
        MainWindowOptions o;
        o.autosavePath = dir_->filePath("autosave.auglab.json");
        o.restoreLayout = false;
        auto w = std::make_unique<MainWindow>(o);
        w->resize(1300, 850);
        w->show();
        if (!QTest::qWaitForWindowExposed(w.get())) return nullptr;
        // Shortcuts (F5, Ctrl+Z) go to the active window; there is no window manager under Xvfb.
        QApplication::setActiveWindow(w.get());
        if (QApplication::activeWindow() != w.get()) return nullptr;
        return w;
    }
    std::unique_ptr<QTemporaryDir> dir_;

private slots:
    void init() {
        dir_ = std::make_unique<QTemporaryDir>();
        QVERIFY(dir_->isValid());
    }
    void cleanup() { dir_.reset(); }
};

/// main() of a GUI test executable: settings and autosaves of the tests stay out of the user's
/// folders; the suites run as runSuites runs them.
template <typename... Suites>
int runGuiSuites(int argc, char** argv) {
    QTemporaryDir home;
    qputenv("XDG_CONFIG_HOME", home.filePath("config").toUtf8());
    qputenv("XDG_DATA_HOME", home.filePath("data").toUtf8());
    PreviewGrid::configureOpenGl();
    QApplication app(argc, argv);
    return runSuites<Suites...>(argc, argv);
}

}  // namespace auglab::testing
