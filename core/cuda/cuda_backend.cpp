// The CUDA backend: device probing, and render() as upload, launches, download. Host C++ compiled
// by the C++ compiler against the CUDA runtime API (statically linked cudart, so a binary without
// the NVIDIA driver starts, and cudaGetDeviceCount reports the missing driver); the kernels are in
// cuda_kernels.cu.

#include "cuda_backend.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda_batch.h"
#include "cuda_kernels.h"
#include "cuda_pixel.cuh"
#include "cuda_resources.h"
#include "error.h"
#include "host_steps.h"

#ifndef AUGLAB_CUDA_ARCHITECTURES
#define AUGLAB_CUDA_ARCHITECTURES "unknown"
#endif

namespace auglab {

namespace {

using namespace cuda;

constexpr int kDevice = 0;
/// Device memory one batch may use before the jobs are split into several batches.
constexpr std::size_t kBatchBudget = std::size_t(512) << 20;
/// Outputs are downloaded in this many groups, each with an event, so that the host copies one
/// group into its images while the next is still crossing the bus.
constexpr std::size_t kDownloadGroups = 8;

std::string versionText(int v) {
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string errorText(cudaError_t e) {
    (void)cudaGetLastError();
    return cudaGetErrorString(e);
}

BackendInfo probeDevice() {
    BackendInfo info{"cuda", true, false, ""};
    int count = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
        info.detail = "no CUDA device: cudaGetDeviceCount: " + errorText(e);
        if (e == cudaErrorInsufficientDriver)
            info.detail +=
                " (the NVIDIA driver is missing, or older than CUDA " + versionText(CUDART_VERSION) + ")";
        return info;
    }
    if (count == 0) {
        info.detail = "no CUDA device: cudaGetDeviceCount found none";
        return info;
    }
    cudaDeviceProp prop{};
    if (const cudaError_t e = cudaGetDeviceProperties(&prop, kDevice); e != cudaSuccess) {
        info.detail =
            "CUDA device " + std::to_string(kDevice) + " unusable: cudaGetDeviceProperties: " + errorText(e);
        return info;
    }
    const std::string device = std::string(prop.name) + ", compute capability " + std::to_string(prop.major) +
                               "." + std::to_string(prop.minor);
    if (const cudaError_t e = cudaSetDevice(kDevice); e != cudaSuccess) {
        info.detail = device + ": cudaSetDevice: " + errorText(e);
        return info;
    }
    if (const cudaError_t e = probeKernelImage(); e != cudaSuccess) {
        info.detail = device +
                      ": this build's kernels (architectures " AUGLAB_CUDA_ARCHITECTURES
                      ") cannot run on it: " +
                      errorText(e);
        return info;
    }
    int driver = 0;
    (void)cudaDriverGetVersion(&driver);
    char memory[32];
    std::snprintf(memory, sizeof memory, "%.1f GiB", static_cast<double>(prop.totalGlobalMem) / (1 << 30));
    info.available = true;
    info.detail = device + ", " + memory + ", driver CUDA " + versionText(driver) + ", runtime " +
                  versionText(CUDART_VERSION);
    if (count > 1) info.detail += " (device 0 of " + std::to_string(count) + ")";
    return info;
}

const char* passName(PassKind kind) {
    switch (kind) {
        case kSegment:
            return "warp and pixel ops";
        case kBlurRows:
            return "blur rows";
        case kBlurColumns:
            return "blur columns";
        case kMeanSum:
            return "mean sum";
        case kMeanLut:
            return "mean LUT";
        case kHistogram:
            return "histogram";
        case kEqualizeLut:
            return "equalisation tables";
        case kClaheHistogram:
            return "CLAHE tile histograms";
        case kClaheLut:
            return "CLAHE tables";
        case kIsoHistogram:
            return "ISO noise lightness counts";
        case kIsoLambda:
            return "ISO noise lambda";
        case kPcaMean:
            return "FancyPCA mean";
        case kPcaRowSums:
            return "FancyPCA row sums";
        case kPcaRowProducts:
            return "FancyPCA row products";
        case kPcaMatrix:
            return "FancyPCA matrix";
        case kFlareLayer:
            return "sun flare layer";
        case kFlareRows:
            return "sun flare blur rows";
        case kFlareColumns:
            return "sun flare blur columns";
        case kFlareFade:
            return "sun flare fade";
        case kMedian:
            return "median";
        case kConvolve:
            return "convolution";
        case kStoreFloats:
            return "store floats";
        default:
            return "unknown pass";
    }
}

/// Renders on device 0: each batch of jobs is laid out by buildDeviceBatch, uploaded from pinned
/// memory, run by the kernels on one stream and downloaded in groups. Buffers only grow, so a grid
/// rendered again and again (a slider drag) allocates nothing after the first frame. One render at
/// a time; the device is selected on the calling thread at each call.
class CudaBackend final : public Backend, public CudaSheetRenderer, public CudaDeviceRenderer {
public:
    CudaBackend() : device_(selectDevice()) {}

