#pragma once
// Annotations that travel with the pixels: the boxes, keypoints and masks of one image, moved by
// every geometric op with the same concrete parameters (the replay) as the pixels, and filtered by
// the rules of Albumentations 2.0.8's BboxParams and KeypointParams. Targets are computed once per
// sample on the host, never per backend, so every backend shows the same ones.
//
// Coordinates: boxes are pixel edges (the image spans [0, W] x [0, H], Albumentations' denormalised
// pascal_voc); keypoints are pixel positions with pixel centres at integers (the convention of the
// plan's matrices and of Albumentations' keypoints).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "geometry.h"
#include "image.h"
#include "json_reader.h"
#include "op_types.h"
#include "replay.h"

namespace auglab {

/// How boxes are written in the user's training code (BboxParams.format).
enum class BoxFormat { PascalVoc, Coco, Yolo, Albumentations };
const char* boxFormatName(BoxFormat f);

/// Albumentations 2.0.8 BboxParams: what survives a transform.
struct BoxRules {
    BoxFormat format = BoxFormat::PascalVoc;
    std::vector<std::string> labelFields{"class_labels"};
    double minArea = 0;                    ///< clipped area in pixels
    double minVisibility = 0;              ///< clipped area / area before clipping, after a transform
    double minWidth = 0, minHeight = 0;    ///< clipped, pixels
    std::optional<double> maxAcceptRatio;  ///< max(w/h, h/w) of the clipped box, >= 1
    bool clip = false;                     ///< clip boxes to the image before the first transform
    bool filterInvalid = false;            ///< drop invalid boxes at the start instead of failing
    bool checkEachTransform = true;        ///< filter after every geometric op, not only at the end
    bool operator==(const BoxRules&) const = default;
};

/// Albumentations 2.0.8 KeypointParams.
struct KeypointRules {
    std::string format = "xy";  ///< xy, yx, xya, xys, xyas, xysa
    std::vector<std::string> labelFields;
    bool removeInvisible = true;  ///< drop keypoints that leave the image
    bool angleInDegrees = true;
    bool checkEachTransform = true;
    bool operator==(const KeypointRules&) const = default;
};

/// The preset's `targets` section.
struct TargetSettings {
    BoxRules boxes;
    KeypointRules keypoints;
    int maskFill = 0;  ///< the mask value outside the image (Albumentations' fill_mask)
    bool operator==(const TargetSettings&) const = default;
};

nlohmann::ordered_json targetSettingsToJson(const TargetSettings& s);
/// Strict: unknown keys, wrong types and values out of range are InputErrors with the JSON path.
TargetSettings readTargetSettings(const JsonReader& r);
/// The JSON Schema of the section.
nlohmann::ordered_json targetSettingsSchema();

struct Box {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  ///< pixel edges
    int label = 0;                          ///< class index (Targets::classNames)
    int id = 0;  ///< the box's position in the input, kept through filtering (mirrored copies share it)
    /// The share of the object still in the image: the product over the ops of each one's clipped /
    /// unclipped area (1: never cut).
    double visibility = 1;
    bool operator==(const Box&) const = default;
};

struct Keypoint {
    double x = 0, y = 0;  ///< pixels, centres at integers
    double angle = 0;     ///< radians, in [0, 2π)
    double scale = 1;
    int label = 0;  ///< class index, or for a skeleton's keypoint its position in the skeleton
    int id = 0;
    int owner = -1;  ///< the id of the box (object) the keypoint belongs to, -1: none
    bool operator==(const Keypoint&) const = default;
};

/// One single-channel label image (class indices or 0/255), as large as the image.
struct Mask {
    int width = 0, height = 0;
    int owner = -1;  ///< an instance mask: the id of its box (object); -1: a semantic mask of class values
    std::vector<std::uint8_t> values;  ///< row-major, width * height
    std::uint8_t at(int x, int y) const { return values[static_cast<std::size_t>(y) * width + x]; }
    bool operator==(const Mask&) const = default;
};

/// The annotations of one image.
struct Targets {
    std::vector<Box> boxes;
    std::vector<Keypoint> keypoints;
    std::vector<Mask> masks;
    std::vector<std::string> classNames;  ///< label -> name, when the dataset names them
    /// Per box id: the dataset's other fields of that object (a COCO annotation's id and iscrowd, a
    /// VOC object's difficult and truncated), written back unchanged; may be empty.
    std::vector<nlohmann::json> objects;
    bool empty() const { return boxes.empty() && keypoints.empty() && masks.empty(); }
    bool operator==(const Targets&) const = default;
};

/// Why a box or keypoint did not survive.
enum class DropRule { Invalid, Outside, MinArea, MinVisibility, MinWidth, MinHeight, AspectRatio, Hole };
const char* dropRuleName(DropRule r);

struct DroppedBox {
    Box box;  ///< where the op that dropped it put it (output pixels of that op, unclipped)
    DropRule rule;
    std::size_t op;  ///< the pipeline position of that op (SIZE_MAX: before the first op)
    int frameWidth = 0, frameHeight = 0;  ///< the size of that op's output
};

struct DroppedKeypoint {
    Keypoint keypoint;
    DropRule rule;
    std::size_t op;
};

/// A sample's boxes and keypoints after its ops, in the pixels of its full-resolution output
/// (`width` x `height`: the replay's last frame).
struct MovedTargets {
    int width = 0, height = 0;
    /// The boxes and keypoints that went in: the image's, and those partners brought.
    std::size_t boxesIn = 0, keypointsIn = 0;
    std::vector<Box> boxes;
    std::vector<DroppedBox> droppedBoxes;
    std::vector<Keypoint> keypoints;
    std::vector<DroppedKeypoint> droppedKeypoints;
};

/// What an op module works on when it moves targets (OpModule::moveTargets): the boxes and
/// keypoints in the pixels of the op's input frame, replaced by those of its output frame.
/// The labels of a partner image (ops that compose several images): its targets and its size.
struct PartnerLabels {
    const Targets* targets = nullptr;
    int width = 0, height = 0;
};
/// Gives the labels of image `index` of the pool, or nothing when it has none.
using PartnerLabelsFn = std::function<std::optional<PartnerLabels>(std::uint64_t index)>;

struct TargetFrame {
    int width = 0, height = 0;              ///< the frame: the op's input, then (set by the op) its output
    const TargetSettings* rules = nullptr;  ///< the rules partners' labels are prepared by
    PartnerLabelsFn partners;               ///< partners' labels (may be empty: they have none)
    std::vector<Box> boxes;
    std::vector<Keypoint> keypoints;
    /// Set by dropout ops: the holes (frame pixels) that boxes and keypoints may fall in.
    std::vector<Hole> holes;
    /// Boxes an op removed itself (wholly outside its output), for the record.
    std::vector<Box> removed;
    /// Keypoints an op removed itself (a remap's keypoint that vanished), for the record.
    std::vector<Keypoint> removedKeypoints;
    /// Boxes and keypoints an op brought in from partners (they count as input in statistics).
    std::size_t boxesBrought = 0, keypointsBrought = 0;
};

/// Moves `targets` (in the source image's pixels, replay.imageWidth x imageHeight) through the ops
/// of `replay` as Albumentations 2.0.8 does with `rules`: clipping and invalid boxes first, each
/// geometric op in turn, the filters after every op (or only at the end), holes last. Invalid input
/// boxes (x1 <= x0 or y1 <= y0, outside the image without `clip`) are an InputError naming the box,
/// unless `rules.boxes.filterInvalid`.
/// `partners` gives the labels of the images an op that composes several takes (the 4-image grid).
MovedTargets moveTargets(const Replay& replay, const TargetSettings& rules, const Targets& targets,
                         const PartnerLabelsFn& partners = {});

/// The masks of `targets` through the same ops at outWidth x outHeight (the full-resolution output,
/// or a tile): nearest neighbour, the ops' borders, `maskFill` outside. Pixel ops leave masks alone.
/// An op that composes several images takes mask k of each partner (from `partners`; a partner
/// without one leaves its cell at maskFill).
std::vector<Mask> moveMasks(const Replay& replay, const std::vector<Mask>& masks, int outWidth, int outHeight,
                            int maskFill = 0, const PartnerLabelsFn& partners = {});

/// Runs `move` on `masks` (all of one size) three at a time, packed as the channels of one RGB image
/// (nearest neighbour moves whole pixels, so the channels stay apart), and unpacks what it returns.
/// `move` gets the packed image and the index of its first mask.
std::vector<Mask> movePackedMasks(const std::vector<Mask>& masks,
                                  const std::function<Image(Image, std::size_t first)>& move);
/// Masks first..first+2 of `masks` packed as the channels of one RGB image (missing ones 0).
Image packMasks(const std::vector<Mask>& masks, std::size_t first);

// What the op modules use to move targets as Albumentations 2.0.8 does (exposed for tests).
/// Affine (bboxes_affine with largest_box, keypoints_affine): `image` is the op's forward matrix in
/// pixel-centre coordinates; boxes go through it about their edges (Albumentations' bbox matrix, the
/// same map about (W/2, H/2)), their corners' bounding box; a reflecting border adds the mirrored
/// copies of every box and keypoint (generate_reflected_bboxes/keypoints), and boxes wholly outside
/// the frame go; keypoints' angles turn by atan2(-m10, m00), their scales grow by keypointScale.
/// Nothing moves when the matrix is the identity (np.allclose). The frame's size is unchanged.
void affineTargets(TargetFrame& f, const Matrix3& image, BorderMode border, double keypointScale);
/// The same with the boxes' matrix given (edge coordinates): SafeRotate builds its own about (W/2, H/2).
void affineTargets(TargetFrame& f, const Matrix3& image, const Matrix3& boxes, BorderMode border,
                   double keypointScale);
/// BaseDistortion's boxes and keypoints (Albumentations 2.0.8 remap_bboxes and
/// remap_keypoints_via_mask, or remap_keypoints when `directKeypoints`): `mapX`, `mapY` are the op's
/// float32 maps of the frame. Each box becomes the pixels its rounded, inclusive rectangle lands on
/// under a nearest remap (their first and last indices, so one pixel narrower than their edges; a box
/// that vanishes keeps its coordinates). Each keypoint is drawn as cv2.circle of radius 1 (a plus of
/// five pixels, later keypoints over earlier ones), remapped, and moved to the first pixel (row by
/// row) that carries it, or removed when none does; angles and scales stay. Directly, a keypoint
/// (clipped, truncated) is looked up in generate_inverse_distortion_map's inverse map.
void remapTargets(TargetFrame& f, const std::vector<float>& mapX, const std::vector<float>& mapY,
                  bool directKeypoints);
/// Each box's four corners through `m` applied to the edge coordinates as they are (no half-pixel
/// shift: perspective_bboxes), the bounding box of the corners.
void mapBoxCorners(std::vector<Box>& boxes, const Matrix3& m);
/// Each keypoint's position through `m` (homogeneous, divided).
void mapKeypoints(std::vector<Keypoint>& keypoints, const Matrix3& m);
/// Albumentations' preprocess of one image's labels (BboxProcessor and KeypointsProcessor): boxes as
/// the library holds them (float32-normalised), clipped or dropped as `rules` say, invalid ones an
/// InputError; keypoints checked (remove_invisible) and their angles wrapped. Dropped boxes are
/// appended to `dropped` when given.
void prepareTargets(const Targets& targets, int width, int height, const TargetSettings& rules,
                    TargetFrame& f, std::vector<DroppedBox>* dropped = nullptr);
/// The 4-image grid's labels (MosaicParams, core/ops/): each cell's image's boxes and keypoints
/// scaled and cut as Albumentations' nested Compose does (boxes clipped to the cell, those left
/// without area dropped; keypoints outside the resized image or the cell dropped, whatever remove_invisible
/// says, scales times the cell's scale), the largest cell's first; partners' boxes get ids from 1,000,000 per
/// cell (their own objects stay apart).
void mosaicTargets(const struct MosaicParams& m, TargetFrame& f);
/// An angle brought into [0, 2π) (np.mod).
double wrapAngle(double a);

}  // namespace auglab
