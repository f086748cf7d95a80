#pragma once
// Reading and writing the labels of detection, keypoint and segmentation datasets: YOLO (`images/`
// and `labels/` mirrors, data.yaml class names, the pose variant's keypoints), COCO
// (instances*.json: boxes, keypoints, polygon and RLE segmentation as instance masks), Pascal VOC
// (XML beside the images or in Annotations/) and folders of mask PNGs mirroring the images. Every
// reader gives targets.h's Targets in pixels of the image; every writer takes them back.
//
// Bad labels never crash and are never silently dropped: a label that cannot be used (coordinates
// out of range, an unknown class, a box of negative size) is skipped and named in the LabelReport
// with its file and line or JSON path; a file that cannot be parsed at all is an InputError naming
// it and where it broke. A coordinate more than 1 pixel outside the image is out of range (less is
// an annotation tool's rounding: box edges are then clamped onto the image). Box ids are the boxes'
// positions among those read (0..n-1, in the file's order), so Targets::objects[id] is that box's.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "targets.h"

namespace auglab {

enum class LabelFormat { Yolo, Coco, PascalVoc, MaskPng };
const char* labelFormatName(LabelFormat f);  ///< "yolo", "coco", "pascal_voc", "masks"
std::optional<LabelFormat> labelFormatFromName(std::string_view name);

/// Labels that were skipped, one line each, e.g. "labels/a.txt:3: class 7 is not one of the names
/// (0..4)" or "instances.json: annotations[12].bbox: width -3 is negative".
struct LabelReport {
    std::vector<std::string> skipped;
};

// --- One file at a time (auglab-cli apply --annotations) ---------------------------------------

/// A YOLO label file (`class cx cy w h` normalised, or the pose variant `class cx cy w h x1 y1 [v1]
/// ...`) of an imageWidth x imageHeight image. `classNames` (may be empty) bounds the class ids.
/// Boxes become pixel edges (x0 = (cx - w/2) * W); keypoints x * W, y * H, label = their position
/// after the box, owner = the box id; keypoints with visibility 0 are not labelled and not created.
/// `keypointDims` is data.yaml's kpt_shape[1] (2: x y, 3: x y v); 0 infers it from each line's
/// length (3 when both fit, Ultralytics' default). `keypointsPerObject` is kpt_shape[0]: a line with
/// another number of keypoints is skipped (0: any number). A keypoint within the edge tolerance of the
/// image is moved onto it, inside [0, W) x [0, H) (what Albumentations accepts).
Targets readYoloLabels(const std::filesystem::path& file, int imageWidth, int imageHeight,
                       const std::vector<std::string>& classNames, LabelReport& report, int keypointDims = 0,
                       int keypointsPerObject = 0);

/// What a YOLO dataset's data.yaml says about its labels (Ultralytics' format).
struct YoloDataYaml {
    std::vector<std::string> names;  ///< `names` as a list or an {index: name} map (indices 0..n-1)
    int keypointsPerObject = 0;      ///< kpt_shape[0]; 0 without kpt_shape
    int keypointDims = 0;            ///< kpt_shape[1]: 2 or 3
};
/// The most classes a data.yaml may declare with `nc` alone (names made up as class_0, class_1, ...):
/// far above any real taxonomy, far below what would exhaust memory.
inline constexpr long kMaxYoloClasses = 100000;
/// Reads data.yaml; InputError naming the file (and line and column for a YAML error) when it
/// cannot be parsed, its names are not a list or a dense map, or nc disagrees with them.
YoloDataYaml readYoloDataYaml(const std::filesystem::path& file);
/// The class names of a classes.txt (one a line, LabelImg's file beside YOLO labels); empty lines
/// are ignored.
std::vector<std::string> readClassNamesTxt(const std::filesystem::path& file);
/// The text of a YOLO label file for `t` on a width x height image (boxes normalised, 6 decimals;
/// keypoints of a pose dataset after their box, visibility 2, or 0 0 0 for one that was dropped or
/// left the image: `keypointsPerBox` > 0 writes the pose variant).
std::string yoloLabelText(const Targets& t, int width, int height, int keypointsPerBox = 0);

/// A Pascal VOC XML file. Class names map to labels through `classNames`, which grows with names
/// not seen before (VOC files name classes, they do not number them).
///
/// Coordinates: the VOC devkit writes xmin..xmax as 1-based pixel indices; like Albumentations'
/// pascal_voc format they are taken as they are, as pixel edges (x0 = xmin, x1 = xmax), and written
/// back the same way. Boxes are checked against the file's <size> when it has one; Targets::objects
/// hold each object's simple fields (name, pose, truncated, difficult, ...).
Targets readVocXml(const std::filesystem::path& file, std::vector<std::string>& classNames,
                   LabelReport& report);
/// The XML of `t` for image `imageFileName` of width x height x depth. Box edges are rounded to
/// whole pixels (VOC readers parse integers); each object's other fields come from Targets::objects.
std::string vocXmlText(const Targets& t, const std::string& imageFileName, int width, int height, int depth);

/// A COCO file: images, categories, annotations (bbox, keypoints, segmentation as polygons, RLE with
/// counts as a list or as the compressed string), loaded once and looked up per image.
/// The most bytes of instance masks one image may have (masks are held at the image's size, a byte
/// a pixel): 6,500 segmented objects on a 640x480 image, 166 on a 12-megapixel one. A COCO file that
/// gives an image more is refused for that image (InputError naming it), not read into exhausted memory.
inline constexpr std::size_t kMaxInstanceMaskBytes = std::size_t{2'000'000'000};

class CocoLabels {
public:
    static CocoLabels load(const std::filesystem::path& file, LabelReport& report);
    /// The labels of the image whose file_name is `fileName` (matched as written, then by the last
    /// path component); empty Targets when the file lists no such image. Labels are category
    /// positions in categories() (Targets::classNames are the category names); Targets::objects hold
    /// each annotation's other members (id, iscrowd, ...); segmentations are instance masks (owner =
    /// the box id, value 1 inside). InputError when they would pass kMaxInstanceMaskBytes.
    Targets labelsFor(const std::string& fileName, int imageWidth, int imageHeight,
                      LabelReport& report) const;
    bool hasImage(const std::string& fileName) const;
    /// Where in the file's `images` the entry `fileName` matches is ("images[4]"), or nothing.
    std::optional<std::size_t> imageEntry(const std::string& fileName) const;
    /// Every usable entry of `images`: its position there and its file_name.
    std::vector<std::pair<std::size_t, std::string>> imageEntries() const;
    const nlohmann::json& categories() const;               ///< the file's categories, as written
    const std::vector<std::string>& keypointNames() const;  ///< of the first category with keypoints
    ~CocoLabels();
    CocoLabels(CocoLabels&&) noexcept;
    CocoLabels& operator=(CocoLabels&&) noexcept;

private:
    CocoLabels();
    struct Data;
    std::unique_ptr<Data> d_;
};

/// One image of a COCO file being written.
struct CocoImageEntry {
    std::string fileName;
    int width = 0, height = 0;
    Targets targets;  ///< instance masks become compressed RLE segmentations
};
/// A COCO document with `images` (ids 1..n in order), `categories` as given, annotation ids 1..m.
nlohmann::ordered_json cocoDocument(const std::vector<CocoImageEntry>& images,
                                    const nlohmann::json& categories);

/// COCO RLE (pycocotools' conventions: column-major runs starting with zeros). rleFromMask counts
/// every non-zero value as inside; maskFromRle gives 0 and 1 and throws InputError when the runs do
/// not cover exactly width x height pixels.
std::vector<std::uint32_t> rleFromMask(const Mask& m);
Mask maskFromRle(const std::vector<std::uint32_t>& counts, int width, int height);
std::string rleToString(const std::vector<std::uint32_t>& counts);  ///< pycocotools' compressed form
/// Throws InputError with `where` when the string is not a valid compressed RLE.
std::vector<std::uint32_t> rleFromString(std::string_view s, const std::string& where);
/// A polygon [x0, y0, x1, y1, ...] rasterised as pycocotools' frPoly does.
Mask maskFromPolygon(const std::vector<double>& xy, int width, int height);

/// A single-channel mask PNG (8-bit gray or palette indices) of an imageWidth x imageHeight image;
/// InputError when it cannot be read or has another size. Values are as stored: palette indices,
/// not their colours; gray of 1, 2 or 4 bits unpacked, not scaled. An RGB(A) file is accepted only
/// when every pixel is gray (R = G = B); 16-bit files are refused.
Mask readMaskPng(const std::filesystem::path& file, int imageWidth, int imageHeight);
/// Writes `m` as an 8-bit gray PNG, atomically.
void writeMaskPng(const std::filesystem::path& file, const Mask& m);
/// The PNG bytes writeMaskPng writes; `name` is the file's, for the InputError of an empty mask.
std::string encodeMaskPng(const Mask& m, const std::string& name);

// --- Datasets -----------------------------------------------------------------------------------

/// The labels of a folder of images, found by detectLabels.
class LabelledDataset {
public:
    LabelFormat format() const;
    const std::filesystem::path& root() const;
    const std::vector<std::string>& classNames() const;
    /// The labels of `image` (a file under root(), or a path relative to it), an imageWidth x
    /// imageHeight image; empty Targets when it has none (a YOLO image without a .txt is an image
    /// without objects). Boxes are checked against this size. A mask PNG of another size is an
    /// InputError, as is a label file that cannot be parsed.
    Targets labelsFor(const std::filesystem::path& image, int imageWidth, int imageHeight,
                      LabelReport& report) const;
    /// Where the labels of `image` are (YOLO .txt, VOC .xml, mask .png; the COCO file).
    std::filesystem::path labelPath(const std::filesystem::path& image) const;
    /// Whether the dataset says what `image`'s labels are: always for the label-file formats (no
    /// file: no objects); for COCO only when a COCO file lists it in `images` (an unlisted image's
    /// labels are unknown, not "no objects").
    bool lists(const std::filesystem::path& image) const;
    /// COCO: the `images` entries that none of `images` (every image file of the dataset) matches,
    /// one line each ("annotations/instances.json: images[3]: file_name 'a.jpg' matches no image
    /// file"); their annotations would be lost without a word. Empty for the other formats.
    std::vector<std::string> entriesWithoutImage(const std::vector<std::filesystem::path>& images) const;
    const CocoLabels* coco() const;  ///< the (first) COCO file's labels, when format() is Coco
    ~LabelledDataset();
    LabelledDataset(LabelledDataset&&) noexcept;
    LabelledDataset& operator=(LabelledDataset&&) noexcept;

private:
    LabelledDataset();
    struct Data;
    std::unique_ptr<Data> d_;
    friend std::optional<LabelledDataset> detectLabels(const std::filesystem::path&, LabelReport&);
};

/// Recognises the labels of the dataset folder `folder`, in this order: COCO (annotations/
/// instances*.json, else a COCO .json in annotations/ or in the folder; several files, e.g. train and
/// val, are all looked in), YOLO labels/ mirroring images/ (or <split>/labels beside <split>/images;
/// data.yaml or classes.txt names when present), VOC XML (Annotations/ with JPEGImages/, or beside
/// the images; class names from classes.txt, else every file's names sorted), or a masks/ (or
/// labels/ of PNGs) folder mirroring the images. Nothing recognised: nullopt. An unreadable
/// data.yaml or COCO file is an InputError.
std::optional<LabelledDataset> detectLabels(const std::filesystem::path& folder, LabelReport& report);

}  // namespace auglab
