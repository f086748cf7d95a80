#include "cuda_gl_display.h"

#include <array>
#include <string>

#include <QOpenGLContext>
#include <QOpenGLFunctions_3_3_Core>
#include <QOpenGLVersionFunctionsFactory>
#include <QThread>
// After Qt's GL headers: cuda_gl_interop.h needs GL's types.
#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>

#include "cuda_backend.h"
#include "gl_context.h"

namespace auglab {

namespace {

constexpr int kDevice = 0;  // the CUDA backend's device
constexpr int kRing = 3;    // as the GL backend: a texture stays valid until the third grid after it

[[noreturn]] void fail(cudaError_t e, const std::string& what) {
    (void)cudaGetLastError();
    throw InteropError("CUDA-GL interop: " + what + ": " + cudaGetErrorString(e));
}

void check(cudaError_t e, const std::string& what) {
    if (e != cudaSuccess) fail(e, what);
}

/// One texture of the ring and its CUDA registration.
struct Slot {
    GLuint texture = 0;
    int width = 0, height = 0;
    cudaGraphicsResource_t resource = nullptr;
    cudaSurfaceObject_t surface = 0;
    bool mapped = false;
};

class Display final : public CudaGlSheetDisplay, private CudaSheetTarget {
public:
    explicit Display(CudaSheetRenderer& cuda) : cuda_(cuda) {
        if (!QOpenGLContext::globalShareContext())
            throw InteropError("CUDA-GL interop: the display shares no OpenGL context (Qt::AA_ShareOpenGLContexts)");
        try {
            ctx_ = std::make_unique<GlContext>();
        } catch (const std::exception& e) {
            throw InteropError(std::string("CUDA-GL interop: ") + e.what());
        }
        makeCurrent();
        gl_ = QOpenGLVersionFunctionsFactory::get<QOpenGLFunctions_3_3_Core>(ctx_->context());
        if (!gl_ || !gl_->initializeOpenGLFunctions())
            throw InteropError("CUDA-GL interop: OpenGL 3.3 core functions are not available");
        gl_->glGetIntegerv(GL_MAX_TEXTURE_SIZE, &maxTextureSize_);
        // The texture must live on the GPU CUDA renders on (not an integrated GPU beside it, not a
        // software renderer): ask CUDA which of its devices run this context.
        check(cudaSetDevice(kDevice), "cudaSetDevice");
        unsigned count = 0;
        int devices[4] = {-1, -1, -1, -1};
        const cudaError_t e = cudaGLGetDevices(&count, devices, 4, cudaGLDeviceListAll);
        bool onDevice = false;
        for (unsigned i = 0; e == cudaSuccess && i < count && i < 4; ++i) onDevice |= devices[i] == kDevice;
        if (e != cudaSuccess || !onDevice) {
            (void)cudaGetLastError();
            throw InteropError("CUDA-GL interop: the OpenGL context (" + ctx_->renderer() +
                               ") does not run on CUDA device " + std::to_string(kDevice) +
                               (e != cudaSuccess ? std::string(": ") + cudaGetErrorString(e) : std::string()));
        }
        ctx_->doneCurrent();
    }

    ~Display() override {
        // Unregister and delete while the context is current; never throw. From another thread the
        // context cannot be made current: the textures then go with the context.
        if (!ctx_ || ctx_->context()->thread() != QThread::currentThread()) return;
        if (!ctx_->context()->makeCurrent(ctx_->context()->surface())) return;
        (void)cudaSetDevice(kDevice);
        for (Slot& s : slots_) release(s);
        ctx_->doneCurrent();
    }

    int maxTextureSize() const override { return maxTextureSize_; }

