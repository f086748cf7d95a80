#pragma once
// The OpenGL backend: GLSL 3.30 fragment passes over integer (RGBA8UI) textures, reproducing the
// CPU reference's arithmetic rather than the texture unit's 8-bit filtering. It owns an offscreen
// context; GL needs a QGuiApplication (and so a display, or Xvfb) in the process.

#include <map>
#include <memory>
#include <string>

#include "backend.h"
#include "contact_sheet.h"

namespace auglab {

struct GlBackendOptions {
    /// Replaces a shader's source by name (e.g. "gl_warp.frag"): lets a test force a compile
    /// failure to exercise the fallback. Empty in normal use.
    std::map<std::string, std::string> shaderOverrides;
};

/// State of the GL backend on this machine: renderer and version, or why it is unavailable.
/// `software` is true for llvmpipe, softpipe and swrast (slower than the CPU backend).
struct GlProbe {
    bool available = false;
    bool software = false;
    std::string detail;
};
GlProbe probeGl();

/// Throws RuntimeError when no context can be made or a shader does not compile (the message
/// names the shader file and line).
std::unique_ptr<Backend> createGlBackend(const GlBackendOptions& options = {});

}  // namespace auglab
