#pragma once
// An offscreen OpenGL 3.3 core context with its surface, owned together.

#include <memory>
#include <string>

class QOpenGLContext;
class QOffscreenSurface;

namespace auglab {

class GlContext {
public:
    /// Throws RuntimeError with the reason when no GL 3.3 core context can be created.
    GlContext();
    ~GlContext();
    GlContext(const GlContext&) = delete;
    GlContext& operator=(const GlContext&) = delete;

    void makeCurrent();
    void doneCurrent();
    QOpenGLContext* context() const { return context_.get(); }
    std::string renderer() const { return renderer_; }
    std::string version() const { return version_; }
    bool isSoftware() const;

private:
    std::unique_ptr<QOffscreenSurface> surface_;
    std::unique_ptr<QOpenGLContext> context_;
    std::string renderer_, version_;
};

}  // namespace auglab
