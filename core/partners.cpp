#include "partners.h"

#include <map>

#include "cpu_backend.h"
#include "error.h"
#include "ops/op_list.h"
#include "plan_builder.h"

namespace auglab {

bool needsPartners(const Plan& plan) {
    for (const PlanStage& stage : plan.stages)
        for (const PixelStep& step : stage.ops)
            if (std::holds_alternative<MixStep>(step)) return true;
    return false;
}

int partnerLevel(int width, int height, int outW, int outH, SourceSampling sampling) {
    if (sampling == SourceSampling::Source) return 0;
    const double scale = std::min(static_cast<double>(outW) / width, static_cast<double>(outH) / height);
    return SourceLevels::levelForScale(scale, width, height);
}

Image resizePartner(SourceLevels& source, int outW, int outH, int channels, SourceSampling sampling) {
    PlanBuilder b(source.width(), source.height(), outW, outH, sampling);
    b.resampling(Interpolation::Linear, BorderMode::Replicate, Rgb{0, 0, 0});
    const Plan plan = b.finish();
    const Image resized = executePlanCpu(source, plan, RowLoop{nullptr});
    if (resized.channels == channels) return resized;
    Image out(outW, outH, channels, 255);
    const int common = std::min(channels, resized.channels);
    for (int y = 0; y < outH; ++y)
        for (int x = 0; x < outW; ++x)
            for (int c = 0; c < common; ++c) out.at(x, y)[c] = resized.at(x, y)[c];
    return out;
}

void bindPartners(Plan& plan, int channels, const PartnerLoader& load, SourceSampling sampling) {
    std::map<std::uint64_t, std::shared_ptr<const Image>> resized;
    for (PlanStage& stage : plan.stages)
        for (PixelStep& step : stage.ops) {
            auto* mix = std::get_if<MixStep>(&step);
            if (!mix || mix->partner) continue;
            auto& image = resized[mix->partnerIndex];
            if (!image) {
                std::shared_ptr<SourceLevels> source;
                try {
                    source = load(mix->partnerIndex, plan.width, plan.height);
                } catch (const InputError& e) {
                    throw InputError("partner image " + std::to_string(mix->partnerIndex) + ": " + e.what());
                }
                if (!source)
                    throw InputError("partner image " + std::to_string(mix->partnerIndex) + " is not loaded");
                image = std::make_shared<const Image>(
                    resizePartner(*source, plan.width, plan.height, channels, sampling));
            }
            mix->partner = image;
        }
}

PartnerLoader selfPartner(SourceLevels& source) {
    // A non-owning pointer: the caller keeps the source alive while it renders.
    return [&source](std::uint64_t, int, int) {
        return std::shared_ptr<SourceLevels>(&source, [](SourceLevels*) {});
    };
}

void namePartners(Replay& replay, const std::function<std::string(std::uint64_t)>& name) {
    for (ConcreteOp& op : replay.ops)
        if (auto* m = std::get_if<MixParams>(&op.params); m && op.applied) m->partnerPath = name(m->partner);
}

}  // namespace auglab
