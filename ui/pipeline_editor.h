#pragma once
// The pipeline as a column of OpPanels plus an "Add op" menu. Panels are rebuilt only when the
// list of ops changes; value edits refresh them in place, so a slider keeps its drag.

#include <vector>

#include <QWidget>

#include "pipeline.h"

class QVBoxLayout;
class QToolButton;
class QScrollArea;

namespace auglab {

class OpPanel;
class PipelineDocument;

class PipelineEditor : public QWidget {
    Q_OBJECT

public:
    explicit PipelineEditor(PipelineDocument* doc, QWidget* parent = nullptr);

    OpPanel* panel(int op) const;
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

    PipelineDocument* doc_;
    QVBoxLayout* column_ = nullptr;
    std::vector<OpPanel*> panels_;
    Pipeline shown_;  // the ops as the panels show them: only changed panels refresh
    int selectedOp_ = -1;
    int imageWidth_ = 0, imageHeight_ = 0;
    QScrollArea* scroll_ = nullptr;
    int highlighted_ = -1;
    QString selectedKey_;
};

}  // namespace auglab
