#pragma once
// The images of a sheet, decoded at the size its tiles need (SPEC §2: scaled decoding is for
// display tiles). A tile reads one pre-filtered level of its source (finestLevels()); a JPEG is
// decoded near that scale by libjpeg-turbo's DCT scaling, so a page of camera photos is never
// decoded in full, and only the level the tiles read is kept. `apply`, `replay`, `augment`
// and the inspector decode in full and are not concerned.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "contact_sheet.h"
#include "source_levels.h"
#include "thread_pool.h"

namespace auglab {

/// An image file decoded for display tiles.
struct DisplaySource {
    std::shared_ptr<SourceLevels> levels;  ///< holds level `level` and coarser ones only
    bool reducedFrom16Bit = false;
};

/// Decodes `path` for tiles that read level `level` or coarser: a JPEG by DCT scaling at
/// 1/2^min(level - 1, 3) of its size (one step finer than the level: see the .cpp), any other format
/// in full, then reduced to `level`. The larger decode is
/// released before this returns. The file must still be expectedWidth x expectedHeight (the size
/// the tiles were laid out for): otherwise, or when it cannot be decoded, InputError naming it.
DisplaySource loadDisplaySource(const std::filesystem::path& path, int level, int expectedWidth, int expectedHeight);

/// Loads the sources of `layout` that its jobs read, each at its finest level, on `pool`'s threads,
/// and binds them (bindSources). `load(i, level)` gives source i at `level`; an InputError it throws
/// leaves that source's tiles empty with the message, also put in errors[i] (errors is resized to
/// `count`). Returns what the jobs point to: keep it until the sheet is rendered. Throws InputError
/// when no tile is left.
using SourceLoader = std::function<std::shared_ptr<SourceLevels>(std::size_t index, int level)>;
std::vector<std::shared_ptr<SourceLevels>> loadSheetSources(SheetLayout& layout, std::size_t count, ThreadPool& pool,
                                                            const SourceLoader& load, std::vector<std::string>& errors);

/// Each file's header (probeImage), or why it cannot be read: what layoutSheet needs to know.
std::vector<SheetSource> probeSheetSources(const std::vector<std::filesystem::path>& files);

/// loadSheetSources for image files: file i decoded by loadDisplaySource for the size heads[i]
/// gave. Sets *reducedFrom16Bit when a 16-bit file was reduced to 8 bits.
std::vector<std::shared_ptr<SourceLevels>> loadSheetFiles(SheetLayout& layout,
                                                          const std::vector<std::filesystem::path>& files,
                                                          const std::vector<SheetSource>& heads, ThreadPool& pool,
                                                          std::vector<std::string>& errors,
                                                          bool* reducedFrom16Bit = nullptr);

/// Partners (mixing ops) read from `pool`'s files: each decoded at the level an output of the
/// size asked for reads, through loadDisplaySource (`display`: tiles), or in full (apply, augment).
/// The loader keeps what it decoded for the next call (one pool, one sheet or one run).
PartnerLoader filePartners(std::vector<std::filesystem::path> pool, bool display);

}  // namespace auglab
