#pragma once
// Bytes of images in flight in `augment`: every worker reserves what a file will occupy (its
// decode and an output) before decoding it, and returns it once the file's outputs are written.
// A worker that would take the total past the budget waits for the others, so a folder of camera
// photos on many jobs stays within a bound set in bytes, not in files. A file larger than the
// whole budget runs alone rather than never.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace auglab::cli {

class ByteBudget {
public:
    explicit ByteBudget(std::size_t bytes) : budget_(bytes) {}

    /// Bytes held from reserve() until destroyed.
    class Reservation {
    public:
        Reservation(ByteBudget* owner, std::size_t bytes) : owner_(owner), bytes_(bytes) {}
        ~Reservation() {
            if (owner_ != nullptr) owner_->release(bytes_);
        }
        Reservation(Reservation&& other) noexcept : owner_(other.owner_), bytes_(other.bytes_) { other.owner_ = nullptr; }
        Reservation(const Reservation&) = delete;
        Reservation& operator=(const Reservation&) = delete;
        Reservation& operator=(Reservation&&) = delete;

    private:
        ByteBudget* owner_;
        std::size_t bytes_;
    };

    /// Waits until `bytes` fit (or nothing else is held), then holds them. Returns early, holding
    /// nothing, once `stop` is set.
    Reservation reserve(std::size_t bytes, const std::atomic<bool>& stop) {
        std::unique_lock lock(mutex_);
        // Woken by every release; the timeout notices `stop`, which is set without this mutex.
        while (!stop && held_ > 0 && held_ + bytes > budget_) freed_.wait_for(lock, std::chrono::milliseconds(50));
        if (stop) return Reservation(nullptr, 0);
        held_ += bytes;
        return Reservation(this, bytes);
    }

    /// Wakes the waiting workers at once (after `stop` was set).
    void wakeAll() { freed_.notify_all(); }

private:
    void release(std::size_t bytes) {
        {
            const std::lock_guard lock(mutex_);
            held_ -= bytes;
        }
        freed_.notify_all();
    }

    std::size_t budget_;
    std::size_t held_ = 0;
    std::mutex mutex_;
    std::condition_variable freed_;
};

}  // namespace auglab::cli
