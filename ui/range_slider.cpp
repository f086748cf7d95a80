#include "range_slider.h"

#include <QKeyEvent>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <functional>

namespace auglab {

namespace {

constexpr int kRadius = 7;     // handle radius; handles are (2r+1) px squares so x is their exact centre
constexpr int kMargin = 2;     // room for the focus ring outside the handle
constexpr int kGrabSlack = 3;  // a press this far outside a handle still grabs it
constexpr int kTrackHalf = 2;  // the track is 4 px thick
constexpr int kMaxDecimals = 10;

}  // namespace

RangeSlider::RangeSlider(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

double RangeSlider::step() const {
    return integers_ ? 1.0 : std::pow(10.0, -decimals_);
}

double RangeSlider::snap(double value) const {
    if (std::isnan(value)) value = lower_;
    if (integers_) {
        value = std::round(value);
    } else {
        // Multiplying by 10^d and dividing (rather than multiplying by 10^-d) gives the shortest
        // decimal, e.g. 0.3 and not 0.30000000000000004, which the numeric fields display.
        const double scale = std::pow(10.0, decimals_);
        value = std::round(value * scale) / scale;
    }
    return std::clamp(value, lower_, upper_);
}

void RangeSlider::setBounds(double lower, double upper) {
    if (!std::isfinite(lower) || !std::isfinite(upper)) return;
    if (lower > upper) std::swap(lower, upper);
    lower_ = lower;
    upper_ = upper;
    if (lower_ <= 0) log_ = false;  // a log track needs positive bounds
    if (viewSet_) {
        viewLo_ = std::clamp(viewLo_, lower_, upper_);
        viewHi_ = std::clamp(viewHi_, lower_, upper_);
    }
    if (!viewSet_ || !(viewHi_ > viewLo_)) {
        viewLo_ = lower_;
        viewHi_ = upper_;
    }
    setRange(min_, max_);
    widenView(min_, max_);
    update();  // the same values sit at other pixels now
}

void RangeSlider::setView(double lower, double upper) {
    if (!std::isfinite(lower) || !std::isfinite(upper)) return;
    if (lower > upper) std::swap(lower, upper);
    viewSet_ = true;
    viewLo_ = std::clamp(lower, lower_, upper_);
    viewHi_ = std::clamp(upper, lower_, upper_);
    if (!(viewHi_ > viewLo_)) {
        viewLo_ = lower_;
        viewHi_ = upper_;
    }
    widenView(min_, max_);
    update();
}

void RangeSlider::widenView(double min, double max) {
    viewLo_ = std::min(viewLo_, min);
    viewHi_ = std::max(viewHi_, max);
}

void RangeSlider::setIntegers(bool integers) {
    integers_ = integers;
    setRange(min_, max_);
}

void RangeSlider::setDecimals(int decimals) {
    decimals_ = std::clamp(decimals, 0, kMaxDecimals);
    setRange(min_, max_);
}

void RangeSlider::setRange(double min, double max) {
    const double lo = snap(min);
    apply(lo, std::max(lo, snap(max)), false);
}

void RangeSlider::apply(double min, double max, bool byUser) {
    if (min == min_ && max == max_) return;
    min_ = min;
    max_ = max;
    widenView(min_, max_);  // a typed value outside the view: the track grows to show it
    update();
    // Edited before changed, as QAbstractSlider emits sliderMoved before valueChanged.
    if (byUser) emit rangeEdited(min_, max_);
    emit rangeChanged(min_, max_);
}

void RangeSlider::placeRange(double newMin, double width, bool byUser) {
    // max(): rounding can put upper_ - width a hair below lower_, and std::clamp needs lo <= hi.
    newMin = std::clamp(newMin, viewLo_, std::max(viewLo_, viewHi_ - width));
    const double lo = snap(newMin);
    // Both ends are on the step grid, so lo + width is too, up to rounding that snap removes.
    apply(lo, std::max(lo, snap(lo + width)), byUser);
}

int RangeSlider::trackLeft() const {
    return kMargin + kRadius;
}

int RangeSlider::trackRight() const {
    return std::max(trackLeft() + 1, width() - 1 - kMargin - kRadius);
}

void RangeSlider::setLogarithmic(bool on) {
    log_ = on && lower_ > 0;
    update();
}

double RangeSlider::toTrack(double v) const {
    return log_ ? std::log(v) : v;
}

double RangeSlider::fromTrack(double t) const {
    return log_ ? std::exp(t) : t;
}

double RangeSlider::valuePerPixel() const {
    // In track units: values, or their logs on a logarithmic track.
    return (toTrack(viewHi_) - toTrack(viewLo_)) / (trackRight() - trackLeft());
}

int RangeSlider::positionForValue(double value) const {
    if (!(viewHi_ > viewLo_)) return trackLeft();
    const double t = (toTrack(std::clamp(value, viewLo_, viewHi_)) - toTrack(viewLo_)) /
                     (toTrack(viewHi_) - toTrack(viewLo_));
    return trackLeft() + static_cast<int>(std::lround(t * (trackRight() - trackLeft())));
}

double RangeSlider::valueForPosition(int x) const {
    return snap(
        std::clamp(fromTrack(toTrack(viewLo_) + (x - trackLeft()) * valuePerPixel()), viewLo_, viewHi_));
}

QRect RangeSlider::handleRect(int which) const {
    const int x = positionForValue(which == 0 ? min_ : max_);
    const int y = height() / 2;
    return QRect(x - kRadius, y - kRadius, 2 * kRadius + 1, 2 * kRadius + 1);
}

QSize RangeSlider::sizeHint() const {
    return QSize(200, 22);
}

QSize RangeSlider::minimumSizeHint() const {
    // Room for both handles side by side plus a little track to aim at.
    return QSize(4 * (kRadius + kMargin) + 20, 2 * (kRadius + kMargin) + 1);
}

void RangeSlider::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    // Active rather than the window's current group: an inactive window should not look disabled,
    // and Disabled is what greys the whole widget out.
    const QPalette::ColorGroup group = isEnabled() ? QPalette::Active : QPalette::Disabled;
    const QPalette& pal = palette();
    const int cy = height() / 2;
    const int pMin = positionForValue(min_), pMax = positionForValue(max_);

    // Rectangles on whole pixels stay crisp with antialiasing on.
    p.setPen(Qt::NoPen);
    p.setBrush(pal.color(group, QPalette::Midlight));
    p.drawRoundedRect(QRectF(trackLeft(), cy - kTrackHalf, trackRight() - trackLeft() + 1, 2 * kTrackHalf),
                      kTrackHalf, kTrackHalf);
    // Some styles keep a coloured Highlight in the Disabled group; dropping its saturation greys the
    // span while keeping it as distinct from the track as the style's disabled highlight is.
    QColor span = pal.color(group, QPalette::Highlight);
    if (!isEnabled()) span = QColor::fromHsl(span.hslHue(), 0, span.lightness());
    p.setBrush(span);
    p.drawRect(QRectF(pMin, cy - kTrackHalf, pMax - pMin + 1, 2 * kTrackHalf));

    // The active handle goes on top, so the one the keys move is the one the user sees. Handles
    // that overlap are drawn as the halves of one disc (the min's left, the max's right), so
    // neither hides the other.
    const bool split = pMax - pMin < 2 * kRadius + 1;
    for (const int which : {1 - active_, active_}) {
        const bool ring = hasFocus() && which == active_;
        const qreal penWidth = ring ? 2.0 : 1.0;
        const qreal inset = penWidth / 2;
        p.setPen(QPen(pal.color(group, ring ? QPalette::Highlight : QPalette::Dark), penWidth));
        p.setBrush(pal.color(group, QPalette::Light));
        const QRectF r = QRectF(handleRect(which)).adjusted(inset, inset, -inset, -inset);
        if (split) {
            // Qt's angles: 1/16 degree, counter-clockwise from 3 o'clock.
            p.drawChord(r, which == 0 ? 90 * 16 : -90 * 16, 180 * 16);
        } else {
            p.drawEllipse(r);
        }
    }
}

void RangeSlider::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || grab_ != Grab::None) {
        QWidget::mousePressEvent(event);
        return;
    }
    const int x = qRound(event->position().x());
    const int pMin = positionForValue(min_), pMax = positionForValue(max_);
    const int dMin = std::abs(x - pMin), dMax = std::abs(x - pMax);
    const int reach = kRadius + kGrabSlack;
    pressX_ = x;
    moved_ = false;
    startMin_ = min_;
    startMax_ = max_;
    grabOffset_ = 0;
    relative_ = false;
    fine_ = (event->modifiers() & Qt::ShiftModifier) != 0;
    if (fine_) {
        relative_ = true;
        anchorX_ = x;
        anchorMin_ = min_;
        anchorMax_ = max_;
    }
    bool jump = false;

    if (dMin <= reach && dMax <= reach && std::abs(dMin - dMax) <= 1) {
        // Both handles are under the press. At a bound only one of them can move at all, so take
        // that one; elsewhere wait for the first move to tell which way the user means.
        if (min_ == max_ && max_ <= viewLo_)
            grab_ = Grab::Max;
        else if (min_ == max_ && min_ >= viewHi_)
            grab_ = Grab::Min;
        else
            grab_ = Grab::Undecided;
    } else if (dMin <= reach || dMax <= reach) {
        grab_ = dMin < dMax ? Grab::Min : Grab::Max;
    } else if (x > pMin && x < pMax) {
        grab_ = Grab::Both;
    } else {
        grab_ = x < pMin ? Grab::Min : Grab::Max;
        jump = true;
    }
    if (grab_ == Grab::Min || grab_ == Grab::Max) {
        active_ = grab_ == Grab::Min ? 0 : 1;
        // Keep the handle where it is under the pointer instead of snapping its centre there.
        if (!jump) grabOffset_ = x - (active_ == 0 ? pMin : pMax);
    }
    update();
    // Started before the first edit, so a listener can open one undo step for the whole drag.
    emit dragStarted();
    if (jump) {
        moved_ = true;  // a press beside the handles moves the nearer one there
        mouseMoveEvent(event);
    }
}

