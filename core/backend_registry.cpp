#include "backend_registry.h"

#include "cpu_backend.h"
#include "error.h"
#include "fallback_backend.h"

#if defined(AUGLAB_HAVE_GL)
#include "gl_backend.h"
#endif
#if defined(AUGLAB_HAVE_CUDA)
#include "cuda_backend.h"
#endif

namespace auglab {

namespace {

BackendInfo glInfo() {
#if defined(AUGLAB_HAVE_GL)
    static const GlProbe probe = probeGl();  // a context costs tens of milliseconds: probe once
    return {"gl", true, probe.available, probe.detail};
#else
    return {"gl", false, false, "built without OpenGL (AUGLAB_GL=OFF)"};
#endif
}

bool glIsSoftware() {
#if defined(AUGLAB_HAVE_GL)
    static const GlProbe probe = probeGl();
    return probe.software;
#else
    return true;
#endif
}

BackendInfo cudaInfo() {
#if defined(AUGLAB_HAVE_CUDA)
    return cudaBackendInfo();
#else
    return {"cuda", false, false, "built without CUDA (AUGLAB_CUDA=OFF or nvcc not found)"};
#endif
}

FallbackBackend::Factory factoryFor(const std::string& name, int cpuThreads) {
#if defined(AUGLAB_HAVE_GL)
    if (name == "gl") return [] { return createGlBackend(); };
#endif
#if defined(AUGLAB_HAVE_CUDA)
    if (name == "cuda") return [] { return createCudaBackend(); };
#endif
    return [cpuThreads] { return std::make_unique<CpuBackend>(cpuThreads); };
}

}  // namespace

std::vector<BackendInfo> backendInfos(int cpuThreads) {
    const CpuBackend probe(cpuThreads);
    return {{"cpu", true, true, std::to_string(probe.threadCount()) + " threads, reference backend"}, glInfo(),
            cudaInfo()};
}

std::string autoBackendName() {
    if (cudaInfo().available) return "cuda";
    if (glInfo().available && !glIsSoftware()) return "gl";
    return "cpu";
}

std::unique_ptr<Backend> createBackend(const std::string& name, int cpuThreads) {
    if (name != "auto" && name != "cpu" && name != "gl" && name != "cuda")
        throw InputError("unknown backend \"" + name + "\" (expected auto, cpu, gl or cuda)");
    const std::string first = name == "auto" ? autoBackendName() : name;
    if (first != "cpu") {
        const BackendInfo info = first == "gl" ? glInfo() : cudaInfo();
        if (!info.available) throw InputError("backend " + first + " is not available: " + info.detail);
    }
    std::vector<std::pair<std::string, FallbackBackend::Factory>> chain;
    chain.emplace_back(first, factoryFor(first, cpuThreads));
    if (first == "cuda" && glInfo().available && !glIsSoftware()) chain.emplace_back("gl", factoryFor("gl", cpuThreads));
    if (first != "cpu") chain.emplace_back("cpu", factoryFor("cpu", cpuThreads));
    return std::make_unique<FallbackBackend>(std::move(chain));
}

}  // namespace auglab
