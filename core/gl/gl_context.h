#pragma once
// An offscreen OpenGL 3.3 core context with its surface, owned together.

#include <functional>
#include <memory>
#include <string>

class QOpenGLContext;
class QOffscreenSurface;

namespace auglab {

/// How a process that does not always need Qt's GUI starts it on first use: `start` is called when
/// a context is made and no QGuiApplication exists yet. The CLI registers one so that a command on
/// the CPU backend never pays Qt's platform start-up (fonts, the platform plugin: milliseconds a
/// process). `start` may leave none (another thread than the one that can own it): OpenGL is then
/// unavailable with that reason.
void setGuiApplicationStarter(std::function<void()> start);

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
