#include "sampling.h"

#include <cstdio>
#include <memory>
#include <mutex>
#include <span>
#if defined(__linux__)
#include <sys/sysinfo.h>
#endif

#include "contact_sheet.h"
#include "cpu_backend.h"
#include "error.h"
#include "image_io.h"
#include "ops/op_module.h"
#include "realism.h"
#include "sampler.h"
#include "thread_pool.h"
#if defined(AUGLAB_PYTHON_CUDA)
#include "cuda_backend.h"
#endif

namespace auglab::python {

namespace {

/// The engine's pool for a batch of n images: `threads` threads (<= 0: one per hardware thread),
/// never more than images.
int poolSize(int n, int threads) {
    return std::min(threads <= 0 ? 0 : threads, std::max(1, n));
}

/// Runs fn(i) for every i in [0, n) on `pool`; the exception of the lowest failing i (prefixed with
/// "images[i]: ") is rethrown, so that the error does not depend on scheduling.
template <typename Fn>
void forEachImage(ThreadPool& pool, int n, Fn fn) {
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
    pool.parallelFor(n, 1, [&](int begin, int end) {
        for (int i = begin; i < end; ++i) try {
                fn(i);
            } catch (...) {
                errors[static_cast<std::size_t>(i)] = std::current_exception();
            }
    });
    for (int i = 0; i < n; ++i)
        if (const std::exception_ptr& e = errors[static_cast<std::size_t>(i)]) {
            const std::string where = "images[" + std::to_string(i) + "]: ";
            try {
                std::rethrow_exception(e);
            } catch (const InputError& x) {
                throw InputError(where + x.what());
            } catch (const RuntimeError& x) {
                throw RuntimeError(where + x.what());
            }
        }
}

/// The machine's memory, RAM and swap, in bytes (0: unknown).
std::uint64_t machineMemory() {
#if defined(__linux__)
    struct sysinfo info {};
    if (sysinfo(&info) == 0)
        return (std::uint64_t(info.totalram) + std::uint64_t(info.totalswap)) * std::uint64_t(info.mem_unit);
#endif
    return 0;
}

std::string gigabytes(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GB", double(bytes) / 1e9);
    return text;
}

/// samplePipeline, an op's frame over the pixel limit named with `prefix` (the image it was drawn
/// for, as checkFrames names it).
Replay drawSample(const std::string& prefix, const Pipeline& pipeline, std::uint64_t seed,
                  std::uint64_t index, int width, int height, const PartnerPool& pool) {
    try {
        return samplePipeline(pipeline, seed, index, width, height, pool);
    } catch (const FrameSizeError& e) {
        throw InputError(prefix + e.what());
    }
}

/// The samples of a batch, drawn and checked (checkFrames) on `pool` before any is rendered; then
/// the outputs' bytes together against the machine's memory when `onHost`.
std::vector<Replay> drawBatch(ThreadPool& pool, const Pipeline& pipeline, std::uint64_t seed,
                              const BatchInput& in, bool onHost) {
    const int n = static_cast<int>(in.views.size());
    std::vector<Replay> replays(in.views.size());
    forEachImage(pool, n, [&](int i) {
        const auto k = static_cast<std::size_t>(i);
        const Partners given = in.partnersOf ? in.partnersOf(k) : Partners{};
        const PartnerPool partners = given.load ? given.pool : PartnerPool{};
        replays[k] =
            drawSample("", pipeline, seed, in.indices[k], in.views[k].width, in.views[k].height, partners);
        checkFrames(replays[k], "");
    });
    const std::uint64_t memory = onHost ? machineMemory() : 0;
    if (memory == 0) return replays;
    std::uint64_t bytes = 0;
    for (std::size_t k = 0; k < replays.size(); ++k) {
        int width = 0, height = 0;
        frameSize(replays[k], replays[k].ops.size(), width, height);
        bytes += std::uint64_t(width) * std::uint64_t(height) * std::uint64_t(in.views[k].channels);
    }
    if (bytes > memory)
        throw InputError("images: the " + std::to_string(replays.size()) + " outputs need " +
                         gigabytes(bytes) + ", more than this machine's memory (" + gigabytes(memory) +
                         " of RAM and swap): give the batch in smaller parts");
    return replays;
}

/// `partners` with the pool's image `self` being `source` (a non-owning pointer: the render ends
/// before it does), as auglab-cli apply binds its --image.
Partners withSelf(const Partners& partners, SourceLevels& source) {
    if (!partners.load) return {};
    return {partners.pool, [&source, &partners](std::uint64_t i, int w, int h) {
                return i == partners.pool.self ? std::shared_ptr<SourceLevels>(&source, [](SourceLevels*) {})
                                               : partners.load(i, w, h);
            }};
}

/// `replay` rendered on a single-threaded CPU backend from the image `view` shows, with
/// `partners` (whose image `pool.self` is the view itself). With `unchanged` given, a plan that
/// only copies the source (planIsCopy) sets it and renders nothing.
Image renderDrawn(const Replay& replay, const PixelView& view, const Partners& partners, bool* unchanged = nullptr) {
    RenderJob job{nullptr, buildFullPlan(replay, view.width, view.height), nullptr};
    if (unchanged && planIsCopy(job.plan, view.width, view.height)) {
        *unchanged = true;
        return {};
    }
    // Read in place: the array outlives the call, which only reads it.
    const std::unique_ptr<SourceLevels> source = sourceFromView(view);
    Image out;
    job.source = source.get();
    job.output = &out;
    if (needsPartners(job.plan)) {
        const Partners bound = withSelf(partners, *source);
        bindPartners(job.plan, source->channels(), bound.load ? bound.load : selfPartner(*source),
                     SourceSampling::Source);
    }
    // One thread: the caller's. A data loader runs one call per worker; a batch one per task.
    CpuBackend cpu(1);
    cpu.render(std::span<RenderJob>(&job, 1));
    return out;
}

}  // namespace

void checkFrames(const Replay& replay, const std::string& prefix) {
    // frameSize's walk, one op at a time: each op's frame is an image the render holds.
    int width = replay.imageWidth, height = replay.imageHeight;
    for (const ConcreteOp& op : replay.ops) {
        if (!op.applied) continue;
        opModule(op.id).frameAfter(op.params, width, height);
        if (width < 1 || height < 1 || overPixelLimit(height, width))
            throw InputError(
                prefix + opDesc(op.id).name + " makes a " + std::to_string(height) + " x " +
                std::to_string(width) + " image (H x W), " +
                (width < 1 || height < 1 ? std::string("not an image size") : "over " + pixelLimitText()));
    }
}

Image renderView(const Pipeline& pipeline, std::uint64_t seed, std::uint64_t index, const PixelView& view,
                 Replay* replayOut, const Partners& partners, bool* unchanged) {
    // Drawn for the view's size and checked before the source is copied.
    Replay replay = drawSample("image: ", pipeline, seed, index, view.width, view.height,
                               partners.load ? partners.pool : PartnerPool{});
    checkFrames(replay, "image: ");
    Image out = renderDrawn(replay, view, partners, unchanged);
    if (replayOut) *replayOut = std::move(replay);
    return out;
}

Image renderFile(const Pipeline& pipeline, std::uint64_t seed, std::uint64_t index, const std::filesystem::path& path,
                 Replay* replayOut, const Partners& partners) {
    const ImageFile file = readImageFile(path);
    const int width = file.info.width, height = file.info.height;
    Replay replay = drawSample("image: ", pipeline, seed, index, width, height,
                               partners.load ? partners.pool : PartnerPool{});
    checkFrames(replay, "image: ");
    RenderJob job{nullptr, buildFullPlan(replay, width, height), nullptr};
    const std::optional<PixelRect> region = planSourceRegion(job.plan, width, height);
    LoadedImage loaded = region ? decodeImageRegion(file.bytes, file.name, *region) : decodeImage(file.bytes, file.name);
    Image out;
    if (planIsCopy(job.plan, width, height)) {
        out = std::move(loaded.image);
    } else {
        SourceLevels source(std::move(loaded.image));
        job.source = &source;
        job.output = &out;
        if (needsPartners(job.plan)) {
            const Partners bound = withSelf(partners, source);
            bindPartners(job.plan, source.channels(), bound.load ? bound.load : selfPartner(source),
                         SourceSampling::Source);
        }
        CpuBackend cpu(1);
        cpu.render(std::span<RenderJob>(&job, 1));
    }
    if (replayOut) *replayOut = std::move(replay);
    return out;
}

std::vector<Image> renderBatchCpu(const Pipeline& pipeline, std::uint64_t seed, const BatchInput& in,
                                  int threads) {
    const int n = static_cast<int>(in.views.size());
    ThreadPool pool(poolSize(n, threads));
    const std::vector<Replay> replays = drawBatch(pool, pipeline, seed, in, true);
    std::vector<Image> out(in.views.size());
    forEachImage(pool, n, [&](int i) {
        const auto k = static_cast<std::size_t>(i);
        out[k] = renderDrawn(replays[k], in.views[k], in.partnersOf ? in.partnersOf(k) : Partners{});
    });
    return out;
}

#if defined(AUGLAB_PYTHON_CUDA)
namespace {
/// The process's CUDA backend, made on first use (a device context is expensive) and used by one
/// batch at a time.
Backend& cudaBackend(std::unique_lock<std::mutex>& lock) {
    static std::mutex mutex;
    static std::unique_ptr<Backend> backend;
    lock = std::unique_lock(mutex);
    if (!backend) backend = createCudaBackend();
    return *backend;
}

/// The batch's jobs for the CUDA backend, each with its source made on the engine's pool.
struct CudaJobs {
    std::vector<std::unique_ptr<SourceLevels>> sources;
    std::vector<Image> out;
    std::vector<RenderJob> jobs;

