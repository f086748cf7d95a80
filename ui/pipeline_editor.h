#pragma once
// The pipeline as a column of OpPanels plus an "Add op" menu; a group is a GroupPanel followed by its
// children, indented (collapsible). Panels are rebuilt only when the list of ops or the groups'
// structure changes; value edits refresh them in place, so a slider keeps its drag.

#include <vector>

#include <QWidget>

#include "pipeline.h"

class QVBoxLayout;
class QToolButton;
class QScrollArea;

namespace auglab {

class GroupPanel;
class OpPanel;
class PipelineDocument;

class PipelineEditor : public QWidget {
    Q_OBJECT

public:
    explicit PipelineEditor(PipelineDocument* doc, QWidget* parent = nullptr);

    OpPanel* panel(int op) const;
    GroupPanel* groupPanel(int group) const;
    /// How often each op and each group ran on the page (MainWindow::updateRunCounts): shown on the
    /// groups and the ops inside them.
    void setRunCounts(const std::vector<int>& opRuns, const std::vector<int>& groupRuns, int samples);
    int selectedOp() const { return selectedOp_; }
    QString selectedKey() const { return selectedKey_; }
    void selectParam(int op, const QString& key);
    /// The current image's size: sliders of pixel sizes span a share of it.
    void setImageSize(int width, int height);
    /// The op highlighted after it was added or moved (-1: none), for tests.
    int highlightedOp() const { return highlighted_; }

signals:
    void paramSelected(int op, const QString& key);
    void findEdgeRequested(int op, const QString& key);

private:
    void sync();
    /// Scrolls op `op` into view and highlights it briefly.
    void showPlaced(int op);
    void rebuild();
    /// Adds the rows of `node`'s children at `depth`, under the groups `ancestors`.
    void addRows(const PipelineNode& node, int depth, std::vector<int>& ancestors);
    void applyCollapse();
    static bool sameStructure(const Pipeline& a, const Pipeline& b);

    PipelineDocument* doc_;
    QVBoxLayout* column_ = nullptr;
    std::vector<OpPanel*> panels_;
    std::vector<GroupPanel*> groupPanels_;
    /// Every row of the column (a panel in an indenting container) and the groups it sits in.
    struct Row {
        QWidget* container;
        std::vector<int> ancestors;
    };
    std::vector<Row> rows_;
    std::vector<bool> collapsed_;  // per group, kept while the structure stays
    Pipeline shown_;               // the ops as the panels show them: only changed panels refresh
    int selectedOp_ = -1;
    int imageWidth_ = 0, imageHeight_ = 0;
    QScrollArea* scroll_ = nullptr;
    int highlighted_ = -1;
    QString selectedKey_;
};

}  // namespace auglab
