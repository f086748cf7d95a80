// The window on the GPU backends, under Xvfb: the GL grid (and, on a CUDA device, the CUDA one
// through CUDA-GL interop) shows the CPU's pixels and the same labels. Each suite skips, saying
// why, where its backend is not available.

#include <QAction>
#include <QApplication>
#include <QBuffer>
#include <QCheckBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QSurfaceFormat>
#include <QTemporaryDir>
#include <QToolBar>
#include <QToolButton>
#include <QtTest>

#include "backend_registry.h"
#include "contact_sheet.h"
#include "cpu_backend.h"
#include "cuda_backend.h"
#include "distribution_view.h"
#include "export_dialog.h"
#include "image_io.h"
#include "inspector_dialog.h"
#include "main_window.h"
#include "op_panel.h"
#include "pipeline_editor.h"
#include "preset.h"
#include "preview_grid.h"
#include "range_slider.h"
#include "render_service.h"
#include "replay.h"
#include "target_rules_dialog.h"
#include "targets.h"

#include "gui_test_support.h"

using namespace auglab;
using namespace auglab::testing;

// Needs the GL backend (a display with OpenGL 3.3: Xvfb's software renderer will do).
class TestGuiGl : public GuiSuite {
    Q_OBJECT

private slots:
    void initTestCase();
    void glBackendShowsTheSameGrid();
    void labelsAreTheSameOnEveryBackend();
};

// Needs a CUDA device.
class TestGuiCuda : public GuiSuite {
    Q_OBJECT

private slots:
    void initTestCase();
    void cudaBackendShowsTheSameGrid();
};

void TestGuiGl::initTestCase() {
    for (const BackendInfo& b : backendInfos())
        if (b.name == "gl" && !b.available) QSKIP(("the GL backend is not available: " + b.detail).c_str());
}

void TestGuiCuda::initTestCase() {
    const BackendInfo info = cudaBackendInfo();
    if (!info.available) QSKIP(("the CUDA backend is not available: " + info.detail).c_str());
}

void TestGuiGl::glBackendShowsTheSameGrid() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("astronaut.png")});
    QVERIFY(waitForGrid(*w));
    QVERIFY(w->setBackend("cpu"));
    QVERIFY(waitForGrid(*w));
    QCOMPARE(w->lastBackend(), QString("cpu"));
    QVERIFY(!w->grid()->showsExternalTexture());  // the CPU's sheet is uploaded
    const QImage cpu = seen(*w);
    QVERIFY(w->setBackend("gl"));
    QVERIFY(waitForGrid(*w));
    QCOMPARE(w->lastBackend(), QString("gl"));
    QVERIFY(w->grid()->showsExternalTexture());  // the GL backend's grid texture, shown without readback
    QCOMPARE(seen(*w), cpu);                     // the GL backend reproduces the CPU's integers
}

void TestGuiGl::labelsAreTheSameOnEveryBackend() {
    // Labels are moved once per sample, from its replay: the GL grid shows the CPU's, drawn the same.
    // Generous waits (each ends as soon as its condition holds): llvmpipe on two busy cores, beside
    // the other suites, once took more than 20 s for the page.
    constexpr int kWait = 90000;
    QTemporaryDir root;
    QVERIFY(makeYoloFolder(root.path()));
    auto w = makeWindow();
    QVERIFY(w);
    QVERIFY(w->setBackend("cpu"));
    QVERIFY(w->openFolder(root.path()));
    QTRY_COMPARE_WITH_TIMEOUT(w->grid()->overlays().size(), std::size_t(4), kWait);
    QTRY_COMPARE_WITH_TIMEOUT(w->lastBackend(), QString("cpu"), kWait);
    // The labels load in the background: the CPU's reference only once every tile has its image's
    // one box in (boxesIn), not a tile drawn before its labels arrived.
    const auto allIn = [&] {
        for (const TileOverlay& o : w->grid()->overlays())
            if (o.boxesIn != 1) return false;
        return w->grid()->overlays().size() == 4;
    };
    QTRY_VERIFY_WITH_TIMEOUT(allIn(), kWait);
    const std::vector<TileOverlay> cpu = w->grid()->overlays();
    const QImage cpuSeen = seen(*w);
    QVERIFY(w->setBackend("gl"));
    QTRY_COMPARE_WITH_TIMEOUT(w->lastBackend(), QString("gl"), kWait);
    // The page's labels load in the background (a tile may briefly have none): wait until they are in.
    const auto sameAsCpu = [&] {
        const std::vector<TileOverlay> gl = w->grid()->overlays();
        if (gl.size() != cpu.size()) return false;
        for (std::size_t i = 0; i < cpu.size(); ++i)
            if (gl[i].tile != cpu[i].tile || !(gl[i].boxes == cpu[i].boxes)) return false;
        return true;
    };
    QTRY_VERIFY_WITH_TIMEOUT(sameAsCpu(), kWait);
    QTRY_COMPARE_WITH_TIMEOUT(seen(*w), cpuSeen, kWait);
}

void TestGuiCuda::cudaBackendShowsTheSameGrid() {
    // On a CUDA device the grid is rendered and composed by the kernels straight into a GL texture
    // the widget shares (CUDA-GL interop): no download, no upload, and the CPU's integers.
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("astronaut.png")});
    QVERIFY(waitForGrid(*w));
    QVERIFY(w->setBackend("cpu"));
    QVERIFY(waitForGrid(*w));
    const QImage cpu = seen(*w);
    QVERIFY(w->setBackend("cuda"));
    QVERIFY(waitForGrid(*w));
    QCOMPARE(w->lastBackend(), QString("cuda"));
#if defined(AUGLAB_HAVE_CUDA_GL)
    // A GL context on another GPU than the CUDA device cannot share: the grid then comes through
    // host memory, and the status bar says so.
    if (!w->grid()->showsExternalTexture())
        QSKIP(qPrintable("CUDA-GL interop is not possible in this session: " + w->statusMessage()));
#endif
    QCOMPARE(seen(*w), cpu);  // the default pipeline (affine, flip, cutout, brightness) is exact
}

int main(int argc, char** argv) {
    return runGuiSuites<TestGuiGl, TestGuiCuda>(argc, argv);
}

#include "test_gui_backends.moc"
