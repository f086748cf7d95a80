// RangeSlider (SPEC §6, pipeline editor): drives the real widget with QTest mouse and key events
// under Xvfb and asserts on what the user sees: values edited while a drag is still going on (the
// grid updates during the drag, not on release), handles that never cross or stick together,
// snapping, keyboard steps, and the painted pixels of the highlighted span.

#include <QLineEdit>
#include <QSignalSpy>
#include <QWheelEvent>
#include <QtTest>
#include <cmath>

#include "range_slider.h"

using auglab::RangeSlider;

class TestRangeSlider : public QObject {
    Q_OBJECT

private slots:
    void mappingIsLinear();
    void logarithmicTrack();
    void dragEditsWhileDragging();
    void minHandleStopsAtMax();
    void overlappingHandlesSplitByDirection_data();
    void overlappingHandlesSplitByDirection();
    void snapping();
    void setRangeClampsWithoutEditing();
    void keyboard_data();
    void keyboard();
    void keyboardReachesEitherHandle();
    void trackPressOutsideJumpsNearestHandle();
    void trackPressBetweenDragsBoth();
    void dragEndsOnEscapeAndHide();
    void paintedSpanFollowsRange();
    void sizeHints();
    void viewSpansTypicalRangeAndWidens();
    void shiftDragIsTenTimesFiner();
    void wheelStepsWhenFocused();
    void doubleClickTypesAValue();
    void clicksWithoutMovingChangeNothing();
    void handlesOnOneValueShowBothHalves();
};

namespace {

// A top-level slider of a fixed size, shown and exposed, with the given bounds and range.
void setUp(RangeSlider& w, double lower, double upper, double min, double max, bool integers = true) {
    w.setIntegers(integers);
    w.setBounds(lower, upper);
    w.setRange(min, max);
    w.resize(220, 24);
    w.show();
}

QPoint at(const RangeSlider& w, double value) {
    return QPoint(w.positionForValue(value), w.height() / 2);
}

// A move with the left button held and `mods` (QTest::mouseMove carries no modifiers).
void moveWith(RangeSlider& w, QPoint p, Qt::KeyboardModifiers mods) {
    QMouseEvent e(QEvent::MouseMove, QPointF(p), QPointF(w.mapToGlobal(p)), Qt::NoButton, Qt::LeftButton,
                  mods);
    QApplication::sendEvent(&w, &e);
}

QColor pixel(const QImage& image, QPoint p) {
    const qreal dpr = image.devicePixelRatio();
    return image.pixelColor(qRound(p.x() * dpr), qRound(p.y() * dpr));
}

}  // namespace

void TestRangeSlider::mappingIsLinear() {
    RangeSlider w;
    setUp(w, -180, 180, -15, 15, false);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setDecimals(3);
    const int x0 = w.positionForValue(-180), x1 = w.positionForValue(180);
    QVERIFY(x0 >= 0 && x1 < w.width() && x1 - x0 > 150);
    QCOMPARE(w.valueForPosition(x0 - 50), -180.0);  // outside the track clamps
    QCOMPARE(w.valueForPosition(x1 + 50), 180.0);
    for (int x = x0; x <= x1; x += 7) {
        const double expected = -180.0 + 360.0 * (x - x0) / (x1 - x0);  // independent of the widget
        QVERIFY2(std::abs(w.valueForPosition(x) - expected) <= 0.0005 + 1e-9, qPrintable(QString::number(x)));
        QVERIFY(std::abs(w.positionForValue(w.valueForPosition(x)) - x) <= 1);
    }
}