void RangeSlider::mouseMoveEvent(QMouseEvent* event) {
    if (grab_ == Grab::None) {
        QWidget::mouseMoveEvent(event);
        return;
    }
    const int x = qRound(event->position().x());
    if (grab_ == Grab::Undecided) {
        if (x == pressX_) return;
        grab_ = x > pressX_ ? Grab::Max : Grab::Min;
        active_ = grab_ == Grab::Min ? 0 : 1;
        grabOffset_ = pressX_ - positionForValue(active_ == 0 ? min_ : max_);
        update();
    }
    // A press and release in place (a click, the first half of a double-click) leave the values
    // alone: a value between two pixels' values would otherwise be moved to the pixel's.
    if (!moved_) {
        if (x == pressX_) return;
        moved_ = true;
    }
    // Shift pressed or released: movement counts from here on, 10x finer while it is held.
    const bool fine = (event->modifiers() & Qt::ShiftModifier) != 0;
    if (fine != fine_) {
        fine_ = fine;
        relative_ = true;
        anchorX_ = x;
        anchorMin_ = min_;
        anchorMax_ = max_;
    }
    if (relative_) {
        const double delta = (x - anchorX_) * valuePerPixel() * (fine_ ? 0.1 : 1.0);  // in track units
        const auto moved = [&](double v) {
            return snap(std::clamp(fromTrack(toTrack(v) + delta), viewLo_, viewHi_));
        };
        switch (grab_) {
            case Grab::Min:
                apply(std::min(moved(anchorMin_), max_), max_, true);
                break;
            case Grab::Max:
                apply(min_, std::max(moved(anchorMax_), min_), true);
                break;
            case Grab::Both:
                if (log_) {
                    const double ratio = anchorMax_ / anchorMin_;
                    const double lo = snap(std::clamp(fromTrack(toTrack(anchorMin_) + delta), viewLo_,
                                                      std::max(viewLo_, viewHi_ / ratio)));
                    apply(lo, std::max(lo, snap(std::min(viewHi_, lo * ratio))), true);
                } else {
                    placeRange(anchorMin_ + delta, anchorMax_ - anchorMin_, true);
                }
                break;
            case Grab::None:
            case Grab::Undecided:
                break;
        }
        return;
    }
    switch (grab_) {
        case Grab::Min:
            apply(std::min(valueForPosition(x - grabOffset_), max_), max_, true);
            break;
        case Grab::Max:
            apply(min_, std::max(valueForPosition(x - grabOffset_), min_), true);
            break;
        case Grab::Both:
            // Measured from the press, not accumulated per move, so snapping never drifts.
            if (log_) {
                // The ratio max / min is kept: the whole range slides in log space, stopped at the bounds.
                const double ratio = startMax_ / startMin_;
                const double lo = std::clamp(fromTrack(toTrack(startMin_) + (x - pressX_) * valuePerPixel()),
                                             viewLo_, std::max(viewLo_, viewHi_ / ratio));
                const double snappedLo = snap(lo);
                apply(snappedLo, std::max(snappedLo, snap(std::min(viewHi_, snappedLo * ratio))), true);
            } else {
                placeRange(startMin_ + (x - pressX_) * valuePerPixel(), startMax_ - startMin_, true);
            }
            break;
        case Grab::None:
        case Grab::Undecided:
            break;
    }
}

