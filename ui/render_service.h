#pragma once
// Rendering off the UI thread. The grid has one pending slot: a new request replaces whatever has
// not started yet, each request carries a generation number, and the view drops any result older
// than the newest it has shown, so a slider drag never queues stale work. Images are decoded on
// this thread too, through a cache with a byte budget, so a folder of any size stays responsive.

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

namespace auglab {

struct GridRequest {
    quint64 generation = 0;
    std::vector<OpConfig> pipeline;
    SheetOptions options;
    QStringList files;  ///< samples/compare: the image shown; dataset: this page's images
    QString backend = QStringLiteral("auto");
};

struct GridResult {
    quint64 generation = 0;
    QImage image;              ///< the sheet in memory (CPU and CUDA backends), or null when...
    unsigned glTexture = 0;    ///< ...the GL backend left it on the GPU, in a texture shared with the display
    QSize sheetSize;
    std::vector<SheetTile> tiles;
    QStringList tileFiles;   ///< per tile, the image file it shows ("" for an empty cell)
    double milliseconds = 0; ///< render time of the grid (decoding excluded)
    QString backend;
    QStringList errors;      ///< files that could not be loaded, with the reason
};

/// A full-resolution render of one sample, for the inspector.
struct SampleRequest {
    quint64 ticket = 0;
    std::vector<OpConfig> pipeline;
    std::uint64_t seed = 0, index = 0;
    bool original = false;
    QString file;
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
    Backend& backend(const QString& name, QString& actual);
    /// Messages about backends that could not be created or failed and were disabled, once each.
    QStringList takeMessages(Backend& b);

    std::mutex mutex_;
    std::condition_variable wake_;
    std::optional<GridRequest> pendingGrid_;
    std::optional<SampleRequest> pendingSample_;
    bool stop_ = false;
    ImageCache cache_;
    QStringList pendingMessages_;
    std::map<const Backend*, std::size_t> reportedFallbacks_;
    std::map<QString, std::unique_ptr<Backend>> backends_;  // by requested name, created on this thread
    std::thread thread_;
};

}  // namespace auglab

Q_DECLARE_METATYPE(auglab::GridResult)
Q_DECLARE_METATYPE(auglab::SampleResult)
