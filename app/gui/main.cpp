// auglab: the desktop application. Opens the paths given on the command line (images, folders,
// presets), or the bundled sample photos, and shows the live grid.

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QPainter>
#include <QSurfaceFormat>
#include <QTimer>

#include "main_window.h"
#include "preview_grid.h"

int main(int argc, char** argv) {
    auglab::PreviewGrid::configureOpenGl();
    QApplication app(argc, argv);
    QApplication::setApplicationName("AugLab");
    QApplication::setOrganizationName("AugLab");
    QApplication::setApplicationVersion(AUGLAB_VERSION);

    QCommandLineParser parser;
    parser.setApplicationDescription("Live preview of image augmentations");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("paths", "Images, folders or *.auglab.json presets to open", "[paths...]");
    QCommandLineOption screenshot("screenshot",
                                  "Save a picture of the window once the grid is shown, then quit.", "file");
    parser.addOption(screenshot);
    parser.process(app);

    auglab::MainWindow window;
    QStringList paths = parser.positionalArguments();
    bool hasImages = false;
    for (const QString& p : paths) hasImages = hasImages || !p.endsWith(".json", Qt::CaseInsensitive);
    if (!hasImages) {
        // A new user sees a live grid at once: the bundled photos and the default preset.
        QDir samples(AUGLAB_SAMPLES_DIR);
        for (const QString& f : samples.entryList({"*.png", "*.jpg"}, QDir::Files, QDir::Name))
            paths << samples.absoluteFilePath(f);
    }
    QStringList presets, images;
    for (const QString& p : paths) (p.endsWith(".json", Qt::CaseInsensitive) ? presets : images) << p;
    for (const QString& p : presets) window.openPreset(p);
    if (!images.isEmpty())
        window.openImages(images.size() == 1 || QFileInfo(images.first()).isDir()
                              ? images
                              : QStringList{images.first()} + images.mid(1));
    if (!hasImages) window.setMode(auglab::SheetMode::Samples);
    window.show();

    if (parser.isSet(screenshot)) {
        const QString out = parser.value(screenshot);
        QObject::connect(&window, &auglab::MainWindow::gridShown, &window, [&window, out] {
            QTimer::singleShot(300, &window, [&window, out] {
                // The grid as its framebuffer has it, overlays (realism badges, placeholders) included:
                // QWidget::grab alone leaves them out.
                QPixmap shot = window.grab();
                QPainter painter(&shot);
                auglab::PreviewGrid* grid = window.grid();
                painter.drawImage(QRect(grid->mapTo(&window, QPoint(0, 0)), grid->size()),
                                  grid->grabFramebuffer());
                painter.end();
                shot.save(out);
                QApplication::quit();
            });
        });
    }
    return app.exec();
}
