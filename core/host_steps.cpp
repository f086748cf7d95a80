#include "host_steps.h"

#include "cpu_backend.h"
#include "error.h"
#include "image_codecs.h"

namespace auglab {

bool isHostStep(const PixelStep& step) {
    return std::holds_alternative<CompressStep>(step) || std::holds_alternative<PixelDropoutStep>(step) ||
           std::holds_alternative<SaltPepperStep>(step);
}

bool hasHostStep(const Plan& plan) {
    for (const PlanStage& stage : plan.stages)
        for (const PixelStep& step : stage.ops)
            if (isHostStep(step)) return true;
    return false;
}

void applyHostStep(Image& img, const PixelStep& step) {
    if (const auto* c = std::get_if<CompressStep>(&step))
        applyCompress(img, *c);
    else
        applyPixelStep(img, step, RowLoop{});
}

void applyCompress(Image& img, const CompressStep& step) {
    if (step.codec == CompressStep::Codec::Jpeg)
        codecs::jpegRoundTrip(img, step.quality);
    else
        codecs::webpRoundTrip(img, step.quality);
}

bool splitAtHostStep(const Plan& plan, Plan& before, PixelStep& step, Plan& after) {
    for (std::size_t s = 0; s < plan.stages.size(); ++s) {
        const PlanStage& stage = plan.stages[s];
        for (std::size_t i = 0; i < stage.ops.size(); ++i) {
            if (!isHostStep(stage.ops[i])) continue;
            before = Plan{};
            before.stages.assign(plan.stages.begin(), plan.stages.begin() + std::ptrdiff_t(s) + 1);
            before.stages.back().ops.resize(i);
            before.width = stage.width;
            before.height = stage.height;
            step = stage.ops[i];
            // The rest reads the image the step made, of the stage's size, through a copy.
            PlanStage first;
            first.width = stage.width;
            first.height = stage.height;
            first.warp.copy = true;
            first.warp.sourceLevel = 0;
            first.warp.inputWidth = stage.width;
            first.warp.inputHeight = stage.height;
            first.warp.interpolation = Interpolation::Nearest;
            first.ops.assign(stage.ops.begin() + std::ptrdiff_t(i) + 1, stage.ops.end());
            after = Plan{};
            after.stages.push_back(std::move(first));
            after.stages.insert(after.stages.end(), plan.stages.begin() + std::ptrdiff_t(s) + 1,
                                plan.stages.end());
            after.width = plan.width;
            after.height = plan.height;
            return true;
        }
    }
    return false;
}

std::vector<RenderJob> HostStepResolver::resolve(std::span<RenderJob> jobs, const Render& render) {
    std::vector<RenderJob> out(jobs.begin(), jobs.end());
    for (;;) {
        std::vector<std::size_t> pending;
        for (std::size_t j = 0; j < out.size(); ++j)
            if (out[j].source && out[j].output && hasHostStep(out[j].plan)) pending.push_back(j);
        if (pending.empty()) return out;
        std::vector<Plan> rest(pending.size());
        std::vector<PixelStep> steps(pending.size());
        std::vector<Image> images(pending.size());
        std::vector<RenderJob> heads;
        heads.reserve(pending.size());
        for (std::size_t k = 0; k < pending.size(); ++k) {
            Plan head;
            splitAtHostStep(out[pending[k]].plan, head, steps[k], rest[k]);
            heads.emplace_back(out[pending[k]].source, std::move(head), &images[k]);
        }
        render(heads);
        for (std::size_t k = 0; k < pending.size(); ++k) {
            RenderJob& job = out[pending[k]];
            Image& img = images[k];
            if (img.width != heads[k].plan.width || img.height != heads[k].plan.height)
                throw RuntimeError("a plan's part before a host step rendered at the wrong size");
            applyHostStep(img, steps[k]);
            sources_.push_back(std::make_unique<SourceLevels>(std::move(img)));
            job.source = sources_.back().get();
            job.plan = std::move(rest[k]);
        }
    }
}

}  // namespace auglab
