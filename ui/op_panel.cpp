#include "op_panel.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include "icons.h"
#include "pipeline_document.h"
#include "range_slider.h"

namespace auglab {

namespace {

// Display precision from the span of the bounds: fractions get 4 decimals, degrees 1.
/// The slider's span: the typical range (for pixel sizes, a fraction of the image's longer side
/// when it is known), else the bounds.
std::pair<double, double> sliderSpan(const ParamDesc& pd, int imageSide) {
    if (pd.typicalImageFraction > 0 && imageSide > 0)
        return {pd.typicalLower,
                std::max(pd.typicalLower + 1, std::round(pd.typicalImageFraction * imageSide))};
    if (pd.typicalUpper > pd.typicalLower) return {pd.typicalLower, pd.typicalUpper};
    return {pd.lower, pd.upper};
}

// Display precision from the span of the bounds (fractions get 4 decimals, degrees 1), and at
// least 200 steps over the slider's typical span.
int decimalsFor(const ParamDesc& pd) {
    if (pd.kind == ParamKind::IntRange || pd.integer) return 0;
    const double span = pd.upper - pd.lower;
    const int byBounds = span <= 2.5 ? 4 : span <= 60 ? 2 : 1;
    const auto [lo, hi] = sliderSpan(pd, 0);
    const int byTypical = hi > lo ? int(std::ceil(std::log10(200.0 / (hi - lo)))) : 0;
    return std::clamp(std::max(byBounds, byTypical), 0, 6);
}

QToolButton* smallButton(const QString& text, const QString& tip, QWidget* parent) {
    auto* b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
}

/// A number field that refuses, rather than cuts, what lies outside its range: the text stays as
/// typed, turns red and says the allowed range; Enter or leaving the field then restores the last
/// value (QDoubleSpinBox alone drops the keystroke: "500" typed into a field up to 50 reads "50").
class RangeField : public QDoubleSpinBox {
public:
    explicit RangeField(QWidget* parent) : QDoubleSpinBox(parent) {
        connect(lineEdit(), &QLineEdit::textChanged, this, [this] { mark(); });
        connect(this, &QAbstractSpinBox::editingFinished, this, [this] { mark(); });
    }

    QValidator::State validate(QString& text, int& pos) const override {
        const QValidator::State state = QDoubleSpinBox::validate(text, pos);
        if (state != QValidator::Invalid) return state;
        bool ok = false;
        locale().toDouble(text.trimmed(), &ok);
        return ok ? QValidator::Intermediate : state;  // a number out of range: kept, shown red
    }

private:
    void mark() {
        bool ok = false;
        const double v = locale().toDouble(lineEdit()->text().trimmed(), &ok);
        const bool outside = ok && (v < minimum() || v > maximum());
        const QString allowed =
            tr("Allowed: %1 to %2").arg(textFromValue(minimum()), textFromValue(maximum()));
        setStyleSheet(outside ? "QDoubleSpinBox { color: #c00000; background: #ffe4e4; }" : QString());
        setToolTip(outside ? tr("%1 is outside the allowed range. %2").arg(lineEdit()->text(), allowed)
                           : allowed);
    }
};

/// A parameter name that selects the parameter for the distribution view when clicked.
class ParamLabel : public QLabel {
public:
    ParamLabel(const QString& text, std::function<void()> onClick, QWidget* parent)
        : QLabel(text, parent), onClick_(std::move(onClick)) {
        setCursor(Qt::PointingHandCursor);
    }

protected:
    void mousePressEvent(QMouseEvent*) override { onClick_(); }

private:
    std::function<void()> onClick_;
};

}  // namespace

OpPanel::OpPanel(PipelineDocument* doc, int opIndex, QWidget* parent)
    : QFrame(parent), doc_(doc), op_(opIndex) {
    setFrameShape(QFrame::StyledPanel);
    setObjectName(QString("op%1").arg(opIndex));
    const OpConfig& c = config();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 6);
    layout->setSpacing(2);

