#pragma once
// A chain of backends tried in order: when one fails at run time (lost context, kernel error, out
// of memory) it is disabled for the session, the failure is recorded as a message for the user,
// and the same frame is rendered by the next one. The CPU backend ends every chain.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend.h"

namespace auglab {

class FallbackBackend final : public Backend {
public:
    using Factory = std::function<std::unique_ptr<Backend>()>;
    /// `chain`: (name, factory) in order of preference; factories run when first needed.
    explicit FallbackBackend(std::vector<std::pair<std::string, Factory>> chain);

    /// The backend that rendered last (or will render next).
    std::string name() const override;
    void render(std::span<RenderJob> jobs) override;

    /// The backend now in use (created on first use), for capabilities beyond Backend such as
    /// keeping a grid on the GPU. Throws RuntimeError when none is left.
    Backend& current() { return *active(); }
    /// Position of the backend now in use in the chain. It only grows: a disabled backend never
    /// comes back, so (chain, position) names one backend instance for the session.
    std::size_t position() const { return index_; }
    /// Disables the backend now in use after a failure outside render() (recorded as a message).
    void failCurrent(const std::string& why);

    /// What happened to disabled backends, oldest first ("gl failed: ...; now cpu").
    const std::vector<std::string>& messages() const { return messages_; }

private:
    Backend* active();
    std::vector<std::pair<std::string, Factory>> chain_;
    std::size_t index_ = 0;
    std::unique_ptr<Backend> current_;
    std::vector<std::string> messages_;
};

}  // namespace auglab
