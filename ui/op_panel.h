#pragma once
// The controls of one op, generated from its OpDesc: a header (enable, move, reset, remove), a
// probability slider and one row per parameter. Edits go to the PipelineDocument; a drag of a
// slider carries one merge key so the whole drag is one undo step.

#include <functional>
#include <vector>

#include <QFrame>

#include "pipeline.h"

class QCheckBox;
class QSlider;
class QDoubleSpinBox;
class QLabel;

namespace auglab {

class PipelineDocument;

class OpPanel : public QFrame {
    Q_OBJECT

public:
    OpPanel(PipelineDocument* doc, int opIndex, QWidget* parent = nullptr);

    int opIndex() const { return op_; }
    /// Shows the document's current values (without echoing edits back); widgets being dragged keep
    /// their own position.
    void refresh();
    /// The image the sliders of pixel sizes are spanned for (its longer side); 0: unknown.
    void setImageSize(int width, int height);
    /// A highlight (a coloured frame) that shows where an added or moved op landed.
    void setHighlighted(bool on);
    bool highlighted() const { return highlighted_; }
    /// How often the op ran on the page (shown for ops in groups: which child a group chose); 0
    /// samples hides it.
    void setRuns(int runs, int samples);
    /// Highlights the row of `key` (the parameter shown in the distribution view), "" for none.
    void setSelectedKey(const QString& key);

signals:
    void paramSelected(int op, const QString& key);
    /// "Find the edge" was asked for range parameter `key` (its label's context menu).
    void findEdgeRequested(int op, const QString& key);

private:
    const OpConfig& config() const;
    QWidget* buildRow(const ParamDesc& pd);

    PipelineDocument* doc_;
    int op_;
    QCheckBox* enabled_ = nullptr;
    QSlider* probability_ = nullptr;
    QDoubleSpinBox* probabilityField_ = nullptr;
    QWidget* body_ = nullptr;  // the probability and parameter rows
    int probabilityKey_ = 0;
    std::vector<std::function<void()>> refreshers_;
    std::vector<std::function<void(int)>> imageSpans_;
    bool highlighted_ = false;  // sliders of pixel sizes: span for a longer side  //
                                // one per row: pull values from the document
    std::vector<std::pair<QString, QWidget*>> rowLabels_;
    QLabel* runs_ = nullptr;
    QLabel* pLabel_ = nullptr;
};

}  // namespace auglab
