// Pascal VOC XML: the VOC devkit's Annotations/*.xml and LabelImg's files beside the images. One
// <object> per box, named by class; its other simple fields (pose, truncated, difficult, ...) are
// kept in Targets::objects and written back.

#include <pugixml.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "annotations.h"
#include "atomic_file.h"
#include "error.h"
#include "labels_internal.h"

namespace auglab {

namespace labels {

namespace {

std::string trimmed(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return std::string(s);
}

std::string childText(pugi::xml_node n, const char* name) {
    return trimmed(n.child(name).child_value());
}

bool parseInteger(const std::string& s, long long& v) {
    const char* end = s.data() + s.size();
    const auto [p, ec] = std::from_chars(s.data(), end, v);
    return !s.empty() && ec == std::errc() && p == end;
}

// An object's fields that hold only text (not <bndbox>, not <part>s with elements of their own):
// integers as numbers ("difficult": 0), the rest as strings ("pose": "Left").
nlohmann::json simpleFields(pugi::xml_node object) {
    nlohmann::json fields = nlohmann::json::object();
    for (pugi::xml_node c : object.children()) {
        if (c.type() != pugi::node_element ||
            c.find_child([](pugi::xml_node n) { return n.type() == pugi::node_element; }))
            continue;
        const std::string text = trimmed(c.child_value());
        long long v = 0;
        if (parseInteger(text, v))
            fields[c.name()] = v;
        else
            fields[c.name()] = text;
    }
    return fields;
}

/// Why `text` (a name or value as pugixml parsed it, UTF-8 whatever the file's encoding) breaks rules
/// of XML 1.0 that pugixml does not check (it parses leniently): characters XML does not allow
/// (control characters), bytes that are not UTF-8. Empty when it keeps them. An XML reader refuses
/// such a file, so AugLab must not pass its text on into the files it writes.
std::string notXmlText(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            char code[8];
            std::snprintf(code, sizeof code, "%04X", c);
            return std::string("character U+") + code + " is not allowed in XML";
        }
        if (c < 0x80) {
            ++i;
            continue;
        }
        // UTF-8: a lead byte and its continuation bytes, no overlong forms, surrogates or non-characters.
        const int more = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : 0;
        bool ok = more > 0 && i + std::size_t(more) < text.size();
        std::uint32_t cp = c & (0x3F >> more);
        for (int k = 1; ok && k <= more; ++k) {
            const auto d = static_cast<unsigned char>(text[i + std::size_t(k)]);
            ok = (d & 0xC0) == 0x80;
            cp = (cp << 6) | (d & 0x3F);
        }
        ok = ok && !(more == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) &&
             !(more == 3 && (cp < 0x10000 || cp > 0x10FFFF)) && cp != 0xFFFE && cp != 0xFFFF;
        if (!ok) return "bytes that are not UTF-8 text";
        i += std::size_t(more) + 1;
    }
    return {};
}

/// The first node of `doc` whose name, value or attributes notXmlText refuses, with why.
pugi::xml_node firstBadNode(pugi::xml_document& doc, std::string& why) {
    struct Walker : pugi::xml_tree_walker {
        std::string why;
        pugi::xml_node bad;
        bool for_each(pugi::xml_node& n) override {
            why = notXmlText(n.name());
            if (why.empty()) why = notXmlText(n.value());
            for (pugi::xml_attribute a = n.first_attribute(); a && why.empty(); a = a.next_attribute()) {
                why = notXmlText(a.name());
                if (why.empty()) why = notXmlText(a.value());
            }
            if (why.empty()) return true;
            bad = n;
            return false;
        }
    } walker;
    doc.traverse(walker);
    why = walker.why;
    return walker.bad;
}

int sizeValue(pugi::xml_node size, const char* name) {
    long long v = 0;
    return parseInteger(childText(size, name), v) && v > 0 && v < INT32_MAX ? int(v) : 0;
}

}  // namespace