void TestRangeSlider::logarithmicTrack() {
    // An aspect ratio in [0.1, 10]: 1 sits in the middle, equal distances are equal ratios, and
    // dragging the whole range keeps max / min.
    RangeSlider w;
    setUp(w, 0.1, 10, 0.75, 1.3333, false);
    w.setDecimals(4);
    w.setLogarithmic(true);
    QVERIFY(w.logarithmic());
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const int x0 = w.positionForValue(0.1), x1 = w.positionForValue(10), mid = w.positionForValue(1);
    QVERIFY(std::abs(mid - (x0 + x1) / 2) <= 1);
    for (int x = x0; x <= x1; x += 9) {
        const double expected =
            0.1 * std::pow(100.0, double(x - x0) / (x1 - x0));  // independent of the widget
        QVERIFY2(std::abs(w.valueForPosition(x) - expected) <= 0.00005 + 1e-9 + expected * 1e-9,
                 qPrintable(QString::number(x)));
    }
    const double ratio = w.maximum() / w.minimum();
    const QPoint start = at(w, 1.0);
    QTest::mousePress(&w, Qt::LeftButton, Qt::NoModifier, start);
    QTest::mouseMove(&w, start + QPoint(25, 0));
    QTest::mouseRelease(&w, Qt::LeftButton, Qt::NoModifier, start + QPoint(25, 0));
    QVERIFY(w.minimum() > 0.75);
    QVERIFY2(std::abs(w.maximum() / w.minimum() - ratio) < 0.001,
             qPrintable(QString::number(w.maximum() / w.minimum())));
    // Bounds that reach zero turn the logarithmic track off.
    w.setBounds(0, 10);
    QVERIFY(!w.logarithmic());
}

void TestRangeSlider::dragEditsWhileDragging() {
    RangeSlider w;
    setUp(w, -180, 180, -15, 15, false);
    w.setDecimals(1);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy edited(&w, &RangeSlider::rangeEdited), changed(&w, &RangeSlider::rangeChanged);
    QSignalSpy started(&w, &RangeSlider::dragStarted), finished(&w, &RangeSlider::dragFinished);

    const QPoint start = w.handleRect(1).center();
    QCOMPARE(start.x(), w.positionForValue(15));
    QTest::mousePress(&w, Qt::LeftButton, Qt::NoModifier, start);
    QCOMPARE(started.count(), 1);
    QVERIFY(w.isDragging());
    QCOMPARE(edited.count(), 0);  // grabbing a handle exactly does not move it
    for (const int dx : {10, 20, 30, 40}) QTest::mouseMove(&w, start + QPoint(dx, 0));
    // Still dragging, and the range has been edited at every move already.
    QVERIFY(edited.count() >= 3);
    QCOMPARE(finished.count(), 0);
    QVERIFY(w.isDragging());
    QCOMPARE(edited.last().at(1).toDouble(), w.valueForPosition(start.x() + 40));
    QCOMPARE(edited.last().at(0).toDouble(), -15.0);

    const QPoint end = start + QPoint(50, 0);
    QTest::mouseRelease(&w, Qt::LeftButton, Qt::NoModifier, end);
    QCOMPARE(started.count(), 1);
    QCOMPARE(finished.count(), 1);
    QVERIFY(!w.isDragging());
    QCOMPARE(w.maximum(), w.valueForPosition(end.x()));
    QVERIFY(w.maximum() > 15.0);
    QCOMPARE(w.maximum(), std::round(w.maximum() * 10) / 10);  // on the 0.1 grid
    QCOMPARE(w.minimum(), -15.0);
    QCOMPARE(changed.count(), edited.count());
}

void TestRangeSlider::minHandleStopsAtMax() {
    RangeSlider w;
    setUp(w, 0, 100, 20, 60);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy edited(&w, &RangeSlider::rangeEdited);
    const QPoint start = w.handleRect(0).center();
    QTest::mousePress(&w, Qt::LeftButton, Qt::NoModifier, start);
    for (int x = start.x(); x <= w.positionForValue(90); x += 6) QTest::mouseMove(&w, QPoint(x, start.y()));
    QTest::mouseRelease(&w, Qt::LeftButton, Qt::NoModifier, at(w, 90));
    QVERIFY(edited.count() > 5);
    for (const QList<QVariant>& args : edited) QVERIFY(args.at(0).toDouble() <= args.at(1).toDouble());
    QCOMPARE(w.minimum(), 60.0);
    QCOMPARE(w.maximum(), 60.0);
}

