#include "targets_binding.h"

#include <map>
#include <utility>
#include <vector>

#include "arrays.h"
#include "error.h"
#include "partner_pool.h"
#include "sampling.h"

namespace auglab::python {

namespace {

/// Box and keypoint labels say whose they are (the engine carries them through every op and leaves
/// them alone): the image's own, or pool item k's (k + 1).
constexpr int kOwnLabels = 0;
/// A grid numbers a partner's boxes from 1,000,000 per cell (mosaicTargets): the row is what is below.
constexpr int kCellIds = 1000000;

/// The rows of an N x 4 array (an empty array of any shape: none).
const double* rowsOf(const TargetRows& a, const std::string& what, std::size_t& n) {
    n = 0;
    if (a.size() == 0) return nullptr;
    if (a.ndim() != 2 || a.shape(1) != 4) throw py::value_error(what + ": expected an N x 4 array");
    n = static_cast<std::size_t>(a.shape(0));
    return a.data();
}

/// `boxes` and `keypoints` into `t`, labelled `source`; `prefix` names their owner in errors.
void addRows(const TargetRows& boxes, const TargetRows& keypoints, int source, const std::string& prefix,
             Targets& t) {
    std::size_t n = 0;
    if (const double* b = rowsOf(boxes, prefix + "bboxes", n))
        for (std::size_t i = 0; i < n; ++i, b += 4)
            t.boxes.push_back(Box{b[0], b[1], b[2], b[3], source, static_cast<int>(i), 1});
    if (const double* k = rowsOf(keypoints, prefix + "keypoints", n))
        for (std::size_t i = 0; i < n; ++i, k += 4) {
            Keypoint p;
            p.x = k[0];
            p.y = k[1];
            p.angle = k[2];
            p.scale = k[3];
            p.label = source;
            p.id = static_cast<int>(i);
            t.keypoints.push_back(p);
        }
}

/// Views of `masks`, each checked to be width x height (`image` names whose size that is).
std::vector<PixelView> maskViewsOf(const py::list& masks, int width, int height, const std::string& prefix,
                                   const std::string& image) {
    std::vector<PixelView> views;
    for (std::size_t i = 0; i < masks.size(); ++i) {
        const std::string what = prefix + "masks[" + std::to_string(i) + "]";
        views.push_back(maskView(masks[i], what));
        if (views.back().width != width || views.back().height != height)
            throw py::value_error(what + ": expected " + image + " size, " + std::to_string(height) + " x " +
                                  std::to_string(width) + ", got " + std::to_string(views.back().height) +
                                  " x " + std::to_string(views.back().width));
    }
    return views;
}

/// The labels of the images of a sample's pool: the image's own for its number, a partner's asked of
/// the Python side when a grid draws it (the GIL taken: the sample runs without it), then kept for
/// the masks.
class PoolLabels {
public:
    PoolLabels(const Targets& own, int width, int height, PartnerPool pool, std::int64_t offset,
               py::handle read)
        : own_(own), width_(width), height_(height), pool_(pool), offset_(offset), read_(read) {}

    std::optional<PartnerLabels> operator()(std::uint64_t i) {
        if (i == pool_.self) return PartnerLabels{&own_, width_, height_};
        if (i >= pool_.count || read_.is_none()) return std::nullopt;
        auto it = items_.find(i);
        if (it == items_.end())
            it = items_
                     .emplace(i, readItem(static_cast<std::uint64_t>(static_cast<std::int64_t>(i) + offset_)))
                     .first;
        return PartnerLabels{&it->second.targets, it->second.width, it->second.height};
    }

private:
    struct Item {
        Targets targets;
        int width = 0, height = 0;
    };

    Item readItem(std::uint64_t item) const {
        const std::string name = "partners[" + std::to_string(item) + "]";
        py::gil_scoped_acquire gil;
        try {
            const auto t = read_(py::int_(item)).cast<py::tuple>();
            Item out;
            out.width = t[3].cast<int>();
            out.height = t[4].cast<int>();
            addRows(t[0].cast<TargetRows>(), t[1].cast<TargetRows>(), static_cast<int>(item) + 1, name + ": ",
                    out.targets);
            for (const PixelView& m :
                 maskViewsOf(t[2].cast<py::list>(), out.width, out.height, name + ": ", "its image's"))
                out.targets.masks.push_back(maskFromView(m));
            return out;
        } catch (py::error_already_set& e) {
            throw itemError(name, e);
        } catch (const py::builtin_exception& e) {  // addRows's and maskViewsOf's, naming the item
            throw InputError(e.what());
        }
    }

