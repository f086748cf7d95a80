#include "contact_sheet.h"

#include <algorithm>
#include <cmath>

#include "error.h"
#include "realism.h"
#include "sampler.h"

namespace auglab {

namespace {

constexpr std::uint8_t kBackground = kSheetBackgroundGray;

// Copies an output into the sheet, blending alpha over the background.
void blit(const Image& tile, Image& sheet, int x0, int y0) {
    for (int y = 0; y < tile.height; ++y) {
        const std::uint8_t* s = tile.row(y);
        std::uint8_t* d = sheet.at(x0, y0 + y);
        for (int x = 0; x < tile.width; ++x, s += tile.channels, d += 3) {
            if (tile.channels == 4) {
                const int a = s[3];
                for (int c = 0; c < 3; ++c)
                    d[c] = static_cast<std::uint8_t>((s[c] * a + kBackground * (255 - a) + 127) / 255);
            } else {
                d[0] = s[0];
                d[1] = s[1];
                d[2] = s[2];
            }
        }
    }
}

// Keeps the jobs for which keep(job, its tile) is true (it may set the tile's error when not) and
// drops the others; throws InputError (the first tile's reason) when none is left. Jobs keep their
// outputs (the Image they point to), so dropping one moves none.
template <class Keep>
void keepJobs(SheetLayout& layout, Keep keep) {
    std::size_t kept = 0;
    for (std::size_t k = 0; k < layout.jobs.size(); ++k) {
        if (!keep(layout.jobs[k], layout.tiles[static_cast<std::size_t>(layout.jobTiles[k])])) continue;
        if (kept != k) {
            layout.jobs[kept] = std::move(layout.jobs[k]);
            layout.jobTiles[kept] = layout.jobTiles[k];
        }
        ++kept;
    }
    layout.jobs.resize(kept);
    layout.jobTiles.resize(kept);
    if (layout.jobs.empty())
        for (const SheetTile& t : layout.tiles)
            if (!t.error.empty()) throw InputError(t.error);
}

}  // namespace

void tileSize(int width, int height, int tile, int& w, int& h) {
    const double s = static_cast<double>(tile) / std::max(width, height);
    w = std::clamp(static_cast<int>(std::lround(width * s)), 1, tile);
    h = std::clamp(static_cast<int>(std::lround(height * s)), 1, tile);
}

Image renderSample(const Pipeline& pipeline, SourceLevels& source, std::uint64_t seed,
                   std::uint64_t index, Backend& backend, Replay* replayOut, const Partners& partners) {
    Replay replay = samplePipeline(pipeline, seed, index, source.width(), source.height(), partners.pool);
    Image out = renderReplay(replay, source, backend, partners.load);
    if (replayOut) *replayOut = std::move(replay);
    return out;
}

Image renderReplay(const Replay& replay, SourceLevels& source, Backend& backend, const PartnerLoader& load) {
    return renderPlan(buildFullPlan(replay, source.width(), source.height()), source, backend, load);
}

Image renderPlan(Plan plan, SourceLevels& source, Backend& backend, const PartnerLoader& load) {
    Image out;
    RenderJob job{&source, std::move(plan), &out};
    if (needsPartners(job.plan))
        bindPartners(job.plan, source.channels(), load ? load : selfPartner(source), SourceSampling::Source);
    backend.render(std::span<RenderJob>(&job, 1));
    return out;
}

SheetLayout layoutSheet(const Pipeline& pipeline, const std::vector<SheetSource>& sources,
                        const SheetOptions& o) {
    if (sources.empty()) throw InputError("no images to render");
    if (o.rows < 1 || o.cols < 1 || o.rows > 64 || o.cols > 64) throw InputError("grid must be 1x1 to 64x64");
    if (o.tile < 8 || o.tile > 4096) throw InputError("tile size must be 8 to 4096 pixels");
    const int n = o.rows * o.cols;
    SheetLayout layout;
    layout.width = o.cols * o.tile + (o.cols + 1) * o.gap;
    layout.height = o.rows * o.tile + (o.rows + 1) * o.gap;
    layout.outputs.resize(static_cast<std::size_t>(n));  // sized once: jobs point into it
    for (int i = 0; i < n; ++i) {
        SheetTile t;
        t.sampleIndex = o.page * static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(i);
        if (o.mode == SheetMode::Samples) {
            t.sourceIndex = 0;
        } else if (o.mode == SheetMode::Compare) {
            // Pairs: the original, then the sample; a page holds n / 2 samples.
            const std::uint64_t perPage = static_cast<std::uint64_t>(std::max(1, n / 2));
            t.sampleIndex = o.page * perPage + static_cast<std::uint64_t>(i / 2);
            t.original = i % 2 == 0;
            t.sourceIndex = (i / 2) < static_cast<int>(perPage) ? 0 : -1;
        } else if (static_cast<std::size_t>(i) < sources.size()) {
            t.sourceIndex = i;
        }
        const int cellX = o.gap + (i % o.cols) * (o.tile + o.gap),
                  cellY = o.gap + (i / o.cols) * (o.tile + o.gap);
        if (t.sourceIndex >= 0) {
            const SheetSource& src = sources[static_cast<std::size_t>(t.sourceIndex)];
            if (!src.error.empty()) {
                t.error = src.error;
                t.width = t.height = o.tile;  // the cell, for whoever marks it
                t.x = cellX;
                t.y = cellY;
                layout.tiles.push_back(std::move(t));
                continue;
            }
            try {
                // The pipeline may not fit this image (a hole or grid unit larger than it).
                const PartnerPool pool =
                    o.partnerPool > 0
                        ? PartnerPool{o.partnerPool,
                                      o.partnerFirst + static_cast<std::uint64_t>(t.sourceIndex)}
                        : PartnerPool{sources.size(), static_cast<std::uint64_t>(t.sourceIndex)};
                t.replay = samplePipeline(t.original ? Pipeline{} : pipeline, o.seed,
                                          t.sampleIndex, src.width, src.height, pool);
            } catch (const InputError& e) {
                t.error = e.what();
                t.width = t.height = o.tile;
                t.x = cellX;
                t.y = cellY;
                layout.tiles.push_back(std::move(t));
                continue;
            }
            // The tile keeps the aspect of what apply writes (the size of an op that sets the frame, if any).
            int fullW = 0, fullH = 0;
            frameSize(t.replay, t.replay.ops.size(), fullW, fullH);
            tileSize(fullW, fullH, o.tile, t.width, t.height);
            t.x = cellX + (o.tile - t.width) / 2;
            t.y = cellY + (o.tile - t.height) / 2;
            try {
                Plan plan = buildPlan(t.replay, src.width, src.height, t.width, t.height);
                t.invented = inventedShare(plan);
                layout.jobs.push_back(
                    RenderJob{nullptr, std::move(plan), &layout.outputs[layout.jobs.size()]});
                layout.jobTiles.push_back(i);
            } catch (const InputError& e) {
                t.error = e.what();  // this image cannot take the pipeline; the other tiles still render
            }
        }
        layout.tiles.push_back(std::move(t));
    }
    if (layout.jobs.empty())
        for (const SheetTile& t : layout.tiles)
            if (!t.error.empty()) throw InputError(t.error);
    return layout;
}

SheetLayout layoutSheet(const Pipeline& pipeline, const std::vector<SourceLevels*>& sources,
                        const SheetOptions& o) {
    std::vector<SheetSource> sizes;
    for (const SourceLevels* s : sources) sizes.push_back(SheetSource{s->width(), s->height(), {}});
    SheetLayout layout = layoutSheet(pipeline, sizes, o);
    bindSources(layout, sources);
    if (o.partnerPool == 0)  // the pool is the sources: partners are read from them
        bindSheetPartners(layout, [&sources](std::uint64_t i, int, int) {
            return std::shared_ptr<SourceLevels>(sources.at(static_cast<std::size_t>(i)),
                                                 [](SourceLevels*) {});
        });
    return layout;
}

void bindSheetPartners(SheetLayout& layout, const PartnerLoader& load) {
    keepJobs(layout, [&](RenderJob& job, SheetTile& tile) {
        if (!needsPartners(job.plan)) return true;
        try {
            bindPartners(job.plan, job.source->channels(), load, SourceSampling::Prefiltered);
        } catch (const InputError& e) {
            tile.error = e.what();
            return false;
        }
        return true;
    });
}

std::vector<int> finestLevels(const SheetLayout& layout, std::size_t sourceCount) {
    std::vector<int> levels(sourceCount, -1);
    for (std::size_t k = 0; k < layout.jobs.size(); ++k) {
        const int source = layout.tiles[static_cast<std::size_t>(layout.jobTiles[k])].sourceIndex;
        const int level =
            layout.jobs[k].plan.stages.front().warp.sourceLevel;  // the first stage reads the source
        int& finest = levels[static_cast<std::size_t>(source)];
        finest = finest < 0 ? level : std::min(finest, level);
    }
    return levels;
}

void bindSources(SheetLayout& layout, const std::vector<SourceLevels*>& sources,
                 const std::vector<std::string>& errors) {
    keepJobs(layout, [&](RenderJob& job, SheetTile& tile) {
        const auto source = static_cast<std::size_t>(tile.sourceIndex);
        if (sources.at(source) == nullptr) {
            tile.error = source < errors.size() && !errors[source].empty() ? errors[source]
                                                                           : "the image could not be read";
            return false;
        }
        job.source = sources[source];
        return true;
    });
}

Sheet renderSheet(const Pipeline& pipeline, const std::vector<SourceLevels*>& sources,
                  const SheetOptions& o, Backend& backend) {
    return renderLayout(layoutSheet(pipeline, sources, o), backend);
}

Sheet renderLayout(SheetLayout layout, Backend& backend) {
    Sheet sheet;
    sheet.image = Image(layout.width, layout.height, 3, kSheetGapGray);  // one pass: no zeroing first
    // Each tile is placed as soon as it is rendered, on the thread that rendered it: tiles cover
    // disjoint rectangles of the sheet, so this needs no lock.
    std::vector<char> placed(layout.jobs.size(), 0);
    for (std::size_t k = 0; k < layout.jobs.size(); ++k) {
        const SheetTile& t = layout.tiles[static_cast<std::size_t>(layout.jobTiles[k])];
        layout.jobs[k].deliver = [&sheet, &placed, &t, k](const Image& out) {
            blit(out, sheet.image, t.x, t.y);
            placed[k] = 1;
        };
    }
    backend.render(layout.jobs);
    for (std::size_t k = 0; k < layout.jobs.size(); ++k) {
        if (placed[k]) continue;  // a backend that does not deliver: place the tile now
        const SheetTile& t = layout.tiles[static_cast<std::size_t>(layout.jobTiles[k])];
        blit(*layout.jobs[k].output, sheet.image, t.x, t.y);
    }
    sheet.tiles = std::move(layout.tiles);
    return sheet;
}

}  // namespace auglab
