// core/raster.h against OpenCV 4.6 itself: every primitive drawn both ways on a CV_8UC1 zero image
// (colour 255) for thousands of random cases from fixed seeds, and the whole masks compared for
// equality. Image sizes run from 1x1 to 300x200; vertices lie inside, on and just off the border,
// near the image or far outside it (up to 5000 pixels); thickness 1..7, line types 4 and 8;
// polygons with repeated, collinear and self-intersecting vertices; circles of radius 0..3000.
// Every span the rasteriser emits must also lie inside the image.

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <functional>
#include <opencv2/imgproc.hpp>
#include <random>
#include <vector>

#include "raster.h"

using namespace auglab;
using raster::Point;

namespace {

// Where a random vertex lies relative to the image.
enum class Reach { Inside, Border, Near, Far, Mixed };

class Cases {
public:
    explicit Cases(unsigned seed) : rng_(seed) {}

    int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }

    // A quarter of the images are tiny (1..4 pixels a side), the rest up to 300x200.
    cv::Size size() {
        if (chance(0.25)) return {uniform(1, 4), uniform(1, 4)};
        return {uniform(1, 300), uniform(1, 200)};
    }

    Point point(cv::Size s, Reach reach) {
        if (reach == Reach::Mixed) reach = Reach(uniform(0, 3));
        switch (reach) {
            case Reach::Inside:
                return {uniform(0, s.width - 1), uniform(0, s.height - 1)};
            case Reach::Border: {
                // On a border row or column, or one pixel outside it.
                const int xs[] = {-1, 0, s.width - 1, s.width, uniform(-1, s.width)};
                const int ys[] = {-1, 0, s.height - 1, s.height, uniform(-1, s.height)};
                return {xs[uniform(0, 4)], ys[uniform(0, 4)]};
            }
            case Reach::Near:
                return {uniform(-20, s.width + 20), uniform(-20, s.height + 20)};
            default:
                return {uniform(-5000, 5000), uniform(-5000, 5000)};
        }
    }

    // The other end of a segment from `a`: for far ends, half the time `a` mirrored through a
    // pixel of the image (give or take a few pixels), so that far segments still cross the image.
    Point segmentEnd(cv::Size s, Point a, Reach reach) {
        if ((reach == Reach::Far || reach == Reach::Mixed) && chance(0.5)) {
            const Point q = point(s, Reach::Inside);
            return {2 * q.x - a.x + uniform(-3, 3), 2 * q.y - a.y + uniform(-3, 3)};
        }
        return point(s, reach);
    }

    // 1..8 vertices; some polygons have all vertices equal, some are collinear, some repeat one.
    std::vector<Point> polygon(cv::Size s, Reach reach) {
        const int n = chance(0.2) ? uniform(1, 3) : uniform(3, 8);
        std::vector<Point> pts;
        const int shape = uniform(0, 9);
        if (shape == 0) {
            pts.assign(std::size_t(n), point(s, reach));
        } else if (shape == 1) {
            const Point p = point(s, reach);
            const int dx = uniform(-40, 40), dy = uniform(-40, 40);
            for (int i = 0; i < n; ++i) {
                const int k = uniform(-5, 5);
                pts.push_back({p.x + k * dx, p.y + k * dy});
            }
        } else {
            for (int i = 0; i < n; ++i)
                pts.push_back(i == 0 ? point(s, reach) : segmentEnd(s, pts.back(), reach));
            if (shape == 2) {
                const Point repeated = pts[std::size_t(uniform(0, n - 1))];
                pts.insert(pts.begin() + uniform(0, n - 1), repeated);
            }
        }
        return pts;
    }

    // Mostly 0..10, 0..150 or 0..3000; for far centres, half the time about the distance to a
    // pixel of the image, so that the disc reaches in.
    int radius(cv::Size s, Point c, Reach reach) {
        if ((reach == Reach::Far || reach == Reach::Mixed) && chance(0.5)) {
            const Point q = point(s, Reach::Inside);
            return std::max(0, int(std::hypot(q.x - c.x, q.y - c.y)) + uniform(-3, 3));
        }
        const int kind = uniform(0, 9);
        if (kind < 4) return uniform(0, 10);
        if (kind < 7) return uniform(0, 150);
        return uniform(0, 3000);
    }

private:
    std::mt19937 rng_;
};

QString describe(const std::vector<Point>& pts) {
    QStringList parts;
    for (const Point& p : pts) parts << QString("(%1,%2)").arg(p.x).arg(p.y);
    return parts.join(' ');
}

