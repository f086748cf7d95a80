// auglab-cli bench: the workloads of SPEC §8 on a chosen backend, with the CPU backend measured in
// the same run as the reference. Timings, never assertions: it prints numbers and ratios.

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "args.h"
#include "atomic_file.h"
#include "backend_registry.h"
#include "commands.h"
#include "contact_sheet.h"
#include "cpu_backend.h"
#include "dataset_augmenter.h"
#include "error.h"
#include "image_io.h"
#include "philox.h"
#include "sampler.h"

namespace auglab::cli {

namespace {

using Clock = std::chrono::steady_clock;

// A deterministic test picture with smooth regions, edges and noise (no file needed); `variant`
// changes the noise.
Image benchImage(int w, int h, std::uint32_t variant = 7) {
    Image img(w, h, 3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const auto n = philox4x32({std::uint32_t(x), std::uint32_t(y), variant, 0}, {1, 2});
            std::uint8_t* p = img.at(x, y);
            const bool square = ((x / 64) + (y / 64)) % 2 == 0;
            p[0] = std::uint8_t((x * 255 / std::max(1, w - 1) + (n[0] & 15)) & 255);
            p[1] = std::uint8_t((y * 255 / std::max(1, h - 1) + (n[1] & 15)) & 255);
            p[2] = std::uint8_t(square ? 200 + (n[2] & 31) : 40 + (n[2] & 31));
        }
    return img;
}

std::vector<OpConfig> workloadPipeline() {
    OpConfig flip = OpConfig::withDefaults("horizontal_flip");
    flip.p = 0.5;
    return {OpConfig::withDefaults("affine"), flip, OpConfig::withDefaults("coarse_dropout"),
            OpConfig::withDefaults("brightness_contrast")};
}

double seconds(Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); }

// W1: median time of a 64-tile grid after a parameter change.
double gridMs(Backend& backend, SourceLevels& source, int reps) {
    SheetOptions o;
    o.tile = 256;
    std::vector<double> ms;
    for (int rep = 0; rep < reps; ++rep) {
        auto p = workloadPipeline();
        p[0].set("rotate_deg", Range{-15.0 - rep, 15.0 + rep});
        const auto t0 = Clock::now();
        renderSheet(p, {&source}, o, backend);
        ms.push_back(1000 * seconds(t0));
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

// W2: full-resolution outputs per second, `batch` outputs per render call, best of `runs`.
double imagesPerSecond(Backend& backend, SourceLevels& source, const Pipeline& p, int batch, int runs) {
    double best = 1e30;
    for (int run = 0; run < runs; ++run) {
        std::vector<Image> outs(static_cast<std::size_t>(batch));
        std::vector<RenderJob> jobs;
        const auto t0 = Clock::now();
        for (int i = 0; i < batch; ++i) {
            const Replay r = samplePipeline(p, 1, std::uint64_t(run * batch + i), source.width(), source.height());
            jobs.push_back({&source, buildFullPlan(r, source.width(), source.height()),
                            &outs[std::size_t(i)]});
        }
        backend.render(jobs);
        best = std::min(best, seconds(t0));
    }
    return batch / best;
}

// A folder made for the run and removed with everything in it afterwards.
class TemporaryFolder {
public:
    TemporaryFolder() {
        std::string name = (std::filesystem::temp_directory_path() / "auglab-bench-XXXXXX").string();
        if (!::mkdtemp(name.data())) throw RuntimeError("cannot create a temporary folder in " + name);
        path_ = name;
    }
    ~TemporaryFolder() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TemporaryFolder(const TemporaryFolder&) = delete;
    TemporaryFolder& operator=(const TemporaryFolder&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

// W3: `augment` itself (the same function, not a subprocess) over a folder of 512x512 JPEGs, one
// copy each as JPEG: decode, sample, render, encode, atomic write and manifest. Best of `runs`.
double augmentImagesPerSecond(const std::filesystem::path& work, const std::string& backend, int jobs, int runs) {
    double best = 0;
    for (int run = 0; run < runs; ++run) {
        AugmentOptions o;
        o.input = work / "in";
        o.output = work / ("out-" + std::to_string(jobs) + "-" + std::to_string(run));
        o.preset.pipeline = workloadPipeline();
        o.seed = 1;
        o.format = ImageFormat::Jpeg;
        o.jobs = jobs;
        o.backend = backend;
        const AugmentSummary s = augmentFolder(o);
        best = std::max(best, static_cast<double>(s.written) / s.seconds);
    }
    return best;
}

}  // namespace

int runBench(const std::vector<std::string>& argv) {
    const Args a(argv, Args::Spec{{"backend", "reps"}, {}, {"json"}, 0});
    const int reps = int(a.integer("reps", 15, 3, 1000));
    auto backend = createBackend(a.value("backend").value_or("auto"));
    SourceLevels big(benchImage(1024, 1024)), small(benchImage(512, 512));
    CpuBackend cpuAll(0), cpuOne(1);
    const auto pipeline = workloadPipeline();
    const std::vector<OpConfig> affineOnly{pipeline[0]};
    // Warm up (GPU contexts, source levels) before timing.
    gridMs(*backend, big, 1);
    gridMs(cpuAll, big, 1);

    nlohmann::ordered_json j;
    j["backend"] = backend->name();
    j["cpu_threads"] = cpuAll.threadCount();
    j["w1_grid_ms_median"] = gridMs(*backend, big, reps);
    j["w1_cpu_reference_ms_median"] = gridMs(cpuAll, big, reps);
    j["w1_target_ms"] = backend->name() == "cuda" ? 1 : 12;
    const int batch = 64;
    j["w2_pipeline_ips"] = imagesPerSecond(*backend, small, pipeline, batch, 3);
    j["w2_affine_ips"] = imagesPerSecond(*backend, small, affineOnly, batch, 3);
    j["w2_cpu_1thread_pipeline_ips"] = imagesPerSecond(cpuOne, small, pipeline, batch, 3);
    j["w2_cpu_all_threads_pipeline_ips"] = imagesPerSecond(cpuAll, small, pipeline, batch, 3);
    j["w2_pipeline_vs_cpu_1thread"] = j["w2_pipeline_ips"].get<double>() / j["w2_cpu_1thread_pipeline_ips"].get<double>();
    // W3 on a folder of distinct JPEGs written for the run.
    const TemporaryFolder folder;
    const int w3Images = 48;
    std::filesystem::create_directory(folder.path() / "in");
    for (int i = 0; i < w3Images; ++i)
        writeFileAtomically(folder.path() / "in" / ("image" + std::to_string(i) + ".jpg"),
                            encodeImage(benchImage(512, 512, std::uint32_t(100 + i)), ImageFormat::Jpeg, 95));
    const std::string backendName = a.value("backend").value_or("auto");
    j["w3_images"] = w3Images;
    j["w3_jobs_all"] = cpuAll.threadCount();
    j["w3_augment_1job_ips"] = augmentImagesPerSecond(folder.path(), backendName, 1, 3);
    j["w3_augment_all_jobs_ips"] = augmentImagesPerSecond(folder.path(), backendName, cpuAll.threadCount(), 3);
    j["note"] = "OpenCV comparisons are in build/tests/bench/auglab-bench (OpenCV is not linked into the CLI)";
    if (a.flag("json")) {
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << "backend " << backend->name() << "\n";
        for (const auto& item : j.items())
            if (item.key() != "backend") std::cout << "  " << item.key() << ": " << item.value().dump() << "\n";
    }
    return 0;
}

}  // namespace auglab::cli
