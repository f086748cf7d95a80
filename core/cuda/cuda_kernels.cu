// The kernels: thin grid loops around the per-pixel maths of cuda_pixel.cuh. A block works on one
// output (blockIdx.z picks its pass) and holds that pass's descriptor in shared memory, so the
// per-pixel code reads its parameters from there rather than from global memory. Threads of a
// warp take neighbouring pixels of a row: their output bytes and, for the warp, their source taps
// are close together, which is as coalesced as an interleaved 3-byte image allows.

#include <algorithm>

#include "cuda_kernels.h"
#include "cuda_pixel.cuh"

namespace auglab::cuda {

namespace {

constexpr int kBlockX = 32, kBlockY = 8, kBlockThreads = kBlockX * kBlockY;
constexpr int kMaxGridY = 65535, kMaxGridZ = 65535;

static_assert(sizeof(DevicePass) % sizeof(std::uint32_t) == 0, "DevicePass is copied as 32-bit words");

/// All threads of the block copy the block's pass into shared memory.
__device__ void loadPass(const DevicePass* src, DevicePass& dst) {
    const int words = static_cast<int>(sizeof(DevicePass) / sizeof(std::uint32_t));
    const int thread = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
    const int threads = static_cast<int>(blockDim.x * blockDim.y);
    const auto* from = reinterpret_cast<const std::uint32_t*>(src);
    auto* to = reinterpret_cast<std::uint32_t*>(&dst);
    for (int i = thread; i < words; i += threads) to[i] = from[i];
    __syncthreads();
}

/// Segment, blur rows and columns, median, convolution, store: one thread per output pixel, rows strided over
/// gridDim.y.
template <int Kind>
__global__ void __launch_bounds__(kBlockThreads)
    pixelPassKernel(unsigned char* arena, const DevicePass* passes) {
    __shared__ DevicePass pass;
    loadPass(passes + blockIdx.z, pass);
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (x >= pass.width) return;
    for (int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); y < pass.height;
         y += static_cast<int>(gridDim.y * blockDim.y)) {
        if constexpr (Kind == kSegment)
            segmentPixel(arena, pass, x, y);
        else if constexpr (Kind == kBlurRows)
            blurRowPixel(arena, pass, x, y);
        else if constexpr (Kind == kBlurColumns)
            blurColumnPixel(arena, pass, x, y);
        else if constexpr (Kind == kMedian)
            medianPixel(arena, pass, x, y);
        else if constexpr (Kind == kConvolve)
            convolvePixel(arena, pass, x, y);
        else if constexpr (Kind == kFlareLayer)
            flareLayerPixel(arena, pass, x, y);
        else if constexpr (Kind == kFlareRows)
            flareRowPixel(arena, pass, x, y);
        else if constexpr (Kind == kFlareColumns)
            flareColumnPixel(arena, pass, x, y);
        else if constexpr (Kind == kFlareFade)
            flareFadePixel(arena, pass, x, y);
        else
            storeFloatsPixel(arena, pass, x, y);
    }
}

/// The integer RGB sum of an output: per-thread partial sums, a warp shuffle reduction, one 64-bit
/// atomic add per block. Integer addition is associative, so the result does not depend on the
/// order in which blocks finish (unlike a float reduction).
__global__ void __launch_bounds__(kBlockThreads)
    meanSumKernel(unsigned char* arena, const DevicePass* passes) {
    __shared__ DevicePass pass;
    __shared__ unsigned long long warpSums[kBlockThreads / 32];
    loadPass(passes + blockIdx.z, pass);
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    unsigned long long sum = 0;
    if (x < pass.width)
        for (int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); y < pass.height;
             y += static_cast<int>(gridDim.y * blockDim.y))
            sum += static_cast<unsigned long long>(rgbSumOf(arena, pass, x, y));
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    const int thread = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
    if (thread % 32 == 0) warpSums[thread / 32] = sum;
    __syncthreads();
    if (thread == 0) {
        unsigned long long total = 0;
        for (int w = 0; w < kBlockThreads / 32; ++w) total += warpSums[w];
        if (total) atomicAdd(at<unsigned long long>(arena, pass.sum), total);
    }
}