    std::string name() const override { return "cuda"; }

    void render(std::span<RenderJob> jobs) override {
        withHostSteps(jobs, [this](std::span<RenderJob> j) { renderJobs(j); });
    }

    void renderSheet(SheetLayout& layout, CudaSheetTarget& target) override {
        withHostSteps(layout.jobs, [&](std::span<RenderJob> j) { renderSheetJobs(layout, j, target); });
    }

    DeviceImages renderOnDevice(std::span<RenderJob> jobs) override {
        return withHostSteps(jobs, [this](std::span<RenderJob> j) { return renderJobsOnDevice(j); });
    }

private:
    static bool anyHostStep(std::span<const RenderJob> jobs) {
        return std::any_of(jobs.begin(), jobs.end(), [](const RenderJob& j) { return hasHostStep(j.plan); });
    }

    /// `finish(jobs)` on the device, one render at a time; when plans have steps the host runs
    /// (compression, host_steps.h), the device renders the parts before them first and `finish` gets
    /// the jobs that remain.
    template <typename Finish>
    std::invoke_result_t<Finish, std::span<RenderJob>> withHostSteps(std::span<RenderJob> jobs,
                                                                     Finish finish) {
        std::lock_guard lock(mutex_);
        check(cudaSetDevice(device_), "cudaSetDevice");
        if (!anyHostStep(jobs)) return finish(jobs);
        HostStepResolver host;
        std::vector<RenderJob> resolved =
            host.resolve(jobs, [this](std::span<RenderJob> part) { renderJobs(part); });
        return finish(std::span<RenderJob>(resolved));
    }

    void renderJobs(std::span<RenderJob> jobs) {
        for (std::span<RenderJob> batch : splitBatches(jobs, kBatchBudget)) {
            try {
                renderBatch(batch);
            } catch (...) {
                // Let queued copies finish before the staging buffers can be reused or freed.
                (void)cudaStreamSynchronize(stream_.get());
                (void)cudaGetLastError();
                throw;
            }
        }
    }

    /// The grid of `jobs` (layout.jobs, or those with their host steps resolved), in the layout's places.
    void renderSheetJobs(SheetLayout& layout, std::span<RenderJob> jobs, CudaSheetTarget& target) {
        const auto surface =
            static_cast<cudaSurfaceObject_t>(target.map(stream_.get(), layout.width, layout.height));
        try {
            check(launchSheetFill(surface, layout.width, layout.height,
                                  packTexel(kSheetGapGray, kSheetGapGray, kSheetGapGray, 255), stream_.get()),
                  "kernel launch (grid gaps)");
            const std::vector<std::array<int, 2>> positions = jobPositions(layout);
            std::size_t first = 0;
            for (std::span<RenderJob> batch : splitBatches(jobs, kBatchBudget)) {
                DeviceBatch b = buildDeviceBatch(batch);
                const PlacementLaunch place = addPlacements(
                    b, std::span(positions).subspan(first, batch.size()), layout.width, layout.height);
                first += batch.size();
                uploadAndLaunch(b);
                check(launchSheetPlace(surface, arena_.data(), place.placements, place.count, place.maxWidth,
                                       place.maxHeight, stream_.get()),
                      "kernel launch (placing tiles in the grid)");
                // The next batch reuses the pinned staging buffer and the arena.
                check(cudaStreamSynchronize(stream_.get()),
                      "cudaStreamSynchronize (a kernel or copy failed)");
            }
            // All written (a grid without tiles still has its gaps) before the target is released.
            check(cudaStreamSynchronize(stream_.get()), "cudaStreamSynchronize (a kernel failed)");
        } catch (...) {
            (void)cudaStreamSynchronize(stream_.get());
            (void)cudaGetLastError();
            target.unmap(stream_.get(), true);
            throw;
        }
        target.unmap(stream_.get(), false);
    }