void TestRangeSlider::overlappingHandlesSplitByDirection_data() {
    QTest::addColumn<double>("value");
    QTest::addColumn<int>("dx");
    QTest::addColumn<bool>("minMoves");
    QTest::newRow("middle, dragged right") << 50.0 << 30 << false;
    QTest::newRow("middle, dragged left") << 50.0 << -30 << true;
    QTest::newRow("at lower bound") << 0.0 << 30 << false;
    QTest::newRow("at upper bound") << 100.0 << -30 << true;
}

void TestRangeSlider::overlappingHandlesSplitByDirection() {
    QFETCH(double, value);
    QFETCH(int, dx);
    QFETCH(bool, minMoves);
    RangeSlider w;
    setUp(w, 0, 100, value, value);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QPoint start = w.handleRect(0).center();
    QCOMPARE(start, w.handleRect(1).center());
    QTest::mousePress(&w, Qt::LeftButton, Qt::NoModifier, start);
    QTest::mouseMove(&w, start + QPoint(dx / 3, 0));
    QTest::mouseMove(&w, start + QPoint(dx, 0));
    QTest::mouseRelease(&w, Qt::LeftButton, Qt::NoModifier, start + QPoint(dx, 0));
    const double moved = w.valueForPosition(start.x() + dx);
    QCOMPARE(w.minimum(), minMoves ? moved : value);
    QCOMPARE(w.maximum(), minMoves ? value : moved);
    QCOMPARE(w.activeHandle(), minMoves ? 0 : 1);
}

void TestRangeSlider::snapping() {
    RangeSlider w;
    setUp(w, 0, 1000, 1, 8);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setRange(1.4, 7.6);
    QCOMPARE(w.minimum(), 1.0);
    QCOMPARE(w.maximum(), 8.0);
    QSignalSpy edited(&w, &RangeSlider::rangeEdited);
    const QPoint start = w.handleRect(1).center();
    QTest::mousePress(&w, Qt::LeftButton, Qt::NoModifier, start);
    for (int dx = 3; dx < 60; dx += 3) QTest::mouseMove(&w, start + QPoint(dx, 0));
    QTest::mouseRelease(&w, Qt::LeftButton, Qt::NoModifier, start + QPoint(60, 0));
    QVERIFY(edited.count() > 5);
    for (const QList<QVariant>& args : edited)
        QCOMPARE(args.at(1).toDouble(), std::round(args.at(1).toDouble()));

    w.setIntegers(false);
    w.setBounds(0, 1);
    w.setDecimals(1);
    w.setRange(0.123, 0.987);
    QCOMPARE(w.minimum(), 0.1);
    QCOMPARE(w.maximum(), 1.0);
    QCOMPARE(w.step(), 0.1);
    w.setDecimals(0);  // re-snaps what is there
    QCOMPARE(w.minimum(), 0.0);
}

void TestRangeSlider::setRangeClampsWithoutEditing() {
    RangeSlider w;
    setUp(w, -180, 180, -15, 15, false);
    QSignalSpy edited(&w, &RangeSlider::rangeEdited), changed(&w, &RangeSlider::rangeChanged);
    w.setRange(-500, 500);
    QCOMPARE(w.minimum(), -180.0);
    QCOMPARE(w.maximum(), 180.0);
    QCOMPARE(changed.count(), 1);
    w.setRange(-180, 180);  // no change, no signal
    QCOMPARE(changed.count(), 1);
    w.setRange(30, 10);  // the min wins
    QCOMPARE(w.minimum(), 30.0);
    QCOMPARE(w.maximum(), 30.0);
    w.setBounds(-10, 10);  // the range follows the bounds
    QCOMPARE(w.minimum(), 10.0);
    QCOMPARE(w.maximum(), 10.0);
    QCOMPARE(changed.count(), 3);
    QCOMPARE(changed.last().at(0).toDouble(), 10.0);
    QCOMPARE(edited.count(), 0);
}