/// EqualizeStep's counts: each block counts its pixels into shared bins, then adds its non-zero bins
/// to the output's (integer counts: the result does not depend on the order blocks finish in).
__global__ void __launch_bounds__(kBlockThreads)
    histogramKernel(unsigned char* arena, const DevicePass* passes) {
    __shared__ DevicePass pass;
    __shared__ unsigned int bins[768];
    const int thread = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
    for (int i = thread; i < 768; i += kBlockThreads) bins[i] = 0;
    loadPass(passes + blockIdx.z, pass);  // synchronises the block
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (x < pass.width)
        for (int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); y < pass.height;
             y += static_cast<int>(gridDim.y * blockDim.y)) {
            int b[3];
            const int n = histogramBins(arena, pass, x, y, b);
            for (int i = 0; i < n; ++i) atomicAdd(&bins[b[i]], 1u);
        }
    __syncthreads();
    for (int i = thread; i < 768; i += kBlockThreads)
        if (bins[i]) atomicAdd(at<unsigned int>(arena, pass.sum) + i, bins[i]);
}

/// kClaheHistogram and kIsoHistogram: each pixel adds one to a count of its output's, atomically
/// (integer counts: the result does not depend on the order of the adds).
template <int Kind>
__global__ void __launch_bounds__(kBlockThreads) countKernel(unsigned char* arena, const DevicePass* passes) {
    __shared__ DevicePass pass;
    loadPass(passes + blockIdx.z, pass);
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (x >= pass.width) return;
    for (int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); y < pass.height;
         y += static_cast<int>(gridDim.y * blockDim.y)) {
        const int bin = Kind == kClaheHistogram ? claheBin(arena, pass, x, y) : isoPairBin(arena, pass, x, y);
        atomicAdd(at<unsigned int>(arena, pass.sum) + bin, 1u);
    }
}

/// kPcaRowSums and kPcaRowProducts: one thread per row, summing it left to right as the CPU does.
template <int Kind>
__global__ void __launch_bounds__(256) rowKernel(unsigned char* arena, const DevicePass* passes) {
    __shared__ DevicePass pass;
    loadPass(passes + blockIdx.z, pass);
    const int y = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (y >= pass.height) return;
    if constexpr (Kind == kPcaRowSums)
        pcaRowSums(arena, pass, y);
    else
        pcaRowProducts(arena, pass, y);
}

/// kPcaMean: FancyPCA's float32 means, each a running sum over the pixels in order (numpy's, which the
/// CPU reproduces), so one thread per channel adds them up; the block stages the pixels through
/// shared memory in coalesced chunks so that those three threads wait on no global load. The
/// arithmetic is pcaMean's (cuda_image_stats.cuh), which the host emulation runs.
constexpr int kPcaChunk = 4096;  ///< pixels per chunk: 12 KB of shared memory
__global__ void __launch_bounds__(256) pcaMeanKernel(unsigned char* arena, const DevicePass* passes) {
    __shared__ DevicePass pass;
    __shared__ unsigned char chunk[kPcaChunk * 3];
    __shared__ float unit[256];
    const int t = static_cast<int>(threadIdx.x);
    unit[t] = shared::unitOf(t);          // blockDim.x is 256
    loadPass(passes + blockIdx.z, pass);  // synchronises the block
    const long long pixels = static_cast<long long>(pass.width) * pass.height;
    const unsigned char* image = at<unsigned char>(arena, pass.image);
    float sum = 0;
    for (long long first = 0; first < pixels; first += kPcaChunk) {
        const int count = static_cast<int>(pixels - first < kPcaChunk ? pixels - first : kPcaChunk);
        for (int i = t; i < count * 3; i += static_cast<int>(blockDim.x))
            chunk[i] = image[(first + i / 3) * pass.channels + i % 3];
        __syncthreads();
        if (t < 3)
            for (int i = 0; i < count; ++i) sum += unit[chunk[i * 3 + t]];
        __syncthreads();
    }
    if (t < 3) {
        const double n = static_cast<double>(pass.width) * static_cast<double>(pass.height);
        at<float>(arena, pass.lut)[t] = static_cast<float>(static_cast<double>(sum) / n);
    }
}

