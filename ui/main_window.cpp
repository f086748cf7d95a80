// The main window: building it, rendering the grid and the inspector's sample, the realism meter,
// the distribution view and the labels drawn on tiles (menus and toolbars: main_window_actions.cpp;
// files: main_window_files.cpp; dataset labels: page_labels.cpp).

#include "main_window.h"

#include <algorithm>
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
        updateTitle();  // an untitled document is named by its preset, which an import replaces
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

QString MainWindow::labelStatistic() const {
    return labelsLabel_->text();
}

void MainWindow::updateOverlays() {
    std::vector<TileOverlay> overlays;
    if (labels_.dataset()) {
        const int problemsBefore = int(labels_.problems().size());
        overlays = labels_.overlays(tiles_, tileFiles_, doc_.preset().targets.value_or(TargetSettings{}),
                                    grid_->overlayStyle().masks, files_, tilePixels(), inspectedFile_);
        const QStringList& problems = labels_.problems();
        if (problems.size() > problemsBefore)
            showStatus(tr("%n label(s) could not be used (the first: %1)", "", int(problems.size()))
                           .arg(problems.first()));
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
    grid_->setOverlays(std::move(overlays), labels_.classNames(), labels_.skeleton());
}

void MainWindow::updateRealism() {
    // Badges on tiles past the threshold; the page's median in the status bar. A placeholder
    // (a tile not rendered, its plan known or not) is no sample shown.
    const double threshold = realismThreshold_->value() / 100.0;
    std::vector<std::pair<int, QString>> badges;
    std::vector<double> shares;
    for (std::size_t i = 0; i < tiles_.size(); ++i) {
        const SheetTile& t = tiles_[i];
        if (t.invented < 0 || t.original || !t.error.empty()) continue;
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
    QStringList reasons;
    QStringList skipped;
    for (std::size_t i = 0; i < tiles_.size(); ++i) {
        const SheetTile& t = tiles_[i];
        rects.emplace_back(t.x, t.y, t.width, t.height);
        const QString file = QFileInfo(tileFiles_.value(int(i))).fileName();
        if (t.sourceIndex >= 0 && !t.error.empty()) {
            // A placeholder that says why, instead of a silently empty cell: in the cell, the
            // reason without the file's path, which a load error starts with.
            placeholders.push_back(int(i));
            const QString reason = QString::fromStdString(t.error);
            const QString path = QStringLiteral("'%1': ").arg(tileFiles_.value(int(i)));
            labels << tr("%1: not shown: %2").arg(file, reason);
            reasons << (reason.startsWith(path) ? reason.mid(path.size()) : reason);
            skipped << labels.back();
            continue;
        }
        labels << (t.sourceIndex < 0 ? QString()
                   : t.original      ? tr("original — %1").arg(file)
                                : tr("sample %1 — %2 (click to inspect)").arg(t.sampleIndex).arg(file));
    }
    grid_->setPlaceholders(std::move(placeholders), std::move(reasons));
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
    updateRunCounts();
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
    const auto targets =
        labels_.targetsOf(inspectedFile_, r.replay.imageWidth, r.replay.imageHeight, tilePixels());
    if (!targets || targets->empty()) return;
    MovedTargets moved;
    try {
        moved = moveTargets(r.replay, doc_.preset().targets.value_or(TargetSettings{}), *targets,
                            labels_.partners(files_, tilePixels()));
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

void MainWindow::updateRunCounts() {
    // How often each op, and something in each group, ran in the page's samples: the editor shows it
    // on the ops and groups of groups (which children a one_of or some_of chose).
    const Pipeline& pipeline = doc_.preset().pipeline;
    std::vector<int> opRuns(pipeline.size(), 0), groupRuns(pipeline.groups().size(), 0);
    int samples = 0;
    for (const SheetTile& t : tiles_) {
        if (t.sourceIndex < 0 || t.original || !t.error.empty()) continue;  // placeholders ran nothing
        ++samples;
        std::vector<bool> ran(pipeline.size(), false);
        for (const ConcreteOp& c : t.replay.ops)
            if (c.applied && c.position < ran.size()) ran[c.position] = true;
        for (std::size_t i = 0; i < ran.size(); ++i) opRuns[i] += ran[i];
        for (std::size_t g = 0; g < groupRuns.size(); ++g) {
            const OpGroup& grp = pipeline.groups()[g];
            groupRuns[g] += std::any_of(ran.begin() + std::ptrdiff_t(grp.first),
                                        ran.begin() + std::ptrdiff_t(grp.end()), [](bool b) { return b; });
        }
    }
    editor_->setRunCounts(opRuns, groupRuns, samples);
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
        if (t.sourceIndex < 0 || t.original || !t.error.empty()) continue;  // placeholders drew nothing shown
        ++samples;
        bool ran = false;
        // The op's entries (two where a some_of drew it twice), wherever its group ran it.
        for (std::size_t k = 0; k < t.replay.ops.size(); ++k) {
            const ConcreteOp& cop = t.replay.ops[k];
            if (cop.position != std::uint32_t(op) || !cop.applied) continue;
            ran = true;
            int frameW = 0,
                frameH = 0;  // the size this op saw (an op that sets the frame before it changes it)
            auglab::frameSize(t.replay, k, frameW, frameH);
            const auto v = drawnValues(cop, key.toStdString(), frameW, frameH);
            values.insert(values.end(), v.begin(), v.end());
        }
        applied += ran;
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
    labelsBar_->setVisible(labels_.dataset() != nullptr);  // on its own row, when the folder has labels
    resizeDocks({editorDock_, distDock_, costDock_}, {640, 110, 170}, Qt::Vertical);
    resizeDocks({editorDock_}, {520}, Qt::Horizontal);
}

}  // namespace auglab