void RangeSlider::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton && grab_ != Grab::None) {
        mouseMoveEvent(event);  // the release point counts, even if no move reported it
        finishDrag();
    } else {
        QWidget::mouseReleaseEvent(event);
    }
}

void RangeSlider::finishDrag() {
    grab_ = Grab::None;
    update();
    emit dragFinished();
}

void RangeSlider::keyPressEvent(QKeyEvent* event) {
    if (grab_ != Grab::None) {
        // Keys would fight the pointer; Escape undoes the drag so far.
        if (event->key() == Qt::Key_Escape) {
            apply(startMin_, startMax_, true);
            finishDrag();
        }
        event->accept();
        return;
    }
    const double stepSize = step();
    const double page = std::max(stepSize, std::round((viewHi_ - viewLo_) * 0.1 / stepSize) * stepSize);
    double delta = 0.0;
    int extreme = 0;  // -1 Home, +1 End
    switch (event->key()) {
        case Qt::Key_Left:
        case Qt::Key_Down:
            delta = -stepSize;
            break;
        case Qt::Key_Right:
        case Qt::Key_Up:
            delta = stepSize;
            break;
        case Qt::Key_PageDown:
            delta = -page;
            break;
        case Qt::Key_PageUp:
            delta = page;
            break;
        case Qt::Key_Home:
            extreme = -1;
            break;
        case Qt::Key_End:
            extreme = 1;
            break;
        default:
            QWidget::keyPressEvent(event);
            return;
    }
    if (event->modifiers() & Qt::ShiftModifier) {
        const double width = max_ - min_;
        placeRange(extreme < 0 ? viewLo_ : extreme > 0 ? viewHi_ - width : min_ + delta, width, true);
    } else {
        // Handles on one value: the direction picks the one that can move, as the mouse does.
        if (min_ == max_) active_ = (delta > 0 || extreme > 0) ? 1 : 0;
        if (active_ == 0) {
            const double v = extreme < 0   ? viewLo_
                             : extreme > 0 ? max_
                                           : std::max(viewLo_, snap(min_ + delta));
            apply(std::min(v, max_), max_, true);
        } else {
            const double v = extreme < 0   ? min_
                             : extreme > 0 ? viewHi_
                                           : std::min(viewHi_, snap(max_ + delta));
            apply(min_, std::max(v, min_), true);
        }
    }
    update();
    event->accept();
}

