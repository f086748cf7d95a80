#pragma once
// What the annotation suites share (test_annotations.cpp, test_coco_masks.cpp): where the fixtures
// are, how targets print when a comparison fails, and small conversions.

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "annotations.h"

namespace auglab {
// How Qt Test prints the targets when a comparison fails (found by argument-dependent lookup).
inline char* toString(const Box& b) {
    return QTest::toString(
        QString::asprintf("Box(%g, %g, %g, %g, label %d, id %d)", b.x0, b.y0, b.x1, b.y1, b.label, b.id));
}
inline char* toString(const Keypoint& k) {
    return QTest::toString(
        QString::asprintf("Keypoint(%g, %g, label %d, id %d, owner %d)", k.x, k.y, k.label, k.id, k.owner));
}
}  // namespace auglab

namespace auglab::testing {

/// tests/data/annotations: the fixtures, their generator scripts and pycocotools' reference output.
inline const std::filesystem::path kAnnotationData =
    std::filesystem::path(AUGLAB_SOURCE_DIR) / "tests" / "data" / "annotations";

/// A path as the readers' reports show it.
inline std::string shown(const std::filesystem::path& p) {
    return p.generic_string();
}

inline QStringList q(const std::vector<std::string>& v) {
    QStringList out;
    for (const std::string& s : v) out << QString::fromStdString(s);
    return out;
}

inline nlohmann::json readJson(const std::filesystem::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
}

/// A mask as rows of '0' and '1' (non-zero), as reference/*.json write pycocotools' masks.
inline std::vector<std::string> rowsOf(const Mask& m) {
    std::vector<std::string> rows;
    for (int y = 0; y < m.height; ++y) {
        std::string row;
        for (int x = 0; x < m.width; ++x) row += m.at(x, y) ? '1' : '0';
        rows.push_back(row);
    }
    return rows;
}

inline Keypoint keypoint(double x, double y, int label, int id, int owner) {
    Keypoint k;
    k.x = x;
    k.y = y;
    k.label = label;
    k.id = id;
    k.owner = owner;
    return k;
}

inline void writeText(const std::filesystem::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

}  // namespace auglab::testing
