// libFuzzer target: the label readers of datasets — COCO JSON, YOLO label files (detection and
// pose), data.yaml, classes.txt, Pascal VOC XML and mask PNGs. The first byte of an input chooses
// the reader (and, for YOLO, the kpt_shape), the rest is the file. A file may be refused
// (InputError, naming the file and line or JSON path) or have labels skipped, but never crash,
// hang, leak or read out of bounds (built with ASan and UBSan: scripts/fuzz.sh). What is read is
// written back in its format, as `augment` writes an output's labels.

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "annotations.h"
#include "error.h"
#include "image_io.h"
#include "label_files.h"

namespace {

namespace fs = std::filesystem;

// One folder for the whole run: the file of each input is written there under its reader's name.
const fs::path& folder() {
    static const fs::path dir = [] {
        std::string pattern = (fs::temp_directory_path() / "auglab-fuzz-labels-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) std::abort();
        return fs::path(pattern);
    }();
    return dir;
}

fs::path put(const char* name, const std::uint8_t* data, std::size_t size) {
    const fs::path file = folder() / name;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) std::abort();
    return file;
}

constexpr int kWidth = 64, kHeight = 48;

void coco(const fs::path& file) {
    auglab::LabelReport report;
    const auglab::CocoLabels labels = auglab::CocoLabels::load(file, report);
    auglab::ImageLabels out;
    out.format = auglab::LabelFormat::Coco;
    out.cocoCategories = labels.categories();
    for (const auto& [index, name] : labels.imageEntries()) {
        const auglab::Targets t = labels.labelsFor(name, kWidth, kHeight, report);
        (void)auglab::labelFileText(out, t, "out.png", kWidth, kHeight, 3);  // kept members dumped too
    }
}

void yolo(const fs::path& file, std::uint8_t shape) {
    // kpt_shape: none, [k, 2] or [k, 3] with k from the selector byte.
    const int dims = shape % 3 == 0 ? 0 : 1 + shape % 3;
    const int perObject = dims == 0 ? 0 : (shape / 3) % 5;
    auglab::LabelReport report;
    const auglab::Targets t = auglab::readYoloLabels(file, kWidth, kHeight, {}, report, dims, perObject);
    int keypointsPerBox = 0;
    for (const auglab::Keypoint& k : t.keypoints)
        if (k.owner >= 0) keypointsPerBox = std::max(keypointsPerBox, k.label + 1);
    (void)auglab::yoloLabelText(t, kWidth, kHeight, keypointsPerBox);
}

void voc(const fs::path& file) {
    std::vector<std::string> names;
    auglab::LabelReport report;
    const auglab::Targets t = auglab::readVocXml(file, names, report);
    (void)auglab::vocXmlText(t, "out.png", kWidth, kHeight, 3);
}

void mask(const fs::path& file) {
    const auglab::ImageInfo info = auglab::probeImage(file);
    const auglab::Mask m = auglab::readMaskPng(file, info.width, info.height);
    (void)auglab::encodeMaskPng(m, "out.png");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::uint8_t selector = data[0];
    ++data;
    --size;
    try {
        switch (selector % 6) {
            case 0:
                coco(put("instances.json", data, size));
                break;
            case 1:
                yolo(put("label.txt", data, size), static_cast<std::uint8_t>(selector / 6));
                break;
            case 2:
                (void)auglab::readYoloDataYaml(put("data.yaml", data, size));
                break;
            case 3:
                voc(put("label.xml", data, size));
                break;
            case 4:
                mask(put("mask.png", data, size));
                break;
            default:
                (void)auglab::readClassNamesTxt(put("classes.txt", data, size));
                break;
        }
    } catch (const auglab::InputError&) {
    }
    return 0;
}
