#include "main_window.h"

#include <cmath>
#include <random>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QImageReader>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QResizeEvent>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QValidator>

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

/// Name filters from core's list of image extensions ("*.png", ...).
QStringList imageNameFilters() {
    QStringList filters;
    for (const std::string& e : imageExtensions()) filters << QStringLiteral("*") + QString::fromStdString(e);
    return filters;
}
const QStringList kImageFilters = imageNameFilters();

bool isPresetFile(const QString& path) {
    return path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive);
}

QString defaultAutosavePath() {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QDir().mkpath(dir);
    return dir + "/autosave.auglab.json";
}

}  // namespace

MainWindow::MainWindow(const MainWindowOptions& options, QWidget* parent) : QMainWindow(parent) {
    setObjectName("mainWindow");
    setAcceptDrops(true);
    setMinimumSize(900, 600);
    resize(1400, 900);

    // The grid, under a strip of the loaded images: a click picks the one the single-image modes show.
    auto* centre = new QWidget(this);
    auto* centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(0, 0, 0, 0);
    centreLayout->setSpacing(0);
    strip_ = new QListWidget(centre);
    strip_->setObjectName("imageStrip");
    strip_->setViewMode(QListView::IconMode);
    strip_->setFlow(QListView::LeftToRight);
    strip_->setWrapping(false);
    strip_->setMovement(QListView::Static);
    strip_->setIconSize(QSize(56, 42));
    strip_->setFixedHeight(84);
    strip_->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    strip_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    strip_->setToolTip(tr("The loaded images: click one to show its samples"));
    strip_->hide();
    connect(strip_, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { setCurrentImage(strip_->row(item)); });
    centreLayout->addWidget(strip_);
    grid_ = new PreviewGrid(centre);
    grid_->setObjectName("previewGrid");
    centreLayout->addWidget(grid_, 1);
    setCentralWidget(centre);

    editor_ = new PipelineEditor(&doc_, this);
    editor_->setObjectName("pipelineEditor");
    auto* editorDock = editorDock_ = new QDockWidget(tr("Pipeline"), this);
    editorDock->setObjectName("pipelineDock");
    editorDock->setWidget(editor_);
    editorDock->setMinimumWidth(380);
    addDockWidget(Qt::LeftDockWidgetArea, editorDock);

    distribution_ = new DistributionView(this);
    distribution_->setObjectName("distribution");
    auto* distDock = distDock_ = new QDockWidget(tr("Distribution"), this);
    distDock->setObjectName("distributionDock");
    distDock->setWidget(distribution_);
    addDockWidget(Qt::LeftDockWidgetArea, distDock);

    costMeter_ = new CostMeter(this);
    costMeter_->setObjectName("costMeter");
    auto* costDock = costDock_ = new QDockWidget(tr("Cost at training size"), this);
    costDock->setObjectName("costDock");
    costDock->setWidget(costMeter_);
    addDockWidget(Qt::LeftDockWidgetArea, costDock);

    inspector_ = new InspectorDialog(this);
    // Messages stay until the next one replaces them, in a label of their own (elided, the whole
    // text in its tooltip), left of the permanent render-time and cost labels: never cut off by a
    // timer, never drawn over another text.
    messageLabel_ = new QLabel(this);
    messageLabel_->setObjectName("statusMessage");
    messageLabel_->setMinimumWidth(80);
    messageLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    messageLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusBar()->addWidget(messageLabel_, 1);
    // Images of this page that could not be shown: a count that stays, the list on click.
    skippedButton_ = new QToolButton(this);
    skippedButton_->setObjectName("skipped");
    skippedButton_->setAutoRaise(true);
    skippedButton_->hide();
    connect(skippedButton_, &QToolButton::clicked, this,
            [this] { QMessageBox::information(this, tr("Images not shown"), skippedList_.join("\n\n")); });
    statusBar()->addPermanentWidget(skippedButton_);
    // One height whatever the bar shows (a message or none, the skipped button or not): a bar that
    // grows would resize the grid, and every resize renders it again.
    skippedButton_->setMaximumHeight(fontMetrics().height() + 6);
    statusBar()->setFixedHeight(fontMetrics().height() + 12);
    realismLabel_ = new QLabel(this);
    realismLabel_->setObjectName("realism");
    statusBar()->addPermanentWidget(realismLabel_);
    labelsLabel_ = new QLabel(this);
    labelsLabel_->setObjectName("labelStatistic");
    statusBar()->addPermanentWidget(labelsLabel_);
    renderLabel_ = new QLabel(this);
    renderLabel_->setObjectName("renderTime");
    statusBar()->addPermanentWidget(renderLabel_);
    costLabel_ = new QLabel(this);
    costLabel_->setObjectName("costSummary");
    statusBar()->addPermanentWidget(costLabel_);
    connect(costMeter_, &CostMeter::summaryChanged, this, [this] {
        costLabel_->setText(costMeter_->summary());
        costLabel_->setToolTip(costMeter_->summaryToolTip());
        costLabel_->setStyleSheet(costMeter_->starving() ? "color: #c62828;" : "");
    });

    buildMenus();
    buildToolbar();
    editorDock->toggleViewAction()->setText(tr("Pipeline editor"));
    distDock->toggleViewAction()->setText(tr("Distribution"));
    costDock->toggleViewAction()->setText(tr("Cost meter"));
    // The editor gets the height: the distribution view is empty until a parameter is clicked.
    resizeDocks({editorDock, distDock, costDock}, {640, 110, 170}, Qt::Vertical);
    resizeDocks({editorDock}, {520}, Qt::Horizontal);  // room for the sliders' tracks
    // Every panel and the toolbar can come back from the View menu, and the layout be reset.
    viewMenu_->addSeparator();
    for (QDockWidget* d : {editorDock, distDock, costDock}) viewMenu_->addAction(d->toggleViewAction());
    viewMenu_->addAction(toolbar_->toggleViewAction());
    viewMenu_->addAction(labelsBar_->toggleViewAction());
    QAction* reset = viewMenu_->addAction(tr("&Reset Layout"), this, &MainWindow::resetLayout);
    reset->setObjectName("resetLayout");

    connect(&doc_, &PipelineDocument::changed, this, [this] {
        const QString seed = QString::number(doc_.preset().seed);
        if (seedEdit_->text() != seed) seedEdit_->setText(seed);
        costMeter_->setPipeline(doc_.preset().pipeline, doc_.preset().seed);
        requestRender();
    });
    connect(&doc_, &PipelineDocument::editRefused, this, [this](const QString& why) { showStatus(why); });
    connect(&doc_, &PipelineDocument::dirtyChanged, this, &MainWindow::updateTitle);
    connect(&doc_, &PipelineDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(&service_, &RenderService::gridRendered, this, &MainWindow::showGrid, Qt::QueuedConnection);
    connect(&service_, &RenderService::sampleRendered, this, &MainWindow::showSample, Qt::QueuedConnection);
    connect(editor_, &PipelineEditor::paramSelected, this, &MainWindow::updateDistribution);
    connect(editor_, &PipelineEditor::findEdgeRequested, this,
            [this](int op, const QString& key) { findTheEdge(op, key); });
    connect(grid_, &PreviewGrid::resized, this, &MainWindow::requestRender);  // tiles follow their shown size
    connect(grid_, &PreviewGrid::tileClicked, this, [this](int t) {
        if (t < 0 || t >= int(tiles_.size()) || tiles_[std::size_t(t)].sourceIndex < 0) return;
        const SheetTile& tile = tiles_[std::size_t(t)];
        SampleRequest r;
        r.ticket = ++sampleTicket_;
        r.pipeline = doc_.preset().pipeline;
        r.seed = doc_.preset().seed;
        r.index = tile.sampleIndex;
        r.original = tile.original;
        r.file = tileFiles_.value(t);
        inspectedFile_ = r.file;
        // The partners of mixing ops: the same pool as the grid's, the file at its place in it.
        r.partnerFiles = files_;
        r.self = std::uint64_t(std::max<qsizetype>(0, files_.indexOf(r.file)));
        service_.submitSample(std::move(r));
    });

    doc_.setAutosavePath(options.autosavePath.isEmpty() ? defaultAutosavePath() : options.autosavePath);
    if (doc_.hasRecoverableAutosave()) {
        try {
            doc_.recoverAutosave();
            recovered_ = true;
            showStatus(tr("Recovered the unsaved pipeline of the last session"));
        } catch (const std::exception& e) {
            reportError(tr("Could not recover the autosaved pipeline: %1").arg(QString::fromUtf8(e.what())));
        }
    }
    defaultState_ = saveState();  // what Reset Layout goes back to
    if (options.restoreLayout) {
        QSettings s;
        restoreGeometry(s.value("window/geometry").toByteArray());
        restoreState(s.value("window/state").toByteArray());
        // The grid size and the backend chosen last time.
        if (const int i = gridCombo_->findData(s.value("view/grid", 8).toInt()); i >= 0)
            gridCombo_->setCurrentIndex(i);
        if (const int i = backendCombo_->findData(s.value("view/backend", "auto").toString()); i >= 0) {
            auto* model = qobject_cast<QStandardItemModel*>(backendCombo_->model());
            if (!model || model->item(i)->isEnabled()) backendCombo_->setCurrentIndex(i);
        }
    }
    seedEdit_->setText(QString::number(doc_.preset().seed));
    costMeter_->setPipeline(doc_.preset().pipeline, doc_.preset().seed);
    updateTitle();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* openPresetAction = file->addAction(tr("&Open Preset…"), this, [this] {
        const QString p =
            QFileDialog::getOpenFileName(this, tr("Open preset"), QString(), tr("AugLab presets (*.json)"));
        if (!p.isEmpty() && maybeSave()) openPreset(p);
    });
    openPresetAction->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open &Images…"), QKeySequence(tr("Ctrl+I")), this, [this] {
        const QStringList f = QFileDialog::getOpenFileNames(this, tr("Open images"), QString(),
                                                            tr("Images (%1)").arg(kImageFilters.join(' ')));
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
        if (!p.isEmpty()) importAlbumentationsFile(p);
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

QString MainWindow::labelStatistic() const {
    return labelsLabel_->text();
}

std::shared_ptr<const MainWindow::CachedLabels> MainWindow::labelsOf(const QString& file, int width,
                                                                     int height, int level) {
    if (!labels_) return nullptr;
    if (const auto it = targetsCache_.constFind(file);
        it != targetsCache_.constEnd() && (!*it || (*it)->level == level))
        return *it;
    std::shared_ptr<CachedLabels> c;
    try {
        LabelReport report;
        Targets t = labels_->labelsFor(file.toStdString(), width, height, report);
        for (const std::string& s : report.skipped) labelProblems_ << QString::fromStdString(s);
        // Only the level the tiles need is kept: a page of camera-size masks at full resolution would
        // not fit in memory (a COCO image's instances are a mask each).
        c = std::make_shared<CachedLabels>();
        c->level = level;
        c->width = width;
        c->height = height;
        c->masks = reduceMasks(t.masks, level);
        t.masks.clear();
        c->targets = std::move(t);
    } catch (const std::exception& e) {
        labelProblems_
            << tr("%1: labels not read: %2").arg(QFileInfo(file).fileName(), QString::fromUtf8(e.what()));
    }
    targetsCache_.insert(file, c);
    return c;
}

PartnerLabelsFn MainWindow::partnerLabels() {
    // Held while a grid's overlays are made: the labels a partner lends stay alive until then.
    auto held = std::make_shared<std::vector<std::shared_ptr<const CachedLabels>>>();
    return [this, held](std::uint64_t index) -> std::optional<PartnerLabels> {
        if (index >= std::uint64_t(files_.size())) return std::nullopt;
        const QString file = files_[int(index)];
        ImageInfo info;
        try {
            info = probeImage(file.toStdString());
        } catch (const std::exception&) {
            return std::nullopt;
        }
        const auto c = labelsOf(file, info.width, info.height, maskLevelFor(info.width, info.height, tilePixels()));
        if (!c) return std::nullopt;
        held->push_back(c);
        return PartnerLabels{&c->targets, c->width, c->height};
    };
}

std::shared_ptr<const Targets> MainWindow::targetsOf(const QString& file, int width, int height) {
    const auto c = labelsOf(file, width, height, maskLevelFor(width, height, tilePixels()));
    return c ? std::shared_ptr<const Targets>(c, &c->targets) : nullptr;
}

void MainWindow::updateOverlays() {
    std::vector<TileOverlay> overlays;
    if (labels_) {
        const TargetSettings rules = doc_.preset().targets.value_or(TargetSettings{});
        const bool masks = grid_->overlayStyle().masks;
        const int problemsBefore = int(labelProblems_.size());
        const PartnerLabelsFn partners = partnerLabels();
        for (std::size_t i = 0; i < tiles_.size(); ++i) {
            const SheetTile& t = tiles_[i];
            if (t.sourceIndex < 0 || !t.error.empty()) continue;
            const int level =
                maskLevelFor(t.replay.imageWidth, t.replay.imageHeight, std::max(t.width, t.height));
            const auto cached =
                labelsOf(tileFiles_.value(int(i)), t.replay.imageWidth, t.replay.imageHeight, level);
            if (!cached) continue;
            try {
                // The original of compare mode has no ops: its labels as they are.
                TileOverlay o = tileOverlay(t, cached->targets, rules, masks, &cached->masks, level, partners);
                o.tile = int(i);
                overlays.push_back(std::move(o));
            } catch (const std::exception& e) {
                labelProblems_ << tr("%1: %2").arg(QFileInfo(tileFiles_.value(int(i))).fileName(),
                                                   QString::fromUtf8(e.what()));
            }
        }
        // The cache holds this page's images only.
        for (auto it = targetsCache_.begin(); it != targetsCache_.end();)
            it = tileFiles_.contains(it.key()) || it.key() == inspectedFile_ ? std::next(it)
                                                                             : targetsCache_.erase(it);
        labelProblems_.removeDuplicates();
        if (labelProblems_.size() > problemsBefore)
            showStatus(tr("%n label(s) could not be used (the first: %1)", "", int(labelProblems_.size()))
                           .arg(labelProblems_.first()));
        const BoxStats st = boxStats(overlays);
        if (st.in > 0)
            labelsLabel_->setText(tr("boxes: %1 of %2 kept (%3%), median visibility %4")
                                      .arg(st.kept)
                                      .arg(st.in)
                                      .arg(100.0 * double(st.kept) / double(st.in), 0, 'f', 0)
                                      .arg(st.medianVisibility, 0, 'f', 2));
        else
            labelsLabel_->clear();
        labelsLabel_->setToolTip(
            tr("Over this page's samples: the boxes the preset's targets rules keep, and "
               "the share of each kept object still in the image (median)"));
    } else {
        labelsLabel_->clear();
    }
    QStringList names;
    std::vector<std::pair<int, int>> skeleton;
    if (labels_) {
        for (const std::string& n : labels_->classNames()) names << QString::fromStdString(n);
        // COCO's skeleton (1-based keypoint numbers) of the first category that has one.
        if (const CocoLabels* coco = labels_->coco())
            for (const auto& c : coco->categories())
                if (c.is_object() && c.contains("skeleton") && c["skeleton"].is_array()) {
                    for (const auto& bone : c["skeleton"])
                        if (bone.is_array() && bone.size() == 2 && bone[0].is_number_integer() &&
                            bone[1].is_number_integer())
                            skeleton.emplace_back(bone[0].get<int>() - 1, bone[1].get<int>() - 1);
                    if (!skeleton.empty()) break;
                }
    }
    grid_->setOverlays(std::move(overlays), names, std::move(skeleton));
}

void MainWindow::updateRealism() {
    // Badges on tiles past the threshold; the page's median in the status bar.
    const double threshold = realismThreshold_->value() / 100.0;
    std::vector<std::pair<int, QString>> badges;
    std::vector<double> shares;
    for (std::size_t i = 0; i < tiles_.size(); ++i) {
        const SheetTile& t = tiles_[i];
        if (t.invented < 0 || t.original) continue;
        shares.push_back(t.invented);
        if (t.invented > threshold)
            badges.emplace_back(int(i), QString("%1%").arg(int(std::lround(100 * t.invented))));
    }
    realismLabel_->setToolTip(
        tr("Share of each tile's pixels that are invented (border fill or reflection, dropout "
           "holes), computed from its plan"));
    if (shares.empty()) {
        realismLabel_->clear();
    } else {
        std::sort(shares.begin(), shares.end());
        const std::size_t n = shares.size();
        const double median = n % 2 ? shares[n / 2] : 0.5 * (shares[n / 2 - 1] + shares[n / 2]);
        realismLabel_->setText(tr("invented: median %1%, %2 of %3 tiles ≥ %4%")
                                   .arg(100 * median, 0, 'f', 1)
                                   .arg(badges.size())
                                   .arg(n)
                                   .arg(realismThreshold_->value()));
    }
    grid_->setBadges(std::move(badges));
}

Range MainWindow::findTheEdge(int op, const QString& key) {
    const auto& pipeline = doc_.preset().pipeline;
    if (files_.isEmpty() || op < 0 || op >= int(pipeline.size())) return {};
    const Range before = pipeline[std::size_t(op)].range(key.toStdString());
    Range edge = before;
    try {
        const ImageInfo info = probeImage(files_.value(current_, files_.first()).toStdString());
        edge =
            auglab::findTheEdge(pipeline, std::size_t(op), key.toStdString(), doc_.preset().seed, info.width,
                                info.height, realismThreshold_->value() / 100.0, edgeShare_->value() / 100.0);
    } catch (const std::exception& e) {
        reportError(tr("Find the edge: %1").arg(QString::fromUtf8(e.what())));
        return before;
    }
    const QString name = QString::fromStdString(pipeline[std::size_t(op)].name()) + "." + key;
    if (edge == before) {
        showStatus(tr("%1 is already at the edge: more than %2% of samples have over %3% invented pixels")
                       .arg(name)
                       .arg(edgeShare_->value())
                       .arg(realismThreshold_->value()));
        return edge;
    }
    doc_.setParam(op, key.toStdString(), edge);  // one undoable edit
    showStatus(tr("%1 widened to [%2, %3]: at most %4% of 64 samples over %5% invented (Ctrl+Z restores it)")
                   .arg(name)
                   .arg(edge.min)
                   .arg(edge.max)
                   .arg(edgeShare_->value())
                   .arg(realismThreshold_->value()));
    return edge;
}

void MainWindow::updateTitle() {
    setWindowTitle(doc_.displayName() + QStringLiteral(" — AugLab"));  // the name carries the " *"
}

void MainWindow::showStatus(const QString& message) {
    messageLabel_->setToolTip(message);
    messageLabel_->setText(message);
    statusMessage_ = message;
    QFontMetrics fm(messageLabel_->font());
    messageLabel_->setText(fm.elidedText(message, Qt::ElideRight, std::max(80, messageLabel_->width())));
}

QString MainWindow::statusMessage() const {
    return statusMessage_;
}

void MainWindow::resizeEvent(QResizeEvent* e) {
    QMainWindow::resizeEvent(e);
    if (messageLabel_ && !statusMessage_.isEmpty()) showStatus(statusMessage_);  // elided for the new width
}

void MainWindow::reportError(const QString& message) {
    lastError_ = message;
    showStatus(message);
    if (isVisible()) {
        // Non-blocking, so the app (and a test driving it) keeps running.
        auto* box = new QMessageBox(QMessageBox::Warning, tr("AugLab"), message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setObjectName("errorMessage");
        box->open();
    }
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
    targetsCache_.clear();
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
    targetsCache_.clear();
    labelProblems_.clear();
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
            labels_ = std::make_shared<const LabelledDataset>(std::move(*found));
            for (const auto& f : labelledImages(dir.toStdString(), *labels_))
                images << QString::fromStdString(f.string());
            for (const std::string& s : report.skipped) labelProblems_ << QString::fromStdString(s);
        }
    } catch (const std::exception& e) {
        reportError(tr("The labels of '%1' cannot be read: %2").arg(dir, QString::fromUtf8(e.what())));
        labels_.reset();
    }
    if (!labels_)
        for (const QString& f : d.entryList(kImageFilters, QDir::Files, QDir::Name | QDir::IgnoreCase))
            images << d.absoluteFilePath(f);
    labelsBar_->setVisible(labels_ != nullptr);
    if (images.isEmpty()) {
        reportError(tr("No images in '%1'").arg(dir));
        return false;
    }
    files_ = images;
    page_ = 0;
    current_ = 0;
    setMode(SheetMode::Dataset);
    fillStrip();  // after the mode: showing the strip resizes the grid, which renders again
    if (labels_)
        showStatus(tr("%1 images in %2, labels: %3 (%n classes)", "", int(labels_->classNames().size()))
                       .arg(images.size())
                       .arg(dir)
                       .arg(labelFormatName(labels_->format())) +
                   (labelProblems_.isEmpty()
                        ? QString()
                        : tr("; %n label(s) skipped (the first: %1)", "", int(labelProblems_.size()))
                              .arg(labelProblems_.first())));
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
        doc_.applyEdit(r.preset, tr("Import %1").arg(QFileInfo(path).fileName()));  // undoable like any edit
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

void MainWindow::reroll() {
    if (lock_->isChecked()) return;
    std::random_device rd;
    const quint64 seed = (quint64(rd()) << 32 | rd()) % 10000000000ull;
    doc_.setSeed(seed);
}

void MainWindow::setSeedLocked(bool locked) {
    if (lock_->isChecked() != locked) lock_->setChecked(locked);
    rerollAction_->setEnabled(!locked);
    seedEdit_->setReadOnly(locked);
}

bool MainWindow::setBackend(const QString& name) {
    const int i = backendCombo_->findData(name);
    if (i < 0) return false;
    if (auto* model = qobject_cast<QStandardItemModel*>(backendCombo_->model()))
        if (!model->item(i)->isEnabled()) return false;
    backendCombo_->setCurrentIndex(i);
    return true;
}

void MainWindow::setGrid(int cols, int rows) {
    cols_ = std::clamp(cols, 2, 16);
    rows_ = std::clamp(rows, 2, 16);
    const int i = gridCombo_->findData(cols_);
    if (i >= 0 && i != gridCombo_->currentIndex()) gridCombo_->setCurrentIndex(i);
    requestRender();
}

void MainWindow::fillStrip() {
    strip_->clear();
    thumbnailsLoaded_ = 0;
    for (const QString& f : files_) {
        auto* item = new QListWidgetItem(QFileInfo(f).fileName(), strip_);
        item->setToolTip(f);
        item->setSizeHint(QSize(76, 62));
    }
    strip_->setVisible(files_.size() > 1);
    markCurrentImage();
    loadThumbnails();
}

void MainWindow::loadThumbnails() {
    // A few per turn of the event loop, so a large folder does not freeze the window; the
    // decoders scale JPEGs down as they read them.
    const int end = std::min<int>(int(files_.size()), std::min(thumbnailsLoaded_ + 8, 500));
    for (; thumbnailsLoaded_ < end; ++thumbnailsLoaded_) {
        QImageReader reader(files_[thumbnailsLoaded_]);
        const QSize size = reader.size();
        if (size.isValid()) reader.setScaledSize(size.scaled(strip_->iconSize(), Qt::KeepAspectRatio));
        const QImage thumb = reader.read();
        if (QListWidgetItem* item = strip_->item(thumbnailsLoaded_))
            item->setIcon(thumb.isNull() ? style()->standardIcon(QStyle::SP_MessageBoxWarning)
                                         : QIcon(QPixmap::fromImage(thumb)));
    }
    if (thumbnailsLoaded_ < std::min<int>(int(files_.size()), 500))
        QTimer::singleShot(0, this, &MainWindow::loadThumbnails);
}

void MainWindow::markCurrentImage() {
    for (int i = 0; i < strip_->count(); ++i) {
        QFont f = strip_->item(i)->font();
        f.setBold(i == current_);
        strip_->item(i)->setFont(f);
    }
    if (QListWidgetItem* item = strip_->item(current_)) {
        strip_->setCurrentItem(item);
        strip_->scrollToItem(item);
    }
}

void MainWindow::setCurrentImage(int index) {
    if (index < 0 || index >= files_.size()) return;
    current_ = index;
    markCurrentImage();
    // Choosing an image means looking at its samples: the dataset batch gives way to them.
    if (mode_ == SheetMode::Dataset)
        setMode(SheetMode::Samples);
    else
        requestRender();
}

void MainWindow::setMode(SheetMode mode) {
    mode_ = mode;
    const int i = modeCombo_->findData(int(mode));
    if (i != modeCombo_->currentIndex()) modeCombo_->setCurrentIndex(i);
    page_ = std::min(page_, pageCount() - 1);
    requestRender();
}

qint64 MainWindow::pageCount() const {
    if (mode_ != SheetMode::Dataset) return std::numeric_limits<qint64>::max() / 2;  // samples never run out
    const qint64 n = cols_ * rows_;
    return std::max<qint64>(1, (files_.size() + n - 1) / n);
}

void MainWindow::setPage(qint64 page) {
    page_ = std::clamp<qint64>(page, 0, pageCount() - 1);
    requestRender();
}

int MainWindow::tilePixels() const {
    // Tiles are rendered at the size they are shown (device pixels), never larger than needed.
    const double dpr = grid_->devicePixelRatioF();
    const int w = int(grid_->width() * dpr) / cols_, h = int(grid_->height() * dpr) / rows_;
    return std::clamp(std::min(w, h) - 2, 32, 1024);
}

void MainWindow::requestRender() {
    if (files_.isEmpty() || !pageLabel_) return;
    const QString shown = files_.value(current_, files_.first());  // the image of the single-image modes
    costMeter_->setSourceFile(shown);  // the image the cost meter resizes and augments
    if (sizedFor_ != shown) {
        // Sliders of pixel sizes span a share of the image shown (its header: no decoding).
        sizedFor_ = shown;
        try {
            const ImageInfo info = probeImage(sizedFor_.toStdString());
            editor_->setImageSize(info.width, info.height);
        } catch (const std::exception&) {
            editor_->setImageSize(0, 0);  // unreadable: the grid says why; the sliders keep their span
        }
    }
    GridRequest r;
    r.generation = ++generation_;
    r.pipeline = doc_.preset().pipeline;
    r.options.cols = cols_;
    r.options.rows = rows_;
    r.options.tile = tilePixels();
    r.options.seed = doc_.preset().seed;
    r.options.page = std::uint64_t(page_);
    r.options.mode = mode_;
    r.backend = backendCombo_->currentData().toString();
    if (mode_ == SheetMode::Dataset) {
        const qint64 n = cols_ * rows_;
        r.files = files_.mid(page_ * n, n);
        r.options.partnerFirst = std::uint64_t(page_ * n);
    } else {
        r.files = QStringList{shown};
        r.options.partnerFirst = std::uint64_t(current_);  // its place in the pool of partners
    }
    // Mixing ops take partners from every image loaded (the folder, in dataset mode).
    r.partnerFiles = files_;
    r.options.partnerPool = std::uint64_t(files_.size());
    noteWeakMixes();
    pageLabel_->setText(mode_ == SheetMode::Dataset ? tr(" page %1 / %2 ").arg(page_ + 1).arg(pageCount())
                                                    : tr(" page %1 ").arg(page_ + 1));
    service_.submitGrid(std::move(r));
}

void MainWindow::showGrid(const GridResult& r) {
    if (r.generation <= shownGeneration_) return;  // an older request finished late: drop it
    for (const QString& e : r.errors)
        if (!reportedErrors_.contains(e)) {
            reportedErrors_ << e;
            showStatus(e);
            lastError_ = e;
        }
    if (r.image.isNull() && !r.glTexture) return;
    shownGeneration_ = r.generation;
    tiles_ = r.tiles;
    tileFiles_ = r.tileFiles;
    lastMs_ = r.milliseconds;
    lastBackend_ = r.backend;
    std::vector<QRect> rects;
    QStringList labels;
    std::vector<int> placeholders;
    QStringList skipped;
    for (std::size_t i = 0; i < tiles_.size(); ++i) {
        const SheetTile& t = tiles_[i];
        rects.emplace_back(t.x, t.y, t.width, t.height);
        const QString file = QFileInfo(tileFiles_.value(int(i))).fileName();
        if (t.sourceIndex >= 0 && !t.error.empty()) {
            // A placeholder that says why, instead of a silently empty cell.
            placeholders.push_back(int(i));
            labels << tr("%1: not shown: %2").arg(file, QString::fromStdString(t.error));
            skipped << labels.back();
            continue;
        }
        labels << (t.sourceIndex < 0 ? QString()
                   : t.original      ? tr("original — %1").arg(file)
                                : tr("sample %1 — %2 (click to inspect)").arg(t.sampleIndex).arg(file));
    }
    grid_->setPlaceholders(std::move(placeholders));
    updateRealism();
    skipped.removeDuplicates();
    skippedButton_->setVisible(!skipped.isEmpty());
    skippedButton_->setText(tr("%n skipped", "", int(skipped.size())));
    skippedButton_->setToolTip(skipped.join('\n'));
    skippedList_ = skipped;
    if (r.glTexture)
        grid_->setSheetTexture(r.glTexture, r.sheetSize, std::move(rects), labels);
    else
        grid_->setSheet(r.image, std::move(rects), labels);
    renderLabel_->setText(tr("%1 ms on %2").arg(r.milliseconds, 0, 'f', 1).arg(r.backend.toUpper()));
    updateOverlays();
    updateDistribution();
    emit gridShown(r.generation);
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::ShortcutOverride) {
        // A line edit claims the undo keys for its own history. Once its edit is committed (Enter
        // in a number field) the keys are the document's: the window's Undo / Redo shortcuts run.
        // The key goes to the focus widget: a number field (which hands it to its line edit
        // itself) or a plain line edit.
        auto* widget = qobject_cast<QWidget*>(watched);
        auto* key = static_cast<QKeyEvent*>(event);
        // A spin box's line edit stands for the spin box.
        QObject* field = watched;
        if (auto* edit = qobject_cast<QLineEdit*>(watched);
            edit && qobject_cast<QAbstractSpinBox*>(edit->parent()))
            field = edit->parent();
        bool committed = false;
        if (auto* d = qobject_cast<QDoubleSpinBox*>(field)) {
            // A number field holds an edit while its text is not its value's (Enter commits it).
            committed = d->hasAcceptableInput() && d->valueFromText(d->cleanText()) == d->value();
        } else if (auto* i = qobject_cast<QSpinBox*>(field)) {
            committed = i->cleanText() == QString::number(i->value());
        } else if (auto* edit = qobject_cast<QLineEdit*>(field)) {
            committed = !edit->isUndoAvailable();
        }
        const bool undoRedo = key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo);
        if (undoRedo && committed && isAncestorOf(widget)) {
            event->ignore();  // not claimed by the field: the window's shortcut runs
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::showSample(const SampleResult& r) {
    if (r.ticket != sampleTicket_) return;
    if (!r.error.isEmpty()) {
        reportError(r.error);
        return;
    }
    const QFileInfo source(inspectedFile_);
    inspector_->setSuggestedName(
        QString("%1_sample%2.png").arg(source.completeBaseName()).arg(r.replay.index));
    inspector_->showSample(
        tr("Sample %1 (seed %2) of %3").arg(r.replay.index).arg(r.replay.seed).arg(source.fileName()),
        r.image, QString::fromStdString(serializeReplay(r.replay)), labelWeights(r.replay));
    // The sample's labels: kept ones solid, dropped ones dashed with the rule that dropped them.
    const auto targets = targetsOf(inspectedFile_, r.replay.imageWidth, r.replay.imageHeight);
    if (!targets || targets->empty()) return;
    MovedTargets moved;
    try {
        moved = moveTargets(r.replay, doc_.preset().targets.value_or(TargetSettings{}), *targets, partnerLabels());
    } catch (const std::exception& e) {
        inspector_->setAnnotations(
            {}, tr("Labels not moved: %1").arg(QString::fromUtf8(e.what()).toHtmlEscaped()));
        return;
    }
    QImage overlay(r.image.size(), QImage::Format_ARGB32_Premultiplied);
    overlay.fill(Qt::transparent);
    QPainter p(&overlay);
    p.setRenderHint(QPainter::Antialiasing);
    const double sx = double(r.image.width()) / std::max(1, moved.width);
    const double sy = double(r.image.height()) / std::max(1, moved.height);
    auto name = [&](int label) {
        return label >= 0 && std::size_t(label) < targets->classNames.size()
                   ? QString::fromStdString(targets->classNames[std::size_t(label)])
                   : QString::number(label);
    };
    auto colour = [](int label) {
        const Rgb c = classColour(label);
        return QColor(c[0], c[1], c[2]);
    };
    QStringList lines;
    lines << tr("<b>Boxes</b>: %1 of %2 kept").arg(moved.boxes.size()).arg(targets->boxes.size());
    for (const Box& b : moved.boxes) {
        const QRectF rect(b.x0 * sx, b.y0 * sy, (b.x1 - b.x0) * sx, (b.y1 - b.y0) * sy);
        p.setPen(QPen(colour(b.label), 3));
        p.drawRect(rect);
        p.drawText(rect.topLeft() + QPointF(4, 14), name(b.label));
        lines << tr("%1 [%2, %3, %4, %5], visible %6%")
                     .arg(name(b.label).toHtmlEscaped())
                     .arg(b.x0, 0, 'f', 1)
                     .arg(b.y0, 0, 'f', 1)
                     .arg(b.x1, 0, 'f', 1)
                     .arg(b.y1, 0, 'f', 1)
                     .arg(100 * b.visibility, 0, 'f', 0);
    }
    for (const DroppedBox& d : moved.droppedBoxes) {
        const double dx = double(r.image.width()) / std::max(1, d.frameWidth);
        const double dy = double(r.image.height()) / std::max(1, d.frameHeight);
        const QRectF rect(d.box.x0 * dx, d.box.y0 * dy, (d.box.x1 - d.box.x0) * dx,
                          (d.box.y1 - d.box.y0) * dy);
        p.setPen(QPen(colour(d.box.label), 2, Qt::DashLine));
        p.drawRect(rect);
        const QString rule = QString::fromUtf8(dropRuleName(d.rule));
        p.drawText(rect.topLeft() + QPointF(4, 14), name(d.box.label) + ": " + rule);
        const QString where =
            d.op < r.replay.ops.size()
                ? tr(" after %1").arg(QString::fromStdString(opDesc(r.replay.ops[d.op].id).name))
                : QString();
        lines << tr("<i>dropped</i>: %1 (%2%3)")
                     .arg(name(d.box.label).toHtmlEscaped(), rule.toHtmlEscaped(), where);
    }
    if (!targets->keypoints.empty()) {
        lines << tr("<b>Keypoints</b>: %1 of %2 kept")
                     .arg(moved.keypoints.size())
                     .arg(targets->keypoints.size());
        for (const Keypoint& k : moved.keypoints) {
            p.setPen(QPen(Qt::white, 1));
            p.setBrush(colour(k.label));
            p.drawEllipse(QPointF((k.x + 0.5) * sx, (k.y + 0.5) * sy), 4, 4);
        }
    }
    p.end();
    inspector_->setAnnotations(overlay, lines.join("<br>"));
}

QString MainWindow::labelWeights(const Replay& replay) const {
    // What a training loss weighs the labels by: this image's and the partner's share.
    QStringList lines;
    for (const ConcreteOp& op : replay.ops) {
        const auto* m = std::get_if<MixParams>(&op.params);
        if (!m || !op.applied) continue;
        const QString partner = QFileInfo(files_.value(int(m->partner))).fileName();
        lines << tr("<b>%1</b>: label weights %2 this image, %3 %4")
                     .arg(QString::fromStdString(opRegistry()[std::size_t(op.id)].name))
                     .arg(m->effectiveLambda, 0, 'f', 3)
                     .arg(1.0 - m->effectiveLambda, 0, 'f', 3)
                     .arg(partner.isEmpty() ? tr("the partner") : partner.toHtmlEscaped());
    }
    return lines.join("<br>");
}

void MainWindow::noteWeakMixes() {
    // With one image loaded, a mixing op's partner is the image itself: nothing changes.
    bool mixes = false;
    for (const OpConfig& op : doc_.preset().pipeline) mixes = mixes || (op.enabled && op.desc().usesPartner);
    const bool weak = mixes && files_.size() == 1;
    if (weak && !weakMixNoted_)
        showStatus(
            tr("Mixing ops: one image is loaded, so its partner is itself and the effect is "
               "invisible. Open more images or a folder to mix with other images."));
    weakMixNoted_ = weak;
}

void MainWindow::updateDistribution() {
    const int op = editor_->selectedOp();
    const QString key = editor_->selectedKey();
    const auto& pipeline = doc_.preset().pipeline;
    if (op < 0 || op >= int(pipeline.size()) || key.isEmpty()) return;
    const OpConfig& c = pipeline[std::size_t(op)];
    const ParamDesc* pd = c.desc().param(key.toStdString());
    if (!pd) return;
    std::vector<double> values;
    int applied = 0, samples = 0;
    for (const SheetTile& t : tiles_) {
        if (t.sourceIndex < 0 || t.original || std::size_t(op) >= t.replay.ops.size()) continue;
        ++samples;
        const ConcreteOp& cop = t.replay.ops[std::size_t(op)];
        applied += cop.applied;
        int frameW = 0, frameH = 0;  // the size this op saw (an op that sets the frame before it changes it)
        auglab::frameSize(t.replay, std::size_t(op), frameW, frameH);
        const auto v = drawnValues(cop, key.toStdString(), frameW, frameH);
        values.insert(values.end(), v.begin(), v.end());
    }
    double lo = pd->lower, hi = pd->upper;
    if (c.has(pd->key) && (pd->kind == ParamKind::FloatRange || pd->kind == ParamKind::IntRange)) {
        const Range r = c.range(pd->key);
        lo = r.min;
        hi = r.max;
    }
    distribution_->setData(QString::fromStdString(c.name() + "." + pd->key), std::move(values), applied,
                           samples, lo, hi);
}

void MainWindow::resetLayout() {
    restoreState(defaultState_);
    for (QDockWidget* d : {editorDock_, distDock_, costDock_}) d->show();
    toolbar_->show();
    labelsBar_->setVisible(labels_ != nullptr);  // on its own row, when the folder has labels
    resizeDocks({editorDock_, distDock_, costDock_}, {640, 110, 170}, Qt::Vertical);
    resizeDocks({editorDock_}, {520}, Qt::Horizontal);
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
