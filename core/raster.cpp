// OpenCV 4.x's non-antialiased drawing (modules/imgproc/src/drawing.cpp) re-implemented as span
// emitters. Each function below names the OpenCV routine whose arithmetic it reproduces; the
// integer rounding, the order in which pixels are visited and the quirks (an edge's first scanline
// using its vertex's x, the even-odd pairing of the active edge list) are kept on purpose, since
// they decide which pixels a shape covers.

#include "raster.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

namespace auglab::raster {
namespace {

using i64 = std::int64_t;

// OpenCV's fixed point for sub-pixel coordinates: 16 fractional bits.
constexpr int kShift = 16;
constexpr i64 kOne = i64(1) << kShift;
constexpr i64 kHalf = kOne >> 1;
constexpr int kMaxThickness = 32767;

struct Point64 {
    i64 x = 0, y = 0;
};

// The image the spans go to. Every span leaves through span(), which clips it.
struct Canvas {
    int w, h;
    const SpanSink& sink;

    void span(i64 y, i64 x0, i64 x1) const {
        if (y < 0 || y >= h) return;
        x0 = std::max<i64>(x0, 0);
        x1 = std::min<i64>(x1, w - 1);
        if (x0 <= x1) sink(int(y), int(x0), int(x1));
    }
};

// Joins the single pixels of a line into runs along a row (lines visit pixels in order, so a
// shallow line's pixels on one row come one after another).
class PixelRuns {
public:
    explicit PixelRuns(const Canvas& canvas) : canvas_(canvas) {}
    void add(i64 x, i64 y) {
        if (x < 0 || x >= canvas_.w || y < 0 || y >= canvas_.h) return;
        if (open_ && y == y_ && x == x1_ + 1) {
            x1_ = x;
            return;
        }
        if (open_ && y == y_ && x >= x0_ && x <= x1_) return;
        flush();
        open_ = true;
        y_ = y;
        x0_ = x1_ = x;
    }
    void flush() {
        if (open_) canvas_.span(y_, x0_, x1_);
        open_ = false;
    }

private:
    const Canvas& canvas_;
    bool open_ = false;
    i64 y_ = 0, x0_ = 0, x1_ = 0;
};

// cv::clipLine(Size2l, Point2l&, Point2l&): Cohen-Sutherland against [0, w-1] x [0, h-1], each
// intersection computed in double and truncated towards zero (OpenCV has done it in double since
// 3.3 to avoid overflow). Returns false when the segment misses the rectangle.
bool clipLine(i64 w, i64 h, Point64& p1, Point64& p2) {
    if (w <= 0 || h <= 0) return false;
    const i64 right = w - 1, bottom = h - 1;
    i64 &x1 = p1.x, &y1 = p1.y, &x2 = p2.x, &y2 = p2.y;
    int c1 = (x1 < 0) + (x1 > right) * 2 + (y1 < 0) * 4 + (y1 > bottom) * 8;
    int c2 = (x2 < 0) + (x2 > right) * 2 + (y2 < 0) * 4 + (y2 > bottom) * 8;
    if ((c1 & c2) == 0 && (c1 | c2) != 0) {
        if (c1 & 12) {
            const i64 a = c1 < 8 ? 0 : bottom;
            x1 += i64(double(a - y1) * double(x2 - x1) / double(y2 - y1));
            y1 = a;
            c1 = (x1 < 0) + (x1 > right) * 2;
        }
        if (c2 & 12) {
            const i64 a = c2 < 8 ? 0 : bottom;
            x2 += i64(double(a - y2) * double(x2 - x1) / double(y2 - y1));
            y2 = a;
            c2 = (x2 < 0) + (x2 > right) * 2;
        }
        if ((c1 & c2) == 0 && (c1 | c2) != 0) {
            if (c1) {
                const i64 a = c1 == 1 ? 0 : right;
                y1 += i64(double(a - x1) * double(y2 - y1) / double(x2 - x1));
                x1 = a;
                c1 = 0;
            }
            if (c2) {
                const i64 a = c2 == 1 ? 0 : right;
                y2 += i64(double(a - x2) * double(y2 - y1) / double(x2 - x1));
                x2 = a;
                c2 = 0;
            }
        }
    }
    return (c1 | c2) == 0;
}

// OpenCV's Line(): cv::LineIterator (left to right) over the clipped segment. The segment is
// always walked from its left end (from its first point when vertical), which decides the
// Bresenham tie-breaks, so a line and its reverse can differ.
void bresenham(const Canvas& canvas, Point64 p1, Point64 p2, int connectivity) {
    const bool inside = p1.x >= 0 && p1.x < canvas.w && p2.x >= 0 && p2.x < canvas.w && p1.y >= 0 &&
                        p1.y < canvas.h && p2.y >= 0 && p2.y < canvas.h;
    if (!inside && !clipLine(canvas.w, canvas.h, p1, p2)) return;
    i64 dx = p2.x - p1.x, dy = p2.y - p1.y;
    if (dx < 0) {
        std::swap(p1, p2);
        dx = -dx;
        dy = -dy;
    }
    const i64 stepY = dy < 0 ? -1 : 1;
    dy = dy < 0 ? -dy : dy;
    // The major axis is x unless the line is strictly steeper than 45 degrees.
    const bool vertical = dy > dx;
    if (vertical) std::swap(dx, dy);
    // One step along the major axis, and one along the minor axis (x always grows).
    const Point64 major = vertical ? Point64{0, stepY} : Point64{1, 0};
    const Point64 minor = vertical ? Point64{1, 0} : Point64{0, stepY};
    Point64 p = p1;
    PixelRuns runs(canvas);
    if (connectivity == 4) {
        // Each step moves along one axis only: dx + dy + 1 pixels.
        i64 err = 0;
        for (i64 i = 0, count = dx + dy + 1; i < count; ++i) {
            runs.add(p.x, p.y);
            const bool minorStep = err < 0;
            err += -2 * dy + (minorStep ? 2 * dx + 2 * dy : 0);
            const Point64 d = minorStep ? minor : major;
            p = {p.x + d.x, p.y + d.y};
        }
    } else {
        // A step along the major axis each pixel, and along the minor one too when err < 0.
        i64 err = dx - 2 * dy;
        for (i64 i = 0, count = dx + 1; i < count; ++i) {
            runs.add(p.x, p.y);
            const bool minorStep = err < 0;
            err += -2 * dy + (minorStep ? 2 * dx : 0);
            p = {p.x + major.x, p.y + major.y};
            if (minorStep) p = {p.x + minor.x, p.y + minor.y};
        }
    }
    runs.flush();
}

// OpenCV's Line2(): the 8-connected line between fixed-point end points (16 fractional bits) that
// FillConvexPoly draws along a thick line's quad. The end point p2 is drawn first, rounded, then
// round(p1) onward one pixel per whole step of the major axis with the minor coordinate advanced
// by the truncated slope.
void fixedPointLine(const Canvas& canvas, Point64 p1, Point64 p2) {
    if (!clipLine(i64(canvas.w) << kShift, i64(canvas.h) << kShift, p1, p2)) return;
    i64 dx = p2.x - p1.x, dy = p2.y - p1.y;
    const i64 ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy;
    const bool shallow = ax > ay;
    i64 xStep = kOne, yStep = kOne, count = 0;
    if (shallow) {
        if (dx < 0) {
            dy = -dy;
            std::swap(p1, p2);
        }
        yStep = dy * kOne / (ax | 1);
        count = (p2.x - p1.x) >> kShift;
    } else {
        if (dy < 0) {
            dx = -dx;
            std::swap(p1, p2);
        }
        xStep = dx * kOne / (ay | 1);
        count = (p2.y - p1.y) >> kShift;
    }
    p1.x += kHalf;
    p1.y += kHalf;
    PixelRuns runs(canvas);
    runs.add((p2.x + kHalf) >> kShift, (p2.y + kHalf) >> kShift);
    if (shallow) {
        i64 x = p1.x >> kShift, y = p1.y;
        for (; count >= 0; --count, ++x, y += yStep) runs.add(x, y >> kShift);
    } else {
        i64 x = p1.x, y = p1.y >> kShift;
        for (; count >= 0; --count, x += xStep, ++y) runs.add(x >> kShift, y);
    }
    runs.flush();
}

// OpenCV's FillConvexPoly() for vertices with 16 fractional bits and a non-antialiased line type
// (the only way ThickLine calls it): the outline by Line2, then one span per scanline between a
// left and a right edge chain walked from the topmost vertex, each end rounded to the nearest pixel.
// Quirks kept: an edge's x starts at its upper vertex's x on the first scanline it serves (not at
// that scanline's crossing), its slope is spread, rounded, over the rows from that scanline to its
// lower vertex's row, and one count of edges is shared by both chains.
void fillConvexQuad(const Canvas& canvas, const Point64* v, int n) {
    constexpr i64 delta = kHalf;  // 1 << shift >> 1, with shift = XY_SHIFT
    i64 xmin = v[0].x, xmax = v[0].x, ymin = v[0].y, ymax = v[0].y;
    int imin = 0;
    Point64 p0 = v[n - 1];
    for (int i = 0; i < n; ++i) {
        const Point64 p = v[i];
        if (p.y < ymin) {
            ymin = p.y;
            imin = i;
        }
        ymax = std::max(ymax, p.y);
        xmax = std::max(xmax, p.x);
        xmin = std::min(xmin, p.x);
        fixedPointLine(canvas, p0, p);
        p0 = p;
    }
    xmin = (xmin + delta) >> kShift;
    xmax = (xmax + delta) >> kShift;
    ymin = (ymin + delta) >> kShift;
    ymax = (ymax + delta) >> kShift;
    if (n < 3 || xmax < 0 || ymax < 0 || xmin >= canvas.w || ymin >= canvas.h) return;
    ymax = std::min<i64>(ymax, canvas.h - 1);

    struct Chain {
        int idx, di;
        i64 x, dx, ye;
    };
    Chain chain[2] = {{imin, 1, -kOne, 0, ymin}, {imin, n - 1, -kOne, 0, ymin}};
    int edgesLeft = n;
    for (i64 y = ymin; y <= ymax; ++y) {
        for (Chain& c : chain) {
            if (y < c.ye) continue;
            // Move this chain to the next vertex below the scanline.
            int idx0 = c.idx, idx = idx0 + c.di;
            if (idx >= n) idx -= n;
            while (edgesLeft-- > 0) {
                const i64 ty = (v[idx].y + delta) >> kShift;
                if (ty > y) {
                    const i64 xs = v[idx0].x, xe = v[idx].x;
                    c.ye = ty;
                    c.dx = ((xe - xs) * 2 + (ty - y)) / (2 * (ty - y));
                    c.x = xs;
                    c.idx = idx;
                    break;
                }
                idx0 = idx;
                idx += c.di;
                if (idx >= n) idx -= n;
            }
        }
        if (edgesLeft < 0) break;
        if (y >= 0) {
            const bool swapped = chain[0].x > chain[1].x;
            const i64 left = chain[swapped ? 1 : 0].x, right = chain[swapped ? 0 : 1].x;
            canvas.span(y, (left + kHalf) >> kShift, (right + kHalf) >> kShift);
        }
        chain[0].x += chain[0].dx;
        chain[1].x += chain[1].dx;
    }
}

// OpenCV's Circle() with fill: the midpoint circle, whose every step covers rows cy +- dy with
// columns cx +- dx and rows cy +- dx with columns cx +- dy. Spans on one row are nested about cx,
// so each visible row is emitted once, with the widest half-width any step gave it.
void midpointDisc(const Canvas& canvas, i64 cx, i64 cy, i64 radius) {
    if (radius < 0) return;
    const i64 top = std::max<i64>(cy - radius, 0), bottom = std::min<i64>(cy + radius, canvas.h - 1);
    if (top > bottom || cx + radius < 0 || cx - radius >= canvas.w) return;
    std::vector<i64> halfWidth(std::size_t(bottom - top + 1), -1);
    const auto widen = [&](i64 y, i64 half) {
        if (y >= top && y <= bottom)
            halfWidth[std::size_t(y - top)] = std::max(halfWidth[std::size_t(y - top)], half);
    };
    i64 err = 0, dx = radius, dy = 0, plus = 1, minus = (radius << 1) - 1;
    while (dx >= dy) {
        widen(cy - dy, dx);
        widen(cy + dy, dx);
        widen(cy - dx, dy);
        widen(cy + dx, dy);
        ++dy;
        err += plus;
        plus += 2;
        if (err > 0) {
            err -= minus;
            --dx;
            minus -= 2;
        }
    }
    for (i64 y = top; y <= bottom; ++y) {
        const i64 half = halfWidth[std::size_t(y - top)];
        if (half >= 0) canvas.span(y, cx - half, cx + half);
    }
}

// OpenCV's ThickLine() for shift 0 and a non-antialiased line type. flags bit 0 caps the start,
// bit 1 the end (PolyLine's flags).
void thickLine(const Canvas& canvas, Point p0i, Point p1i, int thickness, int lineType, int flags) {
    const Point64 p0{i64(p0i.x) * kOne, i64(p0i.y) * kOne};
    const Point64 p1{i64(p1i.x) * kOne, i64(p1i.y) * kOne};
    if (thickness <= 1) {
        bresenham(canvas, {p0i.x, p0i.y}, {p1i.x, p1i.y}, lineType == 4 ? 4 : 8);
        return;
    }
    // The quad: the segment offset both ways along its normal by (thickness + 1) / 2 pixels for an
    // odd thickness, thickness / 2 for an even one, in 1/65536ths rounded by cvRound (to nearest,
    // ties to even); a zero-length segment has no quad, only its caps.
    const double dx = double(p0.x - p1.x) / double(kOne), dy = double(p1.y - p0.y) / double(kOne);
    double r = dx * dx + dy * dy;
    const int odd = thickness & 1;
    const i64 half = i64(thickness) << (kShift - 1);
    if (std::fabs(r) > DBL_EPSILON) {
        r = (double(half) + odd * double(kOne) * 0.5) / std::sqrt(r);
        const i64 dpx = std::llrint(dy * r), dpy = std::llrint(dx * r);
        const Point64 quad[4] = {{p0.x + dpx, p0.y + dpy},
                                 {p0.x - dpx, p0.y - dpy},
                                 {p1.x - dpx, p1.y - dpy},
                                 {p1.x + dpx, p1.y + dpy}};
        fillConvexQuad(canvas, quad, 4);
    }
    // Round caps: filled midpoint circles of radius round(thickness / 2), i.e. (thickness + 1) / 2,
    // for either line type.
    const i64 capRadius = (half + kHalf) >> kShift;
    if (flags & 1) midpointDisc(canvas, p0i.x, p0i.y, capRadius);
    if (flags & 2) midpointDisc(canvas, p1i.x, p1i.y, capRadius);
}

// One edge of FillEdgeCollection's edge table: rows y0 .. y1-1, x in 16-bit fixed point at the
// current row, dx per row; `next` links the active edge list (-1 ends it).
struct PolyEdge {
    i64 y0 = 0, y1 = 0;
    i64 x = 0, dx = 0;
    int next = -1;
};

// OpenCV's CollectPolyEdges() for shift 0: each edge drawn as a one-pixel line of the polygon's line
// type (the outline), and each non-horizontal edge recorded with its upper end's x and a slope
// truncated towards zero.
std::vector<PolyEdge> collectPolyEdges(const Canvas& canvas, std::span<const Point> pts, int connectivity) {
    std::vector<PolyEdge> edges;
    edges.reserve(pts.size() + 2);
    Point p0 = pts.back();
    for (const Point& p1 : pts) {
        bresenham(canvas, {p0.x, p0.y}, {p1.x, p1.y}, connectivity);
        if (p0.y != p1.y) {
            const Point& top = p0.y < p1.y ? p0 : p1;
            PolyEdge e;
            e.y0 = top.y;
            e.y1 = std::max(p0.y, p1.y);
            e.x = i64(top.x) * kOne;
            e.dx = (i64(p1.x) - p0.x) * kOne / (i64(p1.y) - p0.y);
            edges.push_back(e);
        }
        p0 = p1;
    }
    return edges;
}

// OpenCV's FillEdgeCollection(): a scanline fill with an active edge list kept in x order by a
// bubble sort after each row. Consecutive pairs of active edges bound the spans (even-odd), from
// ceil(left x) to floor(right x); an edge leaves the list on its lower row, so the fill covers rows
// y0 .. y1-1 of each edge and the outline supplies the rest.
void fillEdgeCollection(const Canvas& canvas, std::vector<PolyEdge>& edges) {
    const int total = int(edges.size());
    if (total < 2) return;
    i64 yMin = INT64_MAX, yMax = INT64_MIN, xMin = INT64_MAX, xMax = -1;
    for (const PolyEdge& e : edges) {
        const i64 x1 = e.x + (e.y1 - e.y0) * e.dx;  // where the edge ends, which need not be a vertex
        yMin = std::min(yMin, e.y0);
        yMax = std::max(yMax, e.y1);
        xMin = std::min({xMin, e.x, x1});
        xMax = std::max({xMax, e.x, x1});
    }
    if (yMax < 0 || yMin >= canvas.h || xMax < 0 || xMin >= (i64(canvas.w) << kShift)) return;
    std::sort(edges.begin(), edges.end(), [](const PolyEdge& a, const PolyEdge& b) {
        return std::tie(a.y0, a.x, a.dx) < std::tie(b.y0, b.x, b.dx);
    });
    // edges[total] ends the table (its y0 is never reached); edges[total + 1] heads the active list.
    PolyEdge end;
    end.y0 = INT64_MAX;
    edges.push_back(end);
    edges.push_back(PolyEdge{});
    const int head = total + 1;
    int next = 0;  // the first edge not yet in the active list
    yMax = std::min<i64>(yMax, canvas.h);

    for (i64 y = edges[0].y0; y < yMax; ++y) {
        int prev = head, cur = edges[head].next;
        bool draw = false;
        while (cur >= 0 || edges[next].y0 == y) {
            if (cur >= 0 && edges[cur].y1 == y) {  // the edge ends above this row: drop it
                edges[prev].next = edges[cur].next;
                cur = edges[cur].next;
                continue;
            }
            const int before = prev;
            if (cur >= 0 && (edges[next].y0 > y || edges[cur].x < edges[next].x)) {
                prev = cur;  // step past an active edge
                cur = edges[cur].next;
            } else if (next < total) {  // insert the next edge of the table before `cur`
                edges[prev].next = next;
                edges[next].next = cur;
                prev = next;
                ++next;
            } else {
                break;
            }
            if (draw) {
                PolyEdge &a = edges[before], &b = edges[prev];
                if (y >= 0) {
                    const i64 lo = std::min(a.x, b.x), hi = std::max(a.x, b.x);
                    canvas.span(y, (lo + kOne - 1) >> kShift, hi >> kShift);
                }
                a.x += a.dx;
                b.x += b.dx;
            }
            draw = !draw;
        }

        // Bubble sort of the active list by x, as OpenCV does it (the pass bound and the stopping
        // test included, so that edges with equal x keep their order).
        bool swapped = false;
        int stop = -1;
        do {
            prev = head;
            int last = edges[head].next;
            while (last != stop && edges[last].next >= 0) {
                const int te = edges[last].next;
                if (edges[last].x > edges[te].x) {
                    edges[prev].next = te;
                    edges[last].next = edges[te].next;
                    edges[te].next = last;
                    prev = te;
                    swapped = true;
                } else {
                    prev = last;
                    last = te;
                }
            }
            stop = prev;
        } while (swapped && stop != edges[head].next && stop != head);
    }
}

}  // namespace

void line(int w, int h, Point p0, Point p1, int lineType, const SpanSink& sink) {
    line(w, h, p0, p1, 1, lineType, sink);
}

void line(int w, int h, Point p0, Point p1, int thickness, int lineType, const SpanSink& sink) {
    if (w <= 0 || h <= 0) return;
    // cv::line: ThickLine with both ends capped.
    thickLine(Canvas{w, h, sink}, p0, p1, std::clamp(thickness, 1, kMaxThickness), lineType, 3);
}

void polyline(int w, int h, std::span<const Point> pts, bool closed, int thickness, int lineType,
              const SpanSink& sink) {
    if (w <= 0 || h <= 0 || pts.empty()) return;
    const Canvas canvas{w, h, sink};
    thickness = std::clamp(thickness, 1, kMaxThickness);
    // OpenCV's PolyLine(): a closed polyline starts with the closing segment (last to first point);
    // only an open polyline's first segment has its start capped (flags 3), every other segment
    // caps its end alone (flags 2).
    std::size_t i = closed ? 0 : 1;
    Point p0 = closed ? pts.back() : pts.front();
    int flags = closed ? 2 : 3;
    for (; i < pts.size(); ++i) {
        thickLine(canvas, p0, pts[i], thickness, lineType, flags);
        p0 = pts[i];
        flags = 2;
    }
}

void fillPoly(int w, int h, std::span<const Point> pts, int lineType, const SpanSink& sink) {
    if (w <= 0 || h <= 0 || pts.empty()) return;
    const Canvas canvas{w, h, sink};
    std::vector<PolyEdge> edges = collectPolyEdges(canvas, pts, lineType == 4 ? 4 : 8);
    fillEdgeCollection(canvas, edges);
}

void filledCircle(int w, int h, Point c, int radius, const SpanSink& sink) {
    if (w <= 0 || h <= 0) return;
    midpointDisc(Canvas{w, h, sink}, c.x, c.y, radius);
}

}  // namespace auglab::raster
