#include "gl_context.h"

#include <QGuiApplication>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QSurfaceFormat>

#include "error.h"

namespace auglab {

namespace {
std::function<void()>& guiStarter() {
    static std::function<void()> start;
    return start;
}
}  // namespace

void setGuiApplicationStarter(std::function<void()> start) {
    guiStarter() = std::move(start);
}

GlContext::GlContext() {
    if (!QGuiApplication::instance() && guiStarter()) guiStarter()();
    if (!QGuiApplication::instance())
        throw RuntimeError("OpenGL needs a QGuiApplication in this process");
    QSurfaceFormat format;
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CoreProfile);
    surface_ = std::make_unique<QOffscreenSurface>();
    surface_->setFormat(format);
    surface_->create();
    if (!surface_->isValid()) throw RuntimeError("cannot create an offscreen OpenGL surface");
    context_ = std::make_unique<QOpenGLContext>();
    context_->setFormat(format);
    // With Qt::AA_ShareOpenGLContexts (the app sets it) the grid's widget shares this context's
    // textures, so a grid rendered here is shown without a readback.
    if (QOpenGLContext* share = QOpenGLContext::globalShareContext()) context_->setShareContext(share);
    if (!context_->create()) {
        std::string why = "cannot create an OpenGL context";
        if (QGuiApplication::platformName() == QLatin1String("offscreen"))
            why += " without a display (run under X11, Wayland or xvfb-run)";
        throw RuntimeError(why);
    }
    const QSurfaceFormat got = context_->format();
    if (got.majorVersion() * 10 + got.minorVersion() < 33)
        throw RuntimeError("OpenGL 3.3 is needed, the driver gives " + std::to_string(got.majorVersion()) + "." +
                           std::to_string(got.minorVersion()));
    makeCurrent();
    QOpenGLFunctions* f = context_->functions();
    auto text = [f](GLenum e) {
        const auto* s = reinterpret_cast<const char*>(f->glGetString(e));
        return std::string(s ? s : "unknown");
    };
    renderer_ = text(GL_RENDERER);
    version_ = text(GL_VERSION);
    doneCurrent();
}

GlContext::~GlContext() {
    // Objects of the context are released by their owners before this; the context goes first,
    // then its surface.
    context_.reset();
    surface_.reset();
}

void GlContext::makeCurrent() {
    if (!context_->makeCurrent(surface_.get())) throw RuntimeError("cannot make the OpenGL context current");
}

void GlContext::doneCurrent() { context_->doneCurrent(); }

bool GlContext::isSoftware() const {
    for (const char* s : {"llvmpipe", "softpipe", "swrast", "Software Rasterizer"})
        if (renderer_.find(s) != std::string::npos) return true;
    return false;
}

}  // namespace auglab
