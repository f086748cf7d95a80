#include "target_rules_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include "pipeline_document.h"

namespace auglab {

TargetRulesDialog::TargetRulesDialog(PipelineDocument& doc, QWidget* parent) : QDialog(parent), doc_(doc) {
    setWindowTitle(tr("Label rules"));
    setObjectName("targetRules");
    auto* layout = new QVBoxLayout(this);
    auto* intro =
        new QLabel(tr("Which boxes and keypoints survive the ops, as Albumentations 2.0.8's BboxParams "
                      "and KeypointParams decide (exported with the preset)."),
                   this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    layout->addLayout(form);
    auto number = [this](const char* name, double lo, double hi, double step, int decimals,
                         const QString& tip) {
        auto* s = new QDoubleSpinBox(this);
        s->setObjectName(name);
        s->setRange(lo, hi);
        s->setSingleStep(step);
        s->setDecimals(decimals);
        s->setToolTip(tip);
        connect(s, &QDoubleSpinBox::valueChanged, this, &TargetRulesDialog::apply);
        return s;
    };
    auto flag = [this](const char* name, const QString& text, const QString& tip) {
        auto* c = new QCheckBox(text, this);
        c->setObjectName(name);
        c->setToolTip(tip);
        connect(c, &QCheckBox::toggled, this, &TargetRulesDialog::apply);
        return c;
    };
    boxFormat_ = new QComboBox(this);
    boxFormat_->setObjectName("boxFormat");
    for (const char* f : {"pascal_voc", "coco", "yolo", "albumentations"}) boxFormat_->addItem(f);
    boxFormat_->setToolTip(tr("How your training code writes boxes (bbox_params.format in the export)"));
    connect(boxFormat_, &QComboBox::currentIndexChanged, this, &TargetRulesDialog::apply);
    form->addRow(tr("Box format"), boxFormat_);
    minArea_ =
        number("minArea", 0, 1e9, 16, 1, tr("Boxes with a smaller area in pixels (after clipping) go"));
    form->addRow(tr("Min area (px²)"), minArea_);
    minVisibility_ = number("minVisibility", 0, 1, 0.05, 2,
                            tr("Boxes that keep a smaller share of their area in the image after an op go"));
    form->addRow(tr("Min visibility"), minVisibility_);
    minWidth_ = number("minWidth", 0, 1e5, 1, 1, tr("Boxes narrower than this (pixels, clipped) go"));
    form->addRow(tr("Min width (px)"), minWidth_);
    minHeight_ = number("minHeight", 0, 1e5, 1, 1, tr("Boxes lower than this (pixels, clipped) go"));
    form->addRow(tr("Min height (px)"), minHeight_);
    maxRatio_ = number("maxAcceptRatio", 0, 1e5, 0.5, 1, tr("Boxes longer than this times their width go"));
    maxRatio_->setSpecialValueText(tr("no limit"));  // 0: none
    form->addRow(tr("Max aspect ratio"), maxRatio_);
    clip_ = flag("clip", tr("Clip boxes to the image first"), tr("BboxParams(clip=True)"));
    form->addRow(QString(), clip_);
    filterInvalid_ = flag("filterInvalid", tr("Drop invalid boxes instead of failing"),
                          tr("BboxParams(filter_invalid_bboxes=True)"));
    form->addRow(QString(), filterInvalid_);
    checkEach_ = flag("checkEachTransform", tr("Filter after every op"),
                      tr("check_each_transform: filter after every op, not only at the end"));
    form->addRow(QString(), checkEach_);
    keypointFormat_ = new QComboBox(this);
    keypointFormat_->setObjectName("keypointFormat");
    for (const char* f : {"xy", "yx", "xya", "xys", "xyas", "xysa"}) keypointFormat_->addItem(f);
    connect(keypointFormat_, &QComboBox::currentIndexChanged, this, &TargetRulesDialog::apply);
    form->addRow(tr("Keypoint format"), keypointFormat_);
    removeInvisible_ = flag("removeInvisible", tr("Drop keypoints that leave the image"),
                            tr("KeypointParams(remove_invisible=True)"));
    form->addRow(QString(), removeInvisible_);
    angleDegrees_ = flag("angleInDegrees", tr("Keypoint angles in degrees"), tr("angle_in_degrees"));
    form->addRow(QString(), angleDegrees_);
    maskFill_ = new QSpinBox(this);
    maskFill_->setObjectName("maskFill");
    maskFill_->setRange(0, 255);
    maskFill_->setToolTip(tr("The mask value outside the image (fill_mask)"));
    connect(maskFill_, &QSpinBox::valueChanged, this, &TargetRulesDialog::apply);
    form->addRow(tr("Mask fill"), maskFill_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::hide);
    layout->addWidget(buttons);
    connect(&doc_, &PipelineDocument::changed, this, [this] {
        if (!loading_ && isVisible()) load();  // an undo shows what it restored
    });
    load();
}

void TargetRulesDialog::load() {
    loading_ = true;
    const TargetSettings s = doc_.preset().targets.value_or(TargetSettings{});
    boxFormat_->setCurrentText(boxFormatName(s.boxes.format));
    minArea_->setValue(s.boxes.minArea);
    minVisibility_->setValue(s.boxes.minVisibility);
    minWidth_->setValue(s.boxes.minWidth);
    minHeight_->setValue(s.boxes.minHeight);
    maxRatio_->setValue(s.boxes.maxAcceptRatio.value_or(0));
    clip_->setChecked(s.boxes.clip);
    filterInvalid_->setChecked(s.boxes.filterInvalid);
    checkEach_->setChecked(s.boxes.checkEachTransform);
    keypointFormat_->setCurrentText(QString::fromStdString(s.keypoints.format));
    removeInvisible_->setChecked(s.keypoints.removeInvisible);
    angleDegrees_->setChecked(s.keypoints.angleInDegrees);
    maskFill_->setValue(s.maskFill);
    loading_ = false;
    lastField_ = nullptr;
}

TargetSettings TargetRulesDialog::rules() const {
    TargetSettings s = doc_.preset().targets.value_or(TargetSettings{});  // label fields kept
    s.boxes.format = static_cast<BoxFormat>(boxFormat_->currentIndex());
    s.boxes.minArea = minArea_->value();
    s.boxes.minVisibility = minVisibility_->value();
    s.boxes.minWidth = minWidth_->value();
    s.boxes.minHeight = minHeight_->value();
    s.boxes.maxAcceptRatio =
        maxRatio_->value() >= 1 ? std::optional<double>(maxRatio_->value()) : std::nullopt;
    s.boxes.clip = clip_->isChecked();
    s.boxes.filterInvalid = filterInvalid_->isChecked();
    s.boxes.checkEachTransform = checkEach_->isChecked();
    s.keypoints.format = keypointFormat_->currentText().toStdString();
    s.keypoints.removeInvisible = removeInvisible_->isChecked();
    s.keypoints.angleInDegrees = angleDegrees_->isChecked();
    s.maskFill = maskFill_->value();
    return s;
}

void TargetRulesDialog::apply() {
    if (loading_) return;
    Preset after = doc_.preset();
    after.targets = rules();
    if (after == doc_.preset()) return;
    loading_ = true;  // the document's change signal comes back here
    // Steps of one field in a row (a spin box's arrows) merge into one undo step.
    if (sender() != lastField_) mergeKey_ = doc_.newMergeKey();
    lastField_ = sender();
    doc_.applyEdit(after, tr("Edit label rules"), mergeKey_);
    loading_ = false;
}

}  // namespace auglab
