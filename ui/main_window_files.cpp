// MainWindow's files: opening images, folders (with their labels) and presets, importing,
// saving, the recent list, closing with unsaved changes, and dropped files.

#include "main_window.h"

#include <cmath>
#include <random>

#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QRegularExpression>
#include <QSettings>
#include <QToolBar>

#include "atomic_file.h"
#include "backend_registry.h"
#include "cost_meter.h"
#include "distribution_view.h"
#include "export_dialog.h"
#include "exporter.h"
#include "image_io.h"
#include "inspector_dialog.h"
#include "label_files.h"
#include "overlay.h"
#include "pipeline_editor.h"
#include "preset.h"
#include "preview_grid.h"
#include "realism.h"
#include "target_rules_dialog.h"

namespace auglab {

namespace {

bool isPresetFile(const QString& path) {
    return path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive);
}

}  // namespace

QStringList MainWindow::imageNameFilters() {
    // From core's list of image extensions ("*.png", ...).
    static const QStringList filters = [] {
        QStringList f;
        for (const std::string& e : imageExtensions()) f << QStringLiteral("*") + QString::fromStdString(e);
        return f;
    }();
    return filters;
}

bool MainWindow::openImages(const QStringList& files) {
    QStringList images;
    for (const QString& f : files) {
        if (QFileInfo(f).isDir()) return openFolder(f);
        if (isPresetFile(f)) {
            openPreset(f);
            continue;
        }
        images << QFileInfo(f).absoluteFilePath();
    }
    if (images.isEmpty()) return false;
    labels_.reset();  // loose images: no dataset labels
    labelsBar_->setVisible(false);
    files_ = images;
    page_ = 0;
    current_ = 0;
    setMode(images.size() > 1 ? SheetMode::Dataset : SheetMode::Samples);
    fillStrip();  // after the mode: showing the strip resizes the grid, which renders again
    requestRender();
    return true;
}

bool MainWindow::openFolder(const QString& dir) {
    QDir d(dir);
    if (!d.exists()) {
        reportError(tr("'%1' is not a folder").arg(dir));
        return false;
    }
    // Only names are listed here; images are decoded page by page on the render thread.
    QStringList images;
    // A labelled dataset (YOLO, COCO, Pascal VOC, masks/): every image under it, its labels drawn.
    labels_.reset();
    try {
        LabelReport report;
        // A COCO file of a large dataset takes seconds to read (about 1 s per 30 MB here).
        QApplication::setOverrideCursor(Qt::WaitCursor);
        std::optional<LabelledDataset> found;
        try {
            found = detectLabels(dir.toStdString(), report);
        } catch (...) {
            QApplication::restoreOverrideCursor();
            throw;
        }
        QApplication::restoreOverrideCursor();
        if (found) {
            labels_.reset(std::make_shared<const LabelledDataset>(std::move(*found)));
            for (const auto& f : labelledImages(dir.toStdString(), *labels_.dataset()))
                images << QString::fromStdString(f.string());
            for (const std::string& s : report.skipped) labels_.addProblem(QString::fromStdString(s));
        }
    } catch (const std::exception& e) {
        reportError(tr("The labels of '%1' cannot be read: %2").arg(dir, QString::fromUtf8(e.what())));
        labels_.reset();
    }
    const LabelledDataset* dataset = labels_.dataset();
    if (!dataset)
        for (const QString& f : d.entryList(imageNameFilters(), QDir::Files, QDir::Name | QDir::IgnoreCase))
            images << d.absoluteFilePath(f);
    labelsBar_->setVisible(dataset != nullptr);
    if (images.isEmpty()) {
        reportError(tr("No images in '%1'").arg(dir));
        return false;
    }
    files_ = images;
    page_ = 0;
    current_ = 0;
    setMode(SheetMode::Dataset);
    fillStrip();  // after the mode: showing the strip resizes the grid, which renders again
    const QStringList& problems = labels_.problems();
    if (dataset)
        showStatus(tr("%1 images in %2, labels: %3 (%n classes)", "", int(dataset->classNames().size()))
                       .arg(images.size())
                       .arg(dir)
                       .arg(labelFormatName(dataset->format())) +
                   (problems.isEmpty() ? QString()
                                       : tr("; %n label(s) skipped (the first: %1)", "", int(problems.size()))
                                             .arg(problems.first())));
    else
        showStatus(tr("%1 images in %2").arg(images.size()).arg(dir));
    requestRender();
    return true;
}

