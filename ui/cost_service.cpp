#include "cost_service.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include <QFileInfo>
#include <QImage>

#include "backend_registry.h"
#include "cpu_backend.h"
#include "fallback_backend.h"
#include "image_io.h"
#include "plan.h"
#include "sampler.h"

namespace auglab {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A picture with smooth regions, edges and noise, for when no image is open (the cost of an op does
// not depend much on the content, but a flat picture would flatter nothing and hide nothing).
Image generatedPicture(int w, int h) {
    Image img(w, h, 3);
    std::uint32_t state = 12345;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            state = state * 1664525u + 1013904223u;
            const int noise = int(state >> 27);  // 0..31
            std::uint8_t* p = img.at(x, y);
            p[0] = std::uint8_t((x * 255 / std::max(1, w - 1) + noise) & 255);
            p[1] = std::uint8_t((y * 255 / std::max(1, h - 1) + noise) & 255);
            p[2] = std::uint8_t((((x / 32) + (y / 32)) % 2 ? 200 : 40) + noise);
        }
    return img;
}

// The decoded file resized to the training size (aspect not kept: a training loader resizes every
// image to the one input size of the network).
Image resizedFile(const QString& file, const QSize& size) {
    const Image full = loadImage(file.toStdString()).image;
    const QImage::Format format = full.channels == 4 ? QImage::Format_RGBA8888 : QImage::Format_RGB888;
    const QImage resized = QImage(full.pixels.data(), full.width, full.height, qsizetype(full.stride), format)
                               .scaled(size, Qt::IgnoreAspectRatio, Qt::SmoothTransformation)
                               .convertToFormat(format);
    Image out(resized.width(), resized.height(), full.channels);
    const std::size_t rowBytes = std::size_t(out.width) * std::size_t(out.channels);
    for (int y = 0; y < out.height; ++y) std::memcpy(out.row(y), resized.constScanLine(y), rowBytes);
    return out;
}

}  // namespace

Throughput measureThroughput(Backend& backend, SourceLevels& input, const Pipeline& pipeline,
                             std::uint64_t seed, double budgetMs, int minBatch,
                             const std::function<bool()>& cancelled) {
    const int w = input.width(), h = input.height();
    std::uint64_t nextIndex = 0;
    // One batch: draw, plan and render `n` different samples. Drawing and planning are part of
    // augmenting an image, so they are timed too.
    auto batch = [&](int n) {
        std::vector<Image> outputs(static_cast<std::size_t>(n));
        std::vector<RenderJob> jobs;
        jobs.reserve(outputs.size());
        const auto t0 = Clock::now();
        for (int i = 0; i < n; ++i) {
            const Replay replay = samplePipeline(pipeline, seed, nextIndex++, w, h);
            jobs.emplace_back(&input, buildFullPlan(replay, w, h), &outputs[std::size_t(i)]);
        }
        backend.render(jobs);
        return secondsSince(t0);
    };

    Throughput out;
    minBatch = std::max(1, minBatch);
    const double budget = std::max(1.0, budgetMs) / 1000;
    // Warm-up: the first batch pays for one-time costs (a GL context's shaders, a CUDA upload, the
    // thread pool waking up); the second one estimates the cost of an image.
    batch(minBatch);
    if (cancelled()) return {0, 0, 0, 0, true};
    const double perImage = std::max(1e-7, batch(minBatch) / minBatch);
    out.batchSize = std::clamp(int(std::lround(budget / 8 / perImage)), minBatch, 512);

    std::vector<double> rates;
    const auto t0 = Clock::now();
    for (;;) {
        if (cancelled()) return {0, 0, 0, 0, true};
        rates.push_back(out.batchSize / std::max(1e-9, batch(out.batchSize)));
        const double elapsed = secondsSince(t0);
        if ((elapsed >= budget && rates.size() >= 3) || elapsed >= 4 * budget) break;
    }
    std::sort(rates.begin(), rates.end());
    out.imagesPerSecond = rates[rates.size() / 2];
    out.batches = int(rates.size());
    out.images = out.batches * out.batchSize;
    return out;
}

CostService::CostService(QObject* parent) : QObject(parent) {
    qRegisterMetaType<auglab::CostResult>();
    thread_ = std::thread([this] { run(); });
}

CostService::~CostService() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void CostService::submit(CostRequest request) {
    {
        std::lock_guard lock(mutex_);
        latest_ = request.generation;
        pending_ = std::move(request);
    }
    wake_.notify_all();
}

