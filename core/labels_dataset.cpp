// Datasets: which labels a folder of images has (detectLabels) and where each image's are.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "annotations.h"
#include "atomic_file.h"
#include "error.h"
#include "image_io.h"
#include "labels_internal.h"

namespace fs = std::filesystem;

namespace auglab {

const char* labelFormatName(LabelFormat f) {
    switch (f) {
        case LabelFormat::Yolo:
            return "yolo";
        case LabelFormat::Coco:
            return "coco";
        case LabelFormat::PascalVoc:
            return "pascal_voc";
        case LabelFormat::MaskPng:
            return "masks";
    }
    return "?";
}

std::optional<LabelFormat> labelFormatFromName(std::string_view name) {
    for (LabelFormat f : {LabelFormat::Yolo, LabelFormat::Coco, LabelFormat::PascalVoc, LabelFormat::MaskPng})
        if (name == labelFormatName(f)) return f;
    return std::nullopt;
}

namespace {

std::string lowerExtension(const fs::path& p) {
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

bool isDirectory(const fs::path& p) {
    std::error_code ec;
    return fs::is_directory(p, ec);
}

bool isFile(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

// The files under `folder` (recursively, in sorted order) for which `keep` holds; at most `limit`.
template <typename Keep>
std::vector<fs::path> filesUnder(const fs::path& folder, Keep keep, std::size_t limit = SIZE_MAX) {
    std::vector<fs::path> found;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end && found.size() < limit; it.increment(ec)) {
        if (it->is_regular_file(ec) && keep(it->path())) found.push_back(it->path());
    }
    std::sort(found.begin(), found.end());
    return found;
}

// The files directly in `folder` for which `keep` holds, sorted.
template <typename Keep>
std::vector<fs::path> filesIn(const fs::path& folder, Keep keep) {
    std::vector<fs::path> found;
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && keep(it->path())) found.push_back(it->path());
    std::sort(found.begin(), found.end());
    return found;
}

// Whether a .json file is a COCO file, from a look at its beginning: a top-level "images" list
// comes with "annotations" or "categories" (a preset or a replay has neither).
bool looksLikeCoco(const fs::path& file) {
    const std::vector<std::uint8_t> head = readFileBytes(file, std::size_t{1} << 20);
    const std::string_view text(reinterpret_cast<const char*>(head.data()), head.size());
    return text.find("\"images\"") != std::string_view::npos &&
           (text.find("\"annotations\"") != std::string_view::npos ||
            text.find("\"categories\"") != std::string_view::npos);
}

}  // namespace

namespace labels {

bool labelFileInside(const fs::path& file, const fs::path& root) {
    std::error_code ec;
    const fs::file_status link = fs::symlink_status(file, ec);
    if (ec || !fs::exists(link)) return false;
    const fs::path target = fs::canonical(file, ec);
    if (ec) {
        if (fs::is_symlink(link))
            throw InputError(shownPath(file) + ": a symbolic link to nothing (" + ec.message() +
                             "); remove it, or make it point to the label file");
        return false;
    }
    if (!fs::is_regular_file(target, ec)) return false;
    const fs::path base = fs::canonical(root, ec);
    if (ec) return true;  // the dataset folder itself went away: the read says so
    const fs::path rel = target.lexically_relative(base);
    if (rel.empty() || *rel.begin() == "..")
        throw InputError(shownPath(file) + ": leads outside the dataset folder '" + shownPath(base) +
                         "' (to '" + shownPath(target) +
                         "'); AugLab reads a dataset's labels only inside it: copy the file in");
    return true;
}

}  // namespace labels

struct LabelledDataset::Data {
    LabelFormat format = LabelFormat::Yolo;
    fs::path root;
    std::vector<std::string> classNames;
    fs::path imagesDir;     ///< image paths are taken relative to this (root/images, root/JPEGImages or root)
    fs::path labelsDir;     ///< mirrors imagesDir (empty: VOC files beside the images)
    std::string extension;  ///< of the label files: ".txt", ".xml", ".png"
    int keypointDims = 0;   ///< YOLO pose: data.yaml's kpt_shape[1]
    int keypointsPerObject = 0;  ///< YOLO pose: data.yaml's kpt_shape[0]
    bool fixedNames = false;  ///< VOC with a classes.txt: other names are unknown classes
    std::vector<CocoLabels> coco;
    std::vector<fs::path> cocoFiles;

