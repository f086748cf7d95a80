// YOLO labels as Ultralytics writes them: one object a line, `class cx cy w h` normalised to the
// image, the pose variant with keypoints after the box; class names from data.yaml or classes.txt.

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "annotations.h"
#include "atomic_file.h"
#include "error.h"
#include "labels_internal.h"

namespace auglab {

namespace {

using labels::shownPath;

std::vector<std::string_view> splitWhitespace(std::string_view line) {
    std::vector<std::string_view> tokens;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
        std::size_t j = i;
        while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
        if (j > i) tokens.push_back(line.substr(i, j - i));
        i = j;
    }
    return tokens;
}

// Calls `each(lineNumber, line)` for every line of `text` ('\n' or "\r\n" endings).
template <typename Each>
void forEachLine(std::string_view text, Each each) {
    int number = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        each(++number, line);
        start = end + 1;
    }
}

std::string str(std::string_view s) {
    return std::string(s);
}

// One line of a label file read into `t`; an empty string, or why it was skipped.
std::string readLine(const std::vector<std::string_view>& tokens, int width, int height,
                     const std::vector<std::string>& classNames, int keypointDims, int keypointsPerObject,
                     const std::string& where, Targets& t, LabelReport& report) {
    const std::size_t n = tokens.size();
    if (n < 5) return std::to_string(n) + " values; a label is `class cx cy w h`";
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i)
        if (!labels::parseNumber(tokens[i], v[i])) return "'" + str(tokens[i]) + "' is not a number";

    if (v[0] < 0 || v[0] != std::floor(v[0]) || v[0] > INT_MAX)
        return "class " + str(tokens[0]) + " is not a class index";
    if (!classNames.empty() && v[0] >= double(classNames.size()))
        return "class " + str(tokens[0]) + " is not one of the names (0.." +
               std::to_string(classNames.size() - 1) + ")";

    // Keypoints after the box: x y (2 values each) or x y visibility (3).
    const std::size_t extra = n - 5;
    int dims = keypointDims;
    if (dims == 0) dims = extra % 3 == 0 ? 3 : extra % 2 == 0 ? 2 : 0;
    if (extra > 0 && (dims == 0 || extra % std::size_t(dims) != 0))
        return std::to_string(extra) + " values after the box are not keypoints of " +
               (keypointDims ? std::to_string(keypointDims) + " values (kpt_shape)"
                             : std::string("2 or 3 values"));
    if (keypointsPerObject > 0 && extra / std::size_t(dims) != std::size_t(keypointsPerObject))
        return std::to_string(extra / std::size_t(dims)) + " keypoints, but data.yaml's kpt_shape declares " +
               std::to_string(keypointsPerObject);

    const double cx = v[1], cy = v[2], w = v[3], h = v[4];
    if (w < 0) return "width " + str(tokens[3]) + " is negative";
    if (h < 0) return "height " + str(tokens[4]) + " is negative";
    if (w == 0) return "width is 0";
    if (h == 0) return "height is 0";
    Box b;
    b.x0 = (cx - w / 2) * width;
    b.y0 = (cy - h / 2) * height;
    b.x1 = (cx + w / 2) * width;
    b.y1 = (cy + h / 2) * height;
    if (std::string why = labels::checkBoxInImage(b, width, height); !why.empty()) return why;
    b.label = int(v[0]);
    b.id = int(t.boxes.size());
    t.boxes.push_back(b);

    for (std::size_t j = 0; dims > 0 && j < extra / std::size_t(dims); ++j) {
        const std::size_t at = 5 + j * std::size_t(dims);
        const double visibility = dims == 3 ? v[at + 2] : 2;
        if (visibility == 0) continue;  // not labelled
        const std::string which = where + ": keypoint " + std::to_string(j) + ": ";
        if (visibility != 1 && visibility != 2) {
            report.skipped.push_back(which + "visibility " + str(tokens[at + 2]) + " is not 0, 1 or 2");
            continue;
        }
        Keypoint k;
        k.x = v[at] * width;
        k.y = v[at + 1] * height;
        if (!labels::keypointInImage(k.x, k.y, width, height)) {
            report.skipped.push_back(which + "(" + str(tokens[at]) + ", " + str(tokens[at + 1]) +
                                     ") is outside the image");
            continue;
        }
        labels::moveOntoImage(k, width, height);
        k.label = int(j);
        k.owner = b.id;
        k.id = int(t.keypoints.size());
        t.keypoints.push_back(k);
    }
    return {};
}

std::string lineOf(const YAML::Mark& m) {
    return std::to_string(m.line + 1);
}

}  // namespace

Targets readYoloLabels(const std::filesystem::path& file, int imageWidth, int imageHeight,
                       const std::vector<std::string>& classNames, LabelReport& report, int keypointDims,
                       int keypointsPerObject) {
    const std::string text = readFileText(file);
    const std::string name = shownPath(file);
    Targets t;
    t.classNames = classNames;
    forEachLine(text, [&](int number, std::string_view line) {
        const std::vector<std::string_view> tokens = splitWhitespace(line);
        if (tokens.empty()) return;
        const std::string where = name + ":" + std::to_string(number);
        const std::string why =
            readLine(tokens, imageWidth, imageHeight, classNames, keypointDims, keypointsPerObject, where, t, report);
        if (!why.empty()) report.skipped.push_back(where + ": " + why);
    });
    return t;
}

