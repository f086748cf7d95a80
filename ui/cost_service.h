#pragma once
// What the pipeline would cost in training, measured off the UI thread: images per second of
// augmentation alone, at the training size, on each backend. A training loader decodes an image,
// resizes it to the training resolution, then augments it; so the input here is the shown image
// already resized to the training size, and every output has that size too. Decoding and resizing
// are excluded: they cost the same whatever the pipeline is.
//
// Like RenderService: one pending slot (a new request replaces one that has not started), every
// request carries a generation number, and a measurement stops between batches once a newer
// request has arrived, so a stale measurement never holds the CPU for long. Backends are created
// on the service's thread (a GL context belongs to the thread that made it).

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <QObject>
#include <QSize>
#include <QString>
#include <QStringList>

#include "backend.h"
#include "pipeline.h"

namespace auglab {

struct CostRequest {
    quint64 generation = 0;
    Pipeline pipeline;
    std::uint64_t seed = 0;
    QSize trainingSize{224, 224};
    QString sourceFile;     ///< resized to the training size; "" or unreadable: a generated picture
    QStringList backends;   ///< measured in this order: "cpu", "gl", "cuda"
    double budgetMs = 150;  ///< timed repetitions per backend (warm-up not counted)
};

/// One backend's measurement of one request.
struct CostResult {
    quint64 generation = 0;
    QString backend;  ///< as requested
    bool ok = false;
    QString error;               ///< why there is no number (the backend failed or could not be created)
    double imagesPerSecond = 0;  ///< median over the timed batches
    double msPerImage = 0;       ///< 1000 / imagesPerSecond
    int images = 0;              ///< outputs timed, all different samples
    int batches = 0;
    int batchSize = 0;
    int threads = 0;  ///< CPU threads (cpu only)
    QSize trainingSize;
    int channels = 3;  ///< of the training-size input (RGBA costs more than RGB)
    QString source;    ///< what was augmented: a file name or "a generated picture"
    Pipeline pipeline;
};

/// The timing loop, without threads or Qt: sample, plan and render batches of outputs of `input`'s
/// size, each output a different sample index. Two short warm-up batches (contexts, shaders, uploads,
/// waking the thread pool) give a per-image estimate that sizes the timed batches at about
/// budgetMs / 8 each (at least `minBatch` outputs, so every CPU thread has work); timed batches
/// run until budgetMs has passed and at least three were timed, or four budgets have passed.
/// `cancelled` is asked between batches.
struct Throughput {
    double imagesPerSecond = 0;  ///< median over batches
    int images = 0, batches = 0, batchSize = 0;
    bool cancelled = false;
};
Throughput measureThroughput(Backend& backend, SourceLevels& input, const Pipeline& pipeline,
                             std::uint64_t seed, double budgetMs, int minBatch,
                             const std::function<bool()>& cancelled);

class CostService : public QObject {
    Q_OBJECT

public:
    explicit CostService(QObject* parent = nullptr);
    ~CostService() override;

    /// Queues a measurement; it replaces one that has not started and stops one that has.
    void submit(CostRequest request);
    /// Drops the pending request and stops the one being measured (at its next batch).
    void cancel();

signals:
    /// One backend of a request is measured (emitted on the service's thread).
    void backendMeasured(const auglab::CostResult& result);
    /// Every backend of `generation` is measured, or it was stopped by a newer request.
    void requestFinished(quint64 generation, bool completed);

private:
    void run();
    CostResult measure(const CostRequest& r, const QString& backend);
    Backend* backend(const QString& name, QString& error);
    std::shared_ptr<SourceLevels> input(const CostRequest& r, QString& what);

    std::mutex mutex_;
    std::condition_variable wake_;
    std::optional<CostRequest> pending_;
    std::atomic<quint64> latest_{0};
    std::atomic<bool> stop_{false};
    // Owned by the service's thread.
    std::map<QString, std::unique_ptr<Backend>> backends_;
    std::map<QString, QString> failed_;  // backends that failed here: not measured again this session
    std::shared_ptr<SourceLevels> input_;
    QString inputKey_, inputWhat_;
    std::thread thread_;
};

}  // namespace auglab

Q_DECLARE_METATYPE(auglab::CostResult)