std::vector<cv::Point> toCv(const std::vector<Point>& pts) {
    std::vector<cv::Point> out;
    for (const Point& p : pts) out.emplace_back(p.x, p.y);
    return out;
}

// The mask our spans paint; `error` says if a span left the image or ran backwards.
cv::Mat1b paint(cv::Size size, const std::function<void(const raster::SpanSink&)>& draw, QString& error) {
    cv::Mat1b mask(size, 0);
    draw([&](int y, int x0, int x1) {
        if (y < 0 || y >= size.height || x0 < 0 || x1 >= size.width || x0 > x1) {
            if (error.isEmpty())
                error = QString("span y=%1 x=%2..%3 outside the image").arg(y).arg(x0).arg(x1);
            return;
        }
        std::fill(mask.ptr<std::uint8_t>(y) + x0, mask.ptr<std::uint8_t>(y) + x1 + 1, std::uint8_t(255));
    });
    return mask;
}

// Empty when the masks agree, else what differs.
QString compare(const cv::Mat1b& ours, const cv::Mat1b& expected, const QString& spanError) {
    if (!spanError.isEmpty()) return spanError;
    cv::Mat diff;
    cv::compare(ours, expected, diff, cv::CMP_NE);
    const int differing = cv::countNonZero(diff);
    if (differing == 0) return {};
    std::vector<cv::Point> where;
    cv::findNonZero(diff, where);
    return QString("%1 pixels differ, first at (%2,%3): ours %4, OpenCV %5")
        .arg(differing)
        .arg(where[0].x)
        .arg(where[0].y)
        .arg(int(ours(where[0])))
        .arg(int(expected(where[0])));
}

QString sizeText(cv::Size s) {
    return QString("%1x%2").arg(s.width).arg(s.height);
}

void addReachRows(const QList<int>& lineTypes) {
    QTest::addColumn<int>("lineType");
    QTest::addColumn<int>("reach");
    const char* names[] = {"inside", "border", "near", "far", "mixed"};
    for (int type : lineTypes)
        for (int r = 0; r < 5; ++r)
            QTest::newRow(qPrintable(QString("type %1, %2").arg(type).arg(names[r]))) << type << r;
}

unsigned seedOf(int lineType, int reach, unsigned salt) {
    return salt * 1000u + unsigned(lineType) * 10u + unsigned(reach);
}

}  // namespace

class TestRaster : public QObject {
    Q_OBJECT

private slots:
    // One-pixel lines (cv::line, thickness 1), 4- and 8-connected.
    void thinLinesMatchOpenCv_data() { addReachRows({4, 8}); }
    void thinLinesMatchOpenCv() {
        QFETCH(int, lineType);
        QFETCH(int, reach);
        Cases cases(seedOf(lineType, reach, 1));
        const int n = 8000;
        int drawn = 0;
        for (int i = 0; i < n; ++i) {
            const cv::Size s = cases.size();
            const Point a = cases.point(s, Reach(reach)), b = cases.segmentEnd(s, a, Reach(reach));
            cv::Mat1b expected(s, 0);
            cv::line(expected, {a.x, a.y}, {b.x, b.y}, 255, 1, lineType);
            QString error;
            const cv::Mat1b ours = paint(
                s, [&](const auto& sink) { raster::line(s.width, s.height, a, b, lineType, sink); }, error);
            const QString diff = compare(ours, expected, error);
            drawn += cv::countNonZero(expected) > 0;
            QVERIFY2(diff.isEmpty(), qPrintable(QString("case %1: line %2 %3 in %4, type %5: %6")
                                                    .arg(i)
                                                    .arg(describe({a}), describe({b}), sizeText(s))
                                                    .arg(lineType)
                                                    .arg(diff)));
        }
        // Most cases must draw something, or an empty mask would pass for a match.
        QVERIFY2(drawn * 4 >= n, qPrintable(QString("only %1 of %2 cases drew anything").arg(drawn).arg(n)));
    }

