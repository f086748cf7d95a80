#pragma once
// OpenCV's non-antialiased drawing primitives (cv::line, cv::polylines, cv::fillPoly and the filled
// cv::circle of modules/imgproc/src/drawing.cpp, OpenCV 4.x), exact to the pixel, as horizontal runs
// instead of writes into a cv::Mat, so that code drawing shapes can paint them into any image format
// or mask and still match, pixel for pixel, what libraries built on OpenCV draw. Only shift 0
// (integer vertices) is supported. tests/test_raster.cpp compares every primitive with OpenCV 4.6.
//
// Cost: OpenCV walks every scanline between a shape's lowest and highest vertex (and, for a thick
// line, every scanline of its quad) even where they lie outside the image; so do these. Vertices
// within a few times the image size away are cheap; vertices millions of pixels away are not.

#include <functional>
#include <span>

namespace auglab::raster {

/// An integer pixel position (cv::Point): x to the right, y down, pixel centres at integers.
struct Point {
    int x = 0, y = 0;
};

/// Receives pixel runs: row y, columns x0..x1 inclusive, already clipped to the w x h image.
/// Runs may overlap or repeat (painting a solid colour is idempotent); callers that must visit a
/// pixel once paint a mask first.
using SpanSink = std::function<void(int y, int x0, int x1)>;

/// cv::line(img, p0, p1, colour, 1, lineType): a one-pixel line, 4-connected for lineType 4,
/// 8-connected otherwise.
void line(int w, int h, Point p0, Point p1, int lineType, const SpanSink& sink);

/// cv::line(img, p0, p1, colour, thickness, lineType). Thickness 1 is the line above; a thicker
/// line is OpenCV's ThickLine: a quad filled in 16-bit fixed point with a round cap (a filled
/// circle of radius (thickness + 1) / 2) at each end, whatever lineType is. Thickness is clamped
/// to 1..32767 (OpenCV's MAX_THICKNESS).
void line(int w, int h, Point p0, Point p1, int thickness, int lineType, const SpanSink& sink);

/// cv::polylines(img, {pts}, closed, colour, thickness, lineType) for one polyline: a line from
/// each point to the next (and from the last to the first when closed). As in OpenCV, only the
/// first segment of an open polyline gets a cap at its start; every other segment is capped at its
/// end only, so a single open point draws nothing and a single closed point draws a dot.
void polyline(int w, int h, std::span<const Point> pts, bool closed, int thickness, int lineType,
              const SpanSink& sink);

/// cv::fillPoly(img, {pts}, colour, lineType) for one polygon of any shape (concave,
/// self-intersecting, repeated or collinear points, points outside the image): the outline drawn
/// as one-pixel lines of lineType, then the inside by the even-odd scanline fill.
void fillPoly(int w, int h, std::span<const Point> pts, int lineType, const SpanSink& sink);

/// cv::circle(img, c, radius, colour, cv::FILLED, cv::LINE_8): the midpoint filled circle. The
/// centre may lie outside the image; a negative radius draws nothing (OpenCV rejects it).
void filledCircle(int w, int h, Point c, int radius, const SpanSink& sink);

}  // namespace auglab::raster