    auto* header = new QHBoxLayout;
    enabled_ = new QCheckBox(QString::fromStdString(c.desc().label), this);
    enabled_->setToolTip(QString::fromStdString(c.desc().help));
    QFont bold = enabled_->font();
    bold.setBold(true);
    enabled_->setFont(bold);
    connect(enabled_, &QCheckBox::toggled, this, [this](bool on) { doc_->setEnabled(op_, on); });
    header->addWidget(enabled_, 1);
    auto* up = smallButton(QStringLiteral("▲"), tr("Move up"), this);
    auto* down = smallButton(QStringLiteral("▼"), tr("Move down"), this);
    auto* reset = smallButton(QStringLiteral("↺"), tr("Reset this op to its defaults"), this);
    auto* remove = smallButton(QStringLiteral("✕"), tr("Remove this op"), this);
    up->setObjectName("moveUp");
    down->setObjectName("moveDown");
    remove->setObjectName("remove");
    connect(up, &QToolButton::clicked, this, [this] { doc_->stepOp(op_, -1); });
    connect(down, &QToolButton::clicked, this, [this] { doc_->stepOp(op_, 1); });
    connect(reset, &QToolButton::clicked, this, [this] { doc_->resetOp(op_); });
    connect(remove, &QToolButton::clicked, this, [this] { doc_->removeOp(op_); });
    // Groups: put the op alone in a new group (the arrows then move its neighbours in).
    auto* group = smallButton(QString(), tr("Put this op in a new group (one_of, some_of, ...)"), this);
    group->setIcon(groupIcon(this));  // painted: no common font is sure to have ⧉
    group->setObjectName("group");
    group->setPopupMode(QToolButton::InstantPopup);
    auto* groupMenu = new QMenu(group);
    for (GroupKind k : {GroupKind::OneOf, GroupKind::SomeOf, GroupKind::Sequential, GroupKind::RandomOrder})
        connect(groupMenu->addAction(QString::fromLatin1(groupKindName(k))), &QAction::triggered, this,
                [this, k] { doc_->groupOp(op_, k); });
    group->setMenu(groupMenu);
    runs_ = new QLabel(this);
    runs_->setObjectName("runs");
    runs_->hide();
    header->addWidget(runs_);
    for (auto* b : {up, down, group, reset, remove}) header->addWidget(b);
    layout->addLayout(header);
    if (c.desc().category == OpCategory::Training) {
        auto* note = new QLabel(tr("Training only: not previewed (the grid shows the image before it); "
                                   "exported as it is."),
                                this);
        note->setObjectName("trainingOnly");
        note->setWordWrap(true);
        QFont italic = note->font();
        italic.setItalic(true);
        note->setFont(italic);
        layout->addWidget(note);
    }