    // One-pixel lines between points up to two billion pixels away that cross the image: the
    // clipping (OpenCV's, in double) decides where the line enters.
    void thinLinesFromFarAwayMatchOpenCv_data() {
        QTest::addColumn<int>("lineType");
        QTest::newRow("type 4") << 4;
        QTest::newRow("type 8") << 8;
    }
    void thinLinesFromFarAwayMatchOpenCv() {
        QFETCH(int, lineType);
        Cases cases(unsigned(lineType) * 7919u);
        const int n = 2000;
        int drawn = 0;
        for (int i = 0; i < n; ++i) {
            const cv::Size s = cases.size();
            const int reach = i % 2 ? 2000000000 : 1000000;
            const Point a{cases.uniform(-reach, reach), cases.uniform(-reach, reach)};
            const Point q = cases.point(s, Reach::Inside);
            const Point b{2 * q.x - a.x, 2 * q.y - a.y + cases.uniform(-3, 3)};
            cv::Mat1b expected(s, 0);
            cv::line(expected, {a.x, a.y}, {b.x, b.y}, 255, 1, lineType);
            QString error;
            const cv::Mat1b ours = paint(
                s, [&](const auto& sink) { raster::line(s.width, s.height, a, b, lineType, sink); }, error);
            const QString diff = compare(ours, expected, error);
            QVERIFY2(diff.isEmpty(), qPrintable(QString("case %1: line %2 %3 in %4, type %5: %6")
                                                    .arg(i)
                                                    .arg(describe({a}), describe({b}), sizeText(s))
                                                    .arg(lineType)
                                                    .arg(diff)));
            drawn += cv::countNonZero(expected) > 0;
        }
        QVERIFY2(drawn * 4 >= n, qPrintable(QString("only %1 of %2 cases drew anything").arg(drawn).arg(n)));
    }

    // cv::line with thickness 1..7: ThickLine's quad and round caps.
    void thickLinesMatchOpenCv_data() { addReachRows({4, 8}); }
    void thickLinesMatchOpenCv() {
        QFETCH(int, lineType);
        QFETCH(int, reach);
        Cases cases(seedOf(lineType, reach, 2));
        const int n = 4000;
        int drawn = 0;
        for (int i = 0; i < n; ++i) {
            const cv::Size s = cases.size();
            const Point a = cases.point(s, Reach(reach));
            // One line in ten has both ends equal: only the caps are drawn.
            const Point b = cases.chance(0.1) ? a : cases.segmentEnd(s, a, Reach(reach));
            const int thickness = cases.uniform(1, 7);
            cv::Mat1b expected(s, 0);
            cv::line(expected, {a.x, a.y}, {b.x, b.y}, 255, thickness, lineType);
            QString error;
            const cv::Mat1b ours = paint(
                s,
                [&](const auto& sink) { raster::line(s.width, s.height, a, b, thickness, lineType, sink); },
                error);
            const QString diff = compare(ours, expected, error);
            drawn += cv::countNonZero(expected) > 0;
            QVERIFY2(diff.isEmpty(),
                     qPrintable(QString("case %1: line %2 %3 in %4, thickness %5, type %6: %7")
                                    .arg(i)
                                    .arg(describe({a}), describe({b}), sizeText(s))
                                    .arg(thickness)
                                    .arg(lineType)
                                    .arg(diff)));
        }
        // Most cases must draw something, or an empty mask would pass for a match.
        QVERIFY2(drawn * 4 >= n, qPrintable(QString("only %1 of %2 cases drew anything").arg(drawn).arg(n)));
    }

    // cv::polylines, open and closed: which segment ends get caps.
    void polylinesMatchOpenCv_data() { addReachRows({4, 8}); }
    void polylinesMatchOpenCv() {
        QFETCH(int, lineType);
        QFETCH(int, reach);
        Cases cases(seedOf(lineType, reach, 3));
        const int n = 3000;
        int drawn = 0;
        for (int i = 0; i < n; ++i) {
            const cv::Size s = cases.size();
            const std::vector<Point> pts = cases.polygon(s, Reach(reach));
            const bool closed = cases.chance(0.5);
            const int thickness = cases.uniform(1, 7);
            cv::Mat1b expected(s, 0);
            cv::polylines(expected, std::vector<std::vector<cv::Point>>{toCv(pts)}, closed, 255, thickness,
                          lineType);
            QString error;
            const cv::Mat1b ours = paint(
                s,
                [&](const auto& sink) {
                    raster::polyline(s.width, s.height, pts, closed, thickness, lineType, sink);
                },
                error);
            const QString diff = compare(ours, expected, error);
            drawn += cv::countNonZero(expected) > 0;
            QVERIFY2(diff.isEmpty(),
                     qPrintable(QString("case %1: %2 polyline %3 in %4, thickness %5, type %6: %7")
                                    .arg(i)
                                    .arg(closed ? "closed" : "open", describe(pts), sizeText(s))
                                    .arg(thickness)
                                    .arg(lineType)
                                    .arg(diff)));
        }
        // Most cases must draw something, or an empty mask would pass for a match.
        QVERIFY2(drawn * 4 >= n, qPrintable(QString("only %1 of %2 cases drew anything").arg(drawn).arg(n)));
    }