std::string yoloLabelText(const Targets& t, int width, int height, int keypointsPerBox) {
    std::string out;
    char buf[160];
    // Each box's keypoints by their position, found in one pass (not a search per box and position).
    std::map<std::pair<int, int>, const Keypoint*> byOwner;
    if (keypointsPerBox > 0)
        for (const Keypoint& k : t.keypoints) byOwner[{k.owner, k.label}] = &k;
    for (const Box& b : t.boxes) {
        std::snprintf(buf, sizeof buf, "%d %.6f %.6f %.6f %.6f", b.label, (b.x0 + b.x1) / 2 / width,
                      (b.y0 + b.y1) / 2 / height, (b.x1 - b.x0) / width, (b.y1 - b.y0) / height);
        out += buf;
        for (int j = 0; j < keypointsPerBox; ++j) {
            const auto it = byOwner.find({b.id, j});
            const Keypoint* found = it == byOwner.end() ? nullptr : it->second;
            // A keypoint that left the image is written as not labelled, as Ultralytics' own
            // augmentations mark it (normalised coordinates outside 0..1 are invalid labels there).
            if (found != nullptr && found->x >= 0 && found->y >= 0 && found->x <= width &&
                found->y <= height) {
                std::snprintf(buf, sizeof buf, " %.6f %.6f 2", found->x / width, found->y / height);
                out += buf;
            } else {
                out += " 0 0 0";
            }
        }
        out += '\n';
    }
    return out;
}

YoloDataYaml readYoloDataYaml(const std::filesystem::path& file) {
    const std::string text = readFileText(file);
    const std::string name = shownPath(file);
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        throw InputError(name + ":" + std::to_string(e.mark.line + 1) + ":" +
                         std::to_string(e.mark.column + 1) + ": invalid YAML: " + e.msg);
    }
    if (!root.IsMap()) throw InputError(name + ": not a data.yaml: the top level is not a map of settings");
    const auto fail = [&](const YAML::Node& at, const std::string& what) {
        throw InputError(name + ":" + lineOf(at.Mark()) + ": " + what);
    };
    const auto scalarText = [&](const YAML::Node& n, const std::string& what) {
        if (!n.IsScalar()) fail(n, what + " is not a name");
        return n.as<std::string>();
    };

    YoloDataYaml out;
    const YAML::Node names = root["names"];
    const YAML::Node nc = root["nc"];
    if (names && names.IsSequence()) {
        for (std::size_t i = 0; i < names.size(); ++i)
            out.names.push_back(scalarText(names[i], "names[" + std::to_string(i) + "]"));
    } else if (names && names.IsMap()) {
        // {0: person, 1: car}: the indices must be 0..n-1, as Ultralytics requires.
        std::map<long, std::string> byIndex;
        for (const auto& kv : names) {
            long index = -1;
            try {
                index = kv.first.as<long>();
            } catch (const YAML::Exception&) {
                fail(kv.first, "names: key '" + kv.first.as<std::string>("") + "' is not a class index");
            }
            if (index < 0) fail(kv.first, "names: class index " + std::to_string(index) + " is negative");
            byIndex[index] = scalarText(kv.second, "names[" + std::to_string(index) + "]");
        }
        long expected = 0;
        for (const auto& [index, n] : byIndex) {
            if (index != expected)
                fail(names, "names: class " + std::to_string(expected) +
                                " is missing (the indices must be 0.." + std::to_string(byIndex.size() - 1) +
                                ")");
            out.names.push_back(n);
            ++expected;
        }
    } else if (names && !names.IsNull()) {
        fail(names, "names: expected a list of names or a map of class index to name");
    }
    if (nc) {
        long count = -1;
        try {
            count = nc.as<long>();
        } catch (const YAML::Exception&) {
            fail(nc, "nc: not a number of classes");
        }
        if (count < 0) fail(nc, "nc: " + std::to_string(count) + " is negative");
        if ((!names || names.IsNull()) && count > kMaxYoloClasses)
            fail(nc, "nc: " + std::to_string(count) + " classes without names, more than the " +
                         std::to_string(kMaxYoloClasses) + " AugLab reads (list them in names)");
        if (!names || names.IsNull()) {
            for (long i = 0; i < count; ++i) out.names.push_back("class_" + std::to_string(i));
        } else if (std::size_t(count) != out.names.size()) {
            fail(nc, "nc: " + std::to_string(count) + " classes, but names lists " +
                         std::to_string(out.names.size()));
        }
    }
    if (const YAML::Node shape = root["kpt_shape"]; shape && !shape.IsNull()) {
        int k = 0, d = 0;
        try {
            if (!shape.IsSequence() || shape.size() != 2) throw YAML::Exception(shape.Mark(), "");
            k = shape[0].as<int>();
            d = shape[1].as<int>();
        } catch (const YAML::Exception&) {
            fail(shape, "kpt_shape: expected [keypoints, 2 or 3]");
        }
        if (k <= 0 || (d != 2 && d != 3)) fail(shape, "kpt_shape: expected [keypoints, 2 or 3]");
        out.keypointsPerObject = k;
        out.keypointDims = d;
    }
    return out;
}

std::vector<std::string> readClassNamesTxt(const std::filesystem::path& file) {
    const std::string text = readFileText(file);
    std::vector<std::string> names;
    forEachLine(text, [&](int, std::string_view line) {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
        if (!line.empty()) names.emplace_back(line);
    });
    return names;
}

}  // namespace auglab
