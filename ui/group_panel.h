#pragma once
// The header of a group in the pipeline editor: its kind (one_of, some_of, sequential,
// random_order), whether it is on, its p (a weight inside a one_of), n and replacement for the kinds
// that draw n children, how often something in it ran on the page, and buttons that collapse it,
// wrap it in another group or ungroup it. Its children follow it in the editor, indented.

#include <QFrame>

#include "pipeline.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QToolButton;

namespace auglab {

class PipelineDocument;

class GroupPanel : public QFrame {
    Q_OBJECT

public:
    GroupPanel(PipelineDocument* doc, int group, QWidget* parent = nullptr);

    int groupIndex() const { return group_; }
    /// Shows the document's current values.
    void refresh();
    bool collapsed() const { return collapsed_; }
    void setCollapsed(bool on);
    /// Something in the group ran in `runs` of the page's `samples` (0 samples: unknown).
    void setRuns(int runs, int samples);

signals:
    void collapsedChanged(bool collapsed);

private:
    const OpGroup& group() const;

    PipelineDocument* doc_;
    int group_;
    bool collapsed_ = false;
    QToolButton* collapse_ = nullptr;
    QCheckBox* enabled_ = nullptr;
    QComboBox* kind_ = nullptr;
    QLabel* pLabel_ = nullptr;
    QDoubleSpinBox* p_ = nullptr;
    QLabel* nLabel_ = nullptr;
    QSpinBox* n_ = nullptr;
    QCheckBox* replace_ = nullptr;
    QLabel* help_ = nullptr;
    QLabel* runs_ = nullptr;
};

/// The sentence that says what a group of `kind` does with its children (the editor's help line).
QString groupKindHelp(GroupKind kind);

}  // namespace auglab