    const Targets& own_;
    int width_, height_;
    PartnerPool pool_;
    std::int64_t offset_;
    py::handle read_;
    std::map<std::uint64_t, Item> items_;  // nodes stay put: PartnerLabels point into them
};

py::array rowsArray(const std::vector<std::array<double, 4>>& rows) {
    std::vector<double> values;
    for (const auto& row : rows) values.insert(values.end(), row.begin(), row.end());
    return ownedArray(std::move(values), static_cast<py::ssize_t>(rows.size()), 4);
}

/// K x 2: (source, row) of each of the moved boxes or keypoints `labels`, `ids`.
py::array idsArray(const std::vector<int>& labels, const std::vector<int>& ids) {
    std::vector<std::int64_t> values;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        values.push_back(labels[i] == kOwnLabels ? -1 : labels[i] - 1);
        values.push_back(ids[i] % kCellIds);
    }
    return ownedArray(std::move(values), static_cast<py::ssize_t>(ids.size()), 2);
}

}  // namespace

py::tuple sampleWithTargets(const Preset& preset, const py::handle& image, std::uint64_t index,
                            std::uint64_t seed, const TargetRows& boxes, const TargetRows& keypoints,
                            const py::list& masks, const py::handle& partners,
                            std::optional<std::uint64_t> position, const py::handle& partnerTargets,
                            bool training) {
    const PixelView view = imageView(image, "image");
    Targets targets;
    addRows(boxes, keypoints, kOwnLabels, "", targets);
    const std::vector<PixelView> maskViews = maskViewsOf(masks, view.width, view.height, "", "the image's");
    if (partners.is_none() && position)
        throw py::value_error("position: needs partners (the pool the image is an item of)");
    // Without partners, a pool of the image alone: the grid's cells are the image and its labels.
    std::optional<PartnerImages> images;
    Partners bound;
    if (!partners.is_none()) {
        images.emplace(partners, "partners");
        bound = images->pool(position, "position");
    }
    const PartnerPool pool = images ? bound.pool : PartnerPool{};

    TailedSample out;
    MovedTargets moved;
    std::vector<Mask> movedMasks;
    {
        py::gil_scoped_release release;
        for (const PixelView& m : maskViews) targets.masks.push_back(maskFromView(m));
        Replay replay;
        Image image = renderView(preset.pipeline, seed, index, view, &replay, bound);
        out = withTail(std::move(image),
                       training ? appliedTail(preset.pipeline, replay) : std::vector<TailOp>{});
        const TargetSettings rules = preset.targets.value_or(TargetSettings{});
        // Pool number i is item i - 1 in apply's pool (0 is the image), item i in augment's.
        PoolLabels labels(targets, view.width, view.height, pool, position ? 0 : -1,
                          images ? partnerTargets : py::handle(py::none()));
        const PartnerLabelsFn partnerLabels = [&labels](std::uint64_t i) { return labels(i); };
        moved = moveTargets(replay, rules, targets, partnerLabels);
        movedMasks =
            moveMasks(replay, targets.masks, moved.width, moved.height, rules.maskFill, partnerLabels);
    }
    std::vector<std::array<double, 4>> boxRows, keypointRows;
    std::vector<int> boxLabels, boxIds, keypointLabels, keypointIds;
    for (const Box& b : moved.boxes) {
        boxRows.push_back({b.x0, b.y0, b.x1, b.y1});
        boxLabels.push_back(b.label);
        boxIds.push_back(b.id);
    }
    for (const Keypoint& k : moved.keypoints) {
        keypointRows.push_back({k.x, k.y, k.angle, k.scale});
        keypointLabels.push_back(k.label);
        keypointIds.push_back(k.id);
    }
    py::list maskArrays;
    for (Mask& m : movedMasks) maskArrays.append(arrayFromMask(std::move(m)));
    const bool transposeMask = out.transposeMask;
    return py::make_tuple(arrayOf(std::move(out)), rowsArray(boxRows), idsArray(boxLabels, boxIds),
                          rowsArray(keypointRows), idsArray(keypointLabels, keypointIds), maskArrays,
                          transposeMask, moved.width, moved.height);
}

}  // namespace auglab::python
