#include "render_service.h"

#include <chrono>

#include <QFileInfo>
#include <QOpenGLContext>

#include "backend_registry.h"
#include "error.h"
#if defined(AUGLAB_HAVE_GL)
#include "gl_backend.h"
#endif
#if defined(AUGLAB_HAVE_CUDA_GL)
#include "cuda_gl_display.h"
#endif
#include "fallback_backend.h"
#include "sampler.h"
#include "sheet_sources.h"

namespace auglab {

namespace {

/// One message per image that could not be read or take the pipeline (its tile is left empty).
QStringList tileErrors(const std::vector<SheetTile>& tiles, const QStringList& files) {
    QStringList out;
    for (const SheetTile& t : tiles) {
        if (t.error.empty()) continue;
        // Load errors name their file already; a pipeline that cannot run on an image does not.
        const QString error = QString::fromStdString(t.error), file = files.value(t.sourceIndex);
        const QString line =
            error.contains(file) ? error : QFileInfo(file).fileName() + QStringLiteral(": ") + error;
        if (!out.contains(line)) out << line;
    }
    return out;
}

/// The cells of a grid none of whose tiles can be laid out, each with why: what is shown when no
/// image of the request has a readable header, or the pipeline fits none of them (layoutSheet then
/// throws the first failing tile's reason, `why`, and keeps no other). The cells are where
/// layoutSheet puts them: the layout of an empty pipeline over stand-ins of a tile's size, which
/// cannot fail. A tile gets its image's header error, or else `why`.
SheetLayout unrenderedLayout(const std::vector<SheetSource>& heads, const SheetOptions& o,
                             const std::string& why) {
    const std::vector<SheetSource> standIns(heads.size(), SheetSource{o.tile, o.tile, {}});
    SheetLayout layout = layoutSheet(Pipeline{}, standIns, o);
    layout.jobs.clear();
    layout.jobTiles.clear();
    for (SheetTile& t : layout.tiles) {
        if (t.sourceIndex < 0) continue;
        t.replay = Replay{};
        t.invented = -1;
        const std::string& own = heads[std::size_t(t.sourceIndex)].error;
        t.error = own.empty() ? why : own;
    }
    return layout;
}

}  // namespace

RenderService::RenderService(QObject* parent) : QObject(parent) {
    qRegisterMetaType<auglab::GridResult>();
    qRegisterMetaType<auglab::SampleResult>();
    thread_ = std::thread([this] { run(); });
}

RenderService::~RenderService() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void RenderService::submitGrid(GridRequest request) {
    {
        std::lock_guard lock(mutex_);
        pendingGrid_ = std::move(request);
    }
    wake_.notify_all();
}

void RenderService::submitSample(SampleRequest request) {
    {
        std::lock_guard lock(mutex_);
        pendingSample_ = std::move(request);
    }
    wake_.notify_all();
}

QImage RenderService::toQImage(const Image& image) {
    const QImage::Format format = image.channels == 4 ? QImage::Format_RGBA8888 : QImage::Format_RGB888;
    return QImage(image.pixels.data(), image.width, image.height, static_cast<qsizetype>(image.stride),
                  format)
        .copy();
}

Backend& RenderService::backend(const QString& name, QString& actual) {
    // Backends live on this thread (a GL context belongs to the thread that uses it). A backend
    // that cannot be created here is reported, and the CPU renders instead.
    auto it = backends_.find(name);
    if (it == backends_.end()) {
        std::unique_ptr<Backend> b;
        try {
            b = createBackend(name.toStdString());
        } catch (const std::exception& e) {
            pendingMessages_ << QString::fromUtf8(e.what()) + QStringLiteral("; rendering with cpu");
            b = createBackend("cpu");
        }
        it = backends_.emplace(name, std::move(b)).first;
    }
    actual = QString::fromStdString(it->second->name());
    return *it->second;
}

GpuSheetRenderer* RenderService::gpuSheetRenderer(FallbackBackend& chain) {
    Backend& current = chain.current();
#if defined(AUGLAB_HAVE_GL)
    if (auto* gpu = dynamic_cast<GpuSheetRenderer*>(&current)) return gpu;
#endif
#if defined(AUGLAB_HAVE_CUDA_GL)
    if (cudaGlFailed_ || current.name() != "cuda") return nullptr;
    if (cudaGlChain_ != &chain || cudaGlPosition_ != chain.position() || !cudaGl_) {
        cudaGl_.reset();
        cudaGlChain_ = nullptr;
        try {
            cudaGl_ = createCudaGlSheetDisplay(current);
            cudaGlChain_ = &chain;
            cudaGlPosition_ = chain.position();
        } catch (const std::exception& e) {
            cudaGlFailed_ = true;
            pendingMessages_ << QString::fromUtf8(e.what()) +
                                    QStringLiteral("; CUDA grids are shown through host memory");
            return nullptr;
        }
    }
    return cudaGl_.get();
#else
    return nullptr;
#endif
}

QStringList RenderService::takeMessages(Backend& b) {
    QStringList out = pendingMessages_;
    pendingMessages_.clear();
    if (const auto* chain = dynamic_cast<const FallbackBackend*>(&b)) {
        const auto& m = chain->messages();
        for (std::size_t i = reportedFallbacks_[&b]; i < m.size(); ++i) out << QString::fromStdString(m[i]);
        reportedFallbacks_[&b] = m.size();
    }
    return out;
}

void RenderService::run() {
    for (;;) {
        std::optional<GridRequest> grid;
        std::optional<SampleRequest> sample;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || pendingGrid_ || pendingSample_; });
            if (stop_) {
                // GL contexts are released on the thread that made them; the interop before the
                // CUDA backend it writes for.
                cudaGl_.reset();
                backends_.clear();
                return;
            }
            // The grid first: it is what the user is watching while dragging.
            if (pendingGrid_)
                grid.swap(pendingGrid_);
            else
                sample.swap(pendingSample_);
        }
        if (grid) {
            GridResult r = renderGrid(*grid);
            emit gridRendered(r);
        } else if (sample) {
            SampleResult r = renderSample(*sample);
            emit sampleRendered(r);
        }
    }
}