    fs::path absolute(const fs::path& image) const { return image.is_absolute() ? image : root / image; }
    // The image's path under imagesDir (or root, or as given), as the label files mirror it.
    fs::path relative(const fs::path& image) const {
        const fs::path a = absolute(image).lexically_normal();
        for (const fs::path& base : {imagesDir, root}) {
            const fs::path r = a.lexically_relative(base.lexically_normal());
            if (!r.empty() && *r.begin() != "..") return r;
        }
        return a.filename();
    }
    const CocoLabels* cocoFor(const std::string& name, std::size_t* which = nullptr) const {
        for (std::size_t i = 0; i < coco.size(); ++i)
            if (coco[i].hasImage(name)) {
                if (which) *which = i;
                return &coco[i];
            }
        return nullptr;
    }
    std::string cocoName(const fs::path& image) const {
        const fs::path r = absolute(image).lexically_normal().lexically_relative(root.lexically_normal());
        return labels::shownPath(r.empty() || *r.begin() == ".." ? image.filename() : r);
    }
};

LabelledDataset::LabelledDataset() : d_(std::make_unique<Data>()) {}
LabelledDataset::~LabelledDataset() = default;
LabelledDataset::LabelledDataset(LabelledDataset&&) noexcept = default;
LabelledDataset& LabelledDataset::operator=(LabelledDataset&&) noexcept = default;

LabelFormat LabelledDataset::format() const {
    return d_->format;
}

const fs::path& LabelledDataset::root() const {
    return d_->root;
}

const std::vector<std::string>& LabelledDataset::classNames() const {
    return d_->classNames;
}

const CocoLabels* LabelledDataset::coco() const {
    return d_->coco.empty() ? nullptr : &d_->coco.front();
}

fs::path LabelledDataset::labelPath(const fs::path& image) const {
    const Data& d = *d_;
    if (d.format == LabelFormat::Coco) {
        std::size_t which = 0;
        return d.cocoFor(d.cocoName(image), &which) ? d.cocoFiles[which] : d.cocoFiles.front();
    }
    if (d.format == LabelFormat::Yolo) {
        // Ultralytics' rule: the image path's last images/ folder becomes labels/ (images/train/a.jpg,
        // train/images/a.jpg: Roboflow's splits).
        const fs::path a = d.absolute(image).lexically_normal();
        const fs::path r = a.lexically_relative(d.root.lexically_normal());
        if (!r.empty() && *r.begin() != "..") {
            std::vector<fs::path> parts(r.begin(), r.end());
            for (std::size_t i = parts.size() - 1; i-- > 0;)
                if (parts[i] == "images") {
                    parts[i] = "labels";
                    fs::path out = d.root;
                    for (const fs::path& p : parts) out /= p;
                    return out.replace_extension(d.extension);
                }
        }
    }
    if (d.labelsDir.empty()) return fs::path(d.absolute(image)).replace_extension(d.extension);
    return (d.labelsDir / d.relative(image)).replace_extension(d.extension);
}

bool LabelledDataset::lists(const fs::path& image) const {
    const Data& d = *d_;
    if (d.format != LabelFormat::Coco) return true;
    return d.cocoFor(d.cocoName(image)) != nullptr;
}

std::vector<std::string> LabelledDataset::entriesWithoutImage(const std::vector<fs::path>& images) const {
    const Data& d = *d_;
    std::vector<std::string> out;
    if (d.format != LabelFormat::Coco) return out;
    std::vector<std::set<std::size_t>> matched(d.coco.size());
    for (const fs::path& image : images) {
        const std::string name = d.cocoName(image);
        std::size_t which = 0;
        if (const CocoLabels* c = d.cocoFor(name, &which))
            if (const std::optional<std::size_t> entry = c->imageEntry(name)) matched[which].insert(*entry);
    }
    for (std::size_t i = 0; i < d.coco.size(); ++i)
        for (const auto& [index, fileName] : d.coco[i].imageEntries())
            if (!matched[i].count(index))
                out.push_back(labels::shownPath(d.cocoFiles[i]) + ": images[" + std::to_string(index) +
                              "]: file_name '" + fileName +
                              "' matches no image file of the dataset; its annotations are not used");
    return out;
}

Targets LabelledDataset::labelsFor(const fs::path& image, int imageWidth, int imageHeight,
                                   LabelReport& report) const {
    const Data& d = *d_;
    if (d.format == LabelFormat::Coco) {
        const std::string name = d.cocoName(image);
        if (const CocoLabels* c = d.cocoFor(name)) return c->labelsFor(name, imageWidth, imageHeight, report);
        Targets t;
        t.classNames = d.classNames;
        return t;
    }
    const fs::path file = labelPath(image);
    Targets t;
    t.classNames = d.classNames;
    if (!labels::labelFileInside(file, d.root)) return t;  // an image without labels: no objects
    switch (d.format) {
        case LabelFormat::Yolo:
            return readYoloLabels(file, imageWidth, imageHeight, d.classNames, report, d.keypointDims,
                                  d.keypointsPerObject);
        case LabelFormat::PascalVoc: {
            std::vector<std::string> names = d.classNames;
            return labels::readVoc(file, names, !d.fixedNames, imageWidth, imageHeight, report);
        }
        case LabelFormat::MaskPng:
            t.masks.push_back(readMaskPng(file, imageWidth, imageHeight));
            return t;
        case LabelFormat::Coco:
            break;
    }
    return t;
}

std::optional<LabelledDataset> detectLabels(const fs::path& folder, LabelReport& report) {
    if (!isDirectory(folder)) return std::nullopt;
    LabelledDataset dataset;
    LabelledDataset::Data& d = *dataset.d_;
    d.root = folder;
    d.imagesDir = isDirectory(folder / "images") ? folder / "images" : folder;
    const auto hasExtension = [](const char* ext) {
        return [ext](const fs::path& p) { return lowerExtension(p) == ext; };
    };
    // Class names a YOLO or mask dataset may have: data.yaml, else classes.txt (root or labels/).
    const auto readNames = [&](const fs::path& labelsDir) {
        if (labels::labelFileInside(folder / "data.yaml", folder)) {
            const YoloDataYaml yaml = readYoloDataYaml(folder / "data.yaml");
            d.classNames = yaml.names;
            d.keypointDims = yaml.keypointDims;
            d.keypointsPerObject = yaml.keypointsPerObject;
            return;
        }
        for (const fs::path& p : {folder / "classes.txt", labelsDir / "classes.txt"})
            if (labels::labelFileInside(p, folder)) {
                d.classNames = readClassNamesTxt(p);
                return;
            }
    };

    // COCO: annotations/instances*.json, else any COCO .json in annotations/ or in the folder
    // (Roboflow's _annotations.coco.json beside the images). Several (train, val): all of them.
    std::vector<fs::path> cocoFiles = filesIn(folder / "annotations", [](const fs::path& p) {
        return lowerExtension(p) == ".json" && p.filename().string().rfind("instances", 0) == 0;
    });
    for (const fs::path& dir : {folder / "annotations", folder})
        if (cocoFiles.empty())
            cocoFiles = filesIn(
                dir, [](const fs::path& p) { return lowerExtension(p) == ".json" && looksLikeCoco(p); });
    if (!cocoFiles.empty()) {
        d.format = LabelFormat::Coco;
        for (const fs::path& f : cocoFiles) {
            labels::labelFileInside(f, folder);
            d.coco.push_back(CocoLabels::load(f, report));
            d.cocoFiles.push_back(f);
        }
        for (const nlohmann::json& c : d.coco.front().categories())
            d.classNames.push_back(c.is_object() && c.contains("name") && c["name"].is_string()
                                       ? c["name"].get<std::string>()
                                       : std::string());
        for (std::size_t i = 1; i < d.coco.size(); ++i)
            if (d.coco[i].categories() != d.coco.front().categories())
                report.skipped.push_back(labels::shownPath(d.cocoFiles[i]) + ": categories differ from " +
                                         labels::shownPath(d.cocoFiles.front()) +
                                         "'s; each file's labels follow its own categories");
        return dataset;
    }

    // YOLO: labels/ mirroring images/ with .txt files (LabelImg's classes.txt is not a label file),
    // at the top or in each split (train/images + train/labels).
    std::vector<fs::path> labelDirs;
    if (isDirectory(folder / "labels")) {
        labelDirs.push_back(folder / "labels");
    } else {
        std::error_code ec;
        for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
            if (isDirectory(it->path() / "labels") && isDirectory(it->path() / "images"))
                labelDirs.push_back(it->path() / "labels");
        std::sort(labelDirs.begin(), labelDirs.end());
    }
    for (const fs::path& labels : labelDirs) {
        const auto labelFiles = filesUnder(
            labels,
            [](const fs::path& p) { return lowerExtension(p) == ".txt" && p.filename() != "classes.txt"; },
            1);
        if (!labelFiles.empty()) {
            d.format = LabelFormat::Yolo;
            d.labelsDir = labels;
            d.extension = ".txt";
            readNames(d.labelsDir);
            return dataset;
        }
    }

    // Pascal VOC: Annotations/ (the devkit's layout, images in JPEGImages/), or .xml beside images.
    std::vector<fs::path> xmlFiles;
    if (isDirectory(folder / "Annotations"))
        xmlFiles = filesUnder(folder / "Annotations", hasExtension(".xml"));
    const bool devkitLayout = !xmlFiles.empty();
    if (!devkitLayout)
        xmlFiles = filesUnder(folder, [](const fs::path& p) {
            if (lowerExtension(p) != ".xml") return false;
            for (const std::string& ext : imageExtensions())
                if (isFile(fs::path(p).replace_extension(ext))) return true;
            return false;
        });
    if (!xmlFiles.empty()) {
        d.format = LabelFormat::PascalVoc;
        if (devkitLayout) {
            d.labelsDir = folder / "Annotations";
            d.imagesDir = isDirectory(folder / "JPEGImages") ? folder / "JPEGImages" : folder;
        } else {
            d.imagesDir = folder;  // labelsDir stays empty: each .xml beside its image
        }
        d.extension = ".xml";
        if (labels::labelFileInside(folder / "classes.txt", folder)) {
            d.classNames = readClassNamesTxt(folder / "classes.txt");
            d.fixedNames = true;
        } else {
            // Every file's names, sorted, so that an image's labels never depend on which files
            // were read before it (for the VOC classes this is the devkit's own order). Files that
            // do not parse are left for labelsFor to report.
            std::set<std::string> names;
            for (const fs::path& f : xmlFiles) {
                try {
                    std::vector<std::string> found;
                    LabelReport ignored;
                    readVocXml(f, found, ignored);
                    names.insert(found.begin(), found.end());
                } catch (const InputError&) {
                }
            }
            d.classNames.assign(names.begin(), names.end());
        }
        return dataset;
    }

    // Masks: masks/ (or labels/ of PNGs) mirroring the images.
    for (const char* dir : {"masks", "labels"}) {
        if (!isDirectory(folder / dir)) continue;
        if (filesUnder(folder / dir, hasExtension(".png"), 1).empty()) continue;
        d.format = LabelFormat::MaskPng;
        d.labelsDir = folder / dir;
        d.extension = ".png";
        readNames(d.labelsDir);
        return dataset;
    }
    return std::nullopt;
}

}  // namespace auglab