    // cv::fillPoly of one polygon: the outline and the even-odd scanline fill.
    void fillPolyMatchesOpenCv_data() { addReachRows({4, 8}); }
    void fillPolyMatchesOpenCv() {
        QFETCH(int, lineType);
        QFETCH(int, reach);
        Cases cases(seedOf(lineType, reach, 4));
        const int n = 5000;
        int drawn = 0;
        for (int i = 0; i < n; ++i) {
            const cv::Size s = cases.size();
            const std::vector<Point> pts = cases.polygon(s, Reach(reach));
            cv::Mat1b expected(s, 0);
            cv::fillPoly(expected, std::vector<std::vector<cv::Point>>{toCv(pts)}, 255, lineType);
            QString error;
            const cv::Mat1b ours = paint(
                s, [&](const auto& sink) { raster::fillPoly(s.width, s.height, pts, lineType, sink); },
                error);
            const QString diff = compare(ours, expected, error);
            drawn += cv::countNonZero(expected) > 0;
            QVERIFY2(diff.isEmpty(), qPrintable(QString("case %1: polygon %2 in %3, type %4: %5")
                                                    .arg(i)
                                                    .arg(describe(pts), sizeText(s))
                                                    .arg(lineType)
                                                    .arg(diff)));
        }
        // Most cases must draw something, or an empty mask would pass for a match.
        QVERIFY2(drawn * 4 >= n, qPrintable(QString("only %1 of %2 cases drew anything").arg(drawn).arg(n)));
    }

    // cv::circle(..., cv::FILLED, cv::LINE_8): the midpoint disc.
    void filledCirclesMatchOpenCv_data() { addReachRows({8}); }
    void filledCirclesMatchOpenCv() {
        QFETCH(int, lineType);
        QFETCH(int, reach);
        Cases cases(seedOf(lineType, reach, 5));
        const int n = 5000;
        int drawn = 0;
        for (int i = 0; i < n; ++i) {
            const cv::Size s = cases.size();
            const Point c = cases.point(s, Reach(reach));
            const int radius = cases.radius(s, c, Reach(reach));
            cv::Mat1b expected(s, 0);
            cv::circle(expected, {c.x, c.y}, radius, 255, cv::FILLED, cv::LINE_8);
            QString error;
            const cv::Mat1b ours = paint(
                s, [&](const auto& sink) { raster::filledCircle(s.width, s.height, c, radius, sink); },
                error);
            const QString diff = compare(ours, expected, error);
            drawn += cv::countNonZero(expected) > 0;
            QVERIFY2(diff.isEmpty(), qPrintable(QString("case %1: circle at %2, radius %3 in %4: %5")
                                                    .arg(i)
                                                    .arg(describe({c}))
                                                    .arg(radius)
                                                    .arg(sizeText(s), diff)));
        }
        // Most cases must draw something, or an empty mask would pass for a match.
        QVERIFY2(drawn * 4 >= n, qPrintable(QString("only %1 of %2 cases drew anything").arg(drawn).arg(n)));
    }

    // What OpenCV rejects or draws nothing for draws nothing here, without calling the sink.
    void degenerateInputsDrawNothing() {
        int calls = 0;
        const raster::SpanSink count = [&](int, int, int) { ++calls; };
        const std::vector<Point> none;
        const std::vector<Point> one{{2, 2}};
        raster::line(0, 5, {0, 0}, {3, 3}, 1, 8, count);
        raster::line(5, 0, {0, 0}, {3, 3}, 3, 8, count);
        raster::fillPoly(5, 5, none, 8, count);
        raster::polyline(5, 5, none, true, 2, 8, count);
        raster::polyline(5, 5, one, false, 3, 8, count);  // an open single point: no segment at all
        raster::filledCircle(5, 5, {2, 2}, -1, count);
        raster::filledCircle(5, 5, {-10, 2}, 3, count);
        QCOMPARE(calls, 0);
        // A closed single point is one segment of length zero, capped at its end: a disc.
        raster::polyline(5, 5, one, true, 3, 8, count);
        QVERIFY(calls > 0);
    }
};

QTEST_APPLESS_MAIN(TestRaster)
#include "test_raster.moc"