    // The rows, greyed out as a whole while the op is disabled.
    body_ = new QWidget(this);
    auto* grid = new QGridLayout(body_);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setColumnStretch(1, 1);
    auto* pLabel = pLabel_ = new QLabel(tr("Probability"), this);
    pLabel->setObjectName("probabilityLabel");
    probability_ = new QSlider(Qt::Horizontal, this);
    probability_->setObjectName("probability");
    probability_->setRange(0, 100);
    // The probability as a number too, with its own reset (to 1: the op always applies).
    probabilityField_ = new RangeField(this);
    probabilityField_->setObjectName("probabilityValue");
    probabilityField_->setRange(0, 1);
    probabilityField_->setDecimals(3);
    probabilityField_->setSingleStep(0.05);
    probabilityField_->setKeyboardTracking(false);
    probabilityField_->setMaximumWidth(70);
    connect(probabilityField_, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { doc_->setProbability(op_, v); });
    auto* resetP = smallButton(QStringLiteral("↺"), tr("Probability back to 1 (always applies)"), this);
    resetP->setObjectName("resetProbability");
    connect(resetP, &QToolButton::clicked, this, [this] { doc_->setProbability(op_, 1.0); });
    connect(probability_, &QSlider::sliderPressed, this, [this] { probabilityKey_ = doc_->newMergeKey(); });
    connect(probability_, &QSlider::sliderReleased, this, [this] { probabilityKey_ = 0; });
    connect(probability_, &QSlider::valueChanged, this, [this](int v) {
        doc_->setProbability(op_, v / 100.0, probability_->isSliderDown() ? probabilityKey_ : 0);
    });
    auto* pRow = new QHBoxLayout;
    pRow->setContentsMargins(0, 0, 0, 0);
    pRow->addWidget(probability_, 1);
    pRow->addWidget(probabilityField_);
    pRow->addWidget(resetP);
    grid->addWidget(pLabel, 0, 0);
    grid->addLayout(pRow, 0, 1, 1, 2);
    int row = 1;
    for (const ParamDesc& pd : c.desc().params) {
        auto* label = new ParamLabel(
            QString::fromStdString(pd.label),
            [this, key = pd.key] { emit paramSelected(op_, QString::fromStdString(key)); }, body_);
        label->setToolTip(
            QString::fromStdString(pd.key + ": " + pd.help + (pd.unit.empty() ? "" : " (" + pd.unit + ")")));
        rowLabels_.emplace_back(QString::fromStdString(pd.key), label);
        if (pd.kind == ParamKind::FloatRange || pd.kind == ParamKind::IntRange) {
            // Right-click: widen this range to the edge of realism.
            label->setContextMenuPolicy(Qt::CustomContextMenu);
            connect(label, &QWidget::customContextMenuRequested, this,
                    [this, label, key = pd.key](const QPoint& at) {
                        QMenu menu(label);
                        menu.addAction(
                            tr("Find the edge (widen while samples stay realistic)"), this,
                            [this, key] { emit findEdgeRequested(op_, QString::fromStdString(key)); });
                        menu.exec(label->mapToGlobal(at));
                    });
        }
        grid->addWidget(label, row, 0);
        grid->addWidget(buildRow(pd), row, 1, 1, 2);
        ++row;
    }
    layout->addWidget(body_);
    refresh();
}

const OpConfig& OpPanel::config() const {
    return doc_->preset().pipeline.at(static_cast<std::size_t>(op_));
}

