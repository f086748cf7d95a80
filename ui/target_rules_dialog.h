#pragma once
// The preset's targets section, edited: which boxes and keypoints survive the ops (Albumentations
// 2.0.8's BboxParams and KeypointParams) and the masks' fill. Every change is an undoable edit of
// the document, applied at once, so the grid's labels and the page's statistic follow it.

#include <QDialog>

#include "targets.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace auglab {

class PipelineDocument;

class TargetRulesDialog : public QDialog {
    Q_OBJECT

public:
    explicit TargetRulesDialog(PipelineDocument& doc, QWidget* parent = nullptr);
    /// Shows the document's rules (the defaults when the preset has no targets section yet).
    void load();
    /// The rules the fields hold now.
    TargetSettings rules() const;

private:
    void apply();

    PipelineDocument& doc_;
    bool loading_ = false;
    int mergeKey_ = 0;
    const QObject* lastField_ = nullptr;  // the field the last edit came from
    QComboBox *boxFormat_ = nullptr, *keypointFormat_ = nullptr;
    QDoubleSpinBox *minArea_ = nullptr, *minVisibility_ = nullptr, *minWidth_ = nullptr,
                   *minHeight_ = nullptr, *maxRatio_ = nullptr;
    QCheckBox *clip_ = nullptr, *filterInvalid_ = nullptr, *checkEach_ = nullptr, *removeInvisible_ = nullptr,
              *angleDegrees_ = nullptr;
    QSpinBox* maskFill_ = nullptr;
};

}  // namespace auglab