void TestRangeSlider::keyboard_data() {
    QTest::addColumn<int>("key");
    QTest::addColumn<bool>("shift");
    QTest::addColumn<double>("min");
    QTest::addColumn<double>("max");
    // Starting at [20, 60] in [0, 100]; the max handle is active until one is touched.
    QTest::newRow("Right") << int(Qt::Key_Right) << false << 20.0 << 61.0;
    QTest::newRow("Left") << int(Qt::Key_Left) << false << 20.0 << 59.0;
    QTest::newRow("Up") << int(Qt::Key_Up) << false << 20.0 << 61.0;
    QTest::newRow("Down") << int(Qt::Key_Down) << false << 20.0 << 59.0;
    QTest::newRow("PageUp") << int(Qt::Key_PageUp) << false << 20.0 << 70.0;
    QTest::newRow("PageDown") << int(Qt::Key_PageDown) << false << 20.0 << 50.0;
    QTest::newRow("Home stops at min") << int(Qt::Key_Home) << false << 20.0 << 20.0;
    QTest::newRow("End") << int(Qt::Key_End) << false << 20.0 << 100.0;
    QTest::newRow("Shift+Right") << int(Qt::Key_Right) << true << 21.0 << 61.0;
    QTest::newRow("Shift+Left") << int(Qt::Key_Left) << true << 19.0 << 59.0;
    QTest::newRow("Shift+PageUp") << int(Qt::Key_PageUp) << true << 30.0 << 70.0;
    QTest::newRow("Shift+Home") << int(Qt::Key_Home) << true << 0.0 << 40.0;
    QTest::newRow("Shift+End") << int(Qt::Key_End) << true << 60.0 << 100.0;
}

void TestRangeSlider::keyboard() {
    QFETCH(int, key);
    QFETCH(bool, shift);
    QFETCH(double, min);
    QFETCH(double, max);
    RangeSlider w;
    setUp(w, 0, 100, 20, 60);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.focusPolicy(), Qt::StrongFocus);
    QSignalSpy edited(&w, &RangeSlider::rangeEdited);
    QTest::keyClick(&w, Qt::Key(key), shift ? Qt::ShiftModifier : Qt::NoModifier);
    QCOMPARE(w.minimum(), min);
    QCOMPARE(w.maximum(), max);
    QCOMPARE(edited.count(), 1);
}

void TestRangeSlider::keyboardReachesEitherHandle() {
    RangeSlider w;
    setUp(w, 0, 100, 20, 60);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    // Without a mouse: Home brings max down onto min, then Left takes over the min handle.
    QTest::keyClick(&w, Qt::Key_Home);
    QTest::keyClick(&w, Qt::Key_Left);
    QCOMPARE(w.minimum(), 19.0);
    QCOMPARE(w.maximum(), 20.0);
    QCOMPARE(w.activeHandle(), 0);
    // A click on a handle makes it the one the keys move.
    w.setRange(20, 60);
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, w.handleRect(1).center());
    QTest::keyClick(&w, Qt::Key_Right);
    QCOMPARE(w.maximum(), 61.0);
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, w.handleRect(0).center());
    QTest::keyClick(&w, Qt::Key_Right);
    QCOMPARE(w.minimum(), 21.0);
    QCOMPARE(w.maximum(), 61.0);
}

void TestRangeSlider::trackPressOutsideJumpsNearestHandle() {
    RangeSlider w;
    setUp(w, 0, 100, 40, 60);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy edited(&w, &RangeSlider::rangeEdited);
    QSignalSpy started(&w, &RangeSlider::dragStarted), finished(&w, &RangeSlider::dragFinished);
    const QPoint low = at(w, 10);
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, low);
    QCOMPARE(w.minimum(), w.valueForPosition(low.x()));
    QCOMPARE(w.minimum(), 10.0);
    QCOMPARE(w.maximum(), 60.0);
    QCOMPARE(edited.count(), 1);
    QCOMPARE(started.count(), 1);
    QCOMPARE(finished.count(), 1);
    // The jumped handle stays grabbed: the press starts a drag.
    QTest::mousePress(&w, Qt::LeftButton, Qt::NoModifier, at(w, 90));
    QCOMPARE(w.maximum(), 90.0);
    QVERIFY(w.isDragging());
    QTest::mouseMove(&w, at(w, 95));
    QTest::mouseRelease(&w, Qt::LeftButton, Qt::NoModifier, at(w, 95));
    QCOMPARE(w.maximum(), 95.0);
    QCOMPARE(w.minimum(), 10.0);
}

