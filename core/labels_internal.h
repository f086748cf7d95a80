#pragma once
// What the label readers of annotations.h share (internal to core, the labels_*.cpp files): how far
// outside the image a coordinate may lie, the checks of a box against the image, number parsing for
// text formats, how files are named in reports, and the VOC reader's variant for datasets.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "annotations.h"
#include "json_reader.h"
#include "targets.h"

namespace auglab::labels {

/// How far (pixels) a coordinate may lie outside the image and still be used: annotation tools
/// round, and a box edge at -0.3 or at W + 0.5 is a box at the image's edge. Beyond it, out of range.
inline constexpr double kEdgeTolerancePx = 1.0;

/// A path as reports show it: UTF-8, '/' separators.
inline std::string shownPath(const std::filesystem::path& p) {
    const std::u8string s = p.generic_u8string();
    return std::string(s.begin(), s.end());
}

/// Why `b` (pixel edges, x1 > x0 and y1 > y0 already checked) cannot be used in a width x height
/// image, or empty when it can; edges within kEdgeTolerancePx of the image are clamped onto it.
inline std::string checkBoxInImage(Box& b, int width, int height) {
    const double t = kEdgeTolerancePx;
    if (b.x0 < -t || b.y0 < -t || b.x1 > width + t || b.y1 > height + t)
        return "box (" + formatNumber(b.x0) + ", " + formatNumber(b.y0) + ") - (" + formatNumber(b.x1) +
               ", " + formatNumber(b.y1) + ") reaches outside the " + std::to_string(width) + "x" +
               std::to_string(height) + " image";
    b.x0 = std::max(b.x0, 0.0);
    b.y0 = std::max(b.y0, 0.0);
    b.x1 = std::min(b.x1, double(width));
    b.y1 = std::min(b.y1, double(height));
    return {};
}

/// Whether a keypoint (pixels) lies in the width x height image, give or take kEdgeTolerancePx.
inline bool keypointInImage(double x, double y, int width, int height) {
    const double t = kEdgeTolerancePx;
    return x >= -t && y >= -t && x <= width + t && y <= height + t;
}

/// Moves a keypoint that keypointInImage accepted onto the image: inside [0, W) x [0, H), the domain
/// Albumentations (and so the engine) accepts, so that one at x = W (a normalised 1.0) is not refused
/// later without its file and line.
inline void moveOntoImage(Keypoint& k, int width, int height) {
    k.x = std::clamp(k.x, 0.0, std::nextafter(double(width), 0.0));
    k.y = std::clamp(k.y, 0.0, std::nextafter(double(height), 0.0));
}

/// A whole token as a finite decimal number ("0.5", "-3", "1e-3"); false for anything else.
inline bool parseNumber(std::string_view token, double& out) {
    if (token.empty()) return false;
    if (token.front() == '+') token.remove_prefix(1);
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), out);
    return ec == std::errc() && end == token.data() + token.size() && std::isfinite(out);
}

/// The 1-based line of byte `offset` in `text`.
inline int lineAt(std::string_view text, std::size_t offset) {
    int line = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n';
    return line;
}

/// lineAt for offsets that mostly grow (a document's elements in order): each call counts on from
/// the last one, so a file of n objects costs O(size), not O(n * size).
class LineCounter {
public:
    explicit LineCounter(std::string_view text) : text_(text) {}
    int at(std::size_t offset) {
        if (offset < offset_) offset_ = 0, line_ = 1;
        for (; offset_ < offset && offset_ < text_.size(); ++offset_) line_ += text_[offset_] == '\n';
        return line_;
    }

private:
    std::string_view text_;
    std::size_t offset_ = 0;
    int line_ = 1;
};

/// readVocXml with the dataset's choices: `growNames` false skips (and reports) objects whose name
/// is not in `classNames` (a dataset with a classes.txt); `imageWidth` > 0 checks the boxes against
/// the image's real size (and reports a <size> that disagrees) instead of the file's <size>.
Targets readVoc(const std::filesystem::path& file, std::vector<std::string>& classNames, bool growNames,
                int imageWidth, int imageHeight, LabelReport& report);

/// Whether the dataset at `root` has the label file `file`: false when there is none (or it is not a
/// file). Throws InputError, naming the file and not reading it, when it is a symbolic link to
/// nothing or when it leads outside the dataset folder (a link to /etc/passwd would otherwise be read
/// and its lines quoted in reports).
bool labelFileInside(const std::filesystem::path& file, const std::filesystem::path& root);

}  // namespace auglab::labels