/// kClaheLut (a thread per tile), kIsoLambda and kPcaMatrix (one thread).
__global__ void __launch_bounds__(256) statsKernel(unsigned char* arena, const DevicePass* passes) {
    __shared__ DevicePass pass;
    loadPass(passes + blockIdx.z, pass);
    const int t = static_cast<int>(threadIdx.x);
    switch (pass.kind) {
        case kClaheLut:
            for (int k = t; k < pass.tilesX * pass.tilesY; k += static_cast<int>(blockDim.x))
                claheTileTable(arena, pass, k);
            return;
        case kIsoLambda:
            if (t == 0) isoLambda(arena, pass);
            return;
        case kPcaMatrix:
            if (t == 0) pcaMatrix(arena, pass);
            return;
        default:
            return;
    }
}

/// One thread per table (a sequential scan of 256 counts).
__global__ void __launch_bounds__(256) equalizeLutKernel(unsigned char* arena, const DevicePass* passes) {
    __shared__ DevicePass pass;
    loadPass(passes + blockIdx.z, pass);
    const int c = static_cast<int>(threadIdx.x);
    if (c < (pass.equalizeByChannels ? 3 : 1)) equalizeTable(arena, pass, c);
}

/// One thread per LUT entry.
__global__ void __launch_bounds__(256) meanLutKernel(unsigned char* arena, const DevicePass* passes) {
    __shared__ DevicePass pass;
    loadPass(passes + blockIdx.z, pass);
    meanLutEntry(arena, pass, static_cast<int>(threadIdx.x));
}

/// The grid's gap colour on every texel.
__global__ void __launch_bounds__(kBlockThreads)
    sheetFillKernel(cudaSurfaceObject_t surface, int width, int height, std::uint32_t texel) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    // x in bytes; an out-of-range write is dropped rather than trapping (the host checks anyway).
    if (x < width && y < height) surf2Dwrite(texel, surface, x * 4, y, cudaBoundaryModeZero);
}

/// One output per blockIdx.z, copied into its place (rows strided over gridDim.y).
__global__ void __launch_bounds__(kBlockThreads)
    sheetPlaceKernel(cudaSurfaceObject_t surface, unsigned char* arena, const DevicePlacement* placements) {
    const DevicePlacement p = placements[blockIdx.z];
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (x >= p.width) return;
    for (int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); y < p.height;
         y += static_cast<int>(gridDim.y * blockDim.y))
        surf2Dwrite(placedTexel(arena, p, x, y), surface, (p.x + x) * 4, p.y + y, cudaBoundaryModeZero);
}

}  // namespace

cudaError_t launchSheetFill(cudaSurfaceObject_t surface, int width, int height, std::uint32_t texel,
                            cudaStream_t stream) {
    if (width <= 0 || height <= 0) return cudaSuccess;
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid(static_cast<unsigned>((width + kBlockX - 1) / kBlockX),
                    static_cast<unsigned>((height + kBlockY - 1) / kBlockY));
    if (grid.y > static_cast<unsigned>(kMaxGridY)) return cudaErrorInvalidValue;  // over 524,280 rows
    sheetFillKernel<<<grid, block, 0, stream>>>(surface, width, height, texel);
    return cudaGetLastError();
}