void RangeSlider::wheelEvent(QWheelEvent* event) {
    // Only a focused slider takes the wheel: otherwise it scrolls the editor the slider sits in.
    const QPoint d = event->angleDelta();
    const int notches = (d.y() != 0 ? d.y() : d.x()) / 120;  // Shift turns the wheel sideways on some systems
    if (!hasFocus() || grab_ != Grab::None || notches == 0) {
        event->ignore();
        return;
    }
    const bool fine = (event->modifiers() & Qt::ShiftModifier) != 0;
    const double stepSize =
        std::max(step(), snap((viewHi_ - viewLo_) * (fine ? 0.001 : 0.01) + viewLo_) - viewLo_);
    if (min_ == max_) active_ = notches > 0 ? 1 : 0;
    if (active_ == 0)
        apply(std::min(std::max(viewLo_, snap(min_ + notches * stepSize)), max_), max_, true);
    else
        apply(min_, std::max(std::min(viewHi_, snap(max_ + notches * stepSize)), min_), true);
    event->accept();
}

void RangeSlider::mouseDoubleClickEvent(QMouseEvent* event) {
    const int x = qRound(event->position().x());
    const int dMin = std::abs(x - positionForValue(min_)), dMax = std::abs(x - positionForValue(max_));
    if (event->button() != Qt::LeftButton || std::min(dMin, dMax) > kRadius + kGrabSlack) {
        QWidget::mouseDoubleClickEvent(event);
        return;
    }
    // Handles on one value: the half under the pointer.
    editHandle(dMin < dMax || (dMin == dMax && x < positionForValue(min_)) ? 0 : 1);
}

