#include "targets_binding.h"

#include <utility>
#include <vector>

#include "arrays.h"
#include "sampling.h"

namespace auglab::python {

namespace {

using Rows = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// The rows of an N x 4 array (an empty array of any shape: none).
const double* rowsOf(const Rows& a, const char* what, std::size_t& n) {
    n = 0;
    if (a.size() == 0) return nullptr;
    if (a.ndim() != 2 || a.shape(1) != 4)
        throw py::value_error(std::string(what) + ": expected an N x 4 array");
    n = static_cast<std::size_t>(a.shape(0));
    return a.data();
}

py::array rowsArray(const std::vector<std::array<double, 4>>& rows) {
    std::vector<double> values;
    for (const auto& row : rows) values.insert(values.end(), row.begin(), row.end());
    return ownedArray(std::move(values), static_cast<py::ssize_t>(rows.size()), 4);
}

py::array idsArray(const std::vector<int>& ids) {
    return ownedArray(std::vector<std::int64_t>(ids.begin(), ids.end()), static_cast<py::ssize_t>(ids.size()),
                      -1);
}

}  // namespace

py::tuple sampleWithTargets(const Preset& preset, const py::handle& image, std::uint64_t index,
                            std::uint64_t seed, const Rows& boxes, const Rows& keypoints,
                            const py::list& masks) {
    const PixelView view = imageView(image, "image");
    Targets targets;
    std::size_t n = 0;
    if (const double* b = rowsOf(boxes, "bboxes", n))
        for (std::size_t i = 0; i < n; ++i, b += 4)
            targets.boxes.push_back(Box{b[0], b[1], b[2], b[3], 0, static_cast<int>(i), 1});
    if (const double* k = rowsOf(keypoints, "keypoints", n))
        for (std::size_t i = 0; i < n; ++i, k += 4) {
            Keypoint p;
            p.x = k[0];
            p.y = k[1];
            p.angle = k[2];
            p.scale = k[3];
            p.id = static_cast<int>(i);
            targets.keypoints.push_back(p);
        }
    std::vector<PixelView> maskViews;
    for (std::size_t i = 0; i < masks.size(); ++i) {
        const std::string what = "masks[" + std::to_string(i) + "]";
        maskViews.push_back(maskView(masks[i], what));
        if (maskViews.back().width != view.width || maskViews.back().height != view.height)
            throw py::value_error(what + ": expected the image's size, " + std::to_string(view.height) +
                                  " x " + std::to_string(view.width) + ", got " +
                                  std::to_string(maskViews.back().height) + " x " +
                                  std::to_string(maskViews.back().width));
    }

    Image out;
    MovedTargets moved;
    std::vector<Mask> movedMasks;
    {
        py::gil_scoped_release release;
        for (const PixelView& m : maskViews) targets.masks.push_back(maskFromView(m));
        Replay replay;
        out = renderView(preset.pipeline, seed, index, view, &replay);
        const TargetSettings rules = preset.targets.value_or(TargetSettings{});
        // A pool of the image alone, as for the pixels: the 4-image grid's partners are the image and its
        // labels.
        const PartnerLabelsFn partners = [&](std::uint64_t i) -> std::optional<PartnerLabels> {
            if (i != 0) return std::nullopt;
            return PartnerLabels{&targets, view.width, view.height};
        };
        moved = moveTargets(replay, rules, targets, partners);
        movedMasks = moveMasks(replay, targets.masks, moved.width, moved.height, rules.maskFill, partners);
    }
    std::vector<std::array<double, 4>> boxRows, keypointRows;
    std::vector<int> boxIds, keypointIds;
    for (const Box& b : moved.boxes) {
        boxRows.push_back({b.x0, b.y0, b.x1, b.y1});
        boxIds.push_back(b.id);
    }
    for (const Keypoint& k : moved.keypoints) {
        keypointRows.push_back({k.x, k.y, k.angle, k.scale});
        keypointIds.push_back(k.id);
    }
    py::list maskArrays;
    for (Mask& m : movedMasks) maskArrays.append(arrayFromMask(std::move(m)));
    return py::make_tuple(arrayFromImage(std::move(out)), rowsArray(boxRows), idsArray(boxIds),
                          rowsArray(keypointRows), idsArray(keypointIds), maskArrays);
}

}  // namespace auglab::python
