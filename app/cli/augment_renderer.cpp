#include "augment_renderer.h"

#include <exception>

#include "backend_registry.h"
#include "contact_sheet.h"
#include "fallback_backend.h"

namespace auglab::cli {

SampleRenderer::SampleRenderer(const std::string& backendName, int workers, std::mutex& mutex,
                               std::condition_variable& wake)
    : mutex_(mutex), wake_(wake) {
    // createBackend() checks the name and, for gl and cuda, that the backend is available here.
    if ((backendName == "auto" ? autoBackendName() : backendName) == "cpu") {
        for (int i = 0; i < workers; ++i) perWorker_.push_back(createBackend("cpu", 1));
    } else {
        // The CPU backend at the end of its fallback chain then uses every worker's thread.
        shared_ = createBackend(backendName, workers);
    }
}

std::string SampleRenderer::name() const {
    return shared_ ? shared_->name() : "cpu";
}

// What renderSample() does for `apply` once the caller has drawn the replay with samplePipeline(),
// so the outputs are the same bit for bit.
SampleRenderer::Result SampleRenderer::render(int worker, Plan plan, SourceLevels& source,
                                              const PartnerLoader& partners) {
    if (!shared_) {
        Backend& backend = *perWorker_[static_cast<std::size_t>(worker)];
        Image image = renderPlan(std::move(plan), source, backend, partners);
        return {std::move(image), backend.name()};
    }
    Request request{&plan, &source, &partners, {}};
    std::future<Result> done = request.result.get_future();
    {
        const std::lock_guard lock(mutex_);
        queue_.push_back(&request);
    }
    wake_.notify_all();
    return done.get();  // rethrows the main thread's exception
}

void SampleRenderer::renderQueued() {
    std::vector<Request*> queued;
    {
        const std::lock_guard lock(mutex_);
        queued.swap(queue_);
    }
    // One renderPlan() per sample, like apply's renderReplay: a backend that fails falls through
    // to the next inside the chain.
    for (Request* r : queued) {
        try {
            Image image = renderPlan(std::move(*r->plan), *r->source, *shared_, *r->partners);
            r->result.set_value({std::move(image), shared_->name()});
        } catch (...) {
            r->result.set_exception(std::current_exception());
        }
    }
}

std::vector<std::string> SampleRenderer::fallbackMessages() const {
    std::vector<std::string> out;
    const auto collect = [&](const Backend* b) {
        if (const auto* chain = dynamic_cast<const FallbackBackend*>(b))
            out.insert(out.end(), chain->messages().begin(), chain->messages().end());
    };
    if (shared_) collect(shared_.get());
    for (const auto& b : perWorker_) collect(b.get());
    return out;
}

}  // namespace auglab::cli