QWidget* OpPanel::buildRow(const ParamDesc& pd) {
    auto* w = new QWidget(this);
    auto* h = new QHBoxLayout(w);
    h->setContentsMargins(0, 0, 0, 0);
    const std::string key = pd.key;
    QCheckBox* use = nullptr;
    if (pd.optional) {
        use = new QCheckBox(w);
        use->setToolTip(tr("Use %1").arg(QString::fromStdString(key)));
        connect(use, &QCheckBox::toggled, this,
                [this, key](bool on) { doc_->setOptionalPresent(op_, key, on); });
        h->addWidget(use);
    }
    switch (pd.kind) {
        case ParamKind::FloatRange:
        case ParamKind::IntRange: {
            const bool ints = pd.kind == ParamKind::IntRange;
            auto* slider = new RangeSlider(w);
            slider->setObjectName(QString::fromStdString(key));
            slider->setBounds(pd.lower, pd.upper);
            slider->setIntegers(ints);
            slider->setLogarithmic(pd.logScale);
            slider->setDecimals(decimalsFor(pd));
            // The track spans the typical range (for pixel sizes, a share of the image), widened to
            // show the value; set again on every refresh, so it shrinks back once the value does.
            auto span = std::make_shared<std::pair<double, double>>(sliderSpan(pd, 0));
            {
                const Range r0 = config().has(key) ? config().range(key) : std::get<Range>(pd.defaultValue);
                slider->setRange(r0.min, r0.max);
                slider->setView(span->first, span->second);
            }
            if (pd.typicalImageFraction > 0)
                imageSpans_.push_back([slider, pd, span](int side) {
                    *span = sliderSpan(pd, side);
                    if (!slider->isDragging()) slider->setView(span->first, span->second);
                });
            auto makeSpin = [&](const char* suffix) {
                auto* s = new RangeField(w);
                s->setObjectName(QString::fromStdString(key) + suffix);
                s->setRange(pd.lower, pd.upper);
                s->setDecimals(decimalsFor(pd));
                s->setSingleStep(ints ? 1 : std::pow(10.0, -decimalsFor(pd)) * 10);
                s->setKeyboardTracking(false);  // one edit per Enter/step, not per keystroke
                s->setMaximumWidth(82);
                return s;
            };
            auto* lo = makeSpin("_min");
            auto* hi = makeSpin("_max");
            auto dragKey = std::make_shared<int>(0);
            connect(slider, &RangeSlider::dragStarted, this,
                    [this, dragKey] { *dragKey = doc_->newMergeKey(); });
            connect(slider, &RangeSlider::dragFinished, this, [dragKey] { *dragKey = 0; });
            // Odd sizes only (kernel sizes): a value between two odd ones goes to the one above.
            const auto snap = [odd = pd.odd, upper = pd.upper](double v) {
                return odd ? std::min(2 * std::floor(v / 2) + 1, upper) : v;
            };
            if (pd.odd) lo->setSingleStep(2), hi->setSingleStep(2);
            connect(
                slider, &RangeSlider::rangeEdited, this,
                [this, key, slider, dragKey, snap](double a, double b) {
                    doc_->setParam(op_, key, Range{snap(a), snap(b)}, slider->isDragging() ? *dragKey : 0);
                });
            connect(lo, &QDoubleSpinBox::valueChanged, this, [this, key, hi, snap](double a) {
                doc_->setParam(op_, key, Range{snap(a), snap(std::max(a, hi->value()))});
            });
            connect(hi, &QDoubleSpinBox::valueChanged, this, [this, key, lo, snap](double b) {
                doc_->setParam(op_, key, Range{snap(std::min(lo->value(), b)), snap(b)});
            });
            h->addWidget(lo);
            h->addWidget(slider, 1);
            h->addWidget(hi);
            refreshers_.push_back([this, key, slider, lo, hi, use, w, span] {
                const OpConfig& c = config();
                const bool present = c.has(key);
                if (use) {
                    QSignalBlocker b(use);
                    use->setChecked(present);
                }
                const Range r = present ? c.range(key) : std::get<Range>(c.desc().param(key)->defaultValue);
                for (QWidget* x : std::initializer_list<QWidget*>{slider, lo, hi}) x->setEnabled(present);
                // Rows that mean nothing in the current setting are greyed out: what an alternative
                // replaces (fractional hole sizes while pixel sizes are in use), and what a flag makes
                // unused (the y zoom while the aspect ratio is kept).
                for (const ParamAlternative& alt : c.desc().alternatives)
                    if (std::find(alt.replaces.begin(), alt.replaces.end(), key) != alt.replaces.end())
                        w->setEnabled(!c.isReplaced(key));
                const std::string& unusedWhen = c.desc().param(key)->unusedWhenFlag;
                if (!unusedWhen.empty()) w->setEnabled(!c.flag(unusedWhen));
                if (!slider->isDragging()) {
                    QSignalBlocker b(slider);
                    slider->setRange(r.min, r.max);
                    slider->setView(span->first, span->second);
                }
                QSignalBlocker b1(lo), b2(hi);
                lo->setValue(r.min);
                hi->setValue(r.max);
            });
            break;
        }
        case ParamKind::Float: {
            auto* s = new RangeField(w);
            s->setObjectName(QString::fromStdString(key));
            s->setRange(pd.lower, pd.upper);
            s->setDecimals(decimalsFor(pd));
            s->setKeyboardTracking(false);
            connect(s, &QDoubleSpinBox::valueChanged, this,
                    [this, key](double v) { doc_->setParam(op_, key, v); });
            h->addWidget(s, 1);
            refreshers_.push_back([this, key, s] {
                QSignalBlocker b(s);
                s->setValue(config().number(key));
            });
            break;
        }
        case ParamKind::Bool: {
            auto* box = new QCheckBox(w);
            box->setObjectName(QString::fromStdString(key));
            connect(box, &QCheckBox::toggled, this, [this, key](bool on) { doc_->setParam(op_, key, on); });
            h->addWidget(box, 1);
            refreshers_.push_back([this, key, box] {
                QSignalBlocker b(box);
                box->setChecked(config().flag(key));
            });
            break;
        }
        case ParamKind::Choice: {
            auto* combo = new QComboBox(w);
            combo->setObjectName(QString::fromStdString(key));
            for (const std::string& c : pd.choices) combo->addItem(QString::fromStdString(c));
            connect(combo, &QComboBox::currentTextChanged, this,
                    [this, key](const QString& t) { doc_->setParam(op_, key, t.toStdString()); });
            h->addWidget(combo, 1);
            refreshers_.push_back([this, key, combo] {
                QSignalBlocker b(combo);
                combo->setCurrentText(QString::fromStdString(config().choice(key)));
            });
            break;
        }
        case ParamKind::Fill: {
            auto* mode = new QComboBox(w);
            mode->setObjectName(QString::fromStdString(key) + "_mode");
            mode->addItem(tr("colour"));
            if (pd.allowsRandomFill) {
                mode->addItem(tr("random"));
                mode->addItem(tr("random per hole"));
            } else {
                mode->setVisible(false);
            }
            std::array<QSpinBox*, 3> rgb{};
            for (int i = 0; i < 3; ++i) {
                rgb[std::size_t(i)] = new QSpinBox(w);
                rgb[std::size_t(i)]->setRange(0, 255);
                rgb[std::size_t(i)]->setKeyboardTracking(false);
                rgb[std::size_t(i)]->setToolTip(QStringLiteral("RGB").mid(i, 1));
            }
            auto push = [this, key, mode, rgb] {
                Fill f;
                f.mode = mode->currentIndex() == 1   ? Fill::Mode::Random
                         : mode->currentIndex() == 2 ? Fill::Mode::RandomUniform
                                                     : Fill::Mode::Constant;
                for (int i = 0; i < 3; ++i) f.rgb[std::size_t(i)] = rgb[std::size_t(i)]->value();
                doc_->setParam(op_, key, f);
            };
            connect(mode, &QComboBox::currentIndexChanged, this, push);
            h->addWidget(mode);
            for (QSpinBox* s : rgb) {
                connect(s, &QSpinBox::valueChanged, this, push);
                h->addWidget(s);
            }
            h->addStretch(1);
            refreshers_.push_back([this, key, mode, rgb] {
                const Fill f = config().fill(key);
                QSignalBlocker b(mode);
                mode->setCurrentIndex(f.mode == Fill::Mode::Random          ? 1
                                      : f.mode == Fill::Mode::RandomUniform ? 2
                                                                            : 0);
                for (int i = 0; i < 3; ++i) {
                    QSignalBlocker bs(rgb[std::size_t(i)]);
                    rgb[std::size_t(i)]->setValue(f.rgb[std::size_t(i)]);
                    rgb[std::size_t(i)]->setEnabled(f.mode == Fill::Mode::Constant);
                }
            });
            break;
        }
        case ParamKind::Triple: {
            std::array<QDoubleSpinBox*, 3> rgb{};
            for (int i = 0; i < 3; ++i) {
                auto* s = new QDoubleSpinBox(w);
                s->setObjectName(QString::fromStdString(key) + "_" + QString("rgb")[i]);
                s->setRange(pd.lower, pd.upper);
                s->setDecimals(6);
                s->setSingleStep(0.01);
                s->setKeyboardTracking(false);
                s->setToolTip(i == 0 ? tr("Red") : i == 1 ? tr("Green") : tr("Blue"));
                rgb[std::size_t(i)] = s;
                h->addWidget(s);
            }
            h->addStretch(1);
            auto push = [this, key, rgb] {
                doc_->setParam(op_, key, Triple{{rgb[0]->value(), rgb[1]->value(), rgb[2]->value()}});
            };
            for (QDoubleSpinBox* s : rgb) connect(s, &QDoubleSpinBox::valueChanged, this, push);
            refreshers_.push_back([this, key, rgb] {
                const Triple t = config().triple(key);
                for (int i = 0; i < 3; ++i) {
                    QSignalBlocker b(rgb[std::size_t(i)]);
                    rgb[std::size_t(i)]->setValue(t.v[std::size_t(i)]);
                }
            });
            break;
        }
        case ParamKind::Size: {
            std::array<QSpinBox*, 2> hw{};  // height, width
            for (int i = 0; i < 2; ++i) {
                auto* s = new QSpinBox(w);
                s->setObjectName(QString::fromStdString(key) + (i == 0 ? "_height" : "_width"));
                s->setRange(int(pd.lower), int(pd.upper));
                s->setKeyboardTracking(false);
                s->setToolTip(i == 0 ? tr("Height in pixels") : tr("Width in pixels"));
                hw[std::size_t(i)] = s;
            }
            auto push = [this, key, hw] { doc_->setParam(op_, key, Size2{hw[0]->value(), hw[1]->value()}); };
            h->addWidget(hw[0]);
            h->addWidget(new QLabel(QStringLiteral("×"), w));
            h->addWidget(hw[1]);
            h->addStretch(1);
            for (QSpinBox* s : hw) connect(s, &QSpinBox::valueChanged, this, push);
            refreshers_.push_back([this, key, hw] {
                const Size2 z = config().size(key);
                QSignalBlocker b0(hw[0]), b1(hw[1]);
                hw[0]->setValue(z.height);
                hw[1]->setValue(z.width);
            });
            break;
        }
    }
    auto* reset = smallButton(QStringLiteral("↺"), tr("Reset to default"), w);
    connect(reset, &QToolButton::clicked, this, [this, key] { doc_->resetParam(op_, key); });
    h->addWidget(reset);
    return w;
}

