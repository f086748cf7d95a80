#include "label_files.h"

#include <algorithm>
#include <map>

#include "error.h"
#include "image_io.h"

namespace auglab {

std::optional<LabelFormat> labelFormatOfFile(const std::filesystem::path& file) {
    std::string ext = file.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    if (ext == ".txt") return LabelFormat::Yolo;
    if (ext == ".xml") return LabelFormat::PascalVoc;
    if (ext == ".json") return LabelFormat::Coco;
    if (ext == ".png") return LabelFormat::MaskPng;
    return std::nullopt;
}

ImageLabels readImageLabels(const std::filesystem::path& file, LabelFormat format,
                            const std::filesystem::path& image, int width, int height) {
    ImageLabels out;
    out.format = format;
    switch (format) {
        case LabelFormat::Yolo:
            out.targets = readYoloLabels(file, width, height, {}, out.report);
            break;
        case LabelFormat::PascalVoc: {
            std::vector<std::string> names;
            out.targets = readVocXml(file, names, out.report);
            out.targets.classNames = names;
            break;
        }
        case LabelFormat::Coco: {
            const CocoLabels coco = CocoLabels::load(file, out.report);
            const std::string name = image.filename().string();
            if (!coco.hasImage(image.generic_string()) && !coco.hasImage(name))
                throw InputError(file.string() + ": no image named \"" + name + "\" in its images");
            out.targets =
                coco.labelsFor(coco.hasImage(image.generic_string()) ? image.generic_string() : name, width,
                               height, out.report);
            out.cocoCategories = coco.categories();
            break;
        }
        case LabelFormat::MaskPng:
            out.targets.masks = {readMaskPng(file, width, height)};
            break;
    }
    for (const Keypoint& k : out.targets.keypoints)
        if (k.owner >= 0) out.keypointsPerBox = std::max(out.keypointsPerBox, k.label + 1);
    return out;
}

Targets survivingTargets(const Targets& in, const MovedTargets& moved, const std::vector<Mask>& movedMasks) {
    Targets t;
    t.classNames = in.classNames;
    t.objects = in.objects;
    t.boxes = moved.boxes;
    t.keypoints = moved.keypoints;
    for (const Mask& m : movedMasks) {
        const bool kept = m.owner < 0 || std::any_of(t.boxes.begin(), t.boxes.end(),
                                                     [&](const Box& b) { return b.id == m.owner; });
        if (kept) t.masks.push_back(m);
    }
    return t;
}

std::string labelFileText(const ImageLabels& labels, const Targets& t, const std::filesystem::path& outImage,
                          int width, int height, int channels) {
    switch (labels.format) {
        case LabelFormat::Yolo:
            return yoloLabelText(t, width, height, labels.keypointsPerBox);
        case LabelFormat::PascalVoc:
            return vocXmlText(t, outImage.filename().string(), width, height, channels);
        case LabelFormat::Coco: {
            CocoImageEntry e;
            e.fileName = outImage.filename().string();
            e.width = width;
            e.height = height;
            e.targets = t;
            return cocoDocument({e}, labels.cocoCategories).dump(2) + "\n";
        }
        case LabelFormat::MaskPng:
            break;
    }
    throw InputError("mask PNGs are written as images, not as label text");
}

std::vector<std::filesystem::path> labelledImages(const std::filesystem::path& folder,
                                                  const LabelledDataset& d) {
    namespace fs = std::filesystem;
    std::error_code ec;
    std::vector<fs::path> files;
    for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!name.empty() && name[0] == '.') {
            if (it->is_directory(ec)) it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file(ec) && hasImageExtension(it->path())) files.push_back(it->path());
    }
    if (ec) throw InputError("cannot list '" + folder.string() + "': " + ec.message());
    if (d.format() == LabelFormat::MaskPng) {
        std::vector<fs::path> masks;
        for (const fs::path& f : files) masks.push_back(d.labelPath(f).lexically_normal());
        std::sort(masks.begin(), masks.end());
        std::erase_if(files, [&](const fs::path& f) {
            return std::binary_search(masks.begin(), masks.end(), f.lexically_normal());
        });
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::string targetSummary(const Targets& in, const MovedTargets& moved) {
    auto reasons = [](const auto& dropped) {
        std::map<std::string, int> count;
        for (const auto& d : dropped) ++count[dropRuleName(d.rule)];
        std::string s;
        for (const auto& [rule, n] : count) s += (s.empty() ? " (" : ", ") + std::to_string(n) + " " + rule;
        return s.empty() ? s : s + ")";
    };
    std::string s;
    if (!in.boxes.empty() || !moved.boxes.empty())
        s += std::to_string(moved.boxes.size()) + " of " + std::to_string(moved.boxesIn) + " boxes kept" +
             reasons(moved.droppedBoxes);
    if (!in.keypoints.empty()) {
        if (!s.empty()) s += "; ";
        s += std::to_string(moved.keypoints.size()) + " of " + std::to_string(moved.keypointsIn) +
             " keypoints kept" + reasons(moved.droppedKeypoints);
    }
    if (!in.masks.empty()) {
        if (!s.empty()) s += "; ";
        s += std::to_string(in.masks.size()) + (in.masks.size() == 1 ? " mask" : " masks") + " moved";
    }
    return s.empty() ? "no labels" : s;
}

}  // namespace auglab
