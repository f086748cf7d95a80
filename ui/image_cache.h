#pragma once
// Decoded source images (with their pre-filtered levels) by file path, least recently used first
// out once the byte budget is exceeded. Load failures are remembered so a broken file is reported
// once, not decoded again on every render.

#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <QString>

#include "source_levels.h"

namespace auglab {

class ImageCache {
public:
    explicit ImageCache(std::size_t budgetBytes = std::size_t(768) << 20) : budget_(budgetBytes) {}

    /// The decoded image, or nullptr with `error` set. Thread safe.
    std::shared_ptr<SourceLevels> get(const QString& path, QString& error);
    std::size_t bytes() const;

private:
    struct Entry {
        std::shared_ptr<SourceLevels> image;
        QString error;
        std::size_t bytes = 0;
    };
    void evict();

    mutable std::mutex mutex_;
    std::size_t budget_;
    std::size_t bytes_ = 0;
    std::list<QString> order_;  // most recent at the front
    std::map<QString, Entry> entries_;
};

}  // namespace auglab