    /// The outputs of `jobs` copied from the arena, batch by batch, into one allocation, packed.
    /// Every batch is laid out first, so that the allocation's size is known before the first
    /// launch.
    DeviceImages renderJobsOnDevice(std::span<RenderJob> jobs) {
        std::vector<DeviceBatch> batches;
        for (std::span<RenderJob> batch : splitBatches(jobs, kBatchBudget))
            batches.push_back(buildDeviceBatch(batch));
        DeviceImages out;
        out.device = device_;
        std::size_t total = 0;
        for (const DeviceBatch& b : batches)
            for (const OutputDownload& o : b.outputs) {
                DeviceImages::Item item;
                item.offset = total;
                if (o.rendered) {
                    item.width = o.width;
                    item.height = o.height;
                    item.channels = o.channels;
                }
                total += item.bytes();
                out.items.push_back(item);
            }
        if (total) {
            void* p = nullptr;
            check(cudaMalloc(&p, total), "cudaMalloc of " + std::to_string(total >> 20) + " MiB (outputs)");
            out.memory = std::shared_ptr<unsigned char>(static_cast<unsigned char*>(p),
                                                        [](unsigned char* q) { (void)cudaFree(q); });
        }
        std::size_t item = 0;
        try {
            for (const DeviceBatch& b : batches) {
                uploadAndLaunch(b);
                for (const OutputDownload& o : b.outputs) {
                    const DeviceImages::Item& to = out.items[item++];
                    if (to.bytes())
                        check(cudaMemcpyAsync(out.memory.get() + to.offset, arena_.data() + o.offset,
                                              to.bytes(), cudaMemcpyDeviceToDevice, stream_.get()),
                              "cudaMemcpyAsync (outputs on the device)");
                }
                // The next batch stages its upload in the pinned buffer and reuses the arena.
                check(cudaStreamSynchronize(stream_.get()),
                      "cudaStreamSynchronize (a kernel or copy failed)");
            }
        } catch (...) {
            (void)cudaStreamSynchronize(stream_.get());
            (void)cudaGetLastError();
            throw;
        }
        return out;
    }

    static int selectDevice() {
        check(cudaSetDevice(kDevice), "cudaSetDevice");
        return kDevice;
    }

    void upload(const DeviceBatch& b) {
        upload_.reserve(b.levelBytes + b.blob.size());
        // Each level goes up as soon as it is staged, so staging the next one overlaps its transfer.
        for (const LevelUpload& l : b.levels) {
            const Image& img = *l.image;
            const std::size_t rowBytes =
                static_cast<std::size_t>(img.width) * static_cast<std::size_t>(img.channels);
            for (int y = 0; y < img.height; ++y)
                std::memcpy(upload_.data() + l.offset + static_cast<std::size_t>(y) * rowBytes, img.row(y),
                            rowBytes);
            check(cudaMemcpyAsync(arena_.data() + l.offset, upload_.data() + l.offset,
                                  rowBytes * static_cast<std::size_t>(img.height), cudaMemcpyHostToDevice,
                                  stream_.get()),
                  "cudaMemcpyAsync (source levels)");
        }
        if (!b.blob.empty()) {
            std::memcpy(upload_.data() + b.levelBytes, b.blob.data(), b.blob.size());
            check(cudaMemcpyAsync(arena_.data() + b.blobOffset, upload_.data() + b.levelBytes, b.blob.size(),
                                  cudaMemcpyHostToDevice, stream_.get()),
                  "cudaMemcpyAsync (plans)");
        }
        if (b.scratchBytes)
            check(cudaMemsetAsync(arena_.data() + b.scratch, 0, b.scratchBytes, stream_.get()),
                  "cudaMemsetAsync");
    }

