#pragma once
// Plan steps that run on the host on every backend: lossy compression (CompressStep) is a codec
// call (libjpeg-turbo, libwebp), not a kernel; iso_noise (IsoNoiseStep), CLAHE (ClaheStep),
// FancyPCA (FancyPcaStep), RandomRain (RainStep), RandomSunFlare (FlareStep) and PixelDropout
// (PixelDropoutStep) are CPU kernels the GPU backends do not have yet (shadows and fog are keyed tables there: keyed_tables.h). The CPU backend runs
// them in place; the GL backend reads the image back, runs it and uploads the result; the CUDA backend
// renders the part of the plan before it on the device, runs it, and renders the rest from the result
// (resolveHostSteps).

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "backend.h"
#include "plan.h"

namespace auglab {

/// Whether `step` runs on the host on the GPU backends.
bool isHostStep(const PixelStep& step);
/// Whether any stage of `plan` has a host step.
bool hasHostStep(const Plan& plan);

/// The pixels encoded and decoded as the step says (codecs::jpegRoundTrip, webpRoundTrip).
void applyCompress(Image& img, const CompressStep& step);
/// A host step on `img` (a codec round trip, or the CPU's kernel of another host step), serially.
void applyHostStep(Image& img, const PixelStep& step);

/// Jobs whose plans have no host step left: for each job with one, the part of its plan before
/// the first host step is rendered by `render` (the device) into host memory, the step is run there,
/// and the job continues from that image (a copy warp reading it, then the rest of the plan); again
/// until no host step is left. Jobs of one round are rendered together. The returned jobs read the
/// images the resolver holds: keep it alive while they render. Jobs without host steps are copied
/// as they are; `deliver` callbacks are kept.
class HostStepResolver {
public:
    using Render = std::function<void(std::span<RenderJob>)>;
    std::vector<RenderJob> resolve(std::span<RenderJob> jobs, const Render& render);

private:
    std::vector<std::unique_ptr<SourceLevels>> sources_;
};

/// The split resolveHostSteps makes, exposed for tests: the part of `plan` before its first host
/// step (ending in a stage of that step's size), the step, and the rest, which reads an image of
/// that size. False when the plan has no host step.
bool splitAtHostStep(const Plan& plan, Plan& before, PixelStep& step, Plan& after);

}  // namespace auglab
