#include "image_cache.h"

#include <algorithm>

#include "error.h"
#include "image_io.h"

namespace auglab {

std::shared_ptr<SourceLevels> ImageCache::get(const QString& path, QString& error) {
    {
        std::lock_guard lock(mutex_);
        const auto it = entries_.find(path);
        if (it != entries_.end()) {
            order_.remove(path);
            order_.push_front(path);
            error = it->second.error;
            return it->second.image;
        }
    }
    Entry e;
    try {
        LoadedImage li = loadImage(path.toStdString());
        e.bytes = li.image.pixels.size() * 4 / 3;  // the image and its levels
        e.image = std::make_shared<SourceLevels>(std::move(li.image));
    } catch (const std::exception& ex) {
        e.error = QString::fromUtf8(ex.what());
    }
    std::lock_guard lock(mutex_);
    error = e.error;
    bytes_ += e.bytes;
    order_.push_front(path);
    auto image = e.image;
    entries_[path] = std::move(e);
    evict();
    return image;
}

std::size_t ImageCache::bytes() const {
    std::lock_guard lock(mutex_);
    return bytes_;
}

void ImageCache::evict() {
    // Keep at least the most recent entry, whatever its size.
    while (bytes_ > budget_ && order_.size() > 1) {
        const QString victim = order_.back();
        order_.pop_back();
        const auto it = entries_.find(victim);
        bytes_ -= it->second.bytes;
        entries_.erase(it);
    }
}

}  // namespace auglab