cudaError_t launchSheetPlace(cudaSurfaceObject_t surface, unsigned char* arena, Offset placements, int count,
                             int maxWidth, int maxHeight, cudaStream_t stream) {
    if (count <= 0 || maxWidth <= 0 || maxHeight <= 0) return cudaSuccess;
    const auto* first = reinterpret_cast<const DevicePlacement*>(arena + placements);
    const dim3 block(kBlockX, kBlockY);
    for (int begin = 0; begin < count; begin += kMaxGridZ) {
        const int chunk = std::min(kMaxGridZ, count - begin);
        const dim3 grid(static_cast<unsigned>((maxWidth + kBlockX - 1) / kBlockX),
                        static_cast<unsigned>(std::min(kMaxGridY, (maxHeight + kBlockY - 1) / kBlockY)),
                        static_cast<unsigned>(chunk));
        sheetPlaceKernel<<<grid, block, 0, stream>>>(surface, arena, first + begin);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

cudaError_t launchPasses(PassKind kind, unsigned char* arena, Offset passes, int count, int maxWidth,
                         int maxHeight, cudaStream_t stream) {
    if (count <= 0) return cudaSuccess;
    const auto* first = reinterpret_cast<const DevicePass*>(arena + passes);
    const bool perRow = kind == kPcaRowSums || kind == kPcaRowProducts;
    const bool perPixel = !perRow && kind != kMeanLut && kind != kEqualizeLut && kind != kClaheLut &&
                          kind != kIsoLambda && kind != kPcaMean && kind != kPcaMatrix;
    if ((perPixel || perRow) && (maxWidth <= 0 || maxHeight <= 0)) return cudaSuccess;  // nothing to write
    const dim3 block = perPixel ? dim3(kBlockX, kBlockY) : dim3(256);
    for (int begin = 0; begin < count; begin += kMaxGridZ) {
        const int chunk = std::min(kMaxGridZ, count - begin);
        const dim3 grid =
            perPixel ? dim3(static_cast<unsigned>((maxWidth + kBlockX - 1) / kBlockX),
                            static_cast<unsigned>(std::min(kMaxGridY, (maxHeight + kBlockY - 1) / kBlockY)),
                            static_cast<unsigned>(chunk))
            : perRow ? dim3(static_cast<unsigned>((maxHeight + 255) / 256), 1, static_cast<unsigned>(chunk))
                     : dim3(1, 1, static_cast<unsigned>(chunk));
        const DevicePass* p = first + begin;
        switch (kind) {
            case kSegment:
                pixelPassKernel<kSegment><<<grid, block, 0, stream>>>(arena, p);
                break;
            case kBlurRows:
                pixelPassKernel<kBlurRows><<<grid, block, 0, stream>>>(arena, p);
                break;
            case kBlurColumns:
                pixelPassKernel<kBlurColumns><<<grid, block, 0, stream>>>(arena, p);
                break;
            case kMedian:
                pixelPassKernel<kMedian><<<grid, block, 0, stream>>>(arena, p);
                break;
            case kConvolve:
                pixelPassKernel<kConvolve><<<grid, block, 0, stream>>>(arena, p);
                break;
            case kStoreFloats:
                pixelPassKernel<kStoreFloats><<<grid, block, 0, stream>>>(arena, p);
                break;
            case kMeanSum:
                meanSumKernel<<<grid, block, 0, stream>>>(arena, p);
                break;
            case kMeanLut:
                meanLutKernel<<<grid, block, 0, stream>>>(arena, p);
                break;
            case kHistogram:
                histogramKernel<<<grid, block, 0, stream>>>(arena, p);
                break;
            case kEqualizeLut:
                equalizeLutKernel<<<grid, block, 0, stream>>>(arena, p);
                break;
            case kFlareLayer:
                pixelPassKernel<kFlareLayer><<<grid, block, 0, stream>>>(arena, p);
                break;
            case kFlareRows:
                pixelPassKernel<kFlareRows><<<grid, block, 0, stream>>>(arena, p);
                break;
            case kFlareColumns:
                pixelPassKernel<kFlareColumns><<<grid, block, 0, stream>>>(arena, p);
                break;
            case kFlareFade:
                pixelPassKernel<kFlareFade><<<grid, block, 0, stream>>>(arena, p);
                break;
            case kClaheHistogram:
                countKernel<kClaheHistogram><<<grid, block, 0, stream>>>(arena, p);
                break;
            case kIsoHistogram:
                countKernel<kIsoHistogram><<<grid, block, 0, stream>>>(arena, p);
                break;
            case kPcaRowSums:
                rowKernel<kPcaRowSums><<<grid, block, 0, stream>>>(arena, p);
                break;
            case kPcaRowProducts:
                rowKernel<kPcaRowProducts><<<grid, block, 0, stream>>>(arena, p);
                break;
            case kPcaMean:
                pcaMeanKernel<<<grid, block, 0, stream>>>(arena, p);
                break;
            case kClaheLut:
            case kIsoLambda:
            case kPcaMatrix:
                statsKernel<<<grid, block, 0, stream>>>(arena, p);
                break;
            default:
                return cudaErrorInvalidValue;
        }
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

cudaError_t probeKernelImage() {
    cudaFuncAttributes attributes{};
    return cudaFuncGetAttributes(&attributes, pixelPassKernel<kSegment>);
}

}  // namespace auglab::cuda
