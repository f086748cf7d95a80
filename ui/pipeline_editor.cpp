#include "pipeline_editor.h"

#include <algorithm>

#include <QHBoxLayout>
#include <QMenu>
#include <QScrollArea>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "group_panel.h"
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

GroupPanel* PipelineEditor::groupPanel(int group) const {
    return group >= 0 && group < int(groupPanels_.size()) ? groupPanels_[std::size_t(group)] : nullptr;
}

bool PipelineEditor::sameStructure(const Pipeline& a, const Pipeline& b) {
    if (a.size() != b.size() || a.groups().size() != b.groups().size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].name() != b[i].name()) return false;
    for (std::size_t g = 0; g < a.groups().size(); ++g) {
        const OpGroup &x = a.groups()[g], &y = b.groups()[g];
        if (x.first != y.first || x.count != y.count) return false;
    }
    return true;
}

void PipelineEditor::sync() {
    const auto& pipeline = doc_->preset().pipeline;
    if (!sameStructure(pipeline, shown_)) {
        rebuild();
        return;
    }
    // A slider drag changes one op many times a second: refresh only the panels that differ.
    for (std::size_t i = 0; i < pipeline.size(); ++i)
        if (!(pipeline[i] == shown_[i])) panels_[i]->refresh();
    for (std::size_t g = 0; g < pipeline.groups().size(); ++g)
        if (!(pipeline.groups()[g] == shown_.groups()[g])) groupPanels_[g]->refresh();
    // A weight's label depends on the parent's kind: refresh the groups inside one that changed kind.
    for (std::size_t g = 0; g < pipeline.groups().size(); ++g)
        if (pipeline.groups()[g].kind != shown_.groups()[g].kind) {
            for (GroupPanel* gp : groupPanels_) gp->refresh();
            for (OpPanel* op : panels_) op->refresh();
            break;
        }
    shown_ = pipeline;
}

void PipelineEditor::setImageSize(int width, int height) {
    imageWidth_ = width;
    imageHeight_ = height;
    for (OpPanel* p : panels_) p->setImageSize(width, height);
}

void PipelineEditor::setRunCounts(const std::vector<int>& opRuns, const std::vector<int>& groupRuns,
                                  int samples) {
    const Pipeline& pipeline = doc_->preset().pipeline;
    for (std::size_t i = 0; i < panels_.size(); ++i)
        panels_[i]->setRuns(i < opRuns.size() ? opRuns[i] : 0,
                            i < opRuns.size() && pipeline.groupOf(i) >= 0 ? samples : 0);
    for (std::size_t g = 0; g < groupPanels_.size(); ++g)
        groupPanels_[g]->setRuns(g < groupRuns.size() ? groupRuns[g] : 0, g < groupRuns.size() ? samples : 0);
}

void PipelineEditor::addRows(const PipelineNode& node, int depth, std::vector<int>& ancestors) {
    const auto addRow = [&](QWidget* w) {
        auto* container = new QWidget(column_->parentWidget());
        auto* h = new QHBoxLayout(container);
        h->setContentsMargins(depth * 16, 0, 0, 0);
        h->setSpacing(0);
        if (depth > 0) {
            // A rule down the left of a group's children.
            auto* rule = new QFrame(container);
            rule->setFrameShape(QFrame::VLine);
            rule->setFrameShadow(QFrame::Sunken);
            h->addWidget(rule);
            h->addSpacing(2);
        }
        h->addWidget(w, 1);
        column_->insertWidget(column_->count() - 1, container);  // before the stretch
        rows_.push_back({container, ancestors});
    };
    for (const PipelineNode& c : node.children) {
        if (c.op >= 0) {
            auto* p = new OpPanel(doc_, c.op, this);
            p->setImageSize(imageWidth_, imageHeight_);
            connect(p, &OpPanel::paramSelected, this, &PipelineEditor::selectParam);
            connect(p, &OpPanel::findEdgeRequested, this, &PipelineEditor::findEdgeRequested);
            panels_[std::size_t(c.op)] = p;
            addRow(p);
        } else {
            auto* g = new GroupPanel(doc_, c.group, this);
            groupPanels_[std::size_t(c.group)] = g;
            g->setCollapsed(collapsed_[std::size_t(c.group)]);
            connect(g, &GroupPanel::collapsedChanged, this, [this, group = c.group](bool on) {
                collapsed_[std::size_t(group)] = on;
                applyCollapse();
            });
            addRow(g);
            ancestors.push_back(c.group);
            addRows(c, depth + 1, ancestors);
            ancestors.pop_back();
        }
    }
}

void PipelineEditor::applyCollapse() {
    for (const Row& r : rows_) {
        bool hidden = false;
        for (int g : r.ancestors) hidden = hidden || collapsed_[std::size_t(g)];
        r.container->setVisible(!hidden);
    }
}

void PipelineEditor::rebuild() {
    for (const Row& r : rows_) {
        column_->removeWidget(r.container);
        r.container->deleteLater();
    }
    rows_.clear();
    const auto& pipeline = doc_->preset().pipeline;
    // Collapsed groups stay collapsed while the groups' ranges stay (values may change).
    bool sameGroups = pipeline.groups().size() == shown_.groups().size();
    for (std::size_t g = 0; sameGroups && g < pipeline.groups().size(); ++g)
        sameGroups = pipeline.groups()[g].first == shown_.groups()[g].first &&
                     pipeline.groups()[g].count == shown_.groups()[g].count;
    if (!sameGroups) collapsed_.assign(pipeline.groups().size(), false);
    panels_.assign(pipeline.size(), nullptr);
    groupPanels_.assign(pipeline.groups().size(), nullptr);
    std::vector<int> ancestors;
    addRows(pipeline.tree(), 0, ancestors);
    applyCollapse();
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
