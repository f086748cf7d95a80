#pragma once
// The CUDA backend without a GPU: its batch layout (cuda_batch.cpp) and per-pixel maths
// (cuda_pixel.cuh) run on the host launch by launch (HostEmulatedCudaBackend), and a grid target on a
// plain CUDA array (DeviceArrayTarget, device rows only). For tests/test_cuda.cpp.

#if defined(AUGLAB_HAVE_CUDA)

#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

#include "backend.h"
#include "cuda_batch.h"
#include "cuda_pixel.cuh"
#include "cuda_resources.h"
#include "host_steps.h"

namespace auglab::testing {

/// The CUDA backend's batch layout and per-pixel maths, executed on the host: each launch's passes
/// one after the other, every pixel of a pass by the same function the kernel calls. The arena
/// starts filled with a junk pattern, so reading memory the device would not have written shows.
class HostEmulatedCudaBackend final : public Backend {
public:
    explicit HostEmulatedCudaBackend(std::size_t batchBudget = std::size_t(512) << 20)
        : budget_(batchBudget) {}
    std::string name() const override { return "cuda (host emulation)"; }

    void render(std::span<RenderJob> jobs) override {
        // Compression runs on the host between the device's parts of the plan, as CudaBackend does it.
        if (std::none_of(jobs.begin(), jobs.end(), [](const RenderJob& j) { return hasHostStep(j.plan); }))
            return renderBatches(jobs);
        HostStepResolver host;
        std::vector<RenderJob> resolved =
            host.resolve(jobs, [this](std::span<RenderJob> part) { renderBatches(part); });
        renderBatches(resolved);
    }

    void renderBatches(std::span<RenderJob> jobs) {
        using namespace auglab::cuda;
        for (std::span<RenderJob> batch : splitBatches(jobs, budget_)) {
            ++batches;
            const DeviceBatch b = buildDeviceBatch(batch);
            std::vector<unsigned char> arena = run(b);
            unsigned char* a = arena.data();
            // The download, as the backend does it: the output region in one piece.
            const std::vector<unsigned char> outputs(a + b.outputBase, a + b.outputBase + b.outputBytes);
            for (const OutputDownload& o : b.outputs) {
                if (!o.rendered) {
                    *o.output = Image();
                    continue;
                }
                if (o.offset < b.outputBase || o.offset + o.bytes() > b.outputBase + b.outputBytes)
                    throw std::logic_error("an output lies outside the output region");
                Image out(o.width, o.height, o.channels);
                if (o.bytes())
                    std::memcpy(out.pixels.data(), outputs.data() + (o.offset - b.outputBase), o.bytes());
                *o.output = std::move(out);
            }
        }
    }

    /// CudaBackend::renderSheet on the host: the gap fill, then batch by batch the passes and the
    /// placement kernel's texels, into an RGBA image standing for the surface (a texel's word is
    /// little-endian, R first, as on the device).
    Image renderSheetTexture(SheetLayout& layout) {
        using namespace auglab::cuda;
        Image texture(layout.width, layout.height, 4);
        auto put = [&](int x, int y, std::uint32_t texel) {
            if (x < 0 || y < 0 || x >= texture.width || y >= texture.height)
                throw std::logic_error("a texel outside the grid texture");
            std::memcpy(texture.at(x, y), &texel, 4);
        };
        for (int y = 0; y < layout.height; ++y)
            for (int x = 0; x < layout.width; ++x)
                put(x, y, packTexel(kSheetGapGray, kSheetGapGray, kSheetGapGray, 255));
        const std::vector<std::array<int, 2>> positions = jobPositions(layout);
        std::size_t first = 0;
        for (std::span<RenderJob> batch : splitBatches(layout.jobs, budget_)) {
            ++batches;
            DeviceBatch b = buildDeviceBatch(batch);
            const PlacementLaunch launch = addPlacements(b, std::span(positions).subspan(first, batch.size()),
                                                         layout.width, layout.height);
            first += batch.size();
            std::vector<unsigned char> arena = run(b);
            const auto* placements =
                reinterpret_cast<const DevicePlacement*>(arena.data() + launch.placements);
            for (int i = 0; i < launch.count; ++i) {
                const DevicePlacement& p = placements[i];
                if (p.width > launch.maxWidth || p.height > launch.maxHeight)
                    throw std::logic_error("a placement larger than its launch");
                for (int y = 0; y < p.height; ++y)
                    for (int x = 0; x < p.width; ++x)
                        put(p.x + x, p.y + y, placedTexel(arena.data(), p, x, y));
            }
        }
        return texture;
    }

