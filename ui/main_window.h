#pragma once
// The AugLab window: the preview grid in the centre, the pipeline editor and the distribution view
// and the cost meter in docks, seed and paging in the toolbar, render time and augmentation cost in
// the status bar.

#include <QHash>
#include <QMainWindow>
#include <QStringList>

#include "annotations.h"
#include "contact_sheet.h"
#include "page_labels.h"
#include "pipeline_document.h"
#include "preview_grid.h"
#include "render_service.h"

class QComboBox;
class QSpinBox;
class QLineEdit;
class QLabel;
class QAction;
class QMenu;
class QCheckBox;
class QDockWidget;
class QListWidget;
class QToolBar;
class QToolButton;

namespace auglab {

class CostMeter;
class PreviewGrid;
class PipelineEditor;
class DistributionView;
class InspectorDialog;
class TargetRulesDialog;

struct MainWindowOptions {
    QString autosavePath;  ///< where the working pipeline is autosaved ("" = the default location)
    bool restoreLayout = true;
};

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(const MainWindowOptions& options = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Actions, also used by the command line, drag and drop and tests. They report errors in the
    // window (status bar and a non-blocking message) and return false.
    bool openImages(const QStringList& files);
    bool openFolder(const QString& dir);
    bool openPreset(const QString& path);
    bool savePresetAs(const QString& path);
    /// Replaces the pipeline with an imported Albumentations file (one undo step), untitled: Save
    /// asks for a name. Keys without an AugLab equivalent are listed to the user.
    bool importAlbumentationsFile(const QString& path);
    void reroll();
    void setSeedLocked(bool locked);
    void setGrid(int cols, int rows);
    void setMode(SheetMode mode);
    void setPage(qint64 page);

    PipelineDocument* document() { return &doc_; }
    PreviewGrid* grid() const { return grid_; }
    PipelineEditor* editor() const { return editor_; }
    /// The status bar's message (whole, as shown elided).
    QString statusMessage() const;
    /// This page's images that could not be shown, each with its reason.
    QStringList skippedImages() const { return skippedList_; }
    /// The file name a first save suggests: the preset's name.
    QString suggestedPresetName() const;
    /// The image the single-image modes show (the image strip's choice; 0 after opening).
    int currentImage() const { return current_; }
    void setCurrentImage(int index);
    /// Widens range `key` of op `op` to the edge of realism (realism.h findTheEdge, on the image shown,
    /// the toolbar's threshold and share) as one undoable edit; returns the range now in place.
    Range findTheEdge(int op, const QString& key);
    DistributionView* distribution() const { return distribution_; }
    InspectorDialog* inspector() const { return inspector_; }
    CostMeter* costMeter() const { return costMeter_; }
    SheetMode mode() const { return mode_; }
    const QStringList& files() const { return files_; }
    QString lastError() const { return lastError_; }
    quint64 shownGeneration() const { return shownGeneration_; }
    double lastRenderMilliseconds() const { return lastMs_; }
    QString lastBackend() const { return lastBackend_; }
    /// Chooses the backend by name ("auto", "cpu", "gl", "cuda"); false when it is not listed or
    /// not available here.
    bool setBackend(const QString& name);
    const std::vector<SheetTile>& shownTiles() const { return tiles_; }
    bool recoveredAutosave() const { return recovered_; }
    /// The labels of the folder opened (a YOLO, COCO, Pascal VOC or masks/ dataset), or null.
    const LabelledDataset* labels() const { return labels_.dataset(); }
    /// What the labels toolbar shows: which targets are drawn, the masks' opacity.
    void setOverlayStyle(const OverlayStyle& style);
    /// The label rules dialog (the preset's targets section), once opened.
    TargetRulesDialog* labelRules() const { return rulesDialog_; }
    /// The page's label statistic as the status bar shows it ("boxes: 41 of 48 kept, …").
    QString labelStatistic() const;

signals:
    /// A rendered grid is on screen (after the texture update was requested).
    void gridShown(quint64 generation);

protected:
    void closeEvent(QCloseEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    /// Ctrl+Z (and redo) in a number field: the field's own undo while it holds an edit not yet
    /// committed, the document's once it has none (after Enter).
    bool eventFilter(QObject* watched, QEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void buildMenus();
    void buildToolbar();
    void requestRender();
    void showGrid(const GridResult& r);
    void showSample(const SampleResult& r);
    void updateTitle();
    void updateDistribution();
    void updateRunCounts();
    void reportError(const QString& message);
    /// The realism badges and the page's median, for the tiles shown and the threshold set.
    void updateRealism();
    /// The image strip: one item per loaded image, thumbnails loaded a few at a time.
    void fillStrip();
    void loadThumbnails();
    void markCurrentImage();
    /// Shows `message` in the status bar until the next one replaces it.
    void showStatus(const QString& message);
    /// Every panel and the toolbar back where they were at start (View > Reset Layout).
    void resetLayout();
    /// Each tile's labels moved by its sample (labelled datasets), drawn by the grid; the page's
    /// statistic in the status bar.
    void updateOverlays();
    /// The label weights of the sample's mixing ops, for the inspector.
    QString labelWeights(const Replay& replay) const;
    /// Tells the user once when a mixing op's partner can only be the image itself.
    void noteWeakMixes();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    bool maybeSave();
    /// Name filters of the image files AugLab reads ("*.png", ...).
    static QStringList imageNameFilters();
    int tilePixels() const;
    qint64 pageCount() const;

    PipelineDocument doc_;
    RenderService service_;
    PreviewGrid* grid_ = nullptr;
    PipelineEditor* editor_ = nullptr;
    DistributionView* distribution_ = nullptr;
    InspectorDialog* inspector_ = nullptr;
    CostMeter* costMeter_ = nullptr;
    QLineEdit* seedEdit_ = nullptr;
    QCheckBox* lock_ = nullptr;
    QAction* rerollAction_ = nullptr;
    QComboBox* gridCombo_ = nullptr;
    QComboBox* modeCombo_ = nullptr;
    QComboBox* backendCombo_ = nullptr;
    QLabel* pageLabel_ = nullptr;
    QLabel* renderLabel_ = nullptr;
    QLabel* costLabel_ = nullptr;
    QMenu* recentMenu_ = nullptr;

    QStringList files_;
    int cols_ = 8, rows_ = 8;
    SheetMode mode_ = SheetMode::Samples;
    qint64 page_ = 0;
    quint64 generation_ = 0;
    quint64 shownGeneration_ = 0;
    quint64 sampleTicket_ = 0;
    double lastMs_ = 0;
    QString lastBackend_;
    std::vector<SheetTile> tiles_;
    QStringList tileFiles_;
    QString lastError_;
    QStringList reportedErrors_;
    bool recovered_ = false;
    bool weakMixNoted_ = false;
    QLabel* messageLabel_ = nullptr;
    QToolButton* skippedButton_ = nullptr;
    QStringList skippedList_;
    QSpinBox* realismThreshold_ = nullptr;
    QSpinBox* edgeShare_ = nullptr;
    QLabel* realismLabel_ = nullptr;
    QLabel* labelsLabel_ = nullptr;
    QToolBar* labelsBar_ = nullptr;
    QAction *showBoxes_ = nullptr, *showKeypoints_ = nullptr, *showMasks_ = nullptr;
    QSpinBox* maskOpacity_ = nullptr;
    TargetRulesDialog* rulesDialog_ = nullptr;
    PageLabels labels_;
    QListWidget* strip_ = nullptr;
    int current_ = 0;
    int thumbnailsLoaded_ = 0;  // this page's images not shown, with the reason
    QString statusMessage_;
    QString sizedFor_;
    QString inspectedFile_;
    QDockWidget *editorDock_ = nullptr, *distDock_ = nullptr, *costDock_ = nullptr;
    QToolBar* toolbar_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    QByteArray defaultState_;  // the image of the sample the inspector was asked for  // the image the
                               // editor's pixel sliders are spanned for
};

}  // namespace auglab
