// Interaction latency of the GUI: time from a parameter change (what a slider drag step does) to
// the grid being repainted with the new tiles, for the default 8x8 grid on the CPU backend.
// Run under Xvfb: `xvfb-run -a build/tests/bench/auglab-gui-bench`. Prints JSON; asserts nothing.
//
// With `--folder D [--photos N]`: the window on a dataset folder (SPEC §8 W4 in the app): time from
// the process's start to the first grid shown, then paging through the whole folder with the
// resident memory after every page. --photos N pages through N entries made of hard links to D's
// photos (each path decoded anew, as distinct files would be) in a sibling folder.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <QApplication>
#include <QDir>
#include <cstring>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSurfaceFormat>
#include <QTemporaryDir>
#include <QTimer>

#include "main_window.h"
#include "preview_grid.h"

namespace {

// Seconds since this process started (/proc: its start time and the system's uptime, in ticks).
double secondsSinceProcessStart() {
    std::ifstream stat("/proc/self/stat"), uptime("/proc/uptime");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    std::istringstream fields(text.substr(text.rfind(')') + 2));  // after the command name
    std::string field;
    for (int i = 3; i <= 22; ++i) fields >> field;  // field 22: starttime
    double up = 0;
    uptime >> up;
    return up - std::stod(field) / double(sysconf(_SC_CLK_TCK));
}

// Resident and peak resident memory of this process, MB (/proc/self/status).
double statusMb(const char* key) {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind(key, 0) == 0) return std::stod(line.substr(std::strlen(key))) / 1024.0;
    return 0;
}

// Waits for a grid newer than `after` with at least one tile shown; false after 60 s.
bool waitGrid(auglab::MainWindow& w, quint64 after) {
    QEventLoop loop;
    bool shown = false;
    auto c = QObject::connect(&w, &auglab::MainWindow::gridShown, &loop, [&](quint64 g) {
        if (g > after) {
            shown = true;
            loop.quit();
        }
    });
    QTimer::singleShot(60000, &loop, &QEventLoop::quit);
    if (w.shownGeneration() <= after) loop.exec();
    else shown = true;
    QObject::disconnect(c);
    return shown;
}

int datasetBench(auglab::MainWindow& w, QString folder, int photos) {
    namespace fs = std::filesystem;
    if (photos > 0) {
        // N entries, hard links to the folder's photos in turn.
        std::vector<fs::path> originals;
        for (const auto& e : fs::directory_iterator(folder.toStdString()))
            if (e.path().extension() == ".jpg") originals.push_back(e.path());
        std::sort(originals.begin(), originals.end());
        const fs::path links = fs::path(folder.toStdString()).parent_path() / ("links-" + std::to_string(photos));
        fs::create_directories(links);
        for (int i = 0; i < photos && !originals.empty(); ++i) {
            char name[32];
            std::snprintf(name, sizeof name, "photo_%05d.jpg", i);
            if (!fs::exists(links / name)) fs::create_hard_link(originals[std::size_t(i) % originals.size()], links / name);
        }
        folder = QString::fromStdString(links.string());
    }
    const quint64 before = w.shownGeneration();
    w.openImages({folder});
    if (!waitGrid(w, before)) {
        std::fprintf(stderr, "no grid\n");
        return 1;
    }
    const double firstGrid = secondsSinceProcessStart();
    const double firstRss = statusMb("VmRSS:");
    std::vector<double> rss{firstRss};
    const auto pages = (QDir(folder).entryList(QDir::Files).size() + 63) / 64;
    for (int page = 1; page < pages; ++page) {
        const quint64 g = w.shownGeneration();
        w.setPage(page);
        if (!waitGrid(w, g)) {
            std::fprintf(stderr, "no grid for page %d\n", page);
            return 1;
        }
        rss.push_back(statusMb("VmRSS:"));
    }
    QString quarters;
    for (int q = 1; q <= 4; ++q) quarters += QString("%1%2").arg(q > 1 ? ", " : "").arg(rss[(rss.size() - 1) * q / 4], 0, 'f', 0);
    std::printf("{\n  \"folder\": \"%s\",\n  \"pages\": %d,\n  \"first_grid_s_since_process_start\": %.2f,\n"
                "  \"rss_mb_after_first_page\": %.0f,\n  \"rss_mb_at_each_quarter\": [%s],\n"
                "  \"rss_mb_max_while_paging\": %.0f,\n  \"peak_rss_mb\": %.0f\n}\n",
                qPrintable(folder), int(pages), firstGrid, firstRss, qPrintable(quarters),
                *std::max_element(rss.begin(), rss.end()), statusMb("VmHWM:"));
    return 0;
}

}  // namespace

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
    const QStringList args = app.arguments();
    if (const auto f = args.indexOf("--folder"); f > 0 && f + 1 < args.size()) {
        const auto n = args.indexOf("--photos");
        return datasetBench(w, args[f + 1], n > 0 && n + 1 < args.size() ? args[n + 1].toInt() : 0);
    }
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
