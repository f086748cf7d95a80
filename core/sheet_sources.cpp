#include "sheet_sources.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <utility>

#include "error.h"
#include "image_io.h"

namespace auglab {

DisplaySource loadDisplaySource(const std::filesystem::path& path, int level, int expectedWidth, int expectedHeight) {
    // One DCT step finer than the level, then one exact block mean: a DCT-scaled decode rounds its
    // colours at the reduced size, and on its own level that rounding alone puts tiles at the edge
    // of SPEC §2's bounds (mean 0.27 in 256-px tiles of a 2001x1335 photo); reduced once more it
    // halves. Camera photos in grid-sized tiles (level 4 and up) still decode at 1/8.
    LoadedImage loaded = loadImage(path, std::max(0, level - 1));
    if (loaded.fileWidth != expectedWidth || loaded.fileHeight != expectedHeight) {
        const std::u8string name = path.u8string();
        throw InputError("'" + std::string(name.begin(), name.end()) + "': the file changed while it was read (" +
                         std::to_string(expectedWidth) + "x" + std::to_string(expectedHeight) + ", now " +
                         std::to_string(loaded.fileWidth) + "x" + std::to_string(loaded.fileHeight) + ")");
    }
    DisplaySource out;
    out.reducedFrom16Bit = loaded.reducedFrom16Bit;
    Image reduced = SourceLevels::reduce(loaded.image, level - loaded.level);
    loaded.image = Image();  // the larger decode goes before the levels are made
    out.levels = std::make_shared<SourceLevels>(std::move(reduced), level, expectedWidth, expectedHeight);
    return out;
}

std::vector<std::shared_ptr<SourceLevels>> loadSheetSources(SheetLayout& layout, std::size_t count, ThreadPool& pool,
                                                            const SourceLoader& load, std::vector<std::string>& errors) {
    const std::vector<int> levels = finestLevels(layout, count);
    std::vector<std::shared_ptr<SourceLevels>> held(count);
    errors.assign(count, std::string());
    pool.parallelFor(static_cast<int>(count), 1, [&](int begin, int end) {
        for (int i = begin; i < end; ++i) {
            const auto k = static_cast<std::size_t>(i);
            if (levels[k] < 0) continue;
            try {
                held[k] = load(k, levels[k]);
            } catch (const InputError& e) {
                errors[k] = e.what();
            }
        }
    });
    std::vector<SourceLevels*> sources;
    for (const auto& s : held) sources.push_back(s.get());
    bindSources(layout, sources, errors);
    return held;
}

std::vector<SheetSource> probeSheetSources(const std::vector<std::filesystem::path>& files) {
    std::vector<SheetSource> heads;
    for (const std::filesystem::path& f : files) {
        try {
            const ImageInfo info = probeImage(f);
            heads.push_back(SheetSource{info.width, info.height, {}});
        } catch (const InputError& e) {
            heads.push_back(SheetSource{0, 0, e.what()});
        }
    }
    return heads;
}

std::vector<std::shared_ptr<SourceLevels>> loadSheetFiles(SheetLayout& layout,
                                                          const std::vector<std::filesystem::path>& files,
                                                          const std::vector<SheetSource>& heads, ThreadPool& pool,
                                                          std::vector<std::string>& errors, bool* reducedFrom16Bit) {
    std::atomic<bool> reduced{false};
    auto held = loadSheetSources(layout, files.size(), pool, [&](std::size_t i, int level) {
        DisplaySource d = loadDisplaySource(files[i], level, heads[i].width, heads[i].height);
        if (d.reducedFrom16Bit) reduced = true;
        return d.levels;
    }, errors);
    if (reducedFrom16Bit != nullptr) *reducedFrom16Bit = reduced;
    return held;
}

PartnerLoader filePartners(std::vector<std::filesystem::path> pool, bool display) {
    struct Held {
        std::mutex mutex;
        std::map<std::pair<std::uint64_t, int>, std::shared_ptr<SourceLevels>> images;
        std::map<std::uint64_t, ImageInfo> headers;  // read once per file, not once per tile
    };
    auto held = std::make_shared<Held>();
    return [pool = std::move(pool), display, held](std::uint64_t index, int outW, int outH) {
        if (index >= pool.size())
            throw InputError("the pool has " + std::to_string(pool.size()) + " images, not " + std::to_string(index + 1));
        const std::filesystem::path& file = pool[static_cast<std::size_t>(index)];
        ImageInfo info;
        {
            const std::lock_guard<std::mutex> lock(held->mutex);
            if (auto it = held->headers.find(index); it != held->headers.end()) info = it->second;
        }
        if (info.width == 0) {
            info = probeImage(file);
            const std::lock_guard<std::mutex> lock(held->mutex);
            held->headers[index] = info;
        }
        const int level = display ? partnerLevel(info.width, info.height, outW, outH, SourceSampling::Prefiltered) : 0;
        {
            const std::lock_guard<std::mutex> lock(held->mutex);
            if (auto it = held->images.find({index, level}); it != held->images.end()) return it->second;
        }
        std::shared_ptr<SourceLevels> levels =
            display ? loadDisplaySource(file, level, info.width, info.height).levels
                    : std::make_shared<SourceLevels>(loadImage(file).image);
        const std::lock_guard<std::mutex> lock(held->mutex);
        if (held->images.size() >= 16) held->images.clear();  // a long run over a folder holds a few at a time
        held->images[{index, level}] = levels;
        return levels;
    };
}

}  // namespace auglab
