#include "source_levels.h"

#include <algorithm>
#include <cmath>

namespace auglab {

SourceLevels::SourceLevels(Image full) { levels_.push_back(std::move(full)); }

int SourceLevels::levelForScale(double scale, int width, int height) {
    if (!(scale < 1.0) || !(scale > 0.0)) return 0;
    const int k = static_cast<int>(std::floor(std::log2(1.0 / scale) + 1e-9));
    const int maxLevel = static_cast<int>(std::floor(std::log2(std::max(1, std::min(width, height)))));
    return std::clamp(k, 0, maxLevel);
}

const Image& SourceLevels::level(int k) {
    std::lock_guard lock(mutex_);
    while (static_cast<int>(levels_.size()) <= k) {
        const Image& prev = levels_.back();
        int w = 0, h = 0;
        levelSize(prev.width, prev.height, 1, w, h);
        // Area-average the previous level; halvings compound like a mipmap chain.
        levels_.push_back(resizeArea(prev, w, h));
    }
    return levels_[static_cast<std::size_t>(k)];
}

}  // namespace auglab

namespace auglab {

void SourceLevels::levelSize(int width, int height, int k, int& w, int& h) {
    w = width;
    h = height;
    for (int i = 0; i < k; ++i) {
        w = std::max(1, (w + 1) / 2);
        h = std::max(1, (h + 1) / 2);
    }
}

}  // namespace auglab
