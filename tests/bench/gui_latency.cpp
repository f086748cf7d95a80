// Interaction latency of the GUI: time from a parameter change (what a slider drag step does) to
// the grid being repainted with the new tiles, for the default 8x8 grid on the CPU backend.
// Run under Xvfb: `xvfb-run -a build/tests/bench/auglab-gui-bench`. Prints JSON; asserts nothing.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSurfaceFormat>
#include <QTemporaryDir>
#include <QTimer>

#include "main_window.h"
#include "preview_grid.h"

int main(int argc, char** argv) {
    QTemporaryDir home;
    qputenv("XDG_CONFIG_HOME", home.filePath("config").toUtf8());
    qputenv("XDG_DATA_HOME", home.filePath("data").toUtf8());
    auglab::PreviewGrid::configureOpenGl();
    QApplication app(argc, argv);
    auglab::MainWindowOptions options;
    options.autosavePath = home.filePath("autosave.auglab.json");
    options.restoreLayout = false;
    auglab::MainWindow w(options);
    w.resize(1400, 900);
    w.show();
    w.openImages({QString(AUGLAB_SOURCE_DIR) + "/resources/samples/astronaut.png"});

    // Waits for the grid of the latest request to be shown and its frame swapped to the screen.
    QElapsedTimer clock;
    double shownAt = 0;
    auto waitRepaint = [&]() -> bool {
        QEventLoop loop;
        bool shown = false;
        const quint64 wanted = w.shownGeneration();
        auto c1 = QObject::connect(&w, &auglab::MainWindow::gridShown, &loop, [&](quint64 g) {
            shown = g > wanted;
            shownAt = clock.nsecsElapsed() / 1e6;
        });
        auto c2 = QObject::connect(w.grid(), &QOpenGLWidget::frameSwapped, &loop, [&] {
            if (shown) loop.quit();
        });
        QTimer::singleShot(20000, &loop, &QEventLoop::quit);
        loop.exec();
        QObject::disconnect(c1);
        QObject::disconnect(c2);
        return shown;
    };
    waitRepaint();
    std::vector<double> latency, render, arrived, edit;
    for (int i = 1; i <= 40; ++i) {
        // Let the previous frame finish reaching the screen, as between two slider steps.
        QEventLoop settle;
        QTimer::singleShot(100, &settle, &QEventLoop::quit);
        settle.exec();
        QElapsedTimer& t = clock;
        t.start();
        w.document()->setParam(0, "rotate_deg", auglab::Range{-20.0 - i % 7, 20.0 + i % 5}, 1);
        edit.push_back(t.nsecsElapsed() / 1e6);
        if (!waitRepaint()) {
            std::fprintf(stderr, "no repaint after change %d\n", i);
            return 1;
        }
        latency.push_back(t.nsecsElapsed() / 1e6);
        render.push_back(w.lastRenderMilliseconds());
        arrived.push_back(shownAt);
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    std::printf("{\n  \"grid\": \"8x8\",\n  \"tile_px\": %d,\n  \"backend\": \"cpu\",\n"
                "  \"change_to_repaint_ms_median\": %.2f,\n  \"change_to_tiles_on_ui_thread_ms_median\": %.2f,\n"
                "  \"render_ms_median\": %.2f,\n  \"edit_call_ms_median\": %.2f,\n"
                "  \"gl_renderer_note\": \"display through Xvfb/llvmpipe (software GL)\"\n}\n",
                w.shownTiles().empty() ? 0 : std::max(w.shownTiles()[0].width, w.shownTiles()[0].height),
                median(latency), median(arrived), median(render), median(edit));
    return 0;
}
