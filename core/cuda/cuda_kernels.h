#pragma once
// The CUDA kernels, as host functions that enqueue them. Only this pair of files is compiled by
// nvcc; the rest of the backend is host C++ that includes the CUDA runtime API header.

#include <cstdint>

#include <cuda_runtime_api.h>

#include "cuda_descriptors.h"

namespace auglab::cuda {

/// Enqueues the kernel of `kind` on `stream` over `count` DevicePass structs at arena offset
/// `passes` (one per blockIdx.z, in chunks of at most 65535), for outputs of at most
/// maxWidth x maxHeight pixels. Returns the launch error (cudaSuccess when enqueued).
cudaError_t launchPasses(PassKind kind, unsigned char* arena, Offset passes, int count, int maxWidth,
                         int maxHeight, cudaStream_t stream);

/// Fills width x height texels of the RGBA8 surface with `texel` (packTexel's word): the grid's gaps.
cudaError_t launchSheetFill(cudaSurfaceObject_t surface, int width, int height, std::uint32_t texel,
                            cudaStream_t stream);

/// Writes `count` outputs into the RGBA8 surface, each at its place: DevicePlacement structs at
/// arena offset `placements`, one per blockIdx.z, outputs of at most maxWidth x maxHeight pixels.
cudaError_t launchSheetPlace(cudaSurfaceObject_t surface, unsigned char* arena, Offset placements, int count,
                             int maxWidth, int maxHeight, cudaStream_t stream);

/// Whether this binary holds code the current device can run: cudaErrorNoKernelImageForDevice (or
/// cudaErrorInvalidDeviceFunction) when the device is older than the architectures it was built for.
cudaError_t probeKernelImage();

}  // namespace auglab::cuda
