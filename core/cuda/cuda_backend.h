#pragma once
// Entry points of the CUDA backend (library auglab_cuda). Plain C++ without CUDA types. With CUDA
// (AUGLAB_CUDA=AUTO with nvcc found, or ON) cuda_backend.cpp implements them and auglab_cuda defines
// AUGLAB_HAVE_CUDA for its users; without CUDA cuda_stub.cpp does, and says the backend was not built.

#include <memory>

#include "backend.h"

namespace auglab {

/// The CUDA backend's state: `compiled` when this binary was built with nvcc, `available` when a
/// device exists that this build's kernels run on, `detail` the device (name, compute capability,
/// memory, driver) or why it is not available (no driver, no device, too old a device). Probed on
/// the first call, then the same answer; never throws.
BackendInfo cudaBackendInfo();

/// Creates the CUDA backend on device 0. Throws RuntimeError saying why when it is not available.
/// Its render() throws RuntimeError on any CUDA failure (out of memory, a kernel fault), after which
/// the caller should fall back to another backend for the session.
std::unique_ptr<Backend> createCudaBackend();

}  // namespace auglab