    void download(const DeviceBatch& b) {
        // The outputs lie back to back in the arena and keep their relative offsets in the pinned
        // buffer, so a group of them is one copy.
        download_.reserve(std::max<std::size_t>(b.outputBytes, 1));
        const std::size_t n = b.outputs.size();
        const std::size_t groups = std::min(kDownloadGroups, n);
        while (events_.size() < groups) events_.emplace_back();
        auto groupBegin = [&](std::size_t g) { return g * n / groups; };
        for (std::size_t g = 0; g < groups; ++g) {
            Offset begin = 0, end = 0;
            for (std::size_t i = groupBegin(g); i < groupBegin(g + 1); ++i) {
                const OutputDownload& o = b.outputs[i];
                if (!o.rendered || !o.bytes()) continue;
                if (begin == end) begin = o.offset;
                end = o.offset + o.bytes();
            }
            if (end > begin)
                check(cudaMemcpyAsync(download_.data() + (begin - b.outputBase), arena_.data() + begin,
                                      end - begin, cudaMemcpyDeviceToHost, stream_.get()),
                      "cudaMemcpyAsync (outputs)");
            events_[g].record(stream_);
        }
        for (std::size_t g = 0; g < groups; ++g) {
            events_[g].synchronize();
            for (std::size_t i = groupBegin(g); i < groupBegin(g + 1); ++i) {
                const OutputDownload& o = b.outputs[i];
                if (!o.rendered) {
                    *o.output = Image();
                    continue;
                }
                Image out(o.width, o.height, o.channels);
                if (o.bytes())
                    std::memcpy(out.pixels.data(), download_.data() + (o.offset - b.outputBase), o.bytes());
                *o.output = std::move(out);
            }
        }
    }

    /// Queues a batch's upload and its kernel launches on the stream.
    void uploadAndLaunch(const DeviceBatch& b) {
        arena_.reserve(std::max<std::size_t>(b.arenaBytes, 1));
        upload(b);
        for (const DeviceLaunch& l : b.launches)
            check(launchPasses(l.kind, arena_.data(), l.passes, l.count, l.maxWidth, l.maxHeight,
                               stream_.get()),
                  std::string("kernel launch (") + passName(l.kind) + ")");
    }

    void renderBatch(std::span<RenderJob> jobs) {
        const DeviceBatch b = buildDeviceBatch(jobs);
        uploadAndLaunch(b);
        download(b);
    }

    int device_;
    std::mutex mutex_;
    DeviceStream stream_;
    DeviceBuffer arena_;
    PinnedBuffer upload_, download_;
    std::vector<DeviceEvent> events_;
};

}  // namespace

BackendInfo cudaBackendInfo() {
    static const BackendInfo info = probeDevice();
    if (const std::string lost = contextLostReason(); info.available && !lost.empty()) {
        // A kernel fault earlier in this process: every CUDA call fails from now on.
        BackendInfo dead = info;
        dead.available = false;
        dead.detail = info.detail + "; the CUDA context was lost earlier in this session (" + lost + ")";
        return dead;
    }
    return info;
}

void copyDeviceToHost(void* host, const void* device, std::size_t bytes) {
    if (bytes) check(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (device to host)");
}

std::shared_ptr<unsigned char> copyOnDevice(const void* device, std::size_t bytes) {
    void* p = nullptr;
    check(cudaMalloc(&p, std::max<std::size_t>(bytes, 1)),
          "cudaMalloc of " + std::to_string(bytes >> 20) + " MiB (a copy)");
    std::shared_ptr<unsigned char> copy(static_cast<unsigned char*>(p),
                                        [](unsigned char* q) { (void)cudaFree(q); });
    if (bytes) check(cudaMemcpy(p, device, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy (device to device)");
    return copy;
}

std::unique_ptr<Backend> createCudaBackend() {
    const BackendInfo info = cudaBackendInfo();
    if (!info.available) throw RuntimeError("the CUDA backend is not available: " + info.detail);
    return std::make_unique<CudaBackend>();
}

}  // namespace auglab