bool MainWindow::openPreset(const QString& path) {
    try {
        doc_.open(path);  // the current pipeline stays as it is when this throws
    } catch (const std::exception& e) {
        reportError(QString::fromUtf8(e.what()));
        return false;
    }
    addRecent(path);
    return true;
}

bool MainWindow::importAlbumentationsFile(const QString& path) {
    try {
        const std::string text = readFileText(path.toStdString());
        const ImportResult r = importAlbumentations(text, path.toStdString());
        // One undo step, into an untitled document: a save must not write the import over the
        // preset that was open.
        doc_.importPreset(r.preset, tr("Import %1").arg(QFileInfo(path).fileName()));
        if (!r.warnings.empty()) {
            QStringList lines;
            for (const std::string& w : r.warnings) lines << QString::fromStdString(w);
            reportError(tr("Imported with %1 keys that have no AugLab equivalent:\n%2")
                            .arg(lines.size())
                            .arg(lines.join('\n')));
        } else {
            showStatus(tr("Imported %1").arg(path));
        }
        return true;
    } catch (const std::exception& e) {
        reportError(QString::fromUtf8(e.what()));
        return false;
    }
}

bool MainWindow::savePresetAs(const QString& chosen) {
    // A name typed without an extension gets the preset's.
    const QString path = QFileInfo(chosen).suffix().isEmpty() ? chosen + ".auglab.json" : chosen;
    try {
        doc_.save(path);
    } catch (const std::exception& e) {
        reportError(tr("Not saved: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    addRecent(path);
    showStatus(tr("Saved %1").arg(path));
    return true;
}

QString MainWindow::suggestedPresetName() const {
    // The preset's own name as a file name ("default" -> default.auglab.json).
    QString name = QString::fromStdString(doc_.preset().name).trimmed();
    name.replace(QRegularExpression(R"([^A-Za-z0-9._-]+)"), "-");
    return (name.isEmpty() ? QString("untitled") : name) + ".auglab.json";
}

void MainWindow::addRecent(const QString& path) {
    QSettings s;
    QStringList recent = s.value("recentPresets").toStringList();
    recent.removeAll(path);
    recent.prepend(QFileInfo(path).absoluteFilePath());
    while (recent.size() > 10) recent.removeLast();
    s.setValue("recentPresets", recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    const QStringList recent = QSettings().value("recentPresets").toStringList();
    for (const QString& p : recent)
        recentMenu_
            ->addAction(QFileInfo(p).fileName(), this,
                        [this, p] {
                            if (maybeSave()) openPreset(p);
                        })
            ->setToolTip(p);
    recentMenu_->setEnabled(!recent.isEmpty());
}

bool MainWindow::maybeSave() {
    if (!doc_.isDirty()) return true;
    const auto answer =
        QMessageBox::question(this, tr("AugLab"), tr("The pipeline has unsaved changes. Save them?"),
                              QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Cancel) return false;
    if (answer == QMessageBox::Discard) return true;
    QString p = doc_.filePath();
    if (p.isEmpty()) p = QFileDialog::getSaveFileName(this, tr("Save preset"), suggestedPresetName());
    return !p.isEmpty() && savePresetAs(p);
}

void MainWindow::closeEvent(QCloseEvent* e) {
    if (!maybeSave()) {
        e->ignore();
        return;
    }
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    s.setValue("window/state", saveState());
    s.setValue("view/grid", gridCombo_->currentData().toInt());
    s.setValue("view/backend", backendCombo_->currentData().toString());
    doc_.discardAutosave();  // a clean exit: nothing to recover next time
    e->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    QStringList paths;
    for (const QUrl& u : e->mimeData()->urls())
        if (u.isLocalFile()) paths << u.toLocalFile();
    if (!paths.isEmpty()) openImages(paths);
    e->acceptProposedAction();
}

}  // namespace auglab
