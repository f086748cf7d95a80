#pragma once
// Owning, move-only handles of CUDA resources (in the manner of CCCL's cuda::stream): device
// memory, pinned host memory, a stream, an event. Every CUDA call is checked; a failure is a
// RuntimeError naming the call and CUDA's message, so the caller can fall back to another backend.
// Destructors never throw: a release that fails (a lost context, the runtime already unloaded at
// exit) has nothing left to release.

#include <mutex>
#include <cstddef>
#include <string>
#include <utility>

#include <cuda_runtime_api.h>

#include "error.h"

namespace auglab::cuda {

/// Whether `e` leaves the CUDA context unusable for the rest of the process (a kernel fault: every
/// later call fails too). Clearing the last error does not undo these.
inline bool isStickyError(cudaError_t e) {
    switch (e) {
        case cudaErrorIllegalAddress:
        case cudaErrorLaunchFailure:
        case cudaErrorIllegalInstruction:
        case cudaErrorMisalignedAddress:
        case cudaErrorInvalidAddressSpace:
        case cudaErrorInvalidPc:
        case cudaErrorHardwareStackError:
        case cudaErrorAssert:
        case cudaErrorECCUncorrectable:
        case cudaErrorLaunchTimeout:
        case cudaErrorContextIsDestroyed:
            return true;
        default:
            return false;
    }
}

/// Why the CUDA context was lost (empty while it works): set once, at the first sticky error;
/// cudaBackendInfo() then reports CUDA as unavailable with this reason.
struct ContextLoss {
    std::mutex mutex;
    std::string reason;
};
inline ContextLoss& contextLoss() {
    static ContextLoss loss;
    return loss;
}
inline std::string contextLostReason() {
    std::lock_guard lock(contextLoss().mutex);
    return contextLoss().reason;
}

/// Throws RuntimeError("CUDA backend: <what>: <CUDA's message>") unless `e` is cudaSuccess. The
/// runtime's last-error state is cleared, so that an ordinary failure does not resurface later; a
/// sticky one (isStickyError) marks the context as lost for the process.
inline void check(cudaError_t e, const std::string& what) {
    if (e == cudaSuccess) return;
    (void)cudaGetLastError();
    const std::string message = "CUDA backend: " + what + ": " + cudaGetErrorString(e);
    if (isStickyError(e)) {
        std::lock_guard lock(contextLoss().mutex);
        if (contextLoss().reason.empty()) contextLoss().reason = message;
    }
    throw RuntimeError(message);
}

/// Device memory that only grows: reserve(n) reallocates when n bytes do not fit.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(data_, o.data_);
        std::swap(size_, o.size_);
        return *this;
    }
    ~DeviceBuffer() { release(); }

    void reserve(std::size_t bytes) {
        if (bytes <= size_) return;
        release();
        void* p = nullptr;
        check(cudaMalloc(&p, bytes), "cudaMalloc of " + std::to_string(bytes >> 20) + " MiB");
        data_ = static_cast<unsigned char*>(p);
        size_ = bytes;
    }
    unsigned char* data() const { return data_; }
    std::size_t size() const { return size_; }

private:
    void release() noexcept {
        if (data_) (void)cudaFree(data_);
        data_ = nullptr;
        size_ = 0;
    }
    unsigned char* data_ = nullptr;
    std::size_t size_ = 0;
};

/// Page-locked host memory (the staging area of asynchronous copies) that only grows.
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    PinnedBuffer(PinnedBuffer&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
        std::swap(data_, o.data_);
        std::swap(size_, o.size_);
        return *this;
    }
    ~PinnedBuffer() { release(); }

    void reserve(std::size_t bytes) {
        if (bytes <= size_) return;
        release();
        void* p = nullptr;
        check(cudaMallocHost(&p, bytes), "cudaMallocHost of " + std::to_string(bytes >> 20) + " MiB");
        data_ = static_cast<unsigned char*>(p);
        size_ = bytes;
    }
    unsigned char* data() const { return data_; }
    std::size_t size() const { return size_; }

private:
    void release() noexcept {
        if (data_) (void)cudaFreeHost(data_);
        data_ = nullptr;
        size_ = 0;
    }
    unsigned char* data_ = nullptr;
    std::size_t size_ = 0;
};

/// A non-blocking stream: it does not synchronise with the legacy default stream, so work that
/// other code puts there does not serialise with ours.
class DeviceStream {
public:
    DeviceStream() {
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    }
    DeviceStream(const DeviceStream&) = delete;
    DeviceStream& operator=(const DeviceStream&) = delete;
    DeviceStream(DeviceStream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
    DeviceStream& operator=(DeviceStream&& o) noexcept {
        std::swap(stream_, o.stream_);
        return *this;
    }
    ~DeviceStream() {
        if (stream_) (void)cudaStreamDestroy(stream_);
    }
    cudaStream_t get() const { return stream_; }

private:
    cudaStream_t stream_ = nullptr;
};

/// An event without timing, used to wait for one part of a stream's work.
class DeviceEvent {
public:
    DeviceEvent() {
        check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    }
    DeviceEvent(const DeviceEvent&) = delete;
    DeviceEvent& operator=(const DeviceEvent&) = delete;
    DeviceEvent(DeviceEvent&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
    DeviceEvent& operator=(DeviceEvent&& o) noexcept {
        std::swap(event_, o.event_);
        return *this;
    }
    ~DeviceEvent() {
        if (event_) (void)cudaEventDestroy(event_);
    }
    void record(const DeviceStream& s) { check(cudaEventRecord(event_, s.get()), "cudaEventRecord"); }
    void synchronize() {
        check(cudaEventSynchronize(event_), "cudaEventSynchronize (a kernel or copy failed)");
    }

private:
    cudaEvent_t event_ = nullptr;
};

}  // namespace auglab::cuda
