#include "thread_pool.h"

#include <algorithm>

namespace auglab {

ThreadPool::ThreadPool(int threads) {
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
}

void ThreadPool::runChunks() {
    std::unique_lock lock(mutex_);
    while (next_ < n_) {
        const int begin = next_;
        const int end = std::min(n_, begin + grain_);
        next_ = end;
        ++active_;
        const auto* fn = fn_;
        lock.unlock();
        try {
            (*fn)(begin, end);
        } catch (...) {
            std::lock_guard errorLock(mutex_);
            if (!error_) error_ = std::current_exception();
        }
        lock.lock();
        --active_;
    }
    if (active_ == 0) done_.notify_all();
}

void ThreadPool::workerLoop() {
    std::uint64_t seen = 0;
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || (generation_ != seen && next_ < n_); });
            if (stop_) return;
            seen = generation_;
        }
        runChunks();
    }
}

void ThreadPool::parallelFor(int n, int grain, const std::function<void(int, int)>& fn) {
    if (n <= 0) return;
    grain = std::max(1, grain);
    if (workers_.empty() || n <= grain) {
        fn(0, n);
        return;
    }
    std::lock_guard call(callMutex_);
    {
        std::lock_guard lock(mutex_);
        fn_ = &fn;
        n_ = n;
        grain_ = grain;
        next_ = 0;
        active_ = 0;
        error_ = nullptr;
        ++generation_;
    }
    wake_.notify_all();
    runChunks();
    std::exception_ptr error;
    {
        std::unique_lock lock(mutex_);
        done_.wait(lock, [&] { return next_ >= n_ && active_ == 0; });
        fn_ = nullptr;
        n_ = 0;
        error = error_;
        error_ = nullptr;
    }
    if (error) std::rethrow_exception(error);
}

}  // namespace auglab