    unsigned renderSheetTexture(SheetLayout& layout) override {
        makeCurrent();
        current_ = &slots_[static_cast<std::size_t>(next_)];
        next_ = (next_ + 1) % kRing;
        try {
            cuda_.renderSheet(layout, *this);  // calls map() and unmap() below on its stream
        } catch (...) {
            current_ = nullptr;
            ctx_->doneCurrent();
            throw;
        }
        const GLuint texture = current_->texture;
        current_ = nullptr;
        // The display's context reads the texture next. CUDA's writes finished before the unmap;
        // glFinish completes this context's side too, as sharing between contexts requires.
        gl_->glFinish();
        ctx_->doneCurrent();
        return texture;
    }

private:
    std::uint64_t map(void* stream, int width, int height) override {
        Slot& s = *current_;
        if (!s.texture || s.width != width || s.height != height) {
            release(s);
            gl_->glGenTextures(1, &s.texture);
            gl_->glBindTexture(GL_TEXTURE_2D, s.texture);
            gl_->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
            gl_->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
            gl_->glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8UI, width, height, 0, GL_RGBA_INTEGER, GL_UNSIGNED_BYTE,
                              nullptr);
            gl_->glBindTexture(GL_TEXTURE_2D, 0);
            if (const GLenum g = gl_->glGetError(); g != GL_NO_ERROR) {
                release(s);
                throw InteropError("CUDA-GL interop: creating a " + std::to_string(width) + "x" +
                                   std::to_string(height) + " grid texture: OpenGL error " + std::to_string(g));
            }
            // Registered once per texture, for surface writes. CUDA never reads it: write-discard
            // mapping is only a hint, so a driver that declines it costs nothing.
            const cudaError_t registered = cudaGraphicsGLRegisterImage(&s.resource, s.texture, GL_TEXTURE_2D,
                                                                       cudaGraphicsRegisterFlagsSurfaceLoadStore);
            if (registered != cudaSuccess) {
                s.resource = nullptr;
                release(s);  // no half-made slot: the next map() makes it again
                fail(registered, "cudaGraphicsGLRegisterImage");
            }
            s.width = width;  // only now is the slot complete
            s.height = height;
            if (cudaGraphicsResourceSetMapFlags(s.resource, cudaGraphicsMapFlagsWriteDiscard) != cudaSuccess)
                (void)cudaGetLastError();
        }
        auto* cudaStream = static_cast<cudaStream_t>(stream);
        check(cudaGraphicsMapResources(1, &s.resource, cudaStream), "cudaGraphicsMapResources");
        s.mapped = true;
        try {
            cudaArray_t array = nullptr;
            check(cudaGraphicsSubResourceGetMappedArray(&array, s.resource, 0, 0),
                  "cudaGraphicsSubResourceGetMappedArray");
            cudaResourceDesc desc{};
            desc.resType = cudaResourceTypeArray;
            desc.res.array.array = array;
            check(cudaCreateSurfaceObject(&s.surface, &desc), "cudaCreateSurfaceObject");
        } catch (...) {
            unmap(stream, true);  // the caller only unmaps what map() returned
            throw;
        }
        return static_cast<std::uint64_t>(s.surface);
    }

    void unmap(void* stream, bool failed) override {
        Slot& s = *current_;
        if (s.surface) (void)cudaDestroySurfaceObject(s.surface);
        s.surface = 0;
        if (!s.mapped) return;
        s.mapped = false;
        const cudaError_t e = cudaGraphicsUnmapResources(1, &s.resource, static_cast<cudaStream_t>(stream));
        if (!failed) check(e, "cudaGraphicsUnmapResources");
        (void)cudaGetLastError();
    }

    /// The GL context current on this thread; its failure is the interop's, not CUDA's.
    void makeCurrent() {
        try {
            ctx_->makeCurrent();
        } catch (const std::exception& e) {
            throw InteropError(std::string("CUDA-GL interop: ") + e.what());
        }
    }

    void release(Slot& s) noexcept {
        if (s.surface) (void)cudaDestroySurfaceObject(s.surface);
        if (s.mapped) (void)cudaGraphicsUnmapResources(1, &s.resource, nullptr);
        if (s.resource) (void)cudaGraphicsUnregisterResource(s.resource);
        if (s.texture) gl_->glDeleteTextures(1, &s.texture);
        (void)cudaGetLastError();
        s = Slot{};
    }

    CudaSheetRenderer& cuda_;
    std::unique_ptr<GlContext> ctx_;
    QOpenGLFunctions_3_3_Core* gl_ = nullptr;
    std::array<Slot, kRing> slots_{};
    Slot* current_ = nullptr;
    int next_ = 0;
    int maxTextureSize_ = 0;
};

}  // namespace

std::unique_ptr<CudaGlSheetDisplay> createCudaGlSheetDisplay(Backend& backend) {
    auto* cuda = dynamic_cast<CudaSheetRenderer*>(&backend);
    if (!cuda) return nullptr;
    return std::make_unique<Display>(*cuda);
}

}  // namespace auglab
