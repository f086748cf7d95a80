#pragma once
// Rendering off the UI thread. The grid has one pending slot: a new request replaces whatever has
// not started yet, each request carries a generation number, and the view drops any result older
// than the newest it has shown, so a slider drag never queues stale work. Images are decoded on
// this thread too, through a cache with a byte budget, so a folder of any size stays responsive.
// A tile that cannot be rendered (an unreadable image) keeps its cell with the reason, even when
// it is every tile of the grid.

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <QImage>
#include <QObject>
#include <QString>
#include <QStringList>

#include "backend.h"
#include "contact_sheet.h"
#include "image_cache.h"
#include "thread_pool.h"

namespace auglab {

class FallbackBackend;

struct GridRequest {
    quint64 generation = 0;
    Pipeline pipeline;
    SheetOptions options;
    QStringList files;  ///< samples/compare: the image shown; dataset: this page's images
    /// Every image loaded (the folder, in dataset mode): the partners of mixing ops come from
    /// it, numbered as options.partnerPool and partnerFirst say.
    QStringList partnerFiles;
    QString backend = QStringLiteral("auto");
};

struct GridResult {
    quint64 generation = 0;
    QImage
        image;  ///< the sheet in memory (CPU backend, or a GPU one without a shared context), or null when...
    unsigned glTexture =
        0;  ///< ...a GPU backend (GL, or CUDA through interop) left it in a texture shared with the display
    QSize sheetSize;
    std::vector<SheetTile> tiles;
    QStringList tileFiles;    ///< per tile, the image file it shows ("" for an empty cell)
    double milliseconds = 0;  ///< render time of the grid (decoding excluded)
    QString backend;
    QStringList errors;  ///< files that could not be loaded, with the reason
};

/// A full-resolution render of one sample, for the inspector.
struct SampleRequest {
    quint64 ticket = 0;
    Pipeline pipeline;
    std::uint64_t seed = 0, index = 0;
    bool original = false;
    QString file;
    QStringList partnerFiles;  ///< the pool mixing ops draw from (empty: the file alone)
    std::uint64_t self = 0;    ///< the file's place in it
    QString backend = QStringLiteral("auto");
};

struct SampleResult {
    quint64 ticket = 0;
    QImage image;
    Replay replay;
    QString error;
};

class RenderService : public QObject {
    Q_OBJECT

public:
    explicit RenderService(QObject* parent = nullptr);
    ~RenderService() override;

    /// Queues a grid; it replaces any grid request that has not started.
    void submitGrid(GridRequest request);
    void submitSample(SampleRequest request);

    /// Converts an engine image to a QImage (RGB888 or RGBA8888), deep copy.
    static QImage toQImage(const Image& image);

signals:
    void gridRendered(const auglab::GridResult& result);
    void sampleRendered(const auglab::SampleResult& result);

private:
    void run();
    GridResult renderGrid(const GridRequest& r);
    SampleResult renderSample(const SampleRequest& r);
    /// Image `index` of `pool` at the level an output of w x h reads (a tile's, or full resolution).
    std::shared_ptr<SourceLevels> partnerImage(const QStringList& pool, std::uint64_t index, int w, int h,
                                               bool tile);
    Backend& backend(const QString& name, QString& actual);
    /// The current backend of `chain` when it can leave a grid in a texture the display shares: the
    /// GL backend, or the CUDA backend through CUDA-GL interop. Null otherwise.
    GpuSheetRenderer* gpuSheetRenderer(FallbackBackend& chain);
    /// Messages about backends that could not be created or failed and were disabled, once each.
    QStringList takeMessages(Backend& b);

    std::mutex mutex_;
    std::condition_variable wake_;
    std::optional<GridRequest> pendingGrid_;
    std::optional<SampleRequest> pendingSample_;
    bool stop_ = false;
    ImageCache cache_;
    ThreadPool decoders_;  // decodes a page's images in parallel
    QStringList pendingMessages_;
    std::map<const Backend*, std::size_t> reportedFallbacks_;
    std::map<QString, std::unique_ptr<Backend>> backends_;  // by requested name, created on this thread
    // CUDA-GL interop for cudaGlFor_ (the CUDA backend it writes for); given up for the session
    // after an interop failure, when CUDA grids travel through the host instead.
    std::unique_ptr<GpuSheetRenderer> cudaGl_;
    // The backend it writes for, as (chain, position): an address alone could be reused by a
    // CUDA backend created later in another chain.
    const FallbackBackend* cudaGlChain_ = nullptr;
    std::size_t cudaGlPosition_ = 0;
    bool cudaGlFailed_ = false;
    std::thread thread_;
};

}  // namespace auglab

Q_DECLARE_METATYPE(auglab::GridResult)
Q_DECLARE_METATYPE(auglab::SampleResult)
