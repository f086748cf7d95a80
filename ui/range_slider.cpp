#include "range_slider.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

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
    setRange(min_, max_);
    update();  // the same values sit at other pixels now
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
    update();
    // Edited before changed, as QAbstractSlider emits sliderMoved before valueChanged.
    if (byUser) emit rangeEdited(min_, max_);
    emit rangeChanged(min_, max_);
}

void RangeSlider::placeRange(double newMin, double width, bool byUser) {
    // max(): rounding can put upper_ - width a hair below lower_, and std::clamp needs lo <= hi.
    newMin = std::clamp(newMin, lower_, std::max(lower_, upper_ - width));
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
    return (toTrack(upper_) - toTrack(lower_)) / (trackRight() - trackLeft());
}

int RangeSlider::positionForValue(double value) const {
    if (!(upper_ > lower_)) return trackLeft();
    const double t = (toTrack(std::clamp(value, lower_, upper_)) - toTrack(lower_)) / (toTrack(upper_) - toTrack(lower_));
    return trackLeft() + static_cast<int>(std::lround(t * (trackRight() - trackLeft())));
}

double RangeSlider::valueForPosition(int x) const {
    return snap(std::clamp(fromTrack(toTrack(lower_) + (x - trackLeft()) * valuePerPixel()), lower_, upper_));
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

    // The active handle goes on top, so the one the keys move is the one the user sees.
    for (const int which : {1 - active_, active_}) {
        const bool ring = hasFocus() && which == active_;
        const qreal penWidth = ring ? 2.0 : 1.0;
        const qreal inset = penWidth / 2;
        p.setPen(QPen(pal.color(group, ring ? QPalette::Highlight : QPalette::Dark), penWidth));
        p.setBrush(pal.color(group, QPalette::Light));
        p.drawEllipse(QRectF(handleRect(which)).adjusted(inset, inset, -inset, -inset));
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
    startMin_ = min_;
    startMax_ = max_;
    grabOffset_ = 0;
    bool jump = false;

    if (dMin <= reach && dMax <= reach && std::abs(dMin - dMax) <= 1) {
        // Both handles are under the press. At a bound only one of them can move at all, so take
        // that one; elsewhere wait for the first move to tell which way the user means.
        if (min_ == max_ && max_ <= lower_)
            grab_ = Grab::Max;
        else if (min_ == max_ && min_ >= upper_)
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
    if (jump) mouseMoveEvent(event);
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
                const double lo = std::clamp(fromTrack(toTrack(startMin_) + (x - pressX_) * valuePerPixel()), lower_,
                                             std::max(lower_, upper_ / ratio));
                const double snappedLo = snap(lo);
                apply(snappedLo, std::max(snappedLo, snap(std::min(upper_, snappedLo * ratio))), true);
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
    const double page = std::max(stepSize, std::round((upper_ - lower_) * 0.1 / stepSize) * stepSize);
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
        placeRange(extreme < 0 ? lower_ : extreme > 0 ? upper_ - width : min_ + delta, width, true);
    } else {
        // Handles on one value: the direction picks the one that can move, as the mouse does.
        if (min_ == max_) active_ = (delta > 0 || extreme > 0) ? 1 : 0;
        if (active_ == 0) {
            const double v = extreme < 0 ? lower_ : extreme > 0 ? max_ : snap(min_ + delta);
            apply(std::min(v, max_), max_, true);
        } else {
            const double v = extreme < 0 ? min_ : extreme > 0 ? upper_ : snap(max_ + delta);
            apply(min_, std::max(v, min_), true);
        }
    }
    update();
    event->accept();
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