void TestRangeSlider::trackPressBetweenDragsBoth() {
    RangeSlider w;
    setUp(w, 0, 100, 20, 40);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QPoint start = at(w, 30);
    QTest::mousePress(&w, Qt::LeftButton, Qt::NoModifier, start);
    QTest::mouseMove(&w, start + QPoint(30, 0));
    QVERIFY(w.minimum() > 20.0);
    QCOMPARE(w.maximum() - w.minimum(), 20.0);
    QTest::mouseMove(&w, QPoint(w.width() - 1, start.y()));  // far past the upper bound
    QTest::mouseRelease(&w, Qt::LeftButton, Qt::NoModifier, QPoint(w.width() - 1, start.y()));
    QCOMPARE(w.minimum(), 80.0);
    QCOMPARE(w.maximum(), 100.0);
}

// Listeners holding an undo step open until dragFinished() must always get it, exactly once.
void TestRangeSlider::dragEndsOnEscapeAndHide() {
    RangeSlider w;
    setUp(w, 0, 100, 20, 60);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy finished(&w, &RangeSlider::dragFinished);
    const QPoint start = w.handleRect(1).center();
    QTest::mousePress(&w, Qt::LeftButton, Qt::NoModifier, start);
    QTest::mouseMove(&w, start + QPoint(40, 0));
    QVERIFY(w.maximum() > 60.0);
    QTest::keyClick(&w, Qt::Key_Escape);  // back to where the drag began
    QCOMPARE(w.maximum(), 60.0);
    QVERIFY(!w.isDragging());
    QTest::mouseRelease(&w, Qt::LeftButton, Qt::NoModifier, start + QPoint(40, 0));
    QCOMPARE(w.maximum(), 60.0);
    QCOMPARE(finished.count(), 1);
    QTest::mousePress(&w, Qt::LeftButton, Qt::NoModifier, w.handleRect(0).center());
    w.hide();  // a hidden widget never sees the release
    QVERIFY(!w.isDragging());
    QCOMPARE(finished.count(), 2);
}

void TestRangeSlider::paintedSpanFollowsRange() {
    RangeSlider w;
    setUp(w, 0, 100, 40, 60);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QImage before = w.grab().toImage();
    w.setRange(20, 60);
    const QImage after = w.grab().toImage();
    const QColor highlight = w.palette().color(QPalette::Active, QPalette::Highlight);
    // Midway between the old and the new min handle: plain track before, highlighted after.
    const QPoint mid = at(w, 30);
    QVERIFY(pixel(before, mid) != pixel(after, mid));
    QCOMPARE(pixel(after, mid), highlight);
    QVERIFY(pixel(before, mid) != highlight);
    QCOMPARE(pixel(before, at(w, 80)), pixel(after, at(w, 80)));  // the rest is as it was
    QCOMPARE(pixel(before, at(w, 50)), highlight);

    // Disabled greys the span even where a style keeps a coloured disabled highlight, and the
    // span stays distinct from the track.
    QPalette palette = w.palette();
    palette.setColor(QPalette::Disabled, QPalette::Highlight, Qt::red);
    w.setPalette(palette);
    w.setEnabled(false);
    const QImage disabled = w.grab().toImage();
    const QColor grey = pixel(disabled, mid);
    QVERIFY(grey != highlight);
    QVERIFY2(grey.hslSaturation() < 20, qPrintable(grey.name()));
    QVERIFY(grey != pixel(disabled, at(w, 80)));
}

void TestRangeSlider::sizeHints() {
    RangeSlider w;
    QVERIFY(w.sizeHint().width() >= 150 && w.sizeHint().height() >= 18);
    QVERIFY(w.minimumSizeHint().width() <= w.sizeHint().width());
    QVERIFY(w.minimumSizeHint().height() <= w.sizeHint().height());
    QVERIFY(w.handleRect(1).height() <= w.sizeHint().height());
}