Targets readVoc(const std::filesystem::path& file, std::vector<std::string>& classNames, bool growNames,
                int imageWidth, int imageHeight, LabelReport& report) {
    const std::string text = readFileText(file);
    const std::string name = shownPath(file);
    pugi::xml_document doc;
    const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size());
    if (!parsed) {
        const std::size_t offset = std::size_t(std::max<std::ptrdiff_t>(parsed.offset, 0));
        const std::size_t lineStart = text.rfind('\n', offset == 0 ? 0 : offset - 1);
        const std::size_t column = offset - (lineStart == std::string::npos ? 0 : lineStart + 1) + 1;
        throw InputError(name + ":" + std::to_string(lineAt(text, offset)) + ":" + std::to_string(column) +
                         ": invalid XML: " + parsed.description());
    }
    std::string why;
    if (const pugi::xml_node bad = firstBadNode(doc, why)) {
        const std::ptrdiff_t offset = bad.offset_debug();
        throw InputError(name + ":" + std::to_string(offset < 0 ? 0 : lineAt(text, std::size_t(offset))) +
                         ": invalid XML: " + why);
    }
    int roots = 0;
    for (pugi::xml_node n : doc.children()) roots += n.type() == pugi::node_element;
    if (roots > 1) throw InputError(name + ": invalid XML: more than one root element");
    const pugi::xml_node root = doc.child("annotation");
    if (!root) throw InputError(name + ": not a Pascal VOC file: no <annotation> element");
    LineCounter lines(text);
    const auto where = [&](pugi::xml_node n) {
        const std::ptrdiff_t offset = n.offset_debug();
        return name + ":" + std::to_string(offset < 0 ? 0 : lines.at(std::size_t(offset)));
    };

    // The size the boxes are checked against: the image's when the caller knows it, else <size>.
    const pugi::xml_node size = root.child("size");
    const int fileWidth = sizeValue(size, "width"), fileHeight = sizeValue(size, "height");
    int width = fileWidth, height = fileHeight;
    if (imageWidth > 0 && imageHeight > 0) {
        if (fileWidth > 0 && (fileWidth != imageWidth || fileHeight != imageHeight))
            report.skipped.push_back(where(size) + ": <size> says " + std::to_string(fileWidth) + "x" +
                                     std::to_string(fileHeight) + ", the image is " +
                                     std::to_string(imageWidth) + "x" + std::to_string(imageHeight) +
                                     "; boxes are checked against the image");
        width = imageWidth;
        height = imageHeight;
    }

    Targets t;
    for (pugi::xml_node object : root.children("object")) {
        const std::string at = where(object);
        const auto skip = [&](const std::string& what) { report.skipped.push_back(at + ": " + what); };
        const std::string className = childText(object, "name");
        if (className.empty()) {
            skip("an <object> without a <name>");
            continue;
        }
        const pugi::xml_node box = object.child("bndbox");
        if (!box) {
            skip("object '" + className + "' has no <bndbox>");
            continue;
        }
        double v[4];
        const char* tags[4] = {"xmin", "ymin", "xmax", "ymax"};
        bool numbers = true;
        for (int i = 0; i < 4 && numbers; ++i) {
            const std::string s = childText(box, tags[i]);
            if (!parseNumber(s, v[i])) {
                skip("object '" + className + "': <" + tags[i] + "> '" + s + "' is not a number");
                numbers = false;
            }
        }
        if (!numbers) continue;
        // Albumentations' pascal_voc: the numbers as they are are the box's edges.
        Box b{v[0], v[1], v[2], v[3]};
        if (b.x1 <= b.x0 || b.y1 <= b.y0) {
            const bool x = b.x1 <= b.x0;
            const double d = x ? b.x1 - b.x0 : b.y1 - b.y0;
            skip("object '" + className + "': " + (x ? "width " : "height ") + formatNumber(d) +
                 (d < 0 ? " is negative" : " is not positive") + " (" + (x ? "xmin " : "ymin ") +
                 formatNumber(x ? b.x0 : b.y0) + ", " + (x ? "xmax " : "ymax ") +
                 formatNumber(x ? b.x1 : b.y1) + ")");
            continue;
        }
        if (width > 0 && height > 0) {
            if (std::string why = checkBoxInImage(b, width, height); !why.empty()) {
                skip("object '" + className + "': " + why);
                continue;
            }
        } else if (b.x0 < -kEdgeTolerancePx || b.y0 < -kEdgeTolerancePx) {
            skip("object '" + className + "': the box starts at a negative coordinate");
            continue;
        }
        const auto known = std::find(classNames.begin(), classNames.end(), className);
        if (known == classNames.end() && !growNames) {
            skip("class '" + className + "' is not one of the dataset's names");
            continue;
        }
        b.label = int(known - classNames.begin());
        if (known == classNames.end()) classNames.push_back(className);
        b.id = int(t.boxes.size());
        t.boxes.push_back(b);
        t.objects.push_back(simpleFields(object));
    }
    t.classNames = classNames;
    return t;
}

}  // namespace labels

Targets readVocXml(const std::filesystem::path& file, std::vector<std::string>& classNames,
                   LabelReport& report) {
    return labels::readVoc(file, classNames, true, 0, 0, report);
}

std::string vocXmlText(const Targets& t, const std::string& imageFileName, int width, int height, int depth) {
    pugi::xml_document doc;
    pugi::xml_node ann = doc.append_child("annotation");
    ann.append_child("filename").text().set(imageFileName.c_str());
    pugi::xml_node size = ann.append_child("size");
    size.append_child("width").text().set(width);
    size.append_child("height").text().set(height);
    size.append_child("depth").text().set(depth);
    ann.append_child("segmented").text().set(0);
    const auto text = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
    for (const Box& b : t.boxes) {
        const nlohmann::json fields =
            b.id >= 0 && std::size_t(b.id) < t.objects.size() && t.objects[b.id].is_object()
                ? t.objects[b.id]
                : nlohmann::json::object();
        std::string className = std::to_string(b.label);
        if (b.label >= 0 && std::size_t(b.label) < t.classNames.size())
            className = t.classNames[b.label];
        else if (fields.contains("name"))
            className = text(fields["name"]);
        pugi::xml_node object = ann.append_child("object");
        object.append_child("name").text().set(className.c_str());
        object.append_child("pose").text().set(fields.contains("pose") ? text(fields["pose"]).c_str()
                                                                       : "Unspecified");
        object.append_child("truncated")
            .text()
            .set(fields.contains("truncated") ? text(fields["truncated"]).c_str() : "0");
        object.append_child("difficult")
            .text()
            .set(fields.contains("difficult") ? text(fields["difficult"]).c_str() : "0");
        for (const auto& [key, value] : fields.items())
            if (key != "name" && key != "pose" && key != "truncated" && key != "difficult" && key != "bndbox")
                object.append_child(key.c_str()).text().set(text(value).c_str());
        // VOC readers parse whole numbers (the devkit's files hold nothing else): edges are rounded.
        pugi::xml_node box = object.append_child("bndbox");
        box.append_child("xmin").text().set(static_cast<long long>(std::lround(b.x0)));
        box.append_child("ymin").text().set(static_cast<long long>(std::lround(b.y0)));
        box.append_child("xmax").text().set(static_cast<long long>(std::lround(b.x1)));
        box.append_child("ymax").text().set(static_cast<long long>(std::lround(b.y1)));
    }
    std::ostringstream out;
    doc.save(out, "\t", pugi::format_indent | pugi::format_no_declaration);
    return out.str();
}

}  // namespace auglab
