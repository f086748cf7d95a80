#pragma once
// Rendering for `auglab-cli augment`, whose worker threads decode, augment and encode files in
// parallel. On the CPU every worker has its own single-threaded CPU backend: the workers are the
// parallelism, and the CPU backend's output never depends on its thread count. A GL or CUDA backend
// lives on the main thread instead (a GL context belongs to the thread that created its surface):
// workers queue their samples and wait while the main thread renders them; decoding and encoding
// stay parallel.

#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend.h"
#include "partners.h"
#include "plan.h"
#include "replay.h"
#include "source_levels.h"

namespace auglab::cli {

class SampleRenderer {
public:
    struct Result {
        Image image;
        std::string backend;  ///< the backend that rendered it ("cpu", "gl", "cuda")
    };

    /// `backendName`: auto, cpu, gl or cuda (InputError when unknown or unavailable). `mutex` and
    /// `wake` are the main thread's: queued samples are guarded by the one and announced on the other.
    SampleRenderer(const std::string& backendName, int workers, std::mutex& mutex,
                   std::condition_variable& wake);

    /// True when samples are rendered on the main thread (a GL or CUDA backend).
    bool onMainThread() const { return shared_ != nullptr; }
    std::string name() const;

    /// Called by worker `worker` (0 <= worker < workers): the output of `plan` (a replay's
    /// buildFullPlan at the source's size) applied to `source`, its partners (mixing ops) read by
    /// `partners`. Blocks until it is rendered. Throws RuntimeError when every backend failed.
    Result render(int worker, Plan plan, SourceLevels& source, const PartnerLoader& partners);

    /// Main thread, with `mutex` held: whether samples are waiting.
    bool hasQueued() const { return !queue_.empty(); }
    /// Main thread, without the lock: renders every queued sample.
    void renderQueued();

    /// What happened to backends that failed at run time and fell through to the next.
    std::vector<std::string> fallbackMessages() const;

private:
    struct Request {
        Plan* plan;
        SourceLevels* source;
        const PartnerLoader* partners;
        std::promise<Result> result;
    };

    std::vector<std::unique_ptr<Backend>> perWorker_;  // CPU: one single-threaded backend per worker
    std::unique_ptr<Backend> shared_;                  // GL or CUDA: used by the main thread only
    std::mutex& mutex_;
    std::condition_variable& wake_;
    std::vector<Request*> queue_;  // guarded by mutex_
};

}  // namespace auglab::cli
