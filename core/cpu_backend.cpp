#include "cpu_backend.h"

#include "error.h"

namespace auglab {

CpuBackend::CpuBackend(int threads) : pool_(threads) {}

Image executePlanCpu(SourceLevels& source, const Plan& plan, const RowLoop& loop) {
    Image current;
    for (std::size_t s = 0; s < plan.stages.size(); ++s) {
        const PlanStage& stage = plan.stages[s];
        const Image& input = s == 0 ? source.level(stage.warp.sourceLevel) : current;
        if (input.width != stage.warp.inputWidth || input.height != stage.warp.inputHeight)
            throw RuntimeError("plan does not match its input image size");
        Image out(plan.width, plan.height, input.channels, Image::Uninitialised{});  // the warp writes every pixel
        loop(plan.height, [&](int y0, int y1) { warpRows(input, out, stage.warp, y0, y1); });
        for (const PixelStep& step : stage.ops) applyPixelStep(out, step, loop);
        current = std::move(out);
    }
    return current;
}

void CpuBackend::render(std::span<RenderJob> jobs) {
    // Build the source levels first: they are shared between jobs.
    for (RenderJob& job : jobs)
        for (const PlanStage& stage : job.plan.stages)
            if (stage.warp.sourceLevel >= 0) job.source->level(stage.warp.sourceLevel);
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
