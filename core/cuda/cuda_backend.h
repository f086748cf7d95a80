#pragma once
// Entry points of the CUDA backend (library auglab_cuda). Plain C++ without CUDA types. With CUDA
// (AUGLAB_CUDA=AUTO with nvcc found, or ON) cuda_backend.cpp implements them and auglab_cuda defines
// AUGLAB_HAVE_CUDA for its users; without CUDA cuda_stub.cpp does, and says the backend was not built.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

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

/// Images left in the device's memory: one allocation holding them back to back in job order, each
/// tightly packed (rows of width x channels bytes, no padding), so that images of one size form an
/// N x H x W x C array as they lie. Freed (cudaFree) when the last copy of `memory` goes, from any
/// thread. The work that wrote them has finished: any stream may read them.
struct DeviceImages {
    struct Item {
        std::size_t offset = 0;  ///< bytes from the start of `memory`
        int width = 0, height = 0, channels = 0;
        std::size_t bytes() const {
            return static_cast<std::size_t>(width) * static_cast<std::size_t>(height) *
                   static_cast<std::size_t>(channels);
        }
    };
    std::shared_ptr<unsigned char> memory;  ///< a device pointer (null when no item has a pixel)
    int device = 0;                         ///< the CUDA device ordinal
    std::vector<Item> items;                ///< one per job, in job order
};

/// What the CUDA backend offers besides Backend: the outputs of `jobs` rendered and kept on the
/// device, for code that goes on using them there (a training step through DLPack). The jobs'
/// `output` images are not written. Throws RuntimeError on any CUDA failure.
class CudaDeviceRenderer {
public:
    virtual ~CudaDeviceRenderer() = default;
    virtual DeviceImages renderOnDevice(std::span<RenderJob> jobs) = 0;
};

/// Copies `bytes` of device memory at `device` to `host`, waiting for the copy. Throws
/// RuntimeError on a CUDA failure (and in a build without CUDA).
void copyDeviceToHost(void* host, const void* device, std::size_t bytes);

/// A new allocation on the device holding a copy of `bytes` at `device` (the copy finished), freed
/// as DeviceImages::memory is. Throws RuntimeError as copyDeviceToHost does.
std::shared_ptr<unsigned char> copyOnDevice(const void* device, std::size_t bytes);

/// Creates the CUDA backend on device 0. Throws RuntimeError saying why when it is not available.
/// Its render() throws RuntimeError on any CUDA failure (out of memory, a kernel fault), after which
/// the caller should fall back to another backend for the session.
/// The backend is also a CudaSheetRenderer and a CudaDeviceRenderer (dynamic_cast).
std::unique_ptr<Backend> createCudaBackend();

}  // namespace auglab