    int batches = 0;

private:
    /// The upload and the launches of one batch; returns the arena as the device leaves it.
    static std::vector<unsigned char> run(const cuda::DeviceBatch& b) {
        using namespace auglab::cuda;
        std::vector<unsigned char> arena(b.arenaBytes, 0xA5);
        for (const LevelUpload& l : b.levels) {
            const std::size_t rowBytes = std::size_t(l.image->width) * std::size_t(l.image->channels);
            for (int y = 0; y < l.image->height; ++y)
                std::memcpy(arena.data() + l.offset + std::size_t(y) * rowBytes, l.image->row(y), rowBytes);
        }
        if (!b.blob.empty()) std::memcpy(arena.data() + b.blobOffset, b.blob.data(), b.blob.size());
        if (b.scratchBytes) std::memset(arena.data() + b.scratch, 0, b.scratchBytes);
        unsigned char* a = arena.data();
        for (const DeviceLaunch& l : b.launches) {
            const auto* passes = reinterpret_cast<const DevicePass*>(a + l.passes);
            for (int i = 0; i < l.count; ++i) {
                const DevicePass& p = passes[i];
                std::uint64_t sum = 0;
                if (l.kind == kMeanLut) {
                    for (int v = 0; v < 256; ++v) meanLutEntry(a, p, v);
                    continue;
                }
                if (l.kind == kEqualizeLut) {
                    for (int c = 0; c < (p.equalizeByChannels ? 3 : 1); ++c) equalizeTable(a, p, c);
                    continue;
                }
                if (l.kind == kClaheLut) {
                    for (int k = 0; k < p.tilesX * p.tilesY; ++k) claheTileTable(a, p, k);
                    continue;
                }
                if (l.kind == kIsoLambda) {
                    isoLambda(a, p);
                    continue;
                }
                if (l.kind == kPcaMean) {
                    for (int c = 0; c < 3; ++c) pcaMean(a, p, c);
                    continue;
                }
                if (l.kind == kPcaMatrix) {
                    pcaMatrix(a, p);
                    continue;
                }
                if (l.kind == kPcaRowSums || l.kind == kPcaRowProducts) {
                    for (int y = 0; y < p.height; ++y)
                        l.kind == kPcaRowSums ? pcaRowSums(a, p, y) : pcaRowProducts(a, p, y);
                    continue;
                }
                for (int y = 0; y < p.height; ++y)
                    for (int x = 0; x < p.width; ++x) {
                        if (l.kind == kSegment)
                            segmentPixel(a, p, x, y);
                        else if (l.kind == kBlurRows)
                            blurRowPixel(a, p, x, y);
                        else if (l.kind == kBlurColumns)
                            blurColumnPixel(a, p, x, y);
                        else if (l.kind == kMedian)
                            medianPixel(a, p, x, y);
                        else if (l.kind == kConvolve)
                            convolvePixel(a, p, x, y);
                        else if (l.kind == kStoreFloats)
                            storeFloatsPixel(a, p, x, y);
                        else if (l.kind == kFlareLayer)
                            flareLayerPixel(a, p, x, y);
                        else if (l.kind == kFlareRows)
                            flareRowPixel(a, p, x, y);
                        else if (l.kind == kFlareColumns)
                            flareColumnPixel(a, p, x, y);
                        else if (l.kind == kFlareFade)
                            flareFadePixel(a, p, x, y);
                        else if (l.kind == kClaheHistogram)
                            ++at<std::uint32_t>(a, p.sum)[claheBin(a, p, x, y)];
                        else if (l.kind == kIsoHistogram)
                            ++at<std::uint32_t>(a, p.sum)[isoPairBin(a, p, x, y)];
                        else if (l.kind == kHistogram) {
                            int bins[3];
                            const int n = histogramBins(a, p, x, y, bins);
                            for (int i = 0; i < n; ++i) ++at<std::uint32_t>(a, p.sum)[bins[i]];
                        } else
                            sum += std::uint64_t(rgbSumOf(a, p, x, y));
                    }
                if (l.kind == kMeanSum) *at<std::uint64_t>(a, p.sum) += sum;
            }
        }
        return arena;
    }

    std::size_t budget_;
};

/// A CudaSheetTarget on a plain CUDA array, the kind of array a registered GL texture maps to: the
/// device's grid path without OpenGL. Read back after the render.
class DeviceArrayTarget final : public CudaSheetTarget {
public:
    DeviceArrayTarget() = default;
    DeviceArrayTarget(const DeviceArrayTarget&) = delete;
    DeviceArrayTarget& operator=(const DeviceArrayTarget&) = delete;
    ~DeviceArrayTarget() override { release(); }

    std::uint64_t map(void*, int width, int height) override {
        release();
        const cudaChannelFormatDesc format = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
        cuda::check(cudaMallocArray(&array_, &format, std::size_t(width), std::size_t(height),
                                    cudaArraySurfaceLoadStore),
                    "cudaMallocArray");
        width_ = width;
        height_ = height;
        cudaResourceDesc resource{};
        resource.resType = cudaResourceTypeArray;
        resource.res.array.array = array_;
        cuda::check(cudaCreateSurfaceObject(&surface_, &resource), "cudaCreateSurfaceObject");
        ++maps;
        return surface_;
    }
    void unmap(void*, bool failed) override {
        ++unmaps;
        unmappedAfterFailure = failed;
    }
    Image read() const {
        Image out(width_, height_, 4);
        cuda::check(
            cudaMemcpy2DFromArray(out.pixels.data(), out.stride, array_, 0, 0, std::size_t(width_) * 4,
                                  std::size_t(height_), cudaMemcpyDeviceToHost),
            "cudaMemcpy2DFromArray");
        return out;
    }

    int maps = 0, unmaps = 0;
    bool unmappedAfterFailure = false;

private:
    void release() {
        if (surface_) (void)cudaDestroySurfaceObject(surface_);
        if (array_) (void)cudaFreeArray(array_);
        surface_ = 0;
        array_ = nullptr;
    }
    cudaArray_t array_ = nullptr;
    cudaSurfaceObject_t surface_ = 0;
    int width_ = 0, height_ = 0;
};

}  // namespace auglab::testing

#endif  // AUGLAB_HAVE_CUDA