void OpPanel::setRuns(int runs, int samples) {
    runs_->setVisible(samples > 0);
    runs_->setText(tr("ran %1/%2").arg(runs).arg(samples));
    runs_->setToolTip(tr("Ran in %1 of the page's %2 samples").arg(runs).arg(samples));
}

void OpPanel::setHighlighted(bool on) {
    highlighted_ = on;
    // Only this frame: the object name keeps the rule from reaching the rows inside.
    setStyleSheet(on ? QString("QFrame#%1 { border: 2px solid palette(highlight); border-radius: 3px; }")
                           .arg(objectName())
                     : QString());
}

void OpPanel::setImageSize(int width, int height) {
    for (const auto& span : imageSpans_) span(std::max(width, height));
}

void OpPanel::refresh() {
    const OpConfig& c = config();
    // A one_of's child: its p is its weight among the children (the chosen one runs for sure).
    const Pipeline& pipeline = doc_->preset().pipeline;
    const int parent = pipeline.groupOf(std::size_t(op_));
    const bool weight = parent >= 0 && pipeline.groups()[std::size_t(parent)].kind == GroupKind::OneOf;
    pLabel_->setText(weight ? tr("Weight (p)") : tr("Probability"));
    pLabel_->setToolTip(weight ? tr("Its weight among the one_of's children (Albumentations' p): the chosen "
                                    "child then runs for sure")
                               : tr("The chance that the op runs"));
    {
        QSignalBlocker b(enabled_);
        enabled_->setChecked(c.enabled);
    }
    if (!probability_->isSliderDown()) {
        QSignalBlocker b(probability_);
        probability_->setValue(int(std::lround(c.p * 100)));
    }
    {
        QSignalBlocker b(probabilityField_);
        probabilityField_->setValue(c.p);
    }
    body_->setEnabled(c.enabled);
    for (auto& r : refreshers_) r();
}

void OpPanel::setSelectedKey(const QString& key) {
    for (auto& [k, label] : rowLabels_) {
        QFont f = label->font();
        f.setUnderline(k == key);
        label->setFont(f);
    }
}

}  // namespace auglab
