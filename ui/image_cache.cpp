#include "image_cache.h"

#include <algorithm>

#include "error.h"
#include "sheet_sources.h"

namespace auglab {

bool ImageCache::info(const QString& path, ImageInfo& info, QString& error) {
    {
        std::lock_guard lock(mutex_);
        if (const auto it = infos_.find(path); it != infos_.end()) {
            info = it->second;
            return true;
        }
        if (const auto it = infoErrors_.find(path); it != infoErrors_.end()) {
            error = it->second;
            return false;
        }
    }
    try {
        info = probeImage(path.toStdString());
    } catch (const std::exception& e) {
        error = QString::fromUtf8(e.what());
        std::lock_guard lock(mutex_);
        infoErrors_[path] = error;
        return false;
    }
    std::lock_guard lock(mutex_);
    infos_[path] = info;
    return true;
}

std::shared_ptr<SourceLevels> ImageCache::get(const QString& path, int level, QString& error) {
    {
        std::lock_guard lock(mutex_);
        const auto it = entries_.find(path);
        if (it != entries_.end() && (!it->second.image || it->second.image->firstLevel() <= level)) {
            touch(path);
            error = it->second.error;
            return it->second.image;
        }
    }
    ImageInfo header;
    if (!info(path, header, error)) return nullptr;
    Entry e;
    try {
        DisplaySource d = loadDisplaySource(path.toStdString(), level, header.width, header.height);
        e.image = std::move(d.levels);
        // Levels coarser than the decode are made as tiles ask for them: a third more at most.
        e.bytes = e.image->bytes() * 4 / 3;
    } catch (const std::exception& ex) {  // InputError, or no memory for a huge image
        e.error = QString::fromUtf8(ex.what());
    }
    std::lock_guard lock(mutex_);
    error = e.error;
    if (const auto old = entries_.find(path); old != entries_.end()) bytes_ -= old->second.bytes;
    bytes_ += e.bytes;
    auto image = e.image;
    entries_[path] = std::move(e);
    touch(path);
    evict();
    return image;
}

std::size_t ImageCache::bytes() const {
    std::lock_guard lock(mutex_);
    return bytes_;
}

void ImageCache::touch(const QString& path) {
    order_.remove(path);
    order_.push_front(path);
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
