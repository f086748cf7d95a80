// The CUDA entry points of a build without CUDA (AUGLAB_CUDA=OFF, or AUTO without nvcc): the
// backend is reported as not built, and asking for it is an error that says so.

#include "cuda_backend.h"

#include "error.h"

namespace auglab {

BackendInfo cudaBackendInfo() {
    return {"cuda", false, false, "built without CUDA (AUGLAB_CUDA=OFF or nvcc not found)"};
}

std::unique_ptr<Backend> createCudaBackend() {
    throw RuntimeError("the CUDA backend is not available: " + cudaBackendInfo().detail);
}

void copyDeviceToHost(void*, const void*, std::size_t) {
    throw RuntimeError("no device memory to copy: " + cudaBackendInfo().detail);
}

std::shared_ptr<unsigned char> copyOnDevice(const void*, std::size_t) {
    throw RuntimeError("no device memory to copy: " + cudaBackendInfo().detail);
}

}  // namespace auglab
