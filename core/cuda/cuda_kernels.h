#pragma once
// The CUDA kernels, as host functions that enqueue them. Only this pair of files is compiled by
// nvcc; the rest of the backend is host C++ that includes the CUDA runtime API header.

#include <cuda_runtime_api.h>

#include "cuda_descriptors.h"

namespace auglab::cuda {

/// Enqueues the kernel of `kind` on `stream` over `count` DevicePass structs at arena offset
/// `passes` (one per blockIdx.z, in chunks of at most 65535), for outputs of at most
/// maxWidth x maxHeight pixels. Returns the launch error (cudaSuccess when enqueued).
cudaError_t launchPasses(PassKind kind, unsigned char* arena, Offset passes, int count, int maxWidth,
                         int maxHeight, cudaStream_t stream);

/// Whether this binary holds code the current device can run: cudaErrorNoKernelImageForDevice (or
/// cudaErrorInvalidDeviceFunction) when the device is older than the architectures it was built for.
cudaError_t probeKernelImage();

}  // namespace auglab::cuda
