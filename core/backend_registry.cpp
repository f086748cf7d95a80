#include "backend_registry.h"

#include "cpu_backend.h"
#include "error.h"

namespace auglab {

std::vector<BackendInfo> backendInfos(int cpuThreads) {
    const CpuBackend probe(cpuThreads);
    std::vector<BackendInfo> infos;
    infos.push_back({"cpu", true, true, std::to_string(probe.threadCount()) + " threads, reference backend"});
    infos.push_back({"gl", false, false, "not part of this build yet (the GLSL backend is not implemented)"});
    infos.push_back({"cuda", false, false, "not part of this build yet (the CUDA backend is not implemented)"});
    return infos;
}

std::string autoBackendName() { return "cpu"; }

std::unique_ptr<Backend> createBackend(const std::string& name, int cpuThreads) {
    const std::string chosen = name == "auto" ? autoBackendName() : name;
    if (chosen == "cpu") return std::make_unique<CpuBackend>(cpuThreads);
    for (const BackendInfo& info : backendInfos(1))
        if (info.name == chosen) throw InputError("backend " + chosen + " is not available: " + info.detail);
    throw InputError("unknown backend \"" + name + "\" (expected auto, cpu, gl or cuda)");
}

}  // namespace auglab