GridResult RenderService::renderGrid(const GridRequest& r) {
    GridResult out;
    out.generation = r.generation;
    if (r.files.isEmpty()) return out;
    // Headers first (remembered by the cache): the layout needs sizes only. A file that cannot be
    // read keeps its cell, empty, with the reason.
    std::vector<SheetSource> heads;
    for (const QString& f : r.files) {
        ImageInfo info;
        QString error;
        if (cache_.info(f, info, error))
            heads.push_back(SheetSource{info.width, info.height, {}});
        else
            heads.push_back(SheetSource{0, 0, error.toStdString()});
    }
    const QStringList& sourceFiles = r.files;
    // The tiles shown, the file of each, and why those with an image were not rendered.
    auto setTiles = [&](std::vector<SheetTile> tiles) {
        for (const SheetTile& t : tiles)
            out.tileFiles << (t.sourceIndex >= 0 ? sourceFiles.value(t.sourceIndex) : QString());
        out.errors << tileErrors(tiles, sourceFiles);
        out.tiles = std::move(tiles);
    };
    try {
        // Laid out once, outside any backend's try: a pipeline that cannot run on these images is
        // the input's fault, not a backend's. A grid none of whose tiles can be rendered is still
        // a grid: its cells, each with why, rather than no result (which would leave the previous
        // image's samples on screen, as if this one rendered).
        SheetLayout layout;
        try {
            layout = layoutSheet(r.pipeline, heads, r.options);
        } catch (const InputError& e) {
            layout = unrenderedLayout(heads, r.options, e.what());
        }
        std::vector<std::shared_ptr<SourceLevels>> held;
        if (!layout.jobs.empty()) {
            try {
                // Each image at the size its tiles read, on the decoding threads, through the cache.
                std::vector<std::string> loadErrors;
                held = loadSheetSources(
                    layout, static_cast<std::size_t>(r.files.size()), decoders_,
                    [&](std::size_t i, int level) {
                        QString error;
                        auto image = cache_.get(r.files[int(i)], level, error);
                        if (!image) throw InputError(error.toStdString());
                        return image;
                    },
                    loadErrors);
                // The partners of mixing ops: other images loaded, through the cache at the level a
                // tile reads.
                if (!r.partnerFiles.isEmpty())
                    bindSheetPartners(layout, [&](std::uint64_t i, int w, int h) {
                        return partnerImage(r.partnerFiles, i, w, h, true);
                    });
            } catch (const InputError&) {
                // Thrown once no job is left: every tile has been given its reason (an image that
                // cannot be decoded, a partner that cannot) and dropped.
                if (!layout.jobs.empty()) throw;
            }
        }
        QString actual;
        Backend& b = backend(r.backend, actual);
        if (layout.jobs.empty()) {
            // Nothing to render: the empty sheet under the cells' placeholders.
            out.image = toQImage(Image(layout.width, layout.height, 3, kSheetGapGray));
            out.sheetSize = out.image.size();
            out.backend = actual;
            setTiles(std::move(layout.tiles));
            out.errors << takeMessages(b);
            return out;
        }
        const auto t0 = std::chrono::steady_clock::now();
#if defined(AUGLAB_HAVE_GL)
        // A GPU backend keeps the grid on the GPU when the display shares its textures
        // (Qt::AA_ShareOpenGLContexts): no readback, no upload.
        auto* chain = dynamic_cast<FallbackBackend*>(&b);
        if (chain && QOpenGLContext::globalShareContext()) {
            if (GpuSheetRenderer* gpu = gpuSheetRenderer(*chain)) {
                // A sheet larger than a GL texture may be (a 64x64 grid of large tiles) goes through
                // host memory this time; the GPU path stays for the next one.
                const bool fits =
                    layout.width <= gpu->maxTextureSize() && layout.height <= gpu->maxTextureSize();
                if (fits) {
                    try {
                        out.glTexture = gpu->renderSheetTexture(layout);
                        out.milliseconds =
                            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                                .count();
                        out.backend = QString::fromStdString(chain->name());
                        out.sheetSize = QSize(layout.width, layout.height);
                        setTiles(std::move(layout.tiles));
                        out.errors << takeMessages(b);
                        return out;
                    }
#if defined(AUGLAB_HAVE_CUDA_GL)
                    catch (const InteropError& e) {
                        // CUDA works, the interop does not: this grid and the next come through the host.
                        cudaGl_.reset();
                        cudaGlFailed_ = true;
                        pendingMessages_ << QString::fromUtf8(e.what()) +
                                                QStringLiteral("; CUDA grids are shown through host memory");
                    }
#endif
                    catch (const std::exception& e) {
                        if (gpu == cudaGl_.get()) cudaGl_.reset();  // it writes for the backend being dropped
                        chain->failCurrent(e.what());  // and render this grid with the next backend below
                    }
                }
            }
        }
#endif
        Sheet sheet = renderLayout(std::move(layout), b);
        actual = QString::fromStdString(b.name());  // after a fallback, the one that rendered
        out.errors << takeMessages(b);
        out.milliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        out.backend = actual;
        out.image = toQImage(sheet.image);
        out.sheetSize = out.image.size();
        setTiles(std::move(sheet.tiles));
    } catch (const std::exception& e) {
        out.errors << QString::fromUtf8(e.what());
    }
    return out;
}

