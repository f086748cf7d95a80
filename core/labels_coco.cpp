// COCO annotation files (instances_*.json and files like it): images, categories and annotations
// with boxes, keypoints and segmentations, read once and looked up per image; and the writer.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "annotations.h"
#include "atomic_file.h"
#include "error.h"
#include "json_reader.h"
#include "labels_internal.h"

namespace auglab {

namespace {

using nlohmann::json;

// A JSON integer (an integral float such as 640.0 too, which some tools write).
std::optional<std::int64_t> integerOf(const json& v) {
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::abs(d) < 9e15) return std::int64_t(d);
    }
    return std::nullopt;
}

std::optional<double> numberOf(const json& v) {
    if (!v.is_number()) return std::nullopt;
    const double d = v.get<double>();
    return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

std::string baseName(const std::string& path) {
    const auto slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string sizeText(int w, int h) {
    return std::to_string(w) + "x" + std::to_string(h);
}

// Members of an annotation that the reader turns into targets (and the writer recomputes); every
// other member is the object's, kept in Targets::objects.
bool isGeometryMember(const std::string& key) {
    return key == "bbox" || key == "segmentation" || key == "keypoints" || key == "num_keypoints" ||
           key == "area";
}

constexpr std::size_t kAmbiguous = std::numeric_limits<std::size_t>::max();

}  // namespace

struct CocoLabels::Data {
    std::string name;  ///< the file, as reports show it
    json annotations;
    json categories;
    std::vector<std::string> classNames;  ///< per category position
    std::unordered_map<std::int64_t, int> labelOfCategory;
    std::vector<std::size_t> keypointCounts;  ///< per category position: its keypoint names
    std::vector<std::string> keypointNames;
    struct Image {
        std::string fileName;
        std::size_t index = 0;  ///< in the file's images
        int width = 0, height = 0;
        std::vector<std::size_t> annotations;  ///< in the file's order
    };
    std::vector<Image> images;
    std::unordered_map<std::string, std::size_t> byName, byBaseName;

    const Image* find(const std::string& fileName) const {
        if (const auto it = byName.find(fileName); it != byName.end()) return &images[it->second];
        const auto it = byBaseName.find(baseName(fileName));
        return it != byBaseName.end() && it->second != kAmbiguous ? &images[it->second] : nullptr;
    }
    void readAnnotation(const json& a, const std::string& path, int width, int height, Targets& t,
                        LabelReport& report) const;
};

CocoLabels::CocoLabels() : d_(std::make_unique<Data>()) {}
CocoLabels::~CocoLabels() = default;
CocoLabels::CocoLabels(CocoLabels&&) noexcept = default;
CocoLabels& CocoLabels::operator=(CocoLabels&&) noexcept = default;

CocoLabels CocoLabels::load(const std::filesystem::path& file, LabelReport& report) {
    CocoLabels labels;
    Data& d = *labels.d_;
    d.name = labels::shownPath(file);
    json doc = parseJsonStrict(readFileText(file), d.name);
    const auto skip = [&](const std::string& path, const std::string& what) {
        report.skipped.push_back(d.name + ": " + path + ": " + what);
    };
    if (!doc.is_object()) throw InputError(d.name + ": not a COCO file: the top level is not an object");
    if (!doc.contains("images") || !doc["images"].is_array())
        throw InputError(d.name + ": images: missing or not an array (a COCO file lists its images)");
    if (!doc.contains("categories") || !doc["categories"].is_array())
        throw InputError(d.name + ": categories: missing or not an array (a COCO file lists its categories)");
    if (doc.contains("annotations") && !doc["annotations"].is_array())
        throw InputError(d.name + ": annotations: not an array");

    d.categories = std::move(doc["categories"]);
    for (std::size_t i = 0; i < d.categories.size(); ++i) {
        const json& c = d.categories[i];
        const std::string path = "categories[" + std::to_string(i) + "]";
        d.classNames.emplace_back();
        d.keypointCounts.push_back(0);
        const auto id = c.is_object() && c.contains("id") ? integerOf(c["id"]) : std::nullopt;
        if (!id || !c.contains("name") || !c["name"].is_string()) {
            skip(path, "a category needs an integer id and a name");
            continue;
        }
        if (d.labelOfCategory.count(*id)) {
            skip(path, "id " + std::to_string(*id) + " is already the id of another category");
            continue;
        }
        d.labelOfCategory[*id] = int(i);
        d.classNames.back() = c["name"].get<std::string>();
        if (c.contains("keypoints") && c["keypoints"].is_array()) {
            std::vector<std::string> names;
            for (const json& n : c["keypoints"])
                names.push_back(n.is_string() ? n.get<std::string>() : n.dump());
            d.keypointCounts.back() = names.size();
            if (d.keypointNames.empty()) d.keypointNames = std::move(names);
        }
    }

    std::unordered_map<std::int64_t, std::size_t> imageOfId;
    const json& images = doc["images"];
    for (std::size_t i = 0; i < images.size(); ++i) {
        const json& e = images[i];
        const std::string path = "images[" + std::to_string(i) + "]";
        const auto id = e.is_object() && e.contains("id") ? integerOf(e["id"]) : std::nullopt;
        if (!id) {
            skip(path, "an image needs an integer id");
            continue;
        }
        if (!e.contains("file_name") || !e["file_name"].is_string() ||
            e["file_name"].get<std::string>().empty()) {
            skip(path, "file_name: missing or not a file name");
            continue;
        }
        const std::int64_t w = e.contains("width") ? integerOf(e["width"]).value_or(0) : 0;
        const std::int64_t h = e.contains("height") ? integerOf(e["height"]).value_or(0) : 0;
        if (w <= 0 || h <= 0 || w > INT32_MAX || h > INT32_MAX) {
            skip(path, "width and height must be positive integers");
            continue;
        }
        if (imageOfId.count(*id)) {
            skip(path, "id " + std::to_string(*id) + " is already the id of another image");
            continue;
        }
        Data::Image image;
        image.fileName = e["file_name"].get<std::string>();
        if (d.byName.count(image.fileName)) {
            skip(path, "file_name '" + image.fileName + "' is already listed");
            continue;
        }
        image.index = i;
        image.width = int(w);
        image.height = int(h);
        imageOfId[*id] = d.images.size();
        d.byName[image.fileName] = d.images.size();
        const auto [at, fresh] = d.byBaseName.emplace(baseName(image.fileName), d.images.size());
        if (!fresh) at->second = kAmbiguous;
        d.images.push_back(std::move(image));
    }

    if (doc.contains("annotations"))
        d.annotations = std::move(doc["annotations"]);
    else
        d.annotations = json::array();
    for (std::size_t i = 0; i < d.annotations.size(); ++i) {
        const json& a = d.annotations[i];
        const std::string path = "annotations[" + std::to_string(i) + "]";
        if (!a.is_object()) {
            skip(path, "not an object");
            continue;
        }
        const auto imageId = a.contains("image_id") ? integerOf(a["image_id"]) : std::nullopt;
        if (!imageId) {
            skip(path + ".image_id", "missing or not an integer");
            continue;
        }
        const auto image = imageOfId.find(*imageId);
        if (image == imageOfId.end()) {
            skip(path + ".image_id", std::to_string(*imageId) + " is not the id of an image in images");
            continue;
        }
        d.images[image->second].annotations.push_back(i);
    }
    return labels;
}

bool CocoLabels::hasImage(const std::string& fileName) const {
    return d_->find(fileName) != nullptr;
}

std::optional<std::size_t> CocoLabels::imageEntry(const std::string& fileName) const {
    const Data::Image* image = d_->find(fileName);
    if (!image) return std::nullopt;
    return image->index;
}

std::vector<std::pair<std::size_t, std::string>> CocoLabels::imageEntries() const {
    std::vector<std::pair<std::size_t, std::string>> out;
    out.reserve(d_->images.size());
    for (const Data::Image& image : d_->images) out.emplace_back(image.index, image.fileName);
    return out;
}

const nlohmann::json& CocoLabels::categories() const {
    return d_->categories;
}

const std::vector<std::string>& CocoLabels::keypointNames() const {
    return d_->keypointNames;
}

Targets CocoLabels::labelsFor(const std::string& fileName, int imageWidth, int imageHeight,
                              LabelReport& report) const {
    Targets t;
    t.classNames = d_->classNames;
    const Data::Image* image = d_->find(fileName);
    if (image == nullptr) return t;
    if (image->width != imageWidth || image->height != imageHeight)
        report.skipped.push_back(d_->name + ": images[" + std::to_string(image->index) + "]: the file says " +
                                 sizeText(image->width, image->height) + ", the image is " +
                                 sizeText(imageWidth, imageHeight) +
                                 "; labels are checked against the image");
    // Instance masks are held whole, a byte a pixel each: a file that gives one image more of them
    // than memory can hold is refused here, named, before any is made (9,000 on a 640x480 image
    // were 7 GB of masks and their moved copies).
    std::size_t segmented = 0;
    for (std::size_t i : image->annotations) {
        const json& a = d_->annotations[i];
        segmented += a.is_object() && a.contains("segmentation") && !a["segmentation"].is_null();
    }
    const double maskBytes = double(segmented) * imageWidth * imageHeight;
    if (maskBytes > double(kMaxInstanceMaskBytes))
        throw InputError(d_->name + ": images[" + std::to_string(image->index) + "] ('" + image->fileName +
                         "'): " + std::to_string(segmented) + " segmented annotations on a " +
                         sizeText(imageWidth, imageHeight) + " image would take " +
                         std::to_string(std::llround(maskBytes / 1e6)) +
                         " MB as masks (each is held at the image's size, a byte a pixel), more than the " +
                         std::to_string(kMaxInstanceMaskBytes / 1'000'000) + " MB allowed for one image");
    for (std::size_t i : image->annotations)
        d_->readAnnotation(d_->annotations[i], "annotations[" + std::to_string(i) + "]", imageWidth,
                           imageHeight, t, report);
    return t;
}

void CocoLabels::Data::readAnnotation(const json& a, const std::string& path, int width, int height,
                                      Targets& t, LabelReport& report) const {
    const auto skip = [&](const std::string& member, const std::string& what) {
        report.skipped.push_back(name + ": " + path + member + ": " + what);
    };
    const auto category = a.contains("category_id") ? integerOf(a["category_id"]) : std::nullopt;
    if (!category) return skip(".category_id", "missing or not an integer");
    const auto label = labelOfCategory.find(*category);
    if (label == labelOfCategory.end())
        return skip(".category_id", std::to_string(*category) + " is not the id of a category");

    if (!a.contains("bbox")) return skip(".bbox", "missing");
    const json& bbox = a["bbox"];
    double v[4];
    for (std::size_t i = 0; i < 4; ++i) {
        const auto n = bbox.is_array() && bbox.size() == 4 ? numberOf(bbox[i]) : std::nullopt;
        if (!n) return skip(".bbox", "expected [x, y, width, height] in pixels");
        v[i] = *n;
    }
    if (v[2] < 0) return skip(".bbox", "width " + formatNumber(v[2]) + " is negative");
    if (v[3] < 0) return skip(".bbox", "height " + formatNumber(v[3]) + " is negative");
    if (v[2] == 0) return skip(".bbox", "width is 0");
    if (v[3] == 0) return skip(".bbox", "height is 0");
    Box b{v[0], v[1], v[0] + v[2], v[1] + v[3], label->second, int(t.boxes.size())};
    if (std::string why = labels::checkBoxInImage(b, width, height); !why.empty()) return skip(".bbox", why);
    t.boxes.push_back(b);
    json object = json::object();
    for (const auto& [key, value] : a.items())
        if (!isGeometryMember(key)) object[key] = value;
    t.objects.push_back(std::move(object));

    // Keypoints [x1, y1, v1, ...]: v 0 is "not labelled", 1 labelled but hidden, 2 visible.
    if (a.contains("keypoints") && !a["keypoints"].is_null()) {
        const json& k = a["keypoints"];
        const std::size_t expected = keypointCounts[std::size_t(b.label)];
        bool numbers = k.is_array();
        for (std::size_t i = 0; numbers && i < k.size(); ++i) numbers = numberOf(k[i]).has_value();
        if (!numbers || k.size() % 3 != 0) {
            skip(".keypoints", "expected [x, y, visibility, ...] numbers in threes");
        } else if (expected > 0 && k.size() != 3 * expected) {
            skip(".keypoints", std::to_string(k.size()) + " values; category '" +
                                   classNames[std::size_t(b.label)] + "' has " + std::to_string(expected) +
                                   " keypoints (" + std::to_string(3 * expected) + " values)");
        } else {
            for (std::size_t j = 0; j < k.size() / 3; ++j) {
                const double x = k[3 * j].get<double>(), y = k[3 * j + 1].get<double>(),
                             visibility = k[3 * j + 2].get<double>();
                const std::string member = ".keypoints[" + std::to_string(3 * j) + "]";
                if (visibility == 0) continue;
                if (visibility != 1 && visibility != 2) {
                    skip(member, "visibility " + formatNumber(visibility) + " is not 0, 1 or 2");
                    continue;
                }
                if (!labels::keypointInImage(x, y, width, height)) {
                    skip(member, "(" + formatNumber(x) + ", " + formatNumber(y) + ") is outside the " +
                                     sizeText(width, height) + " image");
                    continue;
                }
                Keypoint kp;
                kp.x = x;
                kp.y = y;
                labels::moveOntoImage(kp, width, height);
                kp.label = int(j);
                kp.id = int(t.keypoints.size());
                kp.owner = b.id;
                t.keypoints.push_back(kp);
            }
        }
    }

    if (!a.contains("segmentation") || a["segmentation"].is_null()) return;
    const json& s = a["segmentation"];
    Mask mask;
    if (s.is_array()) {
        // Polygons, the parts of one object: their union, as pycocotools' annToMask merges them.
        if (s.empty()) return;
        for (std::size_t p = 0; p < s.size(); ++p) {
            const std::string member = ".segmentation[" + std::to_string(p) + "]";
            const json& polygon = s[p];
            std::vector<double> xy;
            for (std::size_t i = 0; polygon.is_array() && i < polygon.size(); ++i) {
                const auto n = numberOf(polygon[i]);
                if (!n) break;
                xy.push_back(*n);
            }
            if (!polygon.is_array() || xy.size() != polygon.size() || xy.size() % 2 != 0 || xy.size() < 6)
                return skip(member, "a polygon is [x1, y1, x2, y2, ...] with at least 3 points");
            for (std::size_t i = 0; i < xy.size(); i += 2)
                if (!labels::keypointInImage(xy[i], xy[i + 1], width, height))
                    return skip(member, "point (" + formatNumber(xy[i]) + ", " + formatNumber(xy[i + 1]) +
                                            ") is outside the " + sizeText(width, height) + " image");
            const Mask part = maskFromPolygon(xy, width, height);
            if (mask.values.empty())
                mask = part;
            else
                for (std::size_t i = 0; i < mask.values.size(); ++i) mask.values[i] |= part.values[i];
        }
    } else if (s.is_object() && s.contains("counts") && s.contains("size")) {
        const json& size = s["size"];
        const bool pair = size.is_array() && size.size() == 2;
        const std::int64_t h = pair ? integerOf(size[0]).value_or(-1) : -1;
        const std::int64_t w = pair ? integerOf(size[1]).value_or(-1) : -1;
        if (h < 0 || w < 0) return skip(".segmentation.size", "expected [height, width]");
        if (h != height || w != width)
            return skip(".segmentation.size", "[" + std::to_string(h) + ", " + std::to_string(w) +
                                                  "] is not the image's [" + std::to_string(height) + ", " +
                                                  std::to_string(width) + "] (height, width)");
        const json& c = s["counts"];
        std::vector<std::uint32_t> counts;
        try {
            if (c.is_string()) {
                counts = rleFromString(c.get<std::string>(), name + ": " + path + ".segmentation.counts");
            } else if (c.is_array()) {
                for (const json& n : c) {
                    const auto run = integerOf(n);
                    if (!run || *run < 0 || *run > std::int64_t(UINT32_MAX))
                        return skip(".segmentation.counts", "runs are non-negative integers");
                    counts.push_back(std::uint32_t(*run));
                }
            } else {
                return skip(".segmentation.counts", "expected a list of runs or a compressed RLE string");
            }
            mask = maskFromRle(counts, width, height);
        } catch (const InputError& e) {
            const std::string what = e.what();
            // rleFromString's message names the file and member already.
            if (what.rfind(name + ": ", 0) == 0)
                report.skipped.push_back(what);
            else
                skip(".segmentation.counts", what);
            return;
        }
    } else {
        return skip(".segmentation", "expected polygons or an RLE {size, counts}");
    }
    mask.owner = b.id;
    t.masks.push_back(std::move(mask));
}

nlohmann::ordered_json cocoDocument(const std::vector<CocoImageEntry>& images,
                                    const nlohmann::json& categories) {
    using ordered = nlohmann::ordered_json;
    ordered doc;
    doc["images"] = ordered::array();
    doc["annotations"] = ordered::array();
    std::int64_t annotationId = 0;
    for (std::size_t i = 0; i < images.size(); ++i) {
        const CocoImageEntry& e = images[i];
        const std::int64_t imageId = std::int64_t(i) + 1;
        doc["images"].push_back(
            ordered{{"id", imageId}, {"file_name", e.fileName}, {"width", e.width}, {"height", e.height}});
        const Targets& t = e.targets;
        for (const Box& b : t.boxes) {
            const json* category =
                categories.is_array() && b.label >= 0 && std::size_t(b.label) < categories.size()
                    ? &categories[std::size_t(b.label)]
                    : nullptr;
            const json fields =
                b.id >= 0 && std::size_t(b.id) < t.objects.size() && t.objects[b.id].is_object()
                    ? t.objects[b.id]
                    : json::object();
            ordered a;
            a["id"] = ++annotationId;
            a["image_id"] = imageId;
            if (category != nullptr && category->contains("id"))
                a["category_id"] = (*category)["id"];
            else
                a["category_id"] = b.label;
            a["bbox"] = {b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0};
            const Mask* mask = nullptr;
            for (const Mask& m : t.masks)
                if (m.owner == b.id) mask = &m;
            if (mask != nullptr) {
                std::int64_t area = 0;
                for (std::uint8_t v : mask->values) area += v != 0;
                a["area"] = area;
            } else {
                a["area"] = (b.x1 - b.x0) * (b.y1 - b.y0);
            }
            a["iscrowd"] = fields.contains("iscrowd") ? fields["iscrowd"] : json(0);
            if (mask != nullptr)
                a["segmentation"] = ordered{{"size", {mask->height, mask->width}},
                                            {"counts", rleToString(rleFromMask(*mask))}};
            // Keypoints in the category's order, [x, y, 2] where kept and [0, 0, 0] where not.
            std::size_t count = 0;
            if (category != nullptr && category->contains("keypoints") && (*category)["keypoints"].is_array())
                count = (*category)["keypoints"].size();
            for (const Keypoint& k : t.keypoints)
                if (k.owner == b.id && k.label >= 0) count = std::max(count, std::size_t(k.label) + 1);
            if (count > 0) {
                std::vector<double> values(3 * count, 0.0);
                int present = 0;
                for (const Keypoint& k : t.keypoints)
                    if (k.owner == b.id && k.label >= 0) {
                        values[3 * std::size_t(k.label)] = k.x;
                        values[3 * std::size_t(k.label) + 1] = k.y;
                        values[3 * std::size_t(k.label) + 2] = 2;
                        ++present;
                    }
                ordered list = ordered::array();
                for (std::size_t j = 0; j < values.size(); ++j) {
                    if (j % 3 == 2)
                        list.push_back(int(values[j]));
                    else
                        list.push_back(values[j]);
                }
                a["keypoints"] = std::move(list);
                a["num_keypoints"] = present;
            }
            for (const auto& [key, value] : fields.items())
                if (!a.contains(key) && !isGeometryMember(key)) a[key] = value;
            doc["annotations"].push_back(std::move(a));
        }
    }
    doc["categories"] = categories;
    return doc;
}

}  // namespace auglab
