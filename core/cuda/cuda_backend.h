#pragma once
// Entry points of the CUDA backend (library auglab_cuda). Plain C++ without CUDA types. With CUDA
// (AUGLAB_CUDA=AUTO with nvcc found, or ON) cuda_backend.cpp implements them and auglab_cuda defines
// AUGLAB_HAVE_CUDA for its users; without CUDA cuda_stub.cpp does, and says the backend was not built.

#include <cstdint>
#include <memory>

#include "backend.h"
#include "contact_sheet.h"

namespace auglab {

/// The CUDA backend's state: `compiled` when this binary was built with nvcc, `available` when a
/// device exists that this build's kernels run on, `detail` the device (name, compute capability,
/// memory, driver) or why it is not available (no driver, no device, too old a device). Probed on
/// the first call, then the same answer; never throws.
BackendInfo cudaBackendInfo();

/// Somewhere on the device a whole grid can be written: an RGBA8 CUDA array of at least the
/// grid's size (in the GUI, a GL texture registered with CUDA; see cuda_gl_display.h). The types
/// are CUDA's, passed as plain integers so this header stays free of CUDA.
class CudaSheetTarget {
public:
    virtual ~CudaSheetTarget() = default;
    /// Makes the target writable by work queued on `stream` (a cudaStream_t) and returns a
    /// cudaSurfaceObject_t of it, at least width x height texels. Throws RuntimeError.
    virtual std::uint64_t map(void* stream, int width, int height) = 0;
    /// Ends the writing begun by map(); the stream's work on the surface has finished. Never throws
    /// when `failed` (the render is being abandoned); otherwise throws RuntimeError.
    virtual void unmap(void* stream, bool failed) = 0;
};

/// What the CUDA backend offers besides Backend: a grid rendered and composed on the device (tiles
/// at their places, RGBA, alpha 255 for RGB outputs, gaps kSheetGapGray), written into `target` with
/// no copy through the host. layout.outputs are left empty. Throws RuntimeError on any CUDA failure.
class CudaSheetRenderer {
public:
    virtual ~CudaSheetRenderer() = default;
    virtual void renderSheet(SheetLayout& layout, CudaSheetTarget& target) = 0;
};

/// Creates the CUDA backend on device 0. Throws RuntimeError saying why when it is not available.
/// Its render() throws RuntimeError on any CUDA failure (out of memory, a kernel fault), after which
/// the caller should fall back to another backend for the session.
/// The backend is also a CudaSheetRenderer (dynamic_cast).
std::unique_ptr<Backend> createCudaBackend();

}  // namespace auglab
