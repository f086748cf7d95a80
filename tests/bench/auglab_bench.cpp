// Benchmarks of SPEC §8 on the CPU backend, with OpenCV's warpAffine measured in the same process
// as the reference. Prints one JSON object. Not a test: nothing here asserts a speed.
//
//   W1 grid:  a 1024x1024 source, 64 tiles of 256x256, affine + horizontal_flip + coarse_dropout +
//             brightness_contrast; time from parameter change to finished tiles (median).
//   W2 batch: 512x512 inputs, same pipeline at full resolution, images/s on 1 thread and all
//             threads; cv::warpAffine (linear, constant border) alone on the same inputs; ratios.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <nlohmann/json.hpp>

#include "contact_sheet.h"
#include "cpu_backend.h"
#include "geometry.h"
#include "image_io.h"
#include "sampler.h"

using namespace auglab;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<OpConfig> w1Pipeline() {
    OpConfig flip = OpConfig::withDefaults("horizontal_flip");
    flip.p = 0.5;
    OpConfig drop = OpConfig::withDefaults("coarse_dropout");
    return {OpConfig::withDefaults("affine"), flip, drop, OpConfig::withDefaults("brightness_contrast")};
}

Image photo(int w, int h) {
    const Image src = loadImage(std::string(AUGLAB_SOURCE_DIR) + "/resources/samples/astronaut.png").image;
    cv::Mat m(src.height, src.width, CV_8UC3, const_cast<std::uint8_t*>(src.pixels.data()), src.stride), r;
    cv::resize(m, r, cv::Size(w, h), 0, 0, cv::INTER_CUBIC);
    Image out(w, h, 3);
    for (int y = 0; y < h; ++y) std::copy(r.ptr<std::uint8_t>(y), r.ptr<std::uint8_t>(y) + 3 * w, out.row(y));
    return out;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <class F>
double secondsOf(F&& f) {
    const auto t0 = Clock::now();
    f();
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Images per second of `body(i)` over n images, best of three runs.
template <class F>
double imagesPerSecond(int n, F&& body) {
    double best = 1e30;
    for (int run = 0; run < 3; ++run) best = std::min(best, secondsOf([&] { for (int i = 0; i < n; ++i) body(i); }));
    return n / best;
}

}  // namespace

int main() {
    const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    nlohmann::ordered_json out;
    out["machine_threads"] = threads;

    // W1: each repetition changes a parameter (the rotation range), as a slider drag does.
    {
        SourceLevels source(photo(1024, 1024));
        CpuBackend cpu(0);
        SheetOptions o;
        o.tile = 256;
        std::vector<double> ms;
        for (int rep = 0; rep < 30; ++rep) {
            auto pipeline = w1Pipeline();
            pipeline[0].set("rotate_deg", Range{-15.0 - rep, 15.0 + rep});
            ms.push_back(1000 * secondsOf([&] { renderSheet(pipeline, {&source}, o, cpu); }));
        }
        out["w1_grid_ms_median"] = median(ms);
        out["w1_target_ms"] = 12;
    }

    // W2: full-resolution 512x512 outputs.
    {
        std::vector<Image> inputs;
        for (int i = 0; i < 8; ++i) inputs.push_back(photo(512, 512));
        std::vector<std::unique_ptr<SourceLevels>> sources;
        for (const Image& im : inputs) sources.push_back(std::make_unique<SourceLevels>(im));
        const auto pipeline = w1Pipeline();
        std::vector<OpConfig> affineOnly{pipeline[0]};
        const int n = 200;
        cv::setNumThreads(1);
        auto cvWarp = [&](int i) {
            const auto& im = inputs[std::size_t(i) % inputs.size()];
            const Replay r = samplePipeline(affineOnly, 1, std::uint64_t(i), 512, 512);
            const Matrix3 m = affineMatrix(std::get<AffineParams>(r.ops[0].params), 512, 512);
            const cv::Mat mm = (cv::Mat_<double>(2, 3) << m(0, 0), m(0, 1), m(0, 2), m(1, 0), m(1, 1), m(1, 2));
            cv::Mat src(512, 512, CV_8UC3, const_cast<std::uint8_t*>(im.pixels.data())), dst;
            cv::warpAffine(src, dst, mm, src.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT);
        };
        const double cvOne = imagesPerSecond(n, cvWarp);
        CpuBackend one(1);
        auto ours = [&](const std::vector<OpConfig>& p) {
            return [&, p](int i) { renderSample(p, *sources[std::size_t(i) % sources.size()], 1, std::uint64_t(i), one); };
        };
        const double affineOne = imagesPerSecond(n, ours(affineOnly));
        const double pipelineOne = imagesPerSecond(n, ours(pipeline));
        // All threads: a batch of outputs per render call, as augment does.
        CpuBackend all(0);
        const double pipelineAll = imagesPerSecond(1, [&](int) {
            std::vector<Image> outs(static_cast<std::size_t>(n));
            std::vector<RenderJob> jobs;
            for (int i = 0; i < n; ++i) {
                SourceLevels& s = *sources[std::size_t(i) % sources.size()];
                const Replay r = samplePipeline(pipeline, 1, std::uint64_t(i), 512, 512);
                jobs.push_back({&s, buildFullPlan(r, 512, 512), &outs[std::size_t(i)]});
            }
            all.render(jobs);
        }) * n;
        cv::setNumThreads(threads);
        const double cvAll = imagesPerSecond(n, cvWarp);
        out["w2_opencv_warp_1thread_ips"] = cvOne;
        out["w2_affine_1thread_ips"] = affineOne;
        out["w2_pipeline_1thread_ips"] = pipelineOne;
        out["w2_affine_vs_opencv_1thread"] = affineOne / cvOne;
        out["w2_pipeline_vs_opencv_warp_1thread"] = pipelineOne / cvOne;
        out["w2_opencv_warp_all_threads_ips"] = cvAll;
        out["w2_pipeline_all_threads_ips"] = pipelineAll;
        out["w2_pipeline_vs_opencv_warp_all_threads"] = pipelineAll / cvAll;
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
