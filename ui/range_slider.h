#pragma once
// A two-handle slider for a [min, max] parameter of an op (SPEC §6, pipeline editor): rotation
// [-15, 15] deg within [-180, 180], holes [1, 8] within [0, 1000], and so on.

#include <QWidget>

class QLineEdit;

namespace auglab {

/// Edits a range [minimum(), maximum()] inside fixed bounds [lower(), upper()].
///
/// The track spans the view [viewLower(), viewUpper()] (setView: the values most users explore;
/// the bounds by default), and values map linearly (or logarithmically) from its pixels and are
/// snapped to the step: 1 with setIntegers(true), else 10^-decimals. A range set outside the view
/// (a typed value) widens the view to include it. Bounds should lie on that grid; minimum() <=
/// maximum() always holds.
///
/// Mouse (left button): a press on or near a handle grabs it (the closer one); when both handles
/// sit on top of each other the first horizontal move decides (right takes the max handle, left
/// the min one), so they can never get stuck together. A press on the track between the handles
/// drags both, keeping the width; a press on the track outside them jumps the nearest handle there
/// and goes on dragging it. A dragged handle stops at the other one. Escape during a drag restores
/// the range the drag began with.
///
/// Keyboard (acts on the active handle, the one last touched; the max handle at first):
/// Left/Down and Right/Up move it by one step, PageDown/PageUp by 10% of the bounds, Home/End as
/// far as it goes. When both handles hold the same value the direction picks the handle, as with
/// the mouse, so Home on the max handle followed by Left reaches the min handle without a mouse.
/// With Shift the same keys move the whole range, keeping its width.
///
/// Signals: rangeEdited() for every change the user makes (each mouse move of a drag, not only the
/// release), then rangeChanged() for every change whatever its cause. dragStarted() and
/// dragFinished() bracket a mouse drag, so a document can fold the drag into one undo step.
///
/// Fine control: Shift while dragging moves 10x slower (from where Shift was pressed, so the
/// handle never jumps); the wheel, when the slider has focus, steps the active handle by 1% of the
/// view (0.1% with Shift); a double-click on a handle opens a field to type its value (anything
/// within the bounds; the view widens to show it; a value outside the bounds is refused with the
/// allowed range, in red, and the field stays open). Handles on one value are drawn as the two
/// halves of one disc, so neither hides the other.
class RangeSlider : public QWidget {
    Q_OBJECT

public:
    explicit RangeSlider(QWidget* parent = nullptr);

    /// Sets the bounds (swapped if given the wrong way round; ignored unless finite) and clamps the
    /// range into them.
    void setBounds(double lower, double upper);
    /// Integer values: step 1. Re-snaps the current range.
    void setIntegers(bool integers);
    /// Precision of real values (0..10 decimals, step 10^-decimals). Re-snaps the current range.
    void setDecimals(int decimals);
    /// A logarithmic track (positive bounds only): equal distances are equal ratios, for parameters
    /// such as an aspect ratio where 0.5 and 2 are as far from 1. Dragging the whole range keeps its
    /// ratio max / min instead of its width.
    void setLogarithmic(bool on);
    /// The span the track shows (clamped to the bounds, widened to hold the current range).
    void setView(double lower, double upper);
    double viewLower() const { return viewLo_; }
    double viewUpper() const { return viewHi_; }
    bool logarithmic() const { return log_; }
    /// Snaps and clamps to the bounds; when min > max the max is raised to min (the min wins).
    /// Emits rangeChanged() only if the range changed, never rangeEdited().
    void setRange(double min, double max);

    double minimum() const { return min_; }
    double maximum() const { return max_; }
    double lower() const { return lower_; }
    double upper() const { return upper_; }
    bool integers() const { return integers_; }
    int decimals() const { return decimals_; }
    /// The snap step: 1 for integers, else 10^-decimals.
    double step() const;
    bool isDragging() const { return grab_ != Grab::None; }
    /// The handle that keys act on: 0 = min, 1 = max.
    int activeHandle() const { return active_; }

    /// Bounding square of a handle (0 = min, 1 = max) in widget coordinates.
    QRect handleRect(int which) const;
    /// The x of a handle centre showing this value (clamped to the bounds).
    int positionForValue(double value) const;
    /// The snapped, clamped value under widget x.
    double valueForPosition(int x) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void rangeEdited(double min, double max);
    void rangeChanged(double min, double max);
    void dragStarted();
    void dragFinished();

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void focusInEvent(QFocusEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;
    void hideEvent(QHideEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    // Undecided: both handles were under the press; the first horizontal move picks one.
    enum class Grab { None, Min, Max, Both, Undecided };

    double snap(double value) const;
    int trackLeft() const;
    int trackRight() const;
    double valuePerPixel() const;
    // Sets the range (already snapped and ordered); emits and repaints if it changed.
    void apply(double min, double max, bool byUser);
    // Puts the range at newMin keeping its width, stopped at the bounds.
    void placeRange(double newMin, double width, bool byUser);
    void finishDrag();
    // Widens the view to hold [min, max].
    void widenView(double min, double max);
    // The field a double-click opens over handle `which`; commits on Enter, cancels on Escape.
    void editHandle(int which);
    bool commitEdit();

    // The track's coordinate of a value: the value, or its log on a logarithmic track.
    double toTrack(double v) const;
    double fromTrack(double t) const;

    double lower_ = 0.0, upper_ = 100.0;
    double viewLo_ = 0.0, viewHi_ = 100.0;
    bool viewSet_ = false;  // setView() was called: the view no longer follows the bounds
    double min_ = 0.0, max_ = 100.0;
    bool integers_ = false;
    bool log_ = false;
    int decimals_ = 2;
    int active_ = 1;

    Grab grab_ = Grab::None;
    int pressX_ = 0;      // where the drag began
    bool moved_ = false;  // the pointer left the press's x: until then a press or release changes nothing
    int grabOffset_ = 0;  // press x minus the grabbed handle's centre, so it does not jump
    double startMin_ = 0.0, startMax_ = 0.0;  // the range when the drag began
    // Once Shift is pressed or released during a drag, movement counts from an anchor: where the
    // pointer and the range were then, scaled by 1/10 while Shift is held.
    bool relative_ = false, fine_ = false;
    int anchorX_ = 0;
    double anchorMin_ = 0.0, anchorMax_ = 0.0;
    QLineEdit* editor_ = nullptr;
    int editing_ = -1;  // the handle the field edits
};

}  // namespace auglab
