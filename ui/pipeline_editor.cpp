#include "pipeline_editor.h"

#include <algorithm>

#include <QMenu>
#include <QScrollArea>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "op_panel.h"
#include "op_registry.h"
#include "pipeline_document.h"

namespace auglab {

PipelineEditor::PipelineEditor(PipelineDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = scroll_ = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* inner = new QWidget(scroll);
    column_ = new QVBoxLayout(inner);
    column_->setContentsMargins(4, 4, 4, 4);
    column_->addStretch(1);
    scroll->setWidget(inner);
    outer->addWidget(scroll, 1);

    auto* add = new QToolButton(this);
    add->setObjectName("addOp");
    add->setText(tr("Add op"));
    add->setPopupMode(QToolButton::InstantPopup);
    add->setToolButtonStyle(Qt::ToolButtonTextOnly);
    add->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    auto* menu = new QMenu(add);
    for (const OpDesc& d : opRegistry()) {
        QAction* a = menu->addAction(QString::fromStdString(d.label));
        a->setToolTip(QString::fromStdString(d.help));
        connect(a, &QAction::triggered, this, [this, name = d.name] { doc_->addOp(name); });
    }
    add->setMenu(menu);
    outer->addWidget(add);
    connect(doc_, &PipelineDocument::changed, this, &PipelineEditor::sync);
    connect(doc_, &PipelineDocument::opPlaced, this, &PipelineEditor::showPlaced);
    rebuild();
}

void PipelineEditor::showPlaced(int op) {
    OpPanel* p = panel(op);
    if (!p) return;
    // After the layout has placed the new panels.
    QTimer::singleShot(0, this, [this, p] {
        if (std::find(panels_.begin(), panels_.end(), p) == panels_.end()) return;
        column_->activate();  // the new panels' places, before they are first painted
        scroll_->widget()->resize(scroll_->widget()->width(), scroll_->widget()->sizeHint().height());
        scroll_->ensureWidgetVisible(p, 0, 8);
    });
    for (OpPanel* other : panels_) other->setHighlighted(false);
    p->setHighlighted(true);
    highlighted_ = op;
    QTimer::singleShot(1500, p, [this, p, op] {
        p->setHighlighted(false);
        if (highlighted_ == op) highlighted_ = -1;
    });
}

OpPanel* PipelineEditor::panel(int op) const {
    return op >= 0 && op < int(panels_.size()) ? panels_[std::size_t(op)] : nullptr;
}

void PipelineEditor::sync() {
    const auto& pipeline = doc_->preset().pipeline;
    bool sameOps = pipeline.size() == shown_.size();
    for (std::size_t i = 0; sameOps && i < pipeline.size(); ++i)
        sameOps = pipeline[i].name() == shown_[i].name();
    if (!sameOps) {
        rebuild();
        return;
    }
    // A slider drag changes one op many times a second: refresh only the panels that differ.
    for (std::size_t i = 0; i < pipeline.size(); ++i)
        if (!(pipeline[i] == shown_[i])) panels_[i]->refresh();
    shown_ = pipeline;
}

void PipelineEditor::setImageSize(int width, int height) {
    imageWidth_ = width;
    imageHeight_ = height;
    for (OpPanel* p : panels_) p->setImageSize(width, height);
}

void PipelineEditor::rebuild() {
    for (OpPanel* p : panels_) {
        column_->removeWidget(p);
        p->deleteLater();
    }
    panels_.clear();
    const auto& pipeline = doc_->preset().pipeline;
    for (std::size_t i = 0; i < pipeline.size(); ++i) {
        auto* p = new OpPanel(doc_, int(i), this);
        p->setImageSize(imageWidth_, imageHeight_);
        connect(p, &OpPanel::paramSelected, this, &PipelineEditor::selectParam);
        connect(p, &OpPanel::findEdgeRequested, this, &PipelineEditor::findEdgeRequested);
        column_->insertWidget(int(i), p);
        panels_.push_back(p);
    }
    shown_ = pipeline;
    if (selectedOp_ >= int(pipeline.size())) selectedOp_ = -1;
    if (selectedOp_ >= 0) panels_[std::size_t(selectedOp_)]->setSelectedKey(selectedKey_);
}

void PipelineEditor::selectParam(int op, const QString& key) {
    selectedOp_ = op;
    selectedKey_ = key;
    for (OpPanel* p : panels_) p->setSelectedKey(p->opIndex() == op ? key : QString());
    emit paramSelected(op, key);
}

}  // namespace auglab