void TestRangeSlider::viewSpansTypicalRangeAndWidens() {
    // Rotation: bounds +-180, the slider spans +-45 (SPEC: typical ranges for tuning).
    RangeSlider w;
    setUp(w, -180, 180, -15, 15, false);
    w.setDecimals(1);
    w.setView(-45, 45);
    QCOMPARE(w.viewLower(), -45.0);
    QCOMPARE(w.viewUpper(), 45.0);
    QCOMPARE(w.positionForValue(45), w.positionForValue(180));  // the track ends at the view's end
    QCOMPARE(w.valueForPosition(w.width()), 45.0);              // drags stop there
    // A value set outside (typed) widens the view to include it, never beyond the bounds.
    w.setRange(-100, 15);
    QCOMPARE(w.viewLower(), -100.0);
    QCOMPARE(w.valueForPosition(0), -100.0);
    w.setRange(-200, 15);
    QCOMPARE(w.minimum(), -180.0);
    QCOMPARE(w.viewLower(), -180.0);
    // A view outside the bounds is clamped to them; an empty one falls back to the bounds.
    w.setView(10, 10);
    QCOMPARE(w.viewLower(), -180.0);
    QCOMPARE(w.viewUpper(), 180.0);
}

void TestRangeSlider::shiftDragIsTenTimesFiner() {
    RangeSlider w;
    setUp(w, 0, 100, 20, 60, false);
    w.setDecimals(3);
    const double perPixel = 100.0 / (w.positionForValue(100) - w.positionForValue(0));
    const QPoint start = at(w, 60);
    QTest::mousePress(&w, Qt::LeftButton, Qt::NoModifier, start);
    moveWith(w, start + QPoint(10, 0), Qt::NoModifier);
    const double coarse = w.maximum();
    QVERIFY(std::abs(coarse - (60 + 10 * perPixel)) <= perPixel);
    // Shift from here on: 20 more pixels move the handle as 2 would.
    moveWith(w, start + QPoint(10, 0), Qt::ShiftModifier);
    QCOMPARE(w.maximum(), coarse);  // pressing Shift does not move the handle
    moveWith(w, start + QPoint(30, 0), Qt::ShiftModifier);
    QVERIFY2(std::abs(w.maximum() - (coarse + 2 * perPixel)) < 0.002,
             qPrintable(QString("%1, expected %2").arg(w.maximum()).arg(coarse + 2 * perPixel)));
    // Released: full speed again, from where the handle is.
    const double fine = w.maximum();
    moveWith(w, start + QPoint(30, 0), Qt::NoModifier);
    moveWith(w, start + QPoint(35, 0), Qt::NoModifier);
    QVERIFY(std::abs(w.maximum() - (fine + 5 * perPixel)) < 0.002);
    QTest::mouseRelease(&w, Qt::LeftButton, Qt::NoModifier, start + QPoint(35, 0));
    QVERIFY(!w.isDragging());
}

void TestRangeSlider::wheelStepsWhenFocused() {
    RangeSlider w;
    setUp(w, -180, 180, -15, 15, false);
    w.setDecimals(1);
    w.setView(-45, 45);
    QSignalSpy edited(&w, &RangeSlider::rangeEdited);
    auto wheel = [&](int notches, Qt::KeyboardModifiers mods) {
        QWheelEvent e(QPointF(at(w, 15)), QPointF(w.mapToGlobal(at(w, 15))), QPoint(),
                      QPoint(0, 120 * notches), Qt::NoButton, mods, Qt::NoScrollPhase, false);
        QApplication::sendEvent(&w, &e);
        return e.isAccepted();
    };
    // Unfocused, the wheel belongs to the editor around the slider (it scrolls).
    QVERIFY(!wheel(1, Qt::NoModifier));
    QCOMPARE(w.maximum(), 15.0);
    QApplication::setActiveWindow(&w);  // no window manager under Xvfb to activate it
    w.setFocus();
    QTRY_VERIFY(w.hasFocus());
    QVERIFY(wheel(2, Qt::NoModifier));  // 1% of the 90-degree view a notch
    QCOMPARE(w.maximum(), 16.8);
    QVERIFY(wheel(-1, Qt::ShiftModifier));  // 0.1%: below the step, one step
    QCOMPARE(w.maximum(), 16.7);
    QCOMPARE(edited.count(), 2);
}

