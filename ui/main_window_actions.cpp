// MainWindow's menus and toolbars: the actions a user reaches, and the labels toolbar of a
// labelled folder (main_window.cpp builds the window and shows the grid; main_window_files.cpp opens
// and saves).

#include "main_window.h"

#include <cmath>
#include <random>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
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

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* openPresetAction = file->addAction(tr("&Open Preset…"), this, [this] {
        const QString p =
            QFileDialog::getOpenFileName(this, tr("Open preset"), QString(), tr("AugLab presets (*.json)"));
        if (!p.isEmpty() && maybeSave()) openPreset(p);
    });
    openPresetAction->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open &Images…"), QKeySequence(tr("Ctrl+I")), this, [this] {
        const QStringList f = QFileDialog::getOpenFileNames(
            this, tr("Open images"), QString(), tr("Images (%1)").arg(imageNameFilters().join(' ')));
        if (!f.isEmpty()) openImages(f);
    });
    file->addAction(tr("Open &Folder…"), QKeySequence(tr("Ctrl+Shift+O")), this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Open a dataset folder"));
        if (!d.isEmpty()) openFolder(d);
    });
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    file->addSeparator();
    QAction* save = file->addAction(tr("&Save Preset"), this, [this] {
        if (doc_.filePath().isEmpty()) {
            const QString p = QFileDialog::getSaveFileName(this, tr("Save preset"), suggestedPresetName(),
                                                           tr("AugLab presets (*.json)"));
            if (!p.isEmpty()) savePresetAs(p);
        } else {
            savePresetAs(doc_.filePath());
        }
    });
    save->setShortcut(QKeySequence::Save);
    QAction* saveAs = file->addAction(tr("Save Preset &As…"), this, [this] {
        const QString p = QFileDialog::getSaveFileName(
            this, tr("Save preset as"), doc_.filePath().isEmpty() ? suggestedPresetName() : doc_.filePath(),
            tr("AugLab presets (*.json)"));
        if (!p.isEmpty()) savePresetAs(p);
    });
    saveAs->setShortcut(QKeySequence::SaveAs);
    file->addSeparator();
    file->addAction(tr("&Export…"), QKeySequence(tr("Ctrl+E")), this, [this] {
        auto* dialog = new ExportDialog(doc_.preset(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &ExportDialog::exported, this, [this](const QString& path, int warnings) {
            showStatus(warnings
                           ? tr("Exported %1 (%2 warnings, written into the file)").arg(path).arg(warnings)
                           : tr("Exported %1").arg(path));
        });
        dialog->open();
    });
    file->addAction(tr("&Import Albumentations…"), this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Import an Albumentations file"), QString(),
                                                       tr("Albumentations JSON (*.json)"));
        // The import is a pipeline of its own, like a preset opened: unsaved changes first.
        if (!p.isEmpty() && maybeSave()) importAlbumentationsFile(p);
    });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    qApp->installEventFilter(this);  // Ctrl+Z in a committed number field goes to the document
    QAction* undo = doc_.undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = doc_.undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts({QKeySequence(tr("Ctrl+Shift+Z")), QKeySequence(tr("Ctrl+Y"))});
    edit->addAction(undo);
    edit->addAction(redo);

    QMenu* view = viewMenu_ = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Next Page"), QKeySequence(Qt::Key_PageDown), this, [this] { setPage(page_ + 1); });
    view->addAction(tr("&Previous Page"), QKeySequence(Qt::Key_PageUp), this, [this] { setPage(page_ - 1); });
}

void MainWindow::buildToolbar() {
    QToolBar* bar = toolbar_ = addToolBar(tr("Preview"));
    bar->setObjectName("previewToolbar");
    bar->addWidget(new QLabel(tr(" Seed "), bar));
    seedEdit_ = new QLineEdit(bar);
    seedEdit_->setObjectName("seed");
    seedEdit_->setValidator(new QRegularExpressionValidator(QRegularExpression("[0-9]{1,19}"), seedEdit_));
    seedEdit_->setMaximumWidth(170);
    connect(seedEdit_, &QLineEdit::editingFinished, this, [this] {
        bool ok = false;
        const quint64 s = seedEdit_->text().toULongLong(&ok);
        if (ok) doc_.setSeed(s);
    });
    bar->addWidget(seedEdit_);
    rerollAction_ = bar->addAction(tr("Reroll"), this, &MainWindow::reroll);
    rerollAction_->setObjectName("reroll");
    rerollAction_->setShortcut(QKeySequence(Qt::Key_F5));
    rerollAction_->setToolTip(tr("New random seed (F5)"));
    lock_ = new QCheckBox(tr("Lock"), bar);
    lock_->setObjectName("lockSeed");
    lock_->setToolTip(tr("Keep this seed: reroll is off and the field is read-only"));
    connect(lock_, &QCheckBox::toggled, this, &MainWindow::setSeedLocked);
    bar->addWidget(lock_);
    bar->addSeparator();

    bar->addWidget(new QLabel(tr(" Grid "), bar));
    gridCombo_ = new QComboBox(bar);
    gridCombo_->setObjectName("gridSize");
    for (int n : {2, 3, 4, 6, 8, 10, 12, 16}) gridCombo_->addItem(QString("%1 x %1").arg(n), n);
    gridCombo_->setCurrentIndex(gridCombo_->findData(8));
    connect(gridCombo_, &QComboBox::currentIndexChanged, this, [this](int) {
        const int n = gridCombo_->currentData().toInt();
        setGrid(n, n);
    });
    bar->addWidget(gridCombo_);
    modeCombo_ = new QComboBox(bar);
    modeCombo_->setObjectName("mode");
    modeCombo_->addItem(tr("One image, many samples"), int(SheetMode::Samples));
    modeCombo_->addItem(tr("Dataset batch"), int(SheetMode::Dataset));
    modeCombo_->addItem(tr("Original beside augmented"), int(SheetMode::Compare));
    connect(modeCombo_, &QComboBox::currentIndexChanged, this,
            [this](int) { setMode(SheetMode(modeCombo_->currentData().toInt())); });
    bar->addWidget(modeCombo_);
    bar->addAction(tr("◀"), this, [this] { setPage(page_ - 1); })->setToolTip(tr("Previous page (PgUp)"));
    pageLabel_ = new QLabel(bar);
    pageLabel_->setObjectName("page");
    bar->addWidget(pageLabel_);
    bar->addAction(tr("▶"), this, [this] { setPage(page_ + 1); })->setToolTip(tr("Next page (PgDown)"));
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Backend "), bar));
    backendCombo_ = new QComboBox(bar);
    backendCombo_->setObjectName("backend");
    backendCombo_->addItem(tr("Auto"), "auto");
    backendCombo_->addItem(tr("CPU"), "cpu");
    // GPU backends are listed with their state; unavailable ones are greyed out with the reason.
    for (const BackendInfo& info : backendInfos()) {
        if (info.name == "cpu") continue;
        backendCombo_->addItem(QString::fromStdString(info.name).toUpper(),
                               QString::fromStdString(info.name));
        const int i = backendCombo_->count() - 1;
        backendCombo_->setItemData(i, QString::fromStdString(info.detail), Qt::ToolTipRole);
        if (!info.available)
            if (auto* model = qobject_cast<QStandardItemModel*>(backendCombo_->model()))
                model->item(i)->setEnabled(false);
    }
    backendCombo_->setToolTip(
        tr("Auto picks %1 here").arg(QString::fromStdString(autoBackendName()).toUpper()));
    connect(backendCombo_, &QComboBox::currentIndexChanged, this, [this](int) { requestRender(); });
    bar->addWidget(backendCombo_);
    bar->addSeparator();

    // The realism meter: tiles with more invented pixels than this get a badge; "find the edge"
    // widens a range until more than the second share of samples pass it.
    bar->addWidget(new QLabel(tr(" Flag ≥ "), bar));
    realismThreshold_ = new QSpinBox(bar);
    realismThreshold_->setObjectName("realismThreshold");
    realismThreshold_->setRange(1, 100);
    realismThreshold_->setValue(30);
    realismThreshold_->setSuffix(tr("% invented"));
    realismThreshold_->setToolTip(
        tr("Tiles with more invented pixels (border fill or reflection, dropout holes) "
           "than this show a badge"));
    connect(realismThreshold_, &QSpinBox::valueChanged, this, [this] { updateRealism(); });
    bar->addWidget(realismThreshold_);
    bar->addWidget(new QLabel(tr(" edge at "), bar));
    edgeShare_ = new QSpinBox(bar);
    edgeShare_->setObjectName("edgeShare");
    edgeShare_->setRange(1, 100);
    edgeShare_->setValue(10);
    edgeShare_->setSuffix(tr("% of samples"));
    edgeShare_->setToolTip(
        tr("Find the edge (right-click a range's name) widens it until more than this share of "
           "samples is flagged"));
    bar->addWidget(edgeShare_);

    // Labels of a labelled dataset: what is drawn over the tiles (shown once a folder has labels).
    addToolBarBreak();  // a row of its own: the preview toolbar already fills the width
    labelsBar_ = addToolBar(tr("Labels"));
    labelsBar_->setObjectName("labelsToolbar");
    labelsBar_->addWidget(new QLabel(tr(" Labels: "), labelsBar_));
    auto toggle = [this](const QString& text, const char* name, const QString& tip) {
        QAction* a = labelsBar_->addAction(text);
        a->setObjectName(name);
        a->setCheckable(true);
        a->setChecked(true);
        a->setToolTip(tip);
        connect(a, &QAction::toggled, this, [this] {
            setOverlayStyle({showBoxes_->isChecked(), showKeypoints_->isChecked(), showMasks_->isChecked(),
                             maskOpacity_->value() / 100.0});
        });
        return a;
    };
    showBoxes_ = toggle(tr("Boxes"), "showBoxes", tr("Draw each sample's boxes where its ops moved them"));
    showKeypoints_ = toggle(tr("Keypoints"), "showKeypoints", tr("Draw each sample's keypoints"));
    showMasks_ = toggle(tr("Masks"), "showMasks", tr("Draw each sample's masks over it"));
    labelsBar_->addWidget(new QLabel(tr(" opacity "), labelsBar_));
    maskOpacity_ = new QSpinBox(labelsBar_);
    maskOpacity_->setObjectName("maskOpacity");
    maskOpacity_->setRange(0, 100);
    maskOpacity_->setValue(45);
    maskOpacity_->setSuffix(tr("%"));
    maskOpacity_->setToolTip(tr("How strongly the masks cover the pixels"));
    connect(maskOpacity_, &QSpinBox::valueChanged, this, [this](int v) {
        OverlayStyle s = grid_->overlayStyle();
        s.opacity = v / 100.0;
        setOverlayStyle(s);
    });
    labelsBar_->addWidget(maskOpacity_);
    labelsBar_->addSeparator();
    QAction* rules = labelsBar_->addAction(tr("Rules…"), this, [this] {
        if (!rulesDialog_) rulesDialog_ = new TargetRulesDialog(doc_, this);
        rulesDialog_->load();
        rulesDialog_->show();
        rulesDialog_->raise();
    });
    rules->setObjectName("labelRules");
    rules->setToolTip(
        tr("Which boxes and keypoints survive (min visibility, min area, ...): the preset's "
           "targets section"));
    labelsBar_->hide();
}

void MainWindow::setOverlayStyle(const OverlayStyle& style) {
    const QSignalBlocker b1(showBoxes_), b2(showKeypoints_), b3(showMasks_), b4(maskOpacity_);
    showBoxes_->setChecked(style.boxes);
    showKeypoints_->setChecked(style.keypoints);
    showMasks_->setChecked(style.masks);
    maskOpacity_->setValue(int(std::lround(style.opacity * 100)));
    const bool masksBefore = grid_->overlayStyle().masks;
    grid_->setOverlayStyle(style);
    if (style.masks && !masksBefore) updateOverlays();  // masks are moved only while shown
}

}  // namespace auglab
