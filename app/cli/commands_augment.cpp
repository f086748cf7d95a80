// auglab-cli augment: offline dataset generation (SPEC §7). The work is dataset_augmenter.cpp; this
// file reads the options, turns Ctrl-C into a clean stop, and prints the progress and the summary.

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include "args.h"
#include "commands.h"
#include "dataset_augmenter.h"
#include "preset.h"

namespace auglab::cli {

namespace {

const Args::Spec kAugmentSpec{{"preset", "input", "output", "copies", "format", "quality", "jobs", "backend",
                               "seed", "memory-mb", "shard", "merge-manifests"},
                              {},
                              {"overwrite"},
                              0};

// Set by SIGINT or SIGTERM to the signal's number; read between outputs. A lock-free atomic is
// safe to store to from a signal handler.
std::atomic<int> gStopSignal{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void onStopSignal(int signal) {
    gStopSignal.store(signal);
}

// Installs the handlers for the run and restores the previous ones afterwards. SA_RESETHAND: a
// second Ctrl-C kills at once (every output is still whole: outputs are renamed into place).
class StopSignals {
public:
    StopSignals() {
        struct sigaction sa {};
        sa.sa_handler = onStopSignal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_RESTART;
        sigaction(SIGINT, &sa, &oldInt_);
        sigaction(SIGTERM, &sa, &oldTerm_);
    }
    ~StopSignals() {
        sigaction(SIGINT, &oldInt_, nullptr);
        sigaction(SIGTERM, &oldTerm_, nullptr);
    }
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

private:
    struct sigaction oldInt_ {
    }, oldTerm_{};
};

std::string rate(std::size_t images, double seconds) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << (seconds > 0 ? static_cast<double>(images) / seconds : 0.0);
    return s.str();
}

// One line, redrawn in place: only on a terminal (a log file gets the summary alone).
void showProgress(const AugmentSummary& s) {
    const std::size_t handled = s.written + s.skipped;
    std::ostringstream line;
    line << "\raugment: " << handled << "/" << s.outputs << " outputs (" << s.written << " written, "
         << s.skipped << " already done), " << s.failedFiles << " failed, " << rate(s.written, s.seconds)
         << " images/s\033[K";
    std::cerr << line.str() << std::flush;
}

// `augment --merge-manifests DIR`: nothing else goes with it, the shards' headers say the rest.
int runMerge(const Args& a) {
    for (const std::string& name : kAugmentSpec.valueOptions)
        if (name != "merge-manifests" && a.value(name))
            throw UsageError{"--merge-manifests takes no other option (not --" + name +
                             "): the shards' manifests say how they were run"};
    for (const std::string& name : kAugmentSpec.flags)
        if (a.flag(name)) throw UsageError{"--merge-manifests takes no other option (not --" + name + ")"};
    const MergeSummary m = mergeShardManifests(*a.value("merge-manifests"), &std::cerr);
    std::cout << "merge: " << m.shards << " shards, " << m.outputs << " outputs, " << m.failedInputs
              << " failed inputs\nmanifest: " << m.manifest.string() << "\n";
    for (const auto& file : m.labelFiles) std::cout << "labels: " << file.string() << "\n";
    return 0;
}

}  // namespace

std::string augmentHelpText() {
    return "usage: auglab-cli augment --preset P --input DIR --output DIR [--copies N] [--format png|jpg]\n"
           "         [--quality 95] [--jobs N] [--backend auto|cpu|gl|cuda] [--seed N] [--overwrite]\n"
           "         [--memory-mb 2048] [--shard K/N]\n"
           "       auglab-cli augment --merge-manifests DIR\n\n"
           "Writes N augmented copies of every image under --input (subfolders too, mirrored under\n"
           "--output): copy k of a/b.jpg is a/b_aug<k>.png. Its sample index is\n"
           "(FNV-1a-64(\"a/b.jpg\") >> 27) * 65536 + k, so `apply --index` reproduces it and adding files\n"
           "changes no other file's outputs. Every output is listed with its replay in\n"
           "<output>/auglab-manifest.jsonl. A rerun with the same arguments writes only what is missing;\n"
           "other arguments into the same folder are refused unless --overwrite (which deletes the\n"
           "outputs the manifest lists and starts again). Unreadable inputs are reported and skipped.\n"
           "Defaults: 1 copy, png, quality 95 (jpg), one job per hardware thread, the preset's seed.\n"
           "Jobs decode, augment and encode different files at once; the images they hold are bounded by\n"
           "--memory-mb (a job waits before decoding a file that would pass it; a larger file runs "
           "alone).\n\n"
           "Labelled datasets (YOLO images/ + labels/, COCO instances*.json, Pascal VOC, masks/ PNGs) are\n"
           "recognised: every output gets its labels as its sample moved them, in the dataset's own format\n"
           "and layout (labels/a/b_aug<k>.txt beside images/a/b_aug<k>.png; one COCO file listing every\n"
           "output), written before the image; the preset's targets section says which boxes survive.\n\n"
           "Many machines: --shard K/N does the K-th of N disjoint parts of the input (K counted from 0,\n"
           "as $SLURM_ARRAY_TASK_ID with --array=0-(N-1) and Kubernetes' $JOB_COMPLETION_INDEX), the files\n"
           "whose (FNV-1a-64(path) >> 27) mod N is K: a file's shard depends on its path alone. Each shard\n"
           "writes auglab-manifest.shard-K-of-N.jsonl; shards may share one output folder (at the same\n"
           "time too) or write their own ones, copied together afterwards. Rerunning a shard resumes it;\n"
           "its --overwrite deletes only what its own manifest lists. Mixing ops draw partners from the\n"
           "whole folder, as one machine does, so every shard must see the whole input folder.\n"
           "Once all N are done, --merge-manifests DIR checks them (all there and finished, the same\n"
           "arguments, every output on disk) and writes the auglab-manifest.jsonl one machine would have,\n"
           "and for a COCO dataset the COCO file (shards do not write it; the merge reads the input's).\n"
           "The outputs, labels and merged manifest are one machine's run byte for byte.\n\n"
           "exit codes: 0 all done, 1 some inputs failed (the others are done) or an output could not be\n"
           "written, 2 bad usage or bad input, 130/143 interrupted by Ctrl-C/SIGTERM (rerun to resume)\n";
}

int runAugment(const std::vector<std::string>& argv) {
    const Args a(argv, kAugmentSpec);
    if (a.value("merge-manifests")) return runMerge(a);
    AugmentOptions o;
    // Cheap checks first, so that bad usage never waits for a preset or a folder scan.
    const std::string presetPath = a.required("preset");
    o.input = a.required("input");
    o.output = a.required("output");
    o.copies = static_cast<int>(a.integer("copies", 1, 1, kMaxCopies));
    const std::string format = a.value("format").value_or("png");
    if (format == "jpg" || format == "jpeg")
        o.format = ImageFormat::Jpeg;
    else if (format != "png")
        throw UsageError{"--format: expected png or jpg, got '" + format + "'"};
    if (a.value("quality") && o.format != ImageFormat::Jpeg)
        throw UsageError{"--quality applies to --format jpg only"};
    o.jpegQuality = static_cast<int>(a.integer("quality", 95, 1, 100));
    const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    o.jobs = static_cast<int>(a.integer("jobs", hardware, 1, 1024));
    o.memoryBudgetBytes = static_cast<std::size_t>(a.integer("memory-mb", 2048, 1, 1 << 24)) << 20;
    o.backend = a.value("backend").value_or("auto");
    o.overwrite = a.flag("overwrite");
    if (const auto shard = a.value("shard")) o.shard = parseShard(*shard);
    o.preset = loadPreset(presetPath);
    o.seed = a.unsignedInteger("seed", o.preset.seed);
    o.messages = &std::cerr;
    const bool terminal = ::isatty(STDERR_FILENO) == 1;
    if (terminal) o.progress = showProgress;
    gStopSignal.store(0);
    o.cancel = &gStopSignal;

    AugmentSummary s;
    try {
        const StopSignals signals;
        s = augmentFolder(o);
    } catch (...) {
        if (terminal) std::cerr << "\r\033[K" << std::flush;  // the error goes on a clean line
        throw;
    }
    if (terminal) std::cerr << "\r\033[K" << std::flush;
    std::cout << "augment: " << (o.shard ? "shard " + o.shard->text() + ": " : "") << s.files << " files, "
              << s.written << " outputs written, " << s.skipped << " already done, " << s.failedFiles
              << " failed, " << std::fixed << std::setprecision(1) << s.seconds << " s, "
              << rate(s.written, s.seconds) << " images/s (backend " << s.backend << ", " << s.jobs
              << " jobs)\nmanifest: " << s.manifest.string() << "\n";
    if (!s.labels.empty())
        std::cout << "labels: " << s.labels << ", written beside every output (" << s.boxesKept << " of "
                  << s.boxesIn << " boxes kept over the outputs written)"
                  << (s.labelsSkipped ? ", " + std::to_string(s.labelsSkipped) + " unusable label(s) skipped"
                                      : "")
                  << (o.shard && s.labels == "coco" ? "; the COCO file is written by --merge-manifests" : "")
                  << "\n";
    if (s.interruptedBy != 0) {
        const std::size_t lost = s.failedFiles * static_cast<std::size_t>(o.copies);
        const std::size_t done = s.written + s.skipped + lost;
        std::cerr << "auglab-cli augment: interrupted by "
                  << (s.interruptedBy == SIGINT ? "Ctrl-C" : "SIGTERM") << ": no output is half-written, "
                  << (s.outputs > done ? s.outputs - done : 0)
                  << " are still to do; run the same command again to resume\n";
        return 128 + s.interruptedBy;
    }
    if (o.shard && s.interruptedBy == 0)
        std::cout << "when all " << o.shard->count
                  << " shards are done: auglab-cli augment --merge-manifests "
                  << s.manifest.parent_path().string() << "\n";
    if (s.failedFiles > 0) {
        std::cerr << "auglab-cli augment: " << s.failedFiles
                  << " input(s) failed (reported above and in the manifest); every other output is done\n";
        return 1;
    }
    return 0;
}

}  // namespace auglab::cli