    CudaJobs(const Pipeline& pipeline, std::uint64_t seed, const BatchInput& in, int threads, bool onHost)
        : sources(in.views.size()), out(in.views.size()), jobs(in.views.size()) {
        const int n = static_cast<int>(in.views.size());
        ThreadPool pool(poolSize(n, threads));
        const std::vector<Replay> replays = drawBatch(pool, pipeline, seed, in, onHost);
        forEachImage(pool, n, [&](int i) {
            const auto k = static_cast<std::size_t>(i);
            sources[k] = std::make_unique<SourceLevels>(imageFromView(in.views[k]));
            SourceLevels& source = *sources[k];
            const Partners given = in.partnersOf ? in.partnersOf(k) : Partners{};
            const Partners partners = withSelf(given, source);
            jobs[k] = RenderJob(&source, buildFullPlan(replays[k], source.width(), source.height()), &out[k]);
            if (needsPartners(jobs[k].plan))
                bindPartners(jobs[k].plan, source.channels(),
                             partners.load ? partners.load : selfPartner(source), SourceSampling::Source);
        });
    }
};
}  // namespace

std::vector<Image> renderBatchCuda(const Pipeline& pipeline, std::uint64_t seed, const BatchInput& in,
                                   int threads) {
    CudaJobs c(pipeline, seed, in, threads, true);
    std::unique_lock<std::mutex> lock;
    cudaBackend(lock).render(std::span<RenderJob>(c.jobs));
    return std::move(c.out);
}

DeviceImages renderBatchCudaOnDevice(const Pipeline& pipeline, std::uint64_t seed, const BatchInput& in,
                                     int threads) {
    CudaJobs c(pipeline, seed, in, threads, false);
    std::unique_lock<std::mutex> lock;
    auto& device = dynamic_cast<CudaDeviceRenderer&>(cudaBackend(lock));
    return device.renderOnDevice(std::span<RenderJob>(c.jobs));
}
#else
namespace {
[[noreturn]] void notBuilt() {
    throw RuntimeError(
        "the CUDA backend is not built into this module (build it with CUDA: AUGLAB_CUDA=AUTO "
        "with nvcc on PATH)");
}
}  // namespace

std::vector<Image> renderBatchCuda(const Pipeline&, std::uint64_t, const BatchInput&, int) {
    notBuilt();
}

DeviceImages renderBatchCudaOnDevice(const Pipeline&, std::uint64_t, const BatchInput&, int) {
    notBuilt();
}
#endif

std::vector<TailedSample> withTails(std::vector<Image> out, const Pipeline& pipeline, std::uint64_t seed,
                                    const BatchInput& in, int threads, bool training) {
    std::vector<TailedSample> done(out.size());
    if (!training || !hasTrainingTail(pipeline)) {  // the images as they are: no pool to start
        for (std::size_t k = 0; k < out.size(); ++k) done[k] = withTail(std::move(out[k]), {});
        return done;
    }
    const int n = static_cast<int>(out.size());
    ThreadPool pool(poolSize(n, threads));
    forEachImage(pool, n, [&](int i) {
        const auto k = static_cast<std::size_t>(i);
        const Partners given = in.partnersOf ? in.partnersOf(k) : Partners{};
        const Replay replay = drawSample("", pipeline, seed, in.indices[k], in.views[k].width,
                                         in.views[k].height, given.load ? given.pool : PartnerPool{});
        done[k] = withTail(std::move(out[k]), appliedTail(pipeline, replay));
    });
    return done;
}

std::string replayText(const Pipeline& pipeline, std::uint64_t seed, std::uint64_t index, int width,
                       int height) {
    const Replay replay = drawSample("image: ", pipeline, seed, index, width, height, PartnerPool{});
    checkFrames(replay, "image: ");
    return serializeReplay(replay, inventedShare(buildFullPlan(replay, width, height)));
}

Image renderReplayOf(const Replay& replay, const PixelView& view) {
    if (replay.imageWidth != view.width || replay.imageHeight != view.height)
        throw InputError("the replay was drawn for a " + std::to_string(replay.imageWidth) + "x" +
                         std::to_string(replay.imageHeight) + " image, not " + std::to_string(view.width) +
                         "x" + std::to_string(view.height));
    checkFrames(replay, "replay: ");
    const std::unique_ptr<SourceLevels> source = sourceFromView(view);
    CpuBackend cpu(1);
    return renderReplay(replay, *source, cpu);
}

}  // namespace auglab::python
