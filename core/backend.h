#pragma once
// The interface every renderer implements (CPU now; GL and CUDA behind the same interface).
// Backends declare what they support and execute plans; they never sample or derive maths.

#include <functional>
#include <memory>
#include <span>
#include <string>

#include "image.h"
#include "op_registry.h"
#include "plan.h"
#include "source_levels.h"

namespace auglab {

/// One output to render: `plan` applied to `source`, written to `output` (resized as needed).
struct RenderJob {
    RenderJob() = default;
    RenderJob(SourceLevels* s, Plan p, Image* out) : source(s), plan(std::move(p)), output(out) {}

    SourceLevels* source = nullptr;
    Plan plan;
    Image* output = nullptr;
    /// Optional: called with the finished output, possibly on a worker thread, as soon as it is done
    /// (a grid composes its sheet there, in parallel). Backends that do not call it leave the
    /// caller to use `output` afterwards.
    std::function<void(const Image&)> deliver;
};

/// What `auglab-cli info` and the GUI show about a backend.
struct BackendInfo {
    std::string name;        ///< "cpu", "gl", "cuda"
    bool compiled = false;   ///< built into this binary
    bool available = false;  ///< usable on this machine now
    std::string detail;      ///< renderer, device, thread count, or why not available
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    /// Renders every job. A backend implements every plan step (PixelStep and WarpStep, with its
    /// gather): plans are made of steps, never of ops, so every op renders on every backend.
    /// Throws RuntimeError when the backend fails (the caller falls back).
    virtual void render(std::span<RenderJob> jobs) = 0;
};

struct SheetLayout;  // contact_sheet.h

/// A backend that can leave a whole grid on the GPU, in a GL texture the display shares (no
/// readback): an RGBA8UI texture of layout.width x layout.height, tiles at their places (alpha 255
/// for RGB tiles), gaps kSheetGapGray. The GL backend is one; the CUDA backend is one through
/// CUDA-GL interop (cuda_gl_display.h). The texture stays valid until the third call after this
/// one (a ring of three), long enough for the display to show the newest. Throws RuntimeError.
class GpuSheetRenderer {
public:
    virtual ~GpuSheetRenderer() = default;
    virtual unsigned renderSheetTexture(SheetLayout& layout) = 0;
    /// The largest texture side the display's GL allows (GL_MAX_TEXTURE_SIZE): a larger sheet goes
    /// through host memory instead.
    virtual int maxTextureSize() const = 0;
};

}  // namespace auglab
