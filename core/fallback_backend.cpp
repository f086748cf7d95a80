#include "fallback_backend.h"

#include "error.h"

namespace auglab {

FallbackBackend::FallbackBackend(std::vector<std::pair<std::string, Factory>> chain) : chain_(std::move(chain)) {}

Backend* FallbackBackend::active() {
    while (!current_ && index_ < chain_.size()) {
        try {
            current_ = chain_[index_].second();
        } catch (const std::exception& e) {
            messages_.push_back(chain_[index_].first + " backend unavailable: " + e.what());
            ++index_;
        }
    }
    if (!current_) throw RuntimeError("no backend left to render with");
    return current_.get();
}

std::string FallbackBackend::name() const {
    return index_ < chain_.size() ? chain_[index_].first : std::string("none");
}

void FallbackBackend::failCurrent(const std::string& why) {
    if (index_ + 1 >= chain_.size()) throw RuntimeError(why);
    const std::string failed = chain_[index_].first;
    current_.reset();
    ++index_;
    messages_.push_back(failed + " backend failed and is disabled for this session: " + why + "; rendering with " +
                        chain_[index_].first);
}

void FallbackBackend::render(std::span<RenderJob> jobs) {
    for (;;) {
        Backend* b = active();
        try {
            b->render(jobs);
            return;
        } catch (const std::exception& e) {
            if (index_ + 1 >= chain_.size()) throw;  // the last one (the CPU) has nowhere to go
            failCurrent(e.what());
        }
    }
}

}  // namespace auglab