std::shared_ptr<SourceLevels> RenderService::partnerImage(const QStringList& pool, std::uint64_t index, int w,
                                                          int h, bool tile) {
    const QString file = pool.value(int(index));
    QString error;
    ImageInfo info;
    if (file.isEmpty()) throw InputError("image " + std::to_string(index) + " is not loaded");
    if (!cache_.info(file, info, error)) throw InputError(error.toStdString());
    const int level = partnerLevel(info.width, info.height, w, h,
                                   tile ? SourceSampling::Prefiltered : SourceSampling::Source);
    auto image = cache_.get(file, level, error);
    if (!image) throw InputError(error.toStdString());
    return image;
}

SampleResult RenderService::renderSample(const SampleRequest& r) {
    SampleResult out;
    out.ticket = r.ticket;
    QString error;
    auto image = cache_.get(r.file, 0, error);  // the whole image: full resolution
    if (!image) {
        out.error = error;
        return out;
    }
    try {
        QString actual;
        Backend& b = backend(r.backend, actual);
        Partners partners;
        if (!r.partnerFiles.isEmpty()) {
            partners.pool = PartnerPool{std::uint64_t(r.partnerFiles.size()), r.self};
            partners.load = [&](std::uint64_t i, int w, int h) {
                return partnerImage(r.partnerFiles, i, w, h, false);
            };
        }
        const Image result = auglab::renderSample(r.original ? Pipeline{} : r.pipeline, *image,
                                                  r.seed, r.index, b, &out.replay, partners);
        out.image = toQImage(result);
    } catch (const std::exception& e) {
        out.error = QString::fromUtf8(e.what());
    }
    return out;
}

}  // namespace auglab