void TestRangeSlider::doubleClickTypesAValue() {
    RangeSlider w;
    setUp(w, -180, 180, -15, 15, false);
    w.setDecimals(1);
    w.setView(-45, 45);
    QTest::mouseDClick(&w, Qt::LeftButton, Qt::NoModifier, at(w, 15));
    auto* field = w.findChild<QLineEdit*>("handleField");
    QVERIFY(field && field->isVisible());
    QCOMPARE(field->text(), QString("15"));
    // Outside the bounds: refused, not cut; the field stays open and says what it takes.
    field->setText("500");
    QTest::keyClick(field, Qt::Key_Return);
    QVERIFY(field->isVisible());
    QCOMPARE(w.maximum(), 15.0);
    QVERIFY2(field->toolTip().contains("-180") && field->toolTip().contains("180"),
             qPrintable(field->toolTip()));
    // Within the bounds, beyond the view: set, and the view widens to show it.
    field->setText("120");
    QTest::keyClick(field, Qt::Key_Return);
    QTRY_VERIFY(w.findChild<QLineEdit*>("handleField") == nullptr);
    QCOMPARE(w.maximum(), 120.0);
    QCOMPARE(w.viewUpper(), 120.0);
    // Escape leaves the value alone.
    QTest::mouseDClick(&w, Qt::LeftButton, Qt::NoModifier, at(w, -15));
    field = w.findChild<QLineEdit*>("handleField");
    QVERIFY(field);
    field->setText("-30");
    QTest::keyClick(field, Qt::Key_Escape);
    QTRY_VERIFY(w.findChild<QLineEdit*>("handleField") == nullptr);
    QCOMPARE(w.minimum(), -15.0);
}

void TestRangeSlider::clicksWithoutMovingChangeNothing() {
    // A press and release on a handle without moving, and the double-click that opens its field,
    // leave the values as they were: values between two pixels' values were nudged to a pixel's
    // (and each nudge was an undo step in the editor).
    RangeSlider w;
    setUp(w, 0, 50, 13.37, 31.13, false);
    w.setDecimals(2);
    QSignalSpy edited(&w, &RangeSlider::rangeEdited);
    for (const double v : {13.37, 31.13})
        for (const int offset : {-2, 0, 1, 3}) {
            const QPoint p = at(w, v) + QPoint(offset, 0);
            QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, p);
            QCOMPARE(w.minimum(), 13.37);
            QCOMPARE(w.maximum(), 31.13);
        }
    QTest::mouseDClick(&w, Qt::LeftButton, Qt::NoModifier, at(w, 31.13) + QPoint(1, 0));
    QCOMPARE(w.maximum(), 31.13);
    QCOMPARE(edited.count(), 0);
    auto* field = w.findChild<QLineEdit*>("handleField");
    QVERIFY(field && field->isVisible());
    QCOMPARE(field->text(), QString("31.13"));
    QTest::keyClick(field, Qt::Key_Escape);
    // A press away from the handles still jumps the nearer one there, and a drag still moves it.
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, at(w, 45));
    QVERIFY(w.maximum() > 40);
    QCOMPARE(edited.count(), 1);
}

void TestRangeSlider::handlesOnOneValueShowBothHalves() {
    // Shear [0, 0]: both handles on one value are the two halves of one disc, split by a line, so
    // neither sits hidden under the other; apart, each is a whole disc.
    RangeSlider w;
    setUp(w, -30, 30, 0, 0, false);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QColor fill = w.palette().color(QPalette::Active, QPalette::Light);
    const QPoint centre = at(w, 0) + QPoint(0, 3);  // below the track, inside the disc
    const QImage together = w.grab().toImage();
    QVERIFY2(pixel(together, centre) != fill, qPrintable(pixel(together, centre).name()));  // the split line
    QCOMPARE(pixel(together, centre + QPoint(-3, 0)), fill);                                // the min half
    QCOMPARE(pixel(together, centre + QPoint(3, 0)), fill);                                 // the max half
    w.setRange(-20, 20);
    const QImage apart = w.grab().toImage();
    QCOMPARE(pixel(apart, at(w, 20) + QPoint(0, 3)), fill);  // a whole disc: no line through it
}

QTEST_MAIN(TestRangeSlider)
#include "test_range_slider.moc"