#pragma once
// The labels of a dataset folder as the window shows them: read once per image and kept for the
// page on screen (masks only at the level the tiles need: a page of camera-size masks at full
// resolution would not fit in memory), lent to ops that compose several images, and moved onto each
// tile by its sample. No widgets: MainWindow shows what it returns.

#include <QHash>
#include <QString>
#include <QStringList>

#include <memory>
#include <utility>
#include <vector>

#include "annotations.h"
#include "contact_sheet.h"
#include "overlay.h"
#include "targets.h"

namespace auglab {

class PageLabels {
public:
    /// An image's labels as the page keeps them: boxes and keypoints, masks at one level.
    struct Cached {
        Targets targets;  ///< without masks
        std::vector<Mask> masks;
        int level = 0;
        int width = 0, height = 0;  ///< the image's
    };

    /// Forgets every image's labels and problems; `dataset` (null: loose images, no labels) from now on.
    void reset(std::shared_ptr<const LabelledDataset> dataset = nullptr);
    const LabelledDataset* dataset() const { return dataset_.get(); }

    /// The labels of `file` (width x height) with masks at `level`, read once; null when the image
    /// has none or they cannot be read (the reason joins problems()).
    std::shared_ptr<const Cached> labelsOf(const QString& file, int width, int height, int level);
    /// The boxes and keypoints of `file`, masks at the level a tile of `tilePixels` needs.
    std::shared_ptr<const Targets> targetsOf(const QString& file, int width, int height, int tilePixels);
    /// The labels of the pool's images (`pool`: index -> file), for ops that compose several images.
    PartnerLabelsFn partners(const QStringList& pool, int tilePixels);

    /// Each rendered tile's labels moved by its sample (`tileFiles[i]`: tile i's image), `rules`
    /// deciding which survive, masks moved when `masks`. Afterwards only the page's images (and
    /// `alsoKeep`) stay cached.
    std::vector<TileOverlay> overlays(const std::vector<SheetTile>& tiles, const QStringList& tileFiles,
                                      const TargetSettings& rules, bool masks, const QStringList& pool,
                                      int tilePixels, const QString& alsoKeep);

    /// Labels that could not be used, with their file and line or JSON path (duplicates removed).
    const QStringList& problems() const { return problems_; }
    void addProblem(const QString& problem) { problems_ << problem; }

    /// The dataset's class names, and COCO's skeleton (0-based keypoint pairs) of the first
    /// category that has one.
    QStringList classNames() const;
    std::vector<std::pair<int, int>> skeleton() const;

private:
    std::shared_ptr<const LabelledDataset> dataset_;
    QHash<QString, std::shared_ptr<const Cached>> cache_;
    QStringList problems_;
};

}  // namespace auglab
