#include "sampling.h"

#include <memory>
#include <mutex>
#include <span>

#include "contact_sheet.h"
#include "cpu_backend.h"
#include "error.h"
#include "realism.h"
#include "sampler.h"
#include "thread_pool.h"
#if defined(AUGLAB_PYTHON_CUDA)
#include "cuda_backend.h"
#endif

namespace auglab::python {

namespace {

/// Runs fn(i) for every i in [0, n) on `threads` threads; the exception of the lowest failing i
/// (prefixed with "images[i]: ") is rethrown, so that the error does not depend on scheduling.
template <typename Fn>
void forEachImage(int n, int threads, Fn fn) {
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
    ThreadPool pool(std::min(threads <= 0 ? 0 : threads, std::max(1, n)));
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

/// `partners` with the pool's image `self` being `source` (a non-owning pointer: the render ends
/// before it does), as auglab-cli apply binds its --image.
Partners withSelf(const Partners& partners, SourceLevels& source) {
    if (!partners.load) return {};
    return {partners.pool, [&source, &partners](std::uint64_t i, int w, int h) {
                return i == partners.pool.self ? std::shared_ptr<SourceLevels>(&source, [](SourceLevels*) {})
                                               : partners.load(i, w, h);
            }};
}

}  // namespace

Image renderView(const Pipeline& pipeline, std::uint64_t seed, std::uint64_t index, const PixelView& view,
                 Replay* replay, const Partners& partners) {
    SourceLevels source(imageFromView(view));
    // One thread: the caller's. A data loader runs one call per worker; a batch one per task.
    CpuBackend cpu(1);
    return renderSample(pipeline, source, seed, index, cpu, replay, withSelf(partners, source));
}

std::vector<Image> renderBatchCpu(const Pipeline& pipeline, std::uint64_t seed, const BatchInput& in,
                                  int threads) {
    const int n = static_cast<int>(in.views.size());
    std::vector<Image> out(in.views.size());
    forEachImage(n, threads, [&](int i) {
        const auto k = static_cast<std::size_t>(i);
        out[k] = renderView(pipeline, seed, in.indices[k], in.views[k], nullptr,
                            in.partnersOf ? in.partnersOf(k) : Partners{});
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

    CudaJobs(const Pipeline& pipeline, std::uint64_t seed, const BatchInput& in, int threads)
        : sources(in.views.size()), out(in.views.size()), jobs(in.views.size()) {
        forEachImage(static_cast<int>(in.views.size()), threads, [&](int i) {
            const auto k = static_cast<std::size_t>(i);
            sources[k] = std::make_unique<SourceLevels>(imageFromView(in.views[k]));
            SourceLevels& source = *sources[k];
            const Partners given = in.partnersOf ? in.partnersOf(k) : Partners{};
            const Partners partners = withSelf(given, source);
            const Replay replay =
                samplePipeline(pipeline, seed, in.indices[k], source.width(), source.height(), partners.pool);
            jobs[k] = RenderJob(&source, buildFullPlan(replay, source.width(), source.height()), &out[k]);
            if (needsPartners(jobs[k].plan))
                bindPartners(jobs[k].plan, source.channels(),
                             partners.load ? partners.load : selfPartner(source), SourceSampling::Source);
        });
    }
};
}  // namespace

std::vector<Image> renderBatchCuda(const Pipeline& pipeline, std::uint64_t seed, const BatchInput& in,
                                   int threads) {
    CudaJobs c(pipeline, seed, in, threads);
    std::unique_lock<std::mutex> lock;
    cudaBackend(lock).render(std::span<RenderJob>(c.jobs));
    return std::move(c.out);
}

DeviceImages renderBatchCudaOnDevice(const Pipeline& pipeline, std::uint64_t seed, const BatchInput& in,
                                     int threads) {
    CudaJobs c(pipeline, seed, in, threads);
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

std::string replayText(const Pipeline& pipeline, std::uint64_t seed, std::uint64_t index, int width,
                       int height) {
    const Replay replay = samplePipeline(pipeline, seed, index, width, height, PartnerPool{});
    return serializeReplay(replay, inventedShare(buildFullPlan(replay, width, height)));
}

Image renderReplayOf(const Replay& replay, const PixelView& view) {
    if (replay.imageWidth != view.width || replay.imageHeight != view.height)
        throw InputError("the replay was drawn for a " + std::to_string(replay.imageWidth) + "x" +
                         std::to_string(replay.imageHeight) + " image, not " + std::to_string(view.width) +
                         "x" + std::to_string(view.height));
    SourceLevels source(imageFromView(view));
    CpuBackend cpu(1);
    return renderReplay(replay, source, cpu);
}

}  // namespace auglab::python
