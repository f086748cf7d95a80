#pragma once
// A fixed pool of worker threads for data-parallel loops. The calling thread takes part, so a pool
// of N threads runs N-wide. Results never depend on the thread count: work is split by index.

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace auglab {

class ThreadPool {
public:
    /// threads <= 0: one per hardware thread.
    explicit ThreadPool(int threads = 0);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int threadCount() const { return static_cast<int>(workers_.size()) + 1; }

    /// Calls fn(begin, end) over [0, n) in chunks of `grain` indices and waits for all of them.
    /// The first exception thrown by fn is rethrown here after every chunk has finished.
    void parallelFor(int n, int grain, const std::function<void(int, int)>& fn);

private:
    void workerLoop();
    void runChunks();

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    std::mutex callMutex_;  // one parallelFor at a time
    // The current loop, guarded by mutex_.
    const std::function<void(int, int)>* fn_ = nullptr;
    int n_ = 0, grain_ = 1, next_ = 0, active_ = 0;
    std::uint64_t generation_ = 0;
    bool stop_ = false;
    std::exception_ptr error_;
};

}  // namespace auglab
