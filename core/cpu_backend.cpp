#include "cpu_backend.h"

#include <algorithm>
#include <optional>
#include <string>

#include "cpu/integer_warp.h"
#include "error.h"

namespace auglab {

namespace {
// Rows per strip: a few rows of a 512-px RGB output (1.5 KB a row) stay in the first-level cache
// between the warp and the ops after it.
constexpr int kStripRows = 8;
}  // namespace

CpuBackend::CpuBackend(int threads) : pool_(threads) {}

Image executePlanCpu(SourceLevels& source, const Plan& plan, const RowLoop& loop) {
    Image current;
    for (std::size_t s = 0; s < plan.stages.size(); ++s) {
        const PlanStage& stage = plan.stages[s];
        const ImageView whole = s == 0 ? source.view(stage.warp.sourceLevel) : ImageView(current);
        if (whole.width != stage.warp.inputWidth || whole.height != stage.warp.inputHeight)
            throw RuntimeError("plan does not match its input image size");
        // A warp that reads a window of its input reads it as a whole image (WarpStep::window).
        const ImageView input = windowOf(whole, stage.warp.window);
        if (stage.width <= 0 || stage.height <= 0)
            throw RuntimeError("plan stage " + std::to_string(s) + " has no size");
        // The warp writes every pixel.
        Image out(stage.width, stage.height, input.channels, Image::Uninitialised{});
        // A stage that moves whole pixels (a flip, a crop, a pad, a quarter turn) is row copies;
        // any other samples the source through the warp's tables.
        const std::optional<cpu::IntegerWarp> moves =
            stage.warp.copy ? std::nullopt
                            : cpu::integerWarp(stage.warp, input.width, input.height, stage.width, stage.height);
        const WarpTables tables = moves || stage.warp.gather || stage.warp.copy || stage.warp.projective
                                      ? WarpTables{}
                                      : warpTables(stage.warp, stage.width, stage.height);
        // The row-local ops that follow the warp run on strips of rows as they come out of it,
        // still in cache, instead of as passes over the whole image; the rest (a blur, and any op
        // after it) then run over the whole image.
        std::size_t fused = 0;
        while (fused < stage.ops.size() && rowLocal(stage.ops[fused])) ++fused;
        // A stage that copies its input and then applies a table, gray or a channel matrix: the op
        // reads the input straight into the output, one pass instead of two.
        const bool firstFrom = stage.warp.copy && fused > 0 && input.width == out.width &&
                               input.height == out.height && input.channels == out.channels &&
                               hasRowsFrom(stage.ops[0]);
        loop(stage.height, [&](int y0, int y1) {
            // Strips from the last where the moves read the source from the bottom up (readsUpward).
            const bool upward = moves && cpu::readsUpward(*moves, y0, y1);
            const int strips = (y1 - y0 + kStripRows - 1) / kStripRows;
            for (int k = 0; k < strips; ++k) {
                const int s0 = y0 + (upward ? strips - 1 - k : k) * kStripRows;
                const int s1 = std::min(y1, s0 + kStripRows);
                if (firstFrom)
                    pixelRowsFrom(input, out, stage.ops[0], s0, s1);
                else if (moves)
                    cpu::integerWarpRows(input, out, *moves, s0, s1);
                else
                    warpRows(input, out, stage.warp, tables, s0, s1);
                for (std::size_t i = firstFrom ? 1 : 0; i < fused; ++i) applyPixelRows(out, stage.ops[i], s0, s1);
            }
        });
        for (std::size_t i = fused; i < stage.ops.size(); ++i) applyPixelStep(out, stage.ops[i], loop);
        current = std::move(out);
    }
    return current;
}

void CpuBackend::render(std::span<RenderJob> jobs) {
    // Build the source levels first: they are shared between jobs.
    for (RenderJob& job : jobs)
        for (const PlanStage& stage : job.plan.stages)
            if (stage.warp.sourceLevel >= 0) job.source->view(stage.warp.sourceLevel);
    const int threads = pool_.threadCount();
    if (static_cast<int>(jobs.size()) >= 2 * threads) {
        // Many outputs (a grid): one job per task, each single-threaded.
        pool_.parallelFor(static_cast<int>(jobs.size()), 1, [&](int b, int e) {
            for (int i = b; i < e; ++i) {
                RenderJob& job = jobs[static_cast<std::size_t>(i)];
                *job.output = executePlanCpu(*job.source, job.plan, RowLoop{nullptr});
                if (job.deliver) job.deliver(*job.output);
            }
        });
    } else {
        for (RenderJob& job : jobs) {
            *job.output = executePlanCpu(*job.source, job.plan, RowLoop{&pool_});
            if (job.deliver) job.deliver(*job.output);
        }
    }
}

}  // namespace auglab
