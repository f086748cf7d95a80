#include "gl_backend.h"

#include <cstring>
#include <vector>

#include <QDir>
#include <QFile>
#include <QOpenGLContext>
#include <QOpenGLFunctions_3_3_Core>
#include <QOpenGLShaderProgram>
#include <QOpenGLVersionFunctionsFactory>
#include <QThread>

#include "colour.h"
#include "cpu_backend.h"
#include "error.h"
#include "gl_context.h"
#include "host_steps.h"
#include "keyed_tables.h"
#include "warp_fixed_point.h"

namespace auglab {

namespace {

/// Every fragment shader in the build (shaders/*.frag, embedded by core/CMakeLists.txt's glob): one
/// program per plan step kind, written once, in that folder.
std::vector<std::string> fragmentShaders() {
    std::vector<std::string> names;
    for (const QString& n : QDir(":/shaders").entryList({"*.frag"}, QDir::Files, QDir::Name))
        names.push_back(n.toStdString());
    if (names.empty()) throw RuntimeError("no fragment shaders in the build (:/shaders/*.frag)");
    return names;
}

std::string resourceText(const std::string& name) {
    QFile f(QString::fromStdString(":/shaders/" + name));
    if (!f.open(QIODevice::ReadOnly)) throw RuntimeError("shader " + name + " is missing from the build");
    return f.readAll().toStdString();
}

// The shared helpers go after the #version line; #line keeps the driver's line numbers equal to
// the file's, so a compile error points at the right line.
std::string withCommon(const std::string& source, const std::string& common) {
    const auto eol = source.find('\n');
    if (eol == std::string::npos) return source;
    return source.substr(0, eol + 1) + common + "\n#line 2\n" + source.substr(eol + 1);
}

class GlBackend final : public Backend, public GpuSheetRenderer {
public:
    explicit GlBackend(const GlBackendOptions& options);
    ~GlBackend() override;
    std::string name() const override { return "gl"; }
    void render(std::span<RenderJob> jobs) override;
    unsigned renderSheetTexture(SheetLayout& layout) override;
    int maxTextureSize() const override { return maxTextureSize_; }
    const GlContext& context() const { return ctx_; }

private:
    struct Pass;  // a bound program and its target
    GLuint texture(GLenum internal, int w, int h, GLenum format, GLenum type, const void* data);
    GLuint uploadImage(const Image& img);
    Image readBack(GLuint tex, int w, int h, int channels);
    void draw(const char* program, GLuint target, int w, int h);
    QOpenGLShaderProgram& use(const char* program);
    void bindTexture(int unit, GLuint tex, const char* program, const char* uniform);
    void check(const char* what);
    GLuint runWarp(GLuint input, int inW, int inH, const WarpStep& w, int outW, int outH);
    GLuint runGather(GLuint input, int inW, int inH, const GatherStep& g, int outW, int outH);
    GLuint runPixelStep(GLuint input, int w, int h, int channels, const PixelStep& step);
    GLuint runLut(GLuint input, int w, int h, const std::array<Lut, 3>& luts);
    /// Renders one job's plan on the GPU; the result is a scratch texture. `channels` is set.
    GLuint renderJob(const RenderJob& job, int& channels);

