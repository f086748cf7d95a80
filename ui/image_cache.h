#pragma once
// Images of the app by file path: their headers, and their decodes at the size the grid needs
// (sheet_sources.h: a JPEG by DCT scaling, only the level its tiles read kept), least recently used
// first out once the byte budget is exceeded, so paging through a folder of camera photos keeps
// memory flat. Load failures are remembered so a broken file is reported once, not decoded again on
// every render.

#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <QString>

#include "image_io.h"
#include "source_levels.h"

namespace auglab {

class ImageCache {
public:
    explicit ImageCache(std::size_t budgetBytes = std::size_t(256) << 20) : budget_(budgetBytes) {}

    /// The image's size from its header (remembered), or false with `error` set. Thread safe.
    bool info(const QString& path, ImageInfo& info, QString& error);
    /// The image decoded for tiles that read source level `level` or coarser (0: the whole image,
    /// for full-resolution renders): the held decode when it starts at `level` or finer, else a new
    /// one, held in its place. nullptr with `error` set when the file cannot be read. Thread safe.
    std::shared_ptr<SourceLevels> get(const QString& path, int level, QString& error);
    /// Bytes of pixels held (decodes and the levels made from them).
    std::size_t bytes() const;

private:
    struct Entry {
        std::shared_ptr<SourceLevels> image;
        QString error;
        std::size_t bytes = 0;
    };
    void touch(const QString& path);
    void evict();

    mutable std::mutex mutex_;
    std::size_t budget_;
    std::size_t bytes_ = 0;
    std::map<QString, ImageInfo> infos_;     // headers: a few bytes each, kept
    std::map<QString, QString> infoErrors_;  // files whose header cannot be read
    std::list<QString> order_;               // decodes, most recent at the front
    std::map<QString, Entry> entries_;
};

}  // namespace auglab