namespace {
// The field of a handle: Enter commits, Escape cancels, leaving it commits what is valid.
class HandleField : public QLineEdit {
public:
    HandleField(QWidget* parent, std::function<bool()> commit, std::function<void()> cancel)
        : QLineEdit(parent), commit_(std::move(commit)), cancel_(std::move(cancel)) {}

protected:
    void keyPressEvent(QKeyEvent* e) override {
        if (e->key() == Qt::Key_Return || e->key() == Qt::Key_Enter) {
            commit_();
        } else if (e->key() == Qt::Key_Escape) {
            cancel_();
        } else {
            QLineEdit::keyPressEvent(e);
        }
        e->accept();
    }
    void focusOutEvent(QFocusEvent* e) override {
        QLineEdit::focusOutEvent(e);
        if (!commit_()) cancel_();
    }

private:
    std::function<bool()> commit_;
    std::function<void()> cancel_;
};
}  // namespace

void RangeSlider::editHandle(int which) {
    if (editor_) return;
    editing_ = which;
    active_ = which;
    auto* field = new HandleField(
        this, [this] { return commitEdit(); },
        [this] {
            if (!editor_) return;
            QLineEdit* e = editor_;
            editor_ = nullptr;
            editing_ = -1;
            e->hide();
            e->deleteLater();
            setFocus();
        });
    editor_ = field;
    field->setObjectName("handleField");
    field->setText(QString::number(which == 0 ? min_ : max_, 'g', 12));
    field->selectAll();
    const int w = 72,
              x = std::clamp(positionForValue(which == 0 ? min_ : max_) - w / 2, 0, std::max(0, width() - w));
    field->setGeometry(x, 0, w, height());
    field->setToolTip(tr("Type a value from %1 to %2; Enter sets it, Escape cancels")
                          .arg(QString::number(lower_, 'g', 10), QString::number(upper_, 'g', 10)));
    field->show();
    field->setFocus();
}

bool RangeSlider::commitEdit() {
    if (!editor_) return true;
    bool ok = false;
    const double v = editor_->text().trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(v) || v < lower_ || v > upper_) {
        // Refused, not cut: the field says what it takes and stays open.
        editor_->setStyleSheet("QLineEdit { background: #ffd6d6; }");
        editor_->setToolTip(
            tr("Allowed: %1 to %2").arg(QString::number(lower_, 'g', 10), QString::number(upper_, 'g', 10)));
        return false;
    }
    const int which = editing_;
    QLineEdit* e = editor_;
    editor_ = nullptr;
    editing_ = -1;
    e->hide();
    e->deleteLater();
    const double value = snap(v);
    if (which == 0)
        apply(value, std::max(value, max_), true);
    else
        apply(std::min(min_, value), value, true);
    setFocus();
    return true;
}

void RangeSlider::focusInEvent(QFocusEvent* event) {
    update();  // the focus ring
    QWidget::focusInEvent(event);
}

void RangeSlider::focusOutEvent(QFocusEvent* event) {
    update();
    QWidget::focusOutEvent(event);
}

// A hidden or disabled widget never sees the release, so end the drag here: listeners waiting for
// dragFinished() (an open undo step) must always get it.
void RangeSlider::hideEvent(QHideEvent* event) {
    if (grab_ != Grab::None) finishDrag();
    QWidget::hideEvent(event);
}

void RangeSlider::changeEvent(QEvent* event) {
    if (event->type() == QEvent::EnabledChange && !isEnabled() && grab_ != Grab::None) finishDrag();
    QWidget::changeEvent(event);
}

}  // namespace auglab