void CostService::cancel() {
    std::lock_guard lock(mutex_);
    latest_ = 0;  // generations start at 1
    pending_.reset();
}

void CostService::run() {
    for (;;) {
        CostRequest r;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || pending_; });
            if (stop_) {
                backends_.clear();  // GL contexts go on the thread that made them
                return;
            }
            r = std::move(*pending_);
            pending_.reset();
        }
        bool completed = true;
        for (const QString& name : r.backends) {
            if (stop_ || latest_ != r.generation) {
                completed = false;
                break;
            }
            CostResult result = measure(r, name);
            if (latest_ != r.generation) {  // stopped, or finished after a newer request came
                completed = false;
                break;
            }
            emit backendMeasured(result);
        }
        emit requestFinished(r.generation, completed);
    }
}

Backend* CostService::backend(const QString& name, QString& error) {
    if (auto f = failed_.find(name); f != failed_.end()) {
        error = f->second;
        return nullptr;
    }
    auto it = backends_.find(name);
    if (it == backends_.end()) {
        std::unique_ptr<Backend> b;
        try {
            // The CPU with every hardware thread: what a data loader on this machine can use.
            if (name == QLatin1String("cpu"))
                b = std::make_unique<CpuBackend>(0);
            else
                b = createBackend(name.toStdString());
        } catch (const std::exception& e) {
            error = failed_[name] = QString::fromUtf8(e.what());
            return nullptr;
        }
        it = backends_.emplace(name, std::move(b)).first;
    }
    return it->second.get();
}

std::shared_ptr<SourceLevels> CostService::input(const CostRequest& r, QString& what) {
    const QString key =
        QString("%1|%2x%3").arg(r.sourceFile).arg(r.trainingSize.width()).arg(r.trainingSize.height());
    if (input_ && key == inputKey_) {
        what = inputWhat_;
        return input_;
    }
    const int w = std::clamp(r.trainingSize.width(), 1, 8192),
              h = std::clamp(r.trainingSize.height(), 1, 8192);
    Image image;
    what = QStringLiteral("a generated picture");
    if (!r.sourceFile.isEmpty()) {
        try {
            image = resizedFile(r.sourceFile, QSize(w, h));
            what = QFileInfo(r.sourceFile).fileName();
        } catch (const std::exception&) {
            image = Image();  // the grid reports unreadable files; the cost does not depend on them
        }
    }
    if (image.empty()) image = generatedPicture(w, h);
    input_ = std::make_shared<SourceLevels>(std::move(image));
    inputKey_ = key;
    inputWhat_ = what;
    return input_;
}

CostResult CostService::measure(const CostRequest& r, const QString& name) {
    CostResult out;
    out.generation = r.generation;
    out.backend = name;
    out.trainingSize = r.trainingSize;
    out.pipeline = r.pipeline;
    Backend* b = backend(name, out.error);
    if (!b) return out;
    auto in = input(r, out.source);
    out.channels = in->channels();
    int minBatch = 2;
    if (auto* cpu = dynamic_cast<CpuBackend*>(b)) {
        out.threads = cpu->threadCount();
        minBatch = std::max(minBatch, 2 * out.threads);  // every thread busy in every batch
    }
    try {
        const Throughput t = measureThroughput(*b, *in, r.pipeline, r.seed, r.budgetMs, minBatch,
                                               [this, &r] { return stop_ || latest_ != r.generation; });
        if (t.cancelled) return out;
        // A GPU backend that failed during the run handed its work to the next one in its chain:
        // those numbers are not this backend's. It is reported, and not measured again.
        if (auto* chain = dynamic_cast<FallbackBackend*>(b); chain && chain->name() != name.toStdString()) {
            const auto& m = chain->messages();
            out.error = failed_[name] =
                m.empty() ? QStringLiteral("failed") : QString::fromStdString(m.back());
            backends_.erase(name);
            return out;
        }
        out.ok = true;
        out.imagesPerSecond = t.imagesPerSecond;
        out.msPerImage = 1000 / t.imagesPerSecond;
        out.images = t.images;
        out.batches = t.batches;
        out.batchSize = t.batchSize;
    } catch (const std::exception& e) {
        out.error = QString::fromUtf8(e.what());
    }
    return out;
}

}  // namespace auglab
