#pragma once
// CUDA-GL interop for the GUI's grid (library auglab_cuda_gl, built when both the CUDA and the GL
// backends are): the CUDA backend writes a whole grid into a GL texture that the grid widget shows,
// so no pixel crosses the bus. The textures live in an offscreen context shared with the display
// (Qt::AA_ShareOpenGLContexts), each registered with CUDA once; per grid the texture is mapped,
// written by the kernels through a surface, and unmapped.

#include <memory>

#include "error.h"
#include "backend.h"

namespace auglab {

/// The interop itself failed (no shared GL context, the GL context is not on the CUDA device, a
/// registration or a mapping failed): the CUDA backend still works, its grids just have to travel
/// through the host. Other RuntimeErrors of renderSheetTexture are the CUDA backend's own failures.
class InteropError : public RuntimeError {
public:
    using RuntimeError::RuntimeError;
};

/// Renders `cuda`'s grids into a ring of three RGBA8UI textures, with the same contents and the same
/// lifetime promise as the GL backend's (GpuSheetRenderer). Create, use and destroy it on one thread,
/// with a QGuiApplication in the process; `cuda` must outlive it.
class CudaGlSheetDisplay : public GpuSheetRenderer {
public:
    ~CudaGlSheetDisplay() override = default;
    /// Throws InteropError when the interop fails, RuntimeError when the CUDA backend fails.
    unsigned renderSheetTexture(SheetLayout& layout) override = 0;
};

/// A display for `backend` when it is the CUDA backend (else null). Throws InteropError when no
/// OpenGL context on the CUDA device can be made.
std::unique_ptr<CudaGlSheetDisplay> createCudaGlSheetDisplay(Backend& backend);

}  // namespace auglab
