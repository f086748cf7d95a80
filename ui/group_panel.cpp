#include "group_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include "icons.h"
#include "pipeline_document.h"

namespace auglab {

namespace {

constexpr GroupKind kKinds[] = {GroupKind::OneOf, GroupKind::SomeOf, GroupKind::Sequential,
                                GroupKind::RandomOrder};

QToolButton* toolButton(const QString& text, const QString& tip, QWidget* parent) {
    auto* b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
}

/// The direct children of group `g` (ops and sub-groups).
int childCount(const Pipeline& pipeline, int g) {
    const std::function<int(const PipelineNode&)> find = [&](const PipelineNode& node) -> int {
        for (const PipelineNode& c : node.children) {
            if (c.group == g) return static_cast<int>(c.children.size());
            if (c.group >= 0)
                if (const int n = find(c); n >= 0) return n;
        }
        return -1;
    };
    return find(pipeline.tree());
}

}  // namespace

QString groupKindHelp(GroupKind kind) {
    switch (kind) {
        case GroupKind::OneOf:
            return QObject::tr(
                "Runs one child, chosen with the children's p as weights; the chosen one "
                "then runs for sure.");
        case GroupKind::SomeOf:
            return QObject::tr(
                "Draws n children uniformly and runs them in this order, each with its own p.");
        case GroupKind::Sequential:
            return QObject::tr("Runs every child in order, each with its own p.");
        case GroupKind::RandomOrder:
            return QObject::tr(
                "Draws n children uniformly and runs them in the order drawn, each with its own p.");
    }
    return {};
}

GroupPanel::GroupPanel(PipelineDocument* doc, int group, QWidget* parent)
    : QFrame(parent), doc_(doc), group_(group) {
    setFrameShape(QFrame::StyledPanel);
    setObjectName(QString("group%1").arg(group));
    setStyleSheet(QString("#group%1 { background: palette(alternate-base); }").arg(group));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->setSpacing(2);

    auto* header = new QHBoxLayout;
    collapse_ = toolButton(QStringLiteral("▾"), tr("Collapse the group (hide its children)"), this);
    collapse_->setObjectName("collapse");
    connect(collapse_, &QToolButton::clicked, this, [this] { setCollapsed(!collapsed_); });
    header->addWidget(collapse_);
    enabled_ = new QCheckBox(tr("Group"), this);
    enabled_->setObjectName("groupEnabled");
    enabled_->setToolTip(tr("Off: nothing in the group runs"));
    QFont bold = enabled_->font();
    bold.setBold(true);
    enabled_->setFont(bold);
    connect(enabled_, &QCheckBox::toggled, this, [this](bool on) { doc_->setGroupEnabled(group_, on); });
    header->addWidget(enabled_);
    kind_ = new QComboBox(this);
    kind_->setObjectName("kind");
    for (GroupKind k : kKinds) {
        kind_->addItem(QString::fromLatin1(groupKindName(k)));
        kind_->setItemData(kind_->count() - 1, groupKindHelp(k), Qt::ToolTipRole);
    }
    connect(kind_, &QComboBox::activated, this,
            [this](int i) { doc_->setGroupKind(group_, kKinds[std::size_t(i)]); });
    header->addWidget(kind_, 1);
    auto* wrap = toolButton(QString(), tr("Put this group in a new group"), this);
    wrap->setIcon(groupIcon(this));  // painted: no common font is sure to have ⧉
    wrap->setObjectName("wrap");
    wrap->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(wrap);
    for (GroupKind k : kKinds)
        connect(menu->addAction(QString::fromLatin1(groupKindName(k))), &QAction::triggered, this,
                [this, k] { doc_->wrapGroup(group_, k); });
    wrap->setMenu(menu);
    auto* ungroup = toolButton(QStringLiteral("✕"), tr("Ungroup: the children stay, the group goes"), this);
    ungroup->setObjectName("ungroup");
    connect(ungroup, &QToolButton::clicked, this, [this] { doc_->ungroup(group_); });
    header->addWidget(wrap);
    header->addWidget(ungroup);
    layout->addLayout(header);

    auto* row = new QHBoxLayout;
    pLabel_ = new QLabel(tr("Probability"), this);
    p_ = new QDoubleSpinBox(this);
    p_->setObjectName("groupProbability");
    p_->setRange(0, 1);
    p_->setDecimals(3);
    p_->setSingleStep(0.05);
    p_->setKeyboardTracking(false);
    connect(p_, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { doc_->setGroupProbability(group_, v); });
    nLabel_ = new QLabel(tr("n"), this);
    nLabel_->setToolTip(tr("How many children are drawn"));
    n_ = new QSpinBox(this);
    n_->setObjectName("count");
    n_->setRange(1, 1000);
    n_->setKeyboardTracking(false);
    connect(n_, &QSpinBox::valueChanged, this, [this](int v) { doc_->setGroupCount(group_, v); });
    replace_ = new QCheckBox(tr("with replacement"), this);
    replace_->setObjectName("replace");
    replace_->setToolTip(tr("A child may be drawn (and run) more than once"));
    connect(replace_, &QCheckBox::toggled, this, [this](bool on) { doc_->setGroupReplace(group_, on); });
    row->addWidget(pLabel_);
    row->addWidget(p_);
    row->addSpacing(8);
    row->addWidget(nLabel_);
    row->addWidget(n_);
    row->addWidget(replace_);
    row->addStretch(1);
    layout->addLayout(row);
    help_ = new QLabel(this);
    help_->setObjectName("groupHelp");
    help_->setWordWrap(true);
    QFont small = help_->font();
    small.setItalic(true);
    help_->setFont(small);
    layout->addWidget(help_);
    runs_ = new QLabel(this);
    runs_->setObjectName("runs");
    runs_->hide();
    layout->addWidget(runs_);
    refresh();
}

const OpGroup& GroupPanel::group() const {
    return doc_->preset().pipeline.groups().at(std::size_t(group_));
}

void GroupPanel::refresh() {
    const Pipeline& pipeline = doc_->preset().pipeline;
    if (std::size_t(group_) >= pipeline.groups().size()) return;
    const OpGroup& g = group();
    const QSignalBlocker b1(enabled_), b2(kind_), b3(p_), b4(n_), b5(replace_);
    enabled_->setChecked(g.enabled);
    kind_->setCurrentIndex(int(std::find(std::begin(kKinds), std::end(kKinds), g.kind) - std::begin(kKinds)));
    p_->setValue(g.p);
    // Inside a one_of, a group's p is its weight among the one_of's children.
    const int parent = pipeline.parentGroup(std::size_t(group_));
    const bool weight = parent >= 0 && pipeline.groups()[std::size_t(parent)].kind == GroupKind::OneOf;
    pLabel_->setText(weight ? tr("Weight (p)") : tr("Probability"));
    p_->setToolTip(weight ? tr("Its weight among the one_of's children (Albumentations' p)")
                          : tr("The chance that the group runs"));
    const bool counted = groupHasCount(g.kind);
    for (QWidget* w :
         {static_cast<QWidget*>(nLabel_), static_cast<QWidget*>(n_), static_cast<QWidget*>(replace_)})
        w->setVisible(counted);
    n_->setMaximum(g.replace ? 1000 : std::max(1, childCount(pipeline, group_)));
    n_->setValue(g.n);
    replace_->setChecked(g.replace);
    help_->setText(groupKindHelp(g.kind));
}

void GroupPanel::setCollapsed(bool on) {
    if (on == collapsed_) return;
    collapsed_ = on;
    collapse_->setText(on ? QStringLiteral("▸") : QStringLiteral("▾"));
    collapse_->setToolTip(on ? tr("Expand the group (show its children)")
                             : tr("Collapse the group (hide its children)"));
    emit collapsedChanged(on);
}

void GroupPanel::setRuns(int runs, int samples) {
    runs_->setVisible(samples > 0);
    runs_->setText(tr("Something in it ran in %1 of the page's %2 samples").arg(runs).arg(samples));
}

}  // namespace auglab