    GlContext ctx_;
    QOpenGLFunctions_3_3_Core* gl_ = nullptr;
    std::map<std::string, std::unique_ptr<QOpenGLShaderProgram>> programs_;
    GLuint vao_ = 0, fbo_ = 0;
    std::vector<GLuint> scratch_;  // textures of the current pass sequence, deleted after each job
    GLuint sheetFbo_ = 0;
    GLuint sheets_[3] = {0, 0, 0};  // the display ring (shared with the display's context)
    int sheetSizes_[3][2] = {};
    int nextSheet_ = 0;
    int maxTextureSize_ = 0;
};

GlBackend::GlBackend(const GlBackendOptions& options) {
    ctx_.makeCurrent();
    gl_ = QOpenGLVersionFunctionsFactory::get<QOpenGLFunctions_3_3_Core>(ctx_.context());
    if (!gl_ || !gl_->initializeOpenGLFunctions())
        throw RuntimeError("OpenGL 3.3 core functions are not available");
    auto source = [&](const std::string& name) {
        const auto it = options.shaderOverrides.find(name);
        return it != options.shaderOverrides.end() ? it->second : resourceText(name);
    };
    const std::string common = source("gl_common.glsl");
    const std::string vertex = source("gl_fullscreen.vert");
    for (const std::string& frag : fragmentShaders()) {
        auto program = std::make_unique<QOpenGLShaderProgram>();
        if (!program->addShaderFromSourceCode(QOpenGLShader::Vertex, QByteArray::fromStdString(vertex)))
            throw RuntimeError("shaders/gl_fullscreen.vert: " + program->log().trimmed().toStdString());
        if (!program->addShaderFromSourceCode(QOpenGLShader::Fragment,
                                              QByteArray::fromStdString(withCommon(source(frag), common))))
            throw RuntimeError("shaders/" + frag + ": " + program->log().trimmed().toStdString());
        if (!program->link())
            throw RuntimeError("shaders/" + frag +
                               ": link failed: " + program->log().trimmed().toStdString());
        programs_[frag] = std::move(program);
    }
    gl_->glGetIntegerv(GL_MAX_TEXTURE_SIZE, &maxTextureSize_);
    gl_->glGenVertexArrays(1, &vao_);
    gl_->glGenFramebuffers(1, &fbo_);
    gl_->glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    gl_->glPixelStorei(GL_PACK_ALIGNMENT, 1);
    check("setting up");
    ctx_.doneCurrent();
}

GlBackend::~GlBackend() {
    // GL objects belong to the context: release them while it is current, never throw. From another
    // thread the context cannot be made current (Qt aborts): the objects go with the context.
    if (ctx_.context()->thread() != QThread::currentThread()) return;
    if (!ctx_.context()->makeCurrent(ctx_.context()->surface())) return;
    programs_.clear();
    if (!scratch_.empty()) gl_->glDeleteTextures(GLsizei(scratch_.size()), scratch_.data());
    if (fbo_) gl_->glDeleteFramebuffers(1, &fbo_);
    if (sheetFbo_) gl_->glDeleteFramebuffers(1, &sheetFbo_);
    for (GLuint& t : sheets_)
        if (t) gl_->glDeleteTextures(1, &t);
    if (vao_) gl_->glDeleteVertexArrays(1, &vao_);
    ctx_.doneCurrent();
}

void GlBackend::check(const char* what) {
    const GLenum e = gl_->glGetError();
    if (e != GL_NO_ERROR) {
        char code[16];
        std::snprintf(code, sizeof code, "0x%04x", e);
        throw RuntimeError(std::string("OpenGL error ") + code + " while " + what);
    }
}

GLuint GlBackend::texture(GLenum internal, int w, int h, GLenum format, GLenum type, const void* data) {
    GLuint t = 0;
    gl_->glGenTextures(1, &t);
    scratch_.push_back(t);
    gl_->glBindTexture(GL_TEXTURE_2D, t);
    // Integer textures are only complete with nearest filtering; every read is texelFetch anyway.
    gl_->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    gl_->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    gl_->glTexImage2D(GL_TEXTURE_2D, 0, GLint(internal), w, h, 0, format, type, data);
    return t;
}

GLuint GlBackend::uploadImage(const Image& img) {
    std::vector<std::uint8_t> rgba(std::size_t(img.width) * img.height * 4, 255);
    for (int y = 0; y < img.height; ++y) {
        const std::uint8_t* s = img.row(y);
        std::uint8_t* d = rgba.data() + std::size_t(y) * img.width * 4;
        for (int x = 0; x < img.width; ++x, s += img.channels, d += 4)
            std::memcpy(d, s, std::size_t(img.channels));
    }
    return texture(GL_RGBA8UI, img.width, img.height, GL_RGBA_INTEGER, GL_UNSIGNED_BYTE, rgba.data());
}

Image GlBackend::readBack(GLuint tex, int w, int h, int channels) {
    gl_->glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    gl_->glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    std::vector<std::uint8_t> rgba(std::size_t(w) * h * 4);
    gl_->glReadPixels(0, 0, w, h, GL_RGBA_INTEGER, GL_UNSIGNED_BYTE, rgba.data());
    check("reading the result back");
    Image out(w, h, channels);
    for (int y = 0; y < h; ++y) {
        const std::uint8_t* s = rgba.data() + std::size_t(y) * w * 4;
        std::uint8_t* d = out.row(y);
        for (int x = 0; x < w; ++x, s += 4, d += channels) std::memcpy(d, s, std::size_t(channels));
    }
    return out;
}

QOpenGLShaderProgram& GlBackend::use(const char* program) {
    QOpenGLShaderProgram& p = *programs_.at(program);
    p.bind();
    return p;
}

void GlBackend::bindTexture(int unit, GLuint tex, const char* program, const char* uniform) {
    gl_->glActiveTexture(GL_TEXTURE0 + GLenum(unit));
    gl_->glBindTexture(GL_TEXTURE_2D, tex);
    gl_->glUniform1i(programs_.at(program)->uniformLocation(uniform), unit);
}

void GlBackend::draw(const char*, GLuint target, int w, int h) {
    gl_->glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    gl_->glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target, 0);
    if (gl_->glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        throw RuntimeError("OpenGL framebuffer incomplete");
    gl_->glViewport(0, 0, w, h);
    gl_->glBindVertexArray(vao_);
    gl_->glDrawArrays(GL_TRIANGLES, 0, 3);
}

GLuint GlBackend::runGather(GLuint input, int inW, int inH, const GatherStep& g, int outW, int outH) {
    std::vector<float> rows, columns;
    for (int y = 0; y < outH; ++y)
        rows.insert(rows.end(), {g.rowA0[std::size_t(y)], g.rowA1[std::size_t(y)]});
    for (int x = 0; x < outW; ++x)
        columns.insert(columns.end(), {g.colB0[std::size_t(x)], g.colB1[std::size_t(x)]});
    const GLuint rowTex = texture(GL_RG32F, outH, 1, GL_RG, GL_FLOAT, rows.data());
    const GLuint colTex = texture(GL_RG32F, outW, 1, GL_RG, GL_FLOAT, columns.data());
    const GLuint out = texture(GL_RGBA8UI, outW, outH, GL_RGBA_INTEGER, GL_UNSIGNED_BYTE, nullptr);
    const char* p = "gl_gather.frag";
    QOpenGLShaderProgram& prog = use(p);
    bindTexture(0, input, p, "source");
    bindTexture(1, rowTex, p, "rows");
    bindTexture(2, colTex, p, "columns");
    gl_->glUniform2f(prog.uniformLocation("offsets"), g.m02, g.m12);
    gl_->glUniform2i(prog.uniformLocation("sourceSize"), inW, inH);
    gl_->glUniform1i(prog.uniformLocation("dim"), g.dim);
    gl_->glUniform1i(prog.uniformLocation("lo"), g.lo);
    gl_->glUniform1i(prog.uniformLocation("hi"), g.hi);
    draw(p, out, outW, outH);
    return out;
}

GLuint GlBackend::runWarp(GLuint input, int inW, int inH, const WarpStep& w, int outW, int outH) {
    if (w.gather) return runGather(input, inW, inH, *w.gather, outW, outH);
    GLuint tables = 0;
    if (w.projective) {
        // Every pixel's position, computed here as for the CPU (projectiveMap): X, Y per texel.
        const std::vector<int> map = projectiveMap(w, outW, outH);
        tables = texture(GL_RG32I, outW, outH, GL_RG_INTEGER, GL_INT, map.data());
    } else {
        const WarpTables t = warpTables(w, outW, outH);
        const int tw = std::max(outW, outH);
        std::vector<std::int32_t> rows(std::size_t(tw) * 4, 0);
        std::copy(t.adelta.begin(), t.adelta.end(), rows.begin());
        std::copy(t.bdelta.begin(), t.bdelta.end(), rows.begin() + tw);
        std::copy(t.x0.begin(), t.x0.end(), rows.begin() + 2 * tw);
        std::copy(t.y0.begin(), t.y0.end(), rows.begin() + 3 * tw);
        tables = texture(GL_R32I, tw, 4, GL_RED_INTEGER, GL_INT, rows.data());
    }
    const GLuint out = texture(GL_RGBA8UI, outW, outH, GL_RGBA_INTEGER, GL_UNSIGNED_BYTE, nullptr);
    const char* p = "gl_warp.frag";
    QOpenGLShaderProgram& prog = use(p);
    bindTexture(0, input, p, "source");
    bindTexture(1, tables, p, "tables");
    // A warp that reads a window of its input reads it as a whole image (WarpStep::window).
    const PixelRect window = w.window.empty() ? PixelRect{0, 0, inW, inH} : w.window;
    gl_->glUniform2i(prog.uniformLocation("sourceSize"), window.width, window.height);
    gl_->glUniform2i(prog.uniformLocation("windowOrigin"), window.x, window.y);
    static constexpr int kBorder[] = {0, 1, 2, 3, 4};  // Constant, Replicate, Reflect, Reflect101, Wrap
    gl_->glUniform1i(prog.uniformLocation("border"), kBorder[int(w.border)]);
    gl_->glUniform1i(prog.uniformLocation("nearest"), w.interpolation == Interpolation::Nearest ? 1 : 0);
    gl_->glUniform1i(prog.uniformLocation("projective"), w.projective ? 1 : 0);
    gl_->glUniform4ui(prog.uniformLocation("fill"), w.fill[0], w.fill[1], w.fill[2], 0);
    draw(p, out, outW, outH);
    return out;
}

GLuint GlBackend::runLut(GLuint input, int w, int h, const std::array<Lut, 3>& luts) {
    // Row c of the 256 x 3 texture is channel c's table.
    std::array<std::uint8_t, 768> rows;
    for (std::size_t c = 0; c < 3; ++c) std::copy(luts[c].begin(), luts[c].end(), rows.begin() + 256 * c);
    const GLuint lutTex = texture(GL_R8UI, 256, 3, GL_RED_INTEGER, GL_UNSIGNED_BYTE, rows.data());
    const GLuint out = texture(GL_RGBA8UI, w, h, GL_RGBA_INTEGER, GL_UNSIGNED_BYTE, nullptr);
    use("gl_lut.frag");
    bindTexture(0, input, "gl_lut.frag", "image");
    bindTexture(1, lutTex, "gl_lut.frag", "lut");
    draw("gl_lut.frag", out, w, h);
    return out;
}

GLuint GlBackend::runPixelStep(GLuint input, int w, int h, int channels, const PixelStep& step) {
    auto target = [&] { return texture(GL_RGBA8UI, w, h, GL_RGBA_INTEGER, GL_UNSIGNED_BYTE, nullptr); };
    if (const auto* s = std::get_if<LutStep>(&step)) return runLut(input, w, h, s->luts);
    if (const auto* s = std::get_if<MeanBrightnessStep>(&step)) {
        // The mean of the image the op sees, on the host (the CPU's integer sum).
        const double mean = stepMean(readBack(input, w, h, channels), *s);
        const BrightnessContrastParams bp{s->brightness, 0.0, false};
        return runLut(input, w, h,
                      LutStep::same(brightnessContrastLut(s->alpha, brightnessBeta(bp, mean))).luts);
    }
    if (std::holds_alternative<GrayStep>(step)) {
        const GLuint out = target();
        use("gl_gray.frag");
        bindTexture(0, input, "gl_gray.frag", "image");
        draw("gl_gray.frag", out, w, h);
        return out;
    }
    if (const auto* s = std::get_if<EqualizeStep>(&step)) {
        // The histogram of the image the op sees, on the host (as the mean's); the tables on the GPU.
        const std::array<Lut, 3> luts = equalizeTables(readBack(input, w, h, channels), *s);
        if (s->byChannels) return runLut(input, w, h, luts);
        const GLuint lutTex = texture(GL_R8UI, 256, 1, GL_RED_INTEGER, GL_UNSIGNED_BYTE, luts[0].data());
        const GLuint out = target();
        use("gl_luma_lut.frag");
        bindTexture(0, input, "gl_luma_lut.frag", "image");
        bindTexture(1, lutTex, "gl_luma_lut.frag", "lut");
        draw("gl_luma_lut.frag", out, w, h);
        return out;
    }
    if (const auto* s = std::get_if<GrayBlendStep>(&step)) {
        const GLuint out = target();
        QOpenGLShaderProgram& p = use("gl_gray_blend.frag");
        bindTexture(0, input, "gl_gray_blend.frag", "image");
        gl_->glUniform1f(p.uniformLocation("alpha"), s->alpha);
        gl_->glUniform1f(p.uniformLocation("beta"), s->beta);
        draw("gl_gray_blend.frag", out, w, h);
        return out;
    }
    if (const auto* s = std::get_if<ChannelMatrixStep>(&step)) {
        const GLuint out = target();
        QOpenGLShaderProgram& p = use("gl_channel_matrix.frag");
        bindTexture(0, input, "gl_channel_matrix.frag", "image");
        gl_->glUniform3iv(p.uniformLocation("rows"), 3, s->m.data());
        draw("gl_channel_matrix.frag", out, w, h);
        return out;
    }
    if (const auto* s = std::get_if<HsvStep>(&step)) {
        std::vector<std::int32_t> div(512);
        std::copy(hsvSaturationDivisors().begin(), hsvSaturationDivisors().end(), div.begin());
        std::copy(hsvHueDivisors().begin(), hsvHueDivisors().end(), div.begin() + 256);
        std::vector<std::uint8_t> luts(768);
        std::copy(s->luts.hue.begin(), s->luts.hue.end(), luts.begin());
        std::copy(s->luts.sat.begin(), s->luts.sat.end(), luts.begin() + 256);
        std::copy(s->luts.val.begin(), s->luts.val.end(), luts.begin() + 512);
        const GLuint divTex = texture(GL_R32I, 256, 2, GL_RED_INTEGER, GL_INT, div.data());
        const GLuint lutTex = texture(GL_R8UI, 256, 3, GL_RED_INTEGER, GL_UNSIGNED_BYTE, luts.data());
        const GLuint out = target();
        use("gl_hsv.frag");
        bindTexture(0, input, "gl_hsv.frag", "image");
        bindTexture(1, divTex, "gl_hsv.frag", "divTables");
        bindTexture(2, lutTex, "gl_hsv.frag", "shiftLuts");
        draw("gl_hsv.frag", out, w, h);
        return out;
    }
    if (const auto* s = std::get_if<BlurStep>(&step)) {
        const int ks = int(s->kernel.size());
        const GLuint taps = texture(GL_R32F, ks, 1, GL_RED, GL_FLOAT, s->kernel.data());
        const GLuint sums = texture(GL_RGBA32F, w, h, GL_RGBA, GL_FLOAT, nullptr);
        QOpenGLShaderProgram& rows = use("gl_blur_rows.frag");
        bindTexture(0, input, "gl_blur_rows.frag", "image");
        bindTexture(1, taps, "gl_blur_rows.frag", "taps");
        gl_->glUniform1i(rows.uniformLocation("ksize"), ks);
        draw("gl_blur_rows.frag", sums, w, h);
        const GLuint out = target();
        QOpenGLShaderProgram& cols = use("gl_blur_columns.frag");
        bindTexture(0, sums, "gl_blur_columns.frag", "rowSums");
        bindTexture(1, input, "gl_blur_columns.frag", "image");
        bindTexture(2, taps, "gl_blur_columns.frag", "taps");
        gl_->glUniform1i(cols.uniformLocation("ksize"), ks);
        draw("gl_blur_columns.frag", out, w, h);
        return out;
    }
    if (const auto* s = std::get_if<MedianStep>(&step)) {
        const GLuint out = target();
        QOpenGLShaderProgram& p = use("gl_median.frag");
        bindTexture(0, input, "gl_median.frag", "image");
        gl_->glUniform1i(p.uniformLocation("ksize"), s->ksize);
        draw("gl_median.frag", out, w, h);
        return out;
    }
    if (const auto* s = std::get_if<ConvolveStep>(&step)) {
        const GLuint taps = texture(GL_R32F, s->ksize, s->ksize, GL_RED, GL_FLOAT, s->kernel.data());
        const GLuint out = target();
        QOpenGLShaderProgram& p = use("gl_convolve.frag");
        bindTexture(0, input, "gl_convolve.frag", "image");
        bindTexture(1, taps, "gl_convolve.frag", "taps");
        gl_->glUniform1i(p.uniformLocation("ksize"), s->ksize);
        draw("gl_convolve.frag", out, w, h);
        return out;
    }
    if (const auto* s = std::get_if<NoiseStep>(&step)) {
        const GLuint out = target();
        QOpenGLShaderProgram& p = use("gl_noise.frag");
        bindTexture(0, input, "gl_noise.frag", "image");
        gl_->glUniform2ui(p.uniformLocation("seed"), GLuint(s->seed), GLuint(s->seed >> 32));
        gl_->glUniform1f(p.uniformLocation("mean255"), s->mean255);
        gl_->glUniform1f(p.uniformLocation("std255"), s->std255);
        gl_->glUniform1i(p.uniformLocation("perChannel"), s->perChannel ? 1 : 0);
        draw("gl_noise.frag", out, w, h);
        return out;
    }
    if (const auto* s = std::get_if<DropoutStep>(&step)) {
        if (s->holes.empty()) return input;
        const int n = int(s->holes.size());
        std::vector<std::int32_t> rects;
        std::vector<std::uint8_t> colours;
        for (int i = 0; i < n; ++i) {
            const Hole& hole = s->holes[std::size_t(i)];
            rects.insert(rects.end(), {hole.x, hole.y, hole.w, hole.h});
            const Rgb c = s->mode == Fill::Mode::RandomUniform ? s->colours[std::size_t(i)] : s->fill;
            colours.insert(colours.end(), {c[0], c[1], c[2], 255});
        }
        const GLuint holes = texture(GL_RGBA32I, n, 1, GL_RGBA_INTEGER, GL_INT, rects.data());
        const GLuint colourTex = texture(GL_RGBA8UI, n, 1, GL_RGBA_INTEGER, GL_UNSIGNED_BYTE, colours.data());
        const GLuint out = target();
        QOpenGLShaderProgram& p = use("gl_dropout.frag");
        bindTexture(0, input, "gl_dropout.frag", "image");
        bindTexture(1, holes, "gl_dropout.frag", "holes");
        bindTexture(2, colourTex, "gl_dropout.frag", "colours");
        gl_->glUniform1i(p.uniformLocation("holeCount"), n);
        gl_->glUniform1i(p.uniformLocation("mode"), s->mode == Fill::Mode::Random ? 1 : 0);
        gl_->glUniform2ui(p.uniformLocation("seed"), GLuint(s->seed), GLuint(s->seed >> 32));
        draw("gl_dropout.frag", out, w, h);
        return out;
    }
    if (const auto* s = std::get_if<MixStep>(&step)) {
        if (!s->partner) throw RuntimeError("a mixing step has no partner image (bindPartners)");
        const GLuint partner = uploadImage(*s->partner);
        const GLuint out = target();
        QOpenGLShaderProgram& p = use("gl_mix.frag");
        bindTexture(0, input, "gl_mix.frag", "image");
        bindTexture(1, partner, "gl_mix.frag", "partner");
        gl_->glUniform1i(p.uniformLocation("paste"), s->paste ? 1 : 0);
        gl_->glUniform1ui(p.uniformLocation("weight"), s->weight);
        gl_->glUniform4i(p.uniformLocation("box"), s->box.x, s->box.y, s->box.w, s->box.h);
        draw("gl_mix.frag", out, w, h);
        return out;
    }
    if (drawsKeyedShapes(step)) {
        // Shapes drawn on the host as keys and tables (keyed_tables.h); the tables 4096 entries a row.
        KeyedTables k = keyedTables(step, w, h);
        const std::size_t rows = (k.tables.size() + 4095) / 4096;
        if (rows <= std::size_t(maxTextureSize_)) {
            k.tables.resize(rows * 4096, 0);
            const GLuint keys = texture(GL_R32UI, w, h, GL_RED_INTEGER, GL_UNSIGNED_INT, k.keys.data());
            const GLuint tables =
                texture(GL_R8UI, 4096, GLsizei(rows), GL_RED_INTEGER, GL_UNSIGNED_BYTE, k.tables.data());
            const GLuint out = target();
            use("gl_keyed_lut.frag");
            bindTexture(0, input, "gl_keyed_lut.frag", "image");
            bindTexture(1, keys, "gl_keyed_lut.frag", "keys");
            bindTexture(2, tables, "gl_keyed_lut.frag", "tables");
            draw("gl_keyed_lut.frag", out, w, h);
            return out;
        }
        Image img = readBack(input, w, h, channels);  // more keys than a texture holds: the CPU's kernel
        applyPixelStep(img, step, RowLoop{});
        return uploadImage(img);
    }
    if (isHostStep(step) || std::holds_alternative<ClaheStep>(step) ||
        std::holds_alternative<FancyPcaStep>(step) || std::holds_alternative<IsoNoiseStep>(step) ||
        std::holds_alternative<FlareStep>(step)) {
        // On the host: a codec call (host_steps.h), or a step whose maths GLSL 3.30 cannot do exactly
        // (float64 sums, unfused float products: OpDesc::runsOnHostGl; an overlay flare was keyed
        // above, so this is physics_based). Read back, run, upload.
        Image img = readBack(input, w, h, channels);
        applyHostStep(img, step);
        return uploadImage(img);
    }
    throw RuntimeError("GL backend: unknown pixel step");
}

GLuint GlBackend::renderJob(const RenderJob& job, int& channels) {
    const Plan& plan = job.plan;
    GLuint current = 0;
    channels = 3;
    for (std::size_t s = 0; s < plan.stages.size(); ++s) {
        const PlanStage& stage = plan.stages[s];
        int inW = s > 0 ? plan.stages[s - 1].width : 0, inH = s > 0 ? plan.stages[s - 1].height : 0;
        GLuint input = current;
        if (s == 0) {
            const Image& level = job.source->level(stage.warp.sourceLevel);
            channels = level.channels;
            inW = level.width;
            inH = level.height;
            input = uploadImage(level);
        }
        current = runWarp(input, inW, inH, stage.warp, stage.width, stage.height);
        for (const PixelStep& step : stage.ops)
            current = runPixelStep(current, stage.width, stage.height, channels, step);
        check("rendering a plan stage");
    }
    return current;
}

void GlBackend::render(std::span<RenderJob> jobs) {
    ctx_.makeCurrent();
    try {
        for (RenderJob& job : jobs) {
            int channels = 3;
            const GLuint result = renderJob(job, channels);
            *job.output = readBack(result, job.plan.width, job.plan.height, channels);
            gl_->glDeleteTextures(GLsizei(scratch_.size()), scratch_.data());
            scratch_.clear();
        }
    } catch (...) {
        if (!scratch_.empty()) gl_->glDeleteTextures(GLsizei(scratch_.size()), scratch_.data());
        scratch_.clear();
        ctx_.doneCurrent();
        throw;
    }
    ctx_.doneCurrent();
}

unsigned GlBackend::renderSheetTexture(SheetLayout& layout) {
    ctx_.makeCurrent();
    try {
        const int slot = nextSheet_;
        nextSheet_ = (nextSheet_ + 1) % 3;
        GLuint& sheet = sheets_[slot];
        if (!sheet || sheetSizes_[slot][0] != layout.width || sheetSizes_[slot][1] != layout.height) {
            if (sheet) gl_->glDeleteTextures(1, &sheet);
            gl_->glGenTextures(1, &sheet);
            gl_->glBindTexture(GL_TEXTURE_2D, sheet);
            gl_->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
            gl_->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
            gl_->glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8UI, layout.width, layout.height, 0, GL_RGBA_INTEGER,
                              GL_UNSIGNED_BYTE, nullptr);
            sheetSizes_[slot][0] = layout.width;
            sheetSizes_[slot][1] = layout.height;
        }
        if (!sheetFbo_) gl_->glGenFramebuffers(1, &sheetFbo_);
        gl_->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, sheetFbo_);
        gl_->glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, sheet, 0);
        const GLuint gap[4] = {kSheetGapGray, kSheetGapGray, kSheetGapGray, 255};
        gl_->glClearBufferuiv(GL_COLOR, 0, gap);
        for (std::size_t k = 0; k < layout.jobs.size(); ++k) {
            int channels = 3;
            const GLuint tile = renderJob(layout.jobs[k], channels);
            const SheetTile& t = layout.tiles[std::size_t(layout.jobTiles[k])];
            // Integer textures copy with a nearest blit, value for value.
            gl_->glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_);
            gl_->glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tile, 0);
            gl_->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, sheetFbo_);
            gl_->glBlitFramebuffer(0, 0, t.width, t.height, t.x, t.y, t.x + t.width, t.y + t.height,
                                   GL_COLOR_BUFFER_BIT, GL_NEAREST);
            check("placing a tile in the grid texture");
            gl_->glDeleteTextures(GLsizei(scratch_.size()), scratch_.data());
            scratch_.clear();
        }
        // The display's context reads this texture next: everything must have landed.
        gl_->glFinish();
        gl_->glBindFramebuffer(GL_FRAMEBUFFER, 0);
        ctx_.doneCurrent();
        return sheet;
    } catch (...) {
        if (!scratch_.empty()) gl_->glDeleteTextures(GLsizei(scratch_.size()), scratch_.data());
        scratch_.clear();
        ctx_.doneCurrent();
        throw;
    }
}

}  // namespace

GlProbe probeGl() {
    GlProbe p;
    try {
        GlContext ctx;
        p.available = true;
        p.software = ctx.isSoftware();
        p.detail = ctx.renderer() + ", OpenGL " + ctx.version() + (p.software ? " (software renderer)" : "");
    } catch (const std::exception& e) {
        p.detail = e.what();
    }
    return p;
}

std::unique_ptr<Backend> createGlBackend(const GlBackendOptions& options) {
    return std::make_unique<GlBackend>(options);
}

}  // namespace auglab
