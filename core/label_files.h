#pragma once
// One image's labels in, the same labels out after a sample's ops, in the file's own format:
// what `auglab-cli apply --annotations` and `augment` on a labelled dataset do (annotations.h reads
// and writes the formats; targets.h moves the targets).

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "annotations.h"
#include "targets.h"

namespace auglab {

/// The labels of one image.
struct ImageLabels {
    LabelFormat format = LabelFormat::Yolo;
    Targets targets;
    nlohmann::json cocoCategories;  ///< COCO: the file's categories, written back as they were
    int keypointsPerBox = 0;        ///< YOLO pose: keypoints per object (0: plain detection labels)
    LabelReport report;             ///< labels that were skipped, with where
};

/// The format a label file's extension suggests: .txt YOLO, .xml Pascal VOC, .json COCO, .png masks.
std::optional<LabelFormat> labelFormatOfFile(const std::filesystem::path& file);

/// Reads `file`'s labels of `image` (width x height): for COCO, the image whose file_name is the
/// image's. Throws InputError when the file cannot be read, or names no such image.
ImageLabels readImageLabels(const std::filesystem::path& file, LabelFormat format,
                            const std::filesystem::path& image, int width, int height);

/// What survived a sample's ops, as Targets for a writer: the kept boxes (ids renumbered 0..n-1 in
/// order, `objects` following them), the kept keypoints (owners renumbered; a keypoint whose
/// object was dropped loses its owner), the moved masks (instance masks of dropped objects left out).
Targets survivingTargets(const Targets& in, const MovedTargets& moved, const std::vector<Mask>& movedMasks);

/// The text of the label file for output image `outImage` (width x height x channels) holding `t`,
/// in `labels`' format (COCO: a file with that one image). Not for LabelFormat::MaskPng.
std::string labelFileText(const ImageLabels& labels, const Targets& t, const std::filesystem::path& outImage,
                          int width, int height, int channels);

/// Every image file under a labelled dataset's folder (subfolders included, hidden ones left out),
/// sorted by path, without the label files themselves (a masks/ folder's PNGs).
std::vector<std::filesystem::path> labelledImages(const std::filesystem::path& folder,
                                                  const LabelledDataset& d);

/// "12 of 15 boxes kept (2 min_visibility, 1 outside the image); 30 of 34 keypoints kept (4 outside
/// the image)" for `moved` from `in`.
std::string targetSummary(const Targets& in, const MovedTargets& moved);

}  // namespace auglab
