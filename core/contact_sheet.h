#pragma once
// Rendering samples: one full-resolution output (`apply`), a replay, or a contact sheet of tiles
// (`render` and the GUI grid). Tile i of a sheet is sample page * tiles + i, drawn for the full
// source size and rendered at tile size, so it shows exactly what `apply --index` writes.

#include <cstdint>
#include <string>
#include <vector>

#include "backend.h"
#include "partners.h"
#include "pipeline.h"
#include "replay.h"
#include "sampler.h"

namespace auglab {

enum class SheetMode {
    Samples,  ///< one image, many samples
    Dataset,  ///< many images, one sample each: `sources` are the images of this page, tile i shows
              ///< sources[i] (cells past the end stay empty)
    Compare,  ///< one image: each sample beside the original (cells 2k and 2k + 1 show sample k)
};

struct SheetOptions {
    int rows = 8, cols = 8;
    int tile = 256;  ///< cell size in pixels; the output keeps the image's aspect inside it
    int gap = 2;
    std::uint64_t seed = 0;
    std::uint64_t page = 0;
    SheetMode mode = SheetMode::Samples;
    /// The pool mixing ops draw partners from (PartnerPool): `partnerPool` images, of which
    /// the sheet's sources[0] is number `partnerFirst` (a dataset page of a folder); 0: the sheet's
    /// sources themselves.
    std::uint64_t partnerPool = 0, partnerFirst = 0;
};

struct SheetTile {
    int sourceIndex = -1;   ///< index into `sources`; -1: empty cell (past the end of a dataset)
    bool original = false;  ///< compare mode: this cell shows the source as it is
    std::uint64_t sampleIndex = 0;
    Replay replay;
    int x = 0, y = 0, width = 0, height = 0;  ///< where the output sits in the sheet
    /// The share of the tile's pixels that are invented (realism.h), from its plan; -1: not rendered.
    double invented = -1;
    /// Why this cell is empty although it has an image (the pipeline cannot run on it, e.g.
    /// an op that needs a square image on another); empty when the tile rendered.
    std::string error;
};

struct Sheet {
    Image image;
    std::vector<SheetTile> tiles;
};

/// A sheet's tiles with their samples and plans, before any pixel is rendered. `jobs[k]` renders
/// tile `jobTiles[k]` into `*jobs[k].output`, one of `outputs`. A backend that keeps the grid on
/// the GPU renders the jobs and places them itself; renderSheet() renders them and composes the
/// sheet in memory.
struct SheetLayout {
    int width = 0, height = 0;
    std::vector<SheetTile> tiles;
    std::vector<RenderJob> jobs;
    std::vector<int> jobTiles;
    std::vector<Image> outputs;
};

/// What a sheet knows of an image before decoding it: its full size (from the file's header), or
/// why it cannot be used.
struct SheetSource {
    int width = 0, height = 0;
    std::string error;  ///< not empty: the image cannot be read, and its tiles stay empty with this reason
};

/// Colours of the sheet: the gaps between cells, and what transparent pixels are shown over.
inline constexpr std::uint8_t kSheetGapGray = 20;
inline constexpr std::uint8_t kSheetBackgroundGray = 40;

/// Lays out a sheet of images known by their size alone: tiles, samples and plans. The jobs have no
/// source yet: decode each image at finestLevels(), then bindSources(). A tile whose image cannot
/// be read (SheetSource::error) or take the pipeline (an InputError from its plan) is left empty
/// with `error` set; the others still render. Throws InputError when every tile fails (with the
/// first reason).
SheetLayout layoutSheet(const Pipeline& pipeline, const std::vector<SheetSource>& sources,
                        const SheetOptions& options);

/// The same for images already decoded: layoutSheet(sizes), then bindSources(sources).
SheetLayout layoutSheet(const Pipeline& pipeline, const std::vector<SourceLevels*>& sources,
                        const SheetOptions& options);

/// Per source, the finest level any job of `layout` reads it at: what it must be decoded to (a
/// tile-sized source level, SPEC §2's scaled decoding for display tiles). -1 for a source no job reads.
std::vector<int> finestLevels(const SheetLayout& layout, std::size_t sourceCount);

/// Gives every job its source. A null source (it could not be decoded after all) drops its jobs and
/// leaves its tiles empty with errors[i]. Throws InputError when no job is left.
void bindSources(SheetLayout& layout, const std::vector<SourceLevels*>& sources,
                 const std::vector<std::string>& errors = {});

/// Gives the jobs that mix in partners (mixing ops) their partner images, each read by `load`
/// (pool index, tile size) and resized to the tile. A job whose partner cannot be read is dropped, its
/// tile left empty with the reason. Throws InputError when no job is left.
void bindSheetPartners(SheetLayout& layout, const PartnerLoader& load);

/// Size of a tile for a width x height image fitted in a `tile` x `tile` cell (aspect kept).
void tileSize(int width, int height, int tile, int& w, int& h);

/// Where a sample's partners (mixing ops) come from: the pool it draws them from, and how to
/// read one. The default is a pool of the image alone: the partner is the image itself.
struct Partners {
    PartnerPool pool;
    PartnerLoader load;  ///< empty: the source itself (a pool of one)
};

/// Sample `index` of `seed` rendered at full resolution.
Image renderSample(const Pipeline& pipeline, SourceLevels& source, std::uint64_t seed,
                   std::uint64_t index, Backend& backend, Replay* replayOut = nullptr,
                   const Partners& partners = {});
/// Applies concrete parameters again (bit for bit the output `apply` wrote), with the partners
/// `load` reads (empty: the source itself).
Image renderReplay(const Replay& replay, SourceLevels& source, Backend& backend,
                   const PartnerLoader& load = {});
/// renderReplay() of a replay whose plan (buildFullPlan at the source's size) the caller has
/// already built, for a caller that also reads the plan (augment's invented share).
Image renderPlan(Plan plan, SourceLevels& source, Backend& backend, const PartnerLoader& load = {});

/// A laid-out grid rendered as one batch and composed in memory.
Sheet renderLayout(SheetLayout layout, Backend& backend);

/// The whole grid, rendered as one batch: renderLayout(layoutSheet(...)).
Sheet renderSheet(const Pipeline& pipeline, const std::vector<SourceLevels*>& sources,
                  const SheetOptions& options, Backend& backend);

}  // namespace auglab
