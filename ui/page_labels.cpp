#include "page_labels.h"

#include <QCoreApplication>
#include <QFileInfo>

#include <algorithm>
#include <exception>
#include <optional>

#include "image_io.h"

namespace auglab {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("PageLabels", text);
}

}  // namespace

void PageLabels::reset(std::shared_ptr<const LabelledDataset> dataset) {
    dataset_ = std::move(dataset);
    cache_.clear();
    problems_.clear();
}

std::shared_ptr<const PageLabels::Cached> PageLabels::labelsOf(const QString& file, int width, int height,
                                                               int level) {
    if (!dataset_) return nullptr;
    if (const auto it = cache_.constFind(file); it != cache_.constEnd() && (!*it || (*it)->level == level))
        return *it;
    std::shared_ptr<Cached> c;
    try {
        LabelReport report;
        Targets t = dataset_->labelsFor(file.toStdString(), width, height, report);
        for (const std::string& s : report.skipped) problems_ << QString::fromStdString(s);
        c = std::make_shared<Cached>();
        c->level = level;
        c->width = width;
        c->height = height;
        c->masks = reduceMasks(t.masks, level);
        t.masks.clear();
        c->targets = std::move(t);
    } catch (const std::exception& e) {
        problems_
            << tr("%1: labels not read: %2").arg(QFileInfo(file).fileName(), QString::fromUtf8(e.what()));
    }
    cache_.insert(file, c);
    return c;
}

std::shared_ptr<const Targets> PageLabels::targetsOf(const QString& file, int width, int height,
                                                     int tilePixels) {
    const auto c = labelsOf(file, width, height, maskLevelFor(width, height, tilePixels));
    return c ? std::shared_ptr<const Targets>(c, &c->targets) : nullptr;
}

PartnerLabelsFn PageLabels::partners(const QStringList& pool, int tilePixels) {
    // Held while the function lives: the labels a partner lends stay alive until then.
    auto held = std::make_shared<std::vector<std::shared_ptr<const Cached>>>();
    return [this, pool, tilePixels, held](std::uint64_t index) -> std::optional<PartnerLabels> {
        if (index >= std::uint64_t(pool.size())) return std::nullopt;
        const QString file = pool[int(index)];
        // The image's size: from labels read before (every render of the page asks again), else its header.
        int width = 0, height = 0;
        if (const auto it = cache_.constFind(file); it != cache_.constEnd() && *it) {
            width = (*it)->width;
            height = (*it)->height;
        } else {
            try {
                const ImageInfo info = probeImage(file.toStdString());
                width = info.width;
                height = info.height;
            } catch (const std::exception&) {
                return std::nullopt;
            }
        }
        const auto c = labelsOf(file, width, height, maskLevelFor(width, height, tilePixels));
        if (!c) return std::nullopt;
        held->push_back(c);
        return PartnerLabels{&c->targets, c->width, c->height};
    };
}

std::vector<TileOverlay> PageLabels::overlays(const std::vector<SheetTile>& tiles,
                                              const QStringList& tileFiles, const TargetSettings& rules,
                                              bool masks, const QStringList& pool, int tilePixels,
                                              const QString& alsoKeep) {
    std::vector<TileOverlay> out;
    if (!dataset_) return out;
    const PartnerLabelsFn lent = partners(pool, tilePixels);
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        const SheetTile& t = tiles[i];
        if (t.sourceIndex < 0 || !t.error.empty()) continue;
        const int level =
            maskLevelFor(t.replay.imageWidth, t.replay.imageHeight, std::max(t.width, t.height));
        const auto cached =
            labelsOf(tileFiles.value(int(i)), t.replay.imageWidth, t.replay.imageHeight, level);
        if (!cached) continue;
        try {
            // The original of compare mode has no ops: its labels as they are.
            TileOverlay o = tileOverlay(t, cached->targets, rules, masks, &cached->masks, level, lent);
            o.tile = int(i);
            out.push_back(std::move(o));
        } catch (const std::exception& e) {
            problems_ << tr("%1: %2").arg(QFileInfo(tileFiles.value(int(i))).fileName(),
                                          QString::fromUtf8(e.what()));
        }
    }
    // The cache holds this page's images only.
    for (auto it = cache_.begin(); it != cache_.end();)
        it = tileFiles.contains(it.key()) || it.key() == alsoKeep ? std::next(it) : cache_.erase(it);
    problems_.removeDuplicates();
    return out;
}

QStringList PageLabels::classNames() const {
    QStringList names;
    if (dataset_)
        for (const std::string& n : dataset_->classNames()) names << QString::fromStdString(n);
    return names;
}

std::vector<std::pair<int, int>> PageLabels::skeleton() const {
    std::vector<std::pair<int, int>> skeleton;
    const CocoLabels* coco = dataset_ ? dataset_->coco() : nullptr;
    if (!coco) return skeleton;
    // COCO numbers keypoints from 1.
    for (const auto& c : coco->categories())
        if (c.is_object() && c.contains("skeleton") && c["skeleton"].is_array()) {
            for (const auto& bone : c["skeleton"])
                if (bone.is_array() && bone.size() == 2 && bone[0].is_number_integer() &&
                    bone[1].is_number_integer())
                    skeleton.emplace_back(bone[0].get<int>() - 1, bone[1].get<int>() - 1);
            if (!skeleton.empty()) break;
        }
    return skeleton;
}

}  // namespace auglab
