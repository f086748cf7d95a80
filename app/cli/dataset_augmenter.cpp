#include "dataset_augmenter.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

#include "atomic_file.h"
#include "augment_manifest.h"
#include "augment_renderer.h"
#include "byte_budget.h"
#include "error.h"
#include "label_files.h"
#include "plan.h"
#include "preset.h"
#include "realism.h"
#include "sampler.h"
#include "sheet_sources.h"
#include "utf8_paths.h"

namespace auglab::cli {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

void say(const AugmentOptions& o, const std::string& line) {
    if (o.messages) *o.messages << line << "\n" << std::flush;
}

// What decides the outputs: two runs with the same header write the same files.
Json manifestHeader(const AugmentOptions& o, const AugmentFolders& f) {
    Json h;
    h["format"] = kManifestFormat;
    h["version"] = kManifestVersion;
    h["written_by"] = std::string("auglab-cli ") + AUGLAB_VERSION;
    h["input"] = utf8(f.input);
    h["preset"] = presetToJson(o.preset);
    h["seed"] = o.seed;
    h["copies"] = o.copies;
    h["image_format"] = o.format == ImageFormat::Png ? "png" : "jpg";
    h["jpeg_quality"] = o.format == ImageFormat::Jpeg ? Json(o.jpegQuality) : Json();
    h["sample_index"] = "(fnv1a64(input path relative to the input folder) >> 27) * 65536 + copy";
    h["labels"] = f.labels ? Json(labelFormatName(f.labels->format())) : Json();
    // Last, so that the header of the shards' merged manifest is this one without it. "complete"
    // becomes true when the shard's every input is done or failed (the merge checks it).
    if (o.shard) h["shard"] = {{"index", o.shard->index}, {"count", o.shard->count}, {"complete", false}};
    return h;
}

std::vector<std::filesystem::path> sourcesOf(const std::vector<PlannedInput>& planned) {
    std::vector<std::filesystem::path> out;
    for (const PlannedInput& p : planned) out.push_back(p.source);
    return out;
}

/// `p` relative to `root` when it lies inside it, else nothing.
std::optional<fs::path> inside(const fs::path& p, const fs::path& root) {
    const fs::path rel = p.lexically_normal().lexically_relative(root.lexically_normal());
    if (rel.empty() || *rel.begin() == "..") return std::nullopt;
    return rel;
}

/// Where the labels of copy k of `in` go, relative to the output folder: the input's label file's
/// place relative to the input folder, named after the output image.
std::string outputLabelPath(const AugmentFolders& f, const PlannedInput& in, int k) {
    const fs::path image = fromUtf8(in.outputs[static_cast<std::size_t>(k)]);
    const fs::path label = f.labels->labelPath(in.source);
    const std::optional<fs::path> rel = inside(label, f.input);
    const fs::path folder = rel ? rel->parent_path() : image.parent_path();
    return utf8(folder / (image.stem().string() + label.extension().string()));
}

/// One COCO file of every output from the one-image documents of the manifest's lines.
Json mergeCoco(const std::vector<ManifestEntry>& entries, const nlohmann::json& categories) {
    Json doc;
    doc["images"] = Json::array();
    doc["annotations"] = Json::array();
    std::int64_t imageId = 0, annotationId = 0;
    ManifestLines lines;
    for (const ManifestEntry& e : entries) {
        if (!e.ok) continue;
        const Json line = Json::parse(lines.get(e));
        if (!line.contains("labels") || !line["labels"].contains("coco")) continue;
        const Json& one = line["labels"]["coco"];
        for (Json image : one["images"]) {
            image["id"] = ++imageId;
            image["file_name"] = e.output;
            doc["images"].push_back(image);
        }
        for (Json a : one["annotations"]) {
            a["id"] = ++annotationId;
            a["image_id"] = imageId;
            doc["annotations"].push_back(a);
        }
    }
    doc["categories"] = categories;
    return doc;
}

struct Pending {
    const PlannedInput* input;
    std::vector<int> copies;  // copies still to write
};

// What a worker hands the main thread: one output written, or one input that failed.
struct Event {
    ManifestEntry entry;
    std::string failure;        // the reason, for a failed input
    bool alphaDropped = false;  // an RGBA input written as JPEG
    bool reducedFrom16Bit = false;
    std::vector<std::string> skippedLabels;  // labels of the input that could not be used
    std::size_t boxesIn = 0, boxesKept = 0;
};

// The workers (decode, sample, render, encode, write) and the main thread (manifest, progress,
// Ctrl-C, and the renders of a GPU backend), sharing one mutex.
class AugmentRun {
public:
    // Makes the backends (InputError for an unknown or unavailable one) before anything is written.
    // `planned` is every input of the folder, done or not: the pool mixing ops draw partners
    // from, the same on every run (and resumed run) over the folder.
    AugmentRun(const AugmentOptions& o, const AugmentFolders& f, int jobs,
               const std::vector<PlannedInput>& planned)
        : o_(o),
          folders_(f),
          renderer_(o.backend, jobs, mutex_, wake_),
          budget_(o.memoryBudgetBytes),
          planned_(planned),
          partners_(filePartners(sourcesOf(planned), false)) {}

    // Runs up to `jobs` workers over `work`; adds the outputs written to `done` and the inputs that
    // failed to `failed`, as they finish, each also appended to the manifest at once. The first
    // fatal error (an output that cannot be rendered or written) stops the run: see fatal().
    void run(std::vector<Pending> work, int jobs, AugmentSummary& s, ManifestAppender& appender,
             std::vector<ManifestEntry>& done, std::vector<ManifestEntry>& failed,
             const Clock::time_point start) {
        work_ = std::move(work);
        const int workers =
            static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(jobs), work_.size()));
        workersLeft_ = workers;
        {
            std::vector<std::jthread> threads;
            for (int w = 0; w < workers; ++w) threads.emplace_back([this, w] { workerLoop(w); });
            mainLoop(s, appender, done, failed, start);
        }  // joined: every worker has returned
        s.backend = renderer_.name();
        for (const std::string& m : renderer_.fallbackMessages()) say(o_, "warning: " + m);
    }

    std::exception_ptr fatal() const { return fatal_; }

private:
    void post(Event e) {
        {
            const std::lock_guard lock(mutex_);
            events_.push_back(std::move(e));
        }
        wake_.notify_all();
    }

    /// The labels of one output: written (label file formats) before the image, or kept for the
    /// manifest (COCO). Returns the manifest's "labels" member.
    Json writeLabels(const PlannedInput& in, int k, const Replay& replay, const Targets& targets,
                     const Image& out, Event& e, AtomicFileSet& files) {
        const LabelledDataset& d = *folders_.labels;
        const TargetSettings rules = o_.preset.targets.value_or(TargetSettings{});
        // Partners' labels (the 4-image grid takes theirs too), read from the dataset when asked for.
        std::map<std::uint64_t, std::pair<Targets, ImageInfo>> read;
        const PartnerLabelsFn partners = [&](std::uint64_t p) -> std::optional<PartnerLabels> {
            if (p >= planned_.size()) return std::nullopt;
            if (&planned_[p] == &in) return PartnerLabels{&targets, replay.imageWidth, replay.imageHeight};
            auto it = read.find(p);
            if (it == read.end()) {
                const ImageInfo info = probeImage(planned_[p].source);
                LabelReport report;  // a partner's own unusable labels are reported where it is an input
                it = read.emplace(p,
                                  std::pair{d.labelsFor(planned_[p].source, info.width, info.height, report),
                                            info})
                         .first;
            }
            return PartnerLabels{&it->second.first, it->second.second.width, it->second.second.height};
        };
        const MovedTargets moved = moveTargets(replay, rules, targets, partners);
        const std::vector<Mask> masks =
            moveMasks(replay, targets.masks, moved.width, moved.height, rules.maskFill, partners);
        const Targets kept = survivingTargets(targets, moved, masks);
        e.boxesIn = moved.boxesIn;
        e.boxesKept = kept.boxes.size();
        Json labels;
        labels["summary"] = targetSummary(targets, moved);
        const fs::path image = fromUtf8(in.outputs[static_cast<std::size_t>(k)]);
        if (d.format() == LabelFormat::Coco) {
            ImageLabels l;
            l.format = LabelFormat::Coco;
            l.cocoCategories = d.coco()->categories();
            labels["coco"] = Json::parse(labelFileText(l, kept, image, out.width, out.height, out.channels));
            return labels;
        }
        const std::string file = outputLabelPath(folders_, in, k);
        const fs::path path = checkedOutput(file);
        std::error_code ec;
        fs::create_directories(path.parent_path(), ec);
        if (d.format() == LabelFormat::MaskPng) {
            const auto semantic = std::find_if(kept.masks.rbegin(), kept.masks.rend(),
                                               [](const Mask& m) { return m.owner < 0; });
            if (semantic == kept.masks.rend()) return nullptr;  // the image had no mask: none written
            files.add(path, encodeMaskPng(*semantic, file));
        } else {
            ImageLabels l;
            l.format = d.format();
            for (const Keypoint& kp : targets.keypoints)
                if (kp.owner >= 0) l.keypointsPerBox = std::max(l.keypointsPerBox, kp.label + 1);
            files.add(path, labelFileText(l, kept, image, out.width, out.height, out.channels));
        }
        labels["file"] = file;
        return labels;
    }

    /// One copy's sample, drawn as `apply` draws it at the given source size, and its plan (empty
    /// when not kept: see regionRead).
    struct DrawnCopy {
        int width = 0, height = 0;  ///< the source size it was drawn at
        Replay replay;
        std::optional<Plan> plan;
    };

    DrawnCopy draw(const PlannedInput& in, int k, int width, int height) const {
        const PartnerPool pool{planned_.size(), static_cast<std::uint64_t>(&in - planned_.data())};
        DrawnCopy d{width, height, {}, {}};
        d.replay = samplePipeline(o_.preset.pipeline, o_.seed, augmentSampleIndex(in.relative, k), width, height,
                                  pool);
        d.plan = buildFullPlan(d.replay, width, height);
        return d;
    }

    /// The source pixels that input `in`'s copies read (planSourceRegion), from their samples drawn
    /// at the header's size; nullopt when one may read any of the image, or when a draw failed (the
    /// loop then fails the input with that draw's error, after a whole decode). A single copy's
    /// draw and plan are kept in `kept` for the loop; those of many are not (a replay is ~1 KB, a
    /// remap's plan 8 bytes a pixel, and an input may have 20,000 copies, where the memory budget
    /// counts the decode and one output): the loop draws each of them again, one at a time.
    std::optional<PixelRect> regionRead(const PlannedInput& in, const std::vector<int>& copies,
                                        const ImageInfo& info, std::optional<DrawnCopy>& kept) const {
        kept.reset();
        if (info.width <= 0 || info.height <= 0 || copies.empty()) return std::nullopt;
        std::optional<PixelRect> all;
        for (const int k : copies) {
            DrawnCopy d;
            try {
                d = draw(in, k, info.width, info.height);
            } catch (const InputError&) {
                return std::nullopt;
            }
            const std::optional<PixelRect> r = planSourceRegion(*d.plan, info.width, info.height);
            if (copies.size() == 1) kept = std::move(d);
            if (!r) return std::nullopt;
            if (!all) {
                all = r;
            } else {
                const int x0 = std::min(all->x, r->x), y0 = std::min(all->y, r->y);
                const int x1 = std::max(all->x + all->width, r->x + r->width),
                          y1 = std::max(all->y + all->height, r->y + r->height);
                all = PixelRect{x0, y0, x1 - x0, y1 - y0};
            }
        }
        return all;
    }

    /// The path of output file `relative`, checked again just before it is written (a link made in
    /// the output folder since the run started is caught): InputError, which fails this input.
    fs::path checkedOutput(const std::string& relative) const {
        if (const std::string why = outputPathProblem(folders_.output, relative); !why.empty())
            throw InputError(why);
        return folders_.output / fromUtf8(relative);
    }

    void workerLoop(int worker) {
        try {
            for (std::size_t i = 0; !stop_ && (i = next_++) < work_.size();) {
                const PlannedInput& in = *work_[i].input;
                LoadedImage loaded;
                std::optional<DrawnCopy> kept;  // a single copy's draw (regionRead)
                std::optional<ByteBudget::Reservation> held;
                try {
                    // What this file will occupy (its decode and one output, RGBA at most), held
                    // until its outputs are written: the header says, before any pixel is decoded.
                    const ImageFile file = readImageFile(in.source);
                    held.emplace(budget_.reserve(std::size_t{8} * static_cast<std::size_t>(file.info.width) *
                                                     static_cast<std::size_t>(file.info.height),
                                                 stop_));
                    if (stop_) break;
                    // Only the part of the source that the copies read is decoded (where the file
                    // allows it): the outputs are the same bytes.
                    const std::optional<PixelRect> region = regionRead(in, work_[i].copies, file.info, kept);
                    loaded = region ? decodeImageRegion(file.bytes, file.name, *region)
                                    : decodeImage(file.bytes, file.name);
                } catch (const std::exception& e) {  // InputError, or no memory for a huge image
                    Event failure;
                    failure.failure = dynamic_cast<const InputError*>(&e)
                                          ? e.what()
                                          : "'" + utf8(in.source) + "': " + e.what();
                    failure.entry = failedEntry(in.relative, failure.failure);
                    post(std::move(failure));
                    continue;
                }
                const bool reduced = loaded.reducedFrom16Bit;
                SourceLevels source(std::move(loaded.image));
                Targets targets;
                if (folders_.labels) {
                    LabelReport report;
                    try {
                        targets =
                            folders_.labels->labelsFor(in.source, source.width(), source.height(), report);
                    } catch (const InputError& e) {  // a label file that cannot be parsed: the input fails
                        Event failure;
                        failure.failure = "'" + utf8(in.source) + "': labels: " + e.what();
                        failure.entry = failedEntry(in.relative, failure.failure);
                        post(std::move(failure));
                        continue;
                    }
                    if (!report.skipped.empty()) {
                        Event note;
                        note.skippedLabels = std::move(report.skipped);
                        post(std::move(note));
                    }
                }
                for (const int k : work_[i].copies) {
                    if (stop_) break;  // interrupted: the copies left stay to do
                    const std::uint64_t index = augmentSampleIndex(in.relative, k);
                    Replay replay;
                    double invented = 0;
                    SampleRenderer::Result r;
                    Event e;
                    Json labels;
                    std::vector<std::uint8_t> bytes;
                    try {
                        // A single copy was drawn before the decode (regionRead), unless that draw
                        // failed; the image's size may also not be the header's. Else drawn here,
                        // where a failure fails the input.
                        std::optional<DrawnCopy>& d = kept;
                        if (!d || d->width != source.width() || d->height != source.height())
                            d = draw(in, k, source.width(), source.height());
                        if (!d->plan) d->plan = buildFullPlan(d->replay, source.width(), source.height());
                        replay = std::move(d->replay);
                        namePartners(replay, [this](std::uint64_t p) { return utf8(planned_[p].source); });
                        invented = inventedShare(*d->plan);
                        r = renderer_.render(worker, std::move(*d->plan), source, partners_);
                        d.reset();
                        // The image and its labels appear together or not at all (a resumed run
                        // takes an image without its label file as not done).
                        AtomicFileSet files;
                        if (folders_.labels) labels = writeLabels(in, k, replay, targets, r.image, e, files);
                        bytes = encodeImage(r.image, o_.format, o_.jpegQuality);
                        files.add(checkedOutput(in.outputs[static_cast<std::size_t>(k)]), bytes);
                        // Synced once for the whole run (augmentFolder), not file by file.
                        files.commit(Durability::Batch);
                    } catch (const InputError& err) {
                        // The pipeline does not fit this image (a hole or grid unit larger than it,
                        // an op that needs a square image on another), a label does not fit the
                        // rules (a box outside the image without clip), or an output path leaves
                        // the output folder: this input fails, the run goes on.
                        Event failure;
                        failure.failure = "'" + utf8(in.source) + "': " + err.what();
                        failure.entry = failedEntry(in.relative, failure.failure);
                        post(std::move(failure));
                        break;
                    }
                    e.entry = outputEntry(in.relative, in.outputs[static_cast<std::size_t>(k)], k, o_.seed,
                                          index, bytes.size(), r.backend,
                                          replayToJson(replay, invented), labels);
                    e.alphaDropped = o_.format == ImageFormat::Jpeg && r.image.hasAlpha();
                    e.reducedFrom16Bit = reduced;
                    post(std::move(e));
                }
            }
        } catch (...) {  // an output that cannot be rendered or written: the run stops
            const std::lock_guard lock(mutex_);
            if (!fatal_) fatal_ = std::current_exception();
            stop_ = true;
        }
        budget_.wakeAll();  // a worker waiting for memory sees the stop
        {
            const std::lock_guard lock(mutex_);
            --workersLeft_;
        }
        wake_.notify_all();
    }

    void mainLoop(AugmentSummary& s, ManifestAppender& appender, std::vector<ManifestEntry>& done,
                  std::vector<ManifestEntry>& failed, const Clock::time_point start) {
        auto lastProgress = Clock::now();
        for (;;) {
            std::vector<Event> events;
            bool finished = false;
            {
                std::unique_lock lock(mutex_);
                wake_.wait_for(lock, std::chrono::milliseconds(100), [&] {
                    return !events_.empty() || renderer_.hasQueued() || workersLeft_ == 0;
                });
                events.swap(events_);
                finished = workersLeft_ == 0;
            }
            if (renderer_.onMainThread()) renderer_.renderQueued();
            for (Event& e : events) handle(e, s, appender, done, failed);
            if (o_.cancel && *o_.cancel != 0 && !stop_) {
                s.interruptedBy = *o_.cancel;
                stop_ = true;
                budget_.wakeAll();
            }
            if (o_.progress && (finished || since(lastProgress) >= 0.1)) {
                s.seconds = since(start);
                o_.progress(s);
                lastProgress = Clock::now();
            }
            if (finished) break;
        }
    }

    void handle(Event& e, AugmentSummary& s, ManifestAppender& appender, std::vector<ManifestEntry>& done,
                std::vector<ManifestEntry>& failed) {
        if (!e.skippedLabels.empty() && e.entry.input.empty() &&
            e.failure.empty()) {  // a note, not an output
            s.labelsSkipped += e.skippedLabels.size();
            for (const std::string& line : e.skippedLabels) say(o_, "label skipped: " + line);
            return;
        }
        s.boxesIn += e.boxesIn;
        s.boxesKept += e.boxesKept;
        if (e.entry.ok) {
            ++s.written;
            if (e.alphaDropped && !toldAlpha_) {
                say(o_, "note: JPEG has no alpha channel: the alpha of " + e.entry.input +
                            " (and of any other RGBA input) is dropped; use --format png to keep it");
                toldAlpha_ = true;
            }
            if (e.reducedFrom16Bit && !told16Bit_) {
                say(o_, "note: " + e.entry.input +
                            ": 16-bit image reduced to 8 bits per channel (and any other)");
                told16Bit_ = true;
            }
        } else {
            ++s.failedFiles;
            say(o_, "failed: " + e.failure);
        }
        try {
            if (!fatal_) appender.append(e.entry);
        } catch (...) {  // the manifest cannot grow (disk full): stop, the final rewrite tries again
            const std::lock_guard lock(mutex_);
            if (!fatal_) fatal_ = std::current_exception();
            stop_ = true;
        }
        (e.entry.ok ? done : failed).push_back(std::move(e.entry));
    }

    const AugmentOptions& o_;
    const AugmentFolders& folders_;
    std::vector<Pending> work_;
    std::mutex mutex_;
    std::condition_variable wake_;
    SampleRenderer renderer_;
    ByteBudget budget_;
    const std::vector<PlannedInput>& planned_;
    PartnerLoader partners_;
    std::vector<Event> events_;  // guarded by mutex_
    int workersLeft_ = 0;        // guarded by mutex_
    std::exception_ptr fatal_;   // guarded by mutex_ while workers run
    std::atomic<bool> stop_{false};
    std::atomic<std::size_t> next_{0};
    bool toldAlpha_ = false, told16Bit_ = false;
};

/// The inputs of a labelled dataset whose labels cannot be told apart or are unknown get an error
/// before anything is written: two images that would read one label file (a.png beside images/ and
/// images/a.png both map to labels/a.txt) and write one (labels/a_aug0.txt), and, in COCO, an
/// image that no COCO file lists. COCO entries that match no image are reported in `report`.
void checkLabelFiles(const AugmentFolders& f, std::vector<PlannedInput>& planned, LabelReport& report) {
    const LabelledDataset& d = *f.labels;
    if (d.format() == LabelFormat::Coco) {
        std::vector<fs::path> images;
        for (PlannedInput& p : planned) {
            if (p.relative.empty() || p.relative.back() == '/') continue;
            images.push_back(p.source);
            if (p.error.empty() && !d.lists(p.source))
                p.error = std::string("'") + utf8(p.source) + "': no COCO file of the dataset lists it in images (" +
                          utf8(d.labelPath(p.source).filename()) +
                          "), so its labels are unknown and it is not augmented; list it there (with no "
                          "annotations if it has none) or move it out of the dataset";
        }
        for (std::string& line : d.entriesWithoutImage(images)) report.skipped.push_back(std::move(line));
        return;
    }
    std::map<fs::path, std::vector<PlannedInput*>> readers;
    for (PlannedInput& p : planned)
        if (p.error.empty() && !p.outputs.empty()) readers[d.labelPath(p.source).lexically_normal()].push_back(&p);
    for (auto& [file, inputs] : readers) {
        if (inputs.size() < 2) continue;
        std::string names;
        for (const PlannedInput* p : inputs) {
            names += names.empty() ? "'" : ", '";
            names += p->relative;
            names += '\'';
        }
        for (PlannedInput* p : inputs)
            p->error = std::string("'") + utf8(p->source) + "': " + names + " would all take their labels from '" +
                       utf8(file) + "' (and write them to the same files): which image it labels is "
                       "unclear, so none of them is augmented; move or rename all but one";
    }
    // What each output's label file is called: a name no two inputs may share, nor an image output.
    std::map<std::string, std::string> claimed;
    for (const PlannedInput& p : planned)
        for (const std::string& out : p.outputs) claimed.emplace(out, p.relative);
    for (PlannedInput& p : planned) {
        if (!p.error.empty()) continue;
        for (int k = 0; k < static_cast<int>(p.outputs.size()) && p.error.empty(); ++k) {
            const std::string label = outputLabelPath(f, p, k);
            const auto [it, fresh] = claimed.emplace(label, p.relative);
            if (!fresh && it->second != p.relative)
                p.error = std::string("'") + utf8(p.source) + "': its label file " + label + " would have the name of a file of '" +
                          it->second + "'; rename one of the two";
        }
    }
}

/// Keeps one entry per output, the last in `entries` (an output written again replaces its old
/// line); sorted by output.
void keepLatestOutputs(std::vector<ManifestEntry>& entries) {
    std::stable_sort(entries.begin(), entries.end(),
                     [](const ManifestEntry& a, const ManifestEntry& b) { return a.output < b.output; });
    std::size_t kept = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (i + 1 < entries.size() && entries[i + 1].output == entries[i].output) continue;  // a later one
        if (kept != i) entries[kept] = std::move(entries[i]);
        ++kept;
    }
    entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(kept), entries.end());
}

}  // namespace

std::vector<fs::path> writeCocoFiles(const LabelledDataset& labels, const fs::path& input,
                                     const fs::path& output, const std::vector<ManifestEntry>& entries) {
    // Outputs are grouped by the COCO file of their input (train and val files stay apart).
    std::map<fs::path, std::vector<ManifestEntry>> byFile;
    for (const ManifestEntry& e : entries)
        if (e.ok) byFile[labels.labelPath(input / fromUtf8(e.input))].push_back(e);
    std::vector<fs::path> written;
    for (auto& [cocoFile, group] : byFile) {
        std::stable_sort(group.begin(), group.end(),
                         [](const ManifestEntry& a, const ManifestEntry& b) { return a.output < b.output; });
        const fs::path rel = inside(cocoFile, input).value_or(cocoFile.filename());
        if (const std::string why = outputPathProblem(output, utf8(rel)); !why.empty()) throw InputError(why);
        std::error_code ec;
        fs::create_directories((output / rel).parent_path(), ec);
        writeFileAtomically(output / rel, mergeCoco(group, labels.coco()->categories()).dump(1) + "\n");
        written.push_back(output / rel);
    }
    return written;
}

AugmentSummary augmentFolder(const AugmentOptions& o) {
    const Clock::time_point start = Clock::now();
    if (o.copies < 1 || o.copies > kMaxCopies)
        throw InputError("copies must be 1.." + std::to_string(kMaxCopies) + ", not " +
                         std::to_string(o.copies));
    if (o.jpegQuality < 1 || o.jpegQuality > 100)
        throw InputError("JPEG quality must be 1..100, not " + std::to_string(o.jpegQuality));
    AugmentFolders folders = checkFolders(o.input, o.output);
    std::vector<PlannedInput> planned = planInputs(folders.input, o.copies, o.format);
    // A labelled dataset: its labels follow every output. An unreadable data.yaml or COCO file stops
    // the run here, before anything is written.
    LabelReport labelReport;
    if (std::optional<LabelledDataset> d = detectLabels(folders.input, labelReport))
        folders.labels = std::make_shared<const LabelledDataset>(std::move(*d));
    if (folders.labels && folders.labels->format() == LabelFormat::MaskPng) {
        // The mask PNGs are labels, not inputs.
        std::set<fs::path> masks;
        for (const PlannedInput& p : planned)
            masks.insert(folders.labels->labelPath(p.source).lexically_normal());
        std::erase_if(planned,
                      [&](const PlannedInput& p) { return masks.count(p.source.lexically_normal()) > 0; });
    }

    if (folders.labels) checkLabelFiles(folders, planned, labelReport);

    AugmentSummary s;
    if (folders.labels) {
        s.labels = labelFormatName(folders.labels->format());
        s.labelsSkipped = labelReport.skipped.size();
        for (const std::string& line : labelReport.skipped) say(o, "label skipped: " + line);
    }
    s.jobs = o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // A shard does its own part of the inputs; `planned` stays the whole folder, the partner pool.
    const auto mine = [&](const PlannedInput& p) {
        return !o.shard || shardOf(p.relative, o.shard->count) == o.shard->index;
    };
    RunFiles files;
    if (o.shard) {
        files.manifest = shardManifestName(*o.shard);
        files.shard = true;
        for (const PlannedInput& p : planned) {
            if (!mine(p)) continue;
            for (int k = 0; k < static_cast<int>(p.outputs.size()); ++k) {
                files.owned.insert(p.outputs[static_cast<std::size_t>(k)]);
                if (folders.labels && folders.labels->format() != LabelFormat::Coco)
                    files.owned.insert(outputLabelPath(folders, p, k));
            }
        }
    }
    s.manifest = folders.output / files.manifest;
    std::vector<ManifestEntry> failed;
    for (const PlannedInput& p : planned) {
        if (!mine(p)) continue;
        if (p.relative.back() != '/') ++s.files;
        if (p.error.empty()) continue;
        failed.push_back(failedEntry(p.relative, p.error));
        say(o, "failed: " + p.error);
    }
    s.outputs = s.files * static_cast<std::size_t>(o.copies);

    AugmentRun run(o, folders, s.jobs, planned);
    std::error_code ec;
    fs::create_directories(folders.output, ec);
    if (ec) throw InputError("cannot create --output '" + utf8(folders.output) + "': " + ec.message());
    const OutputFolderLock lock =
        o.shard ? OutputFolderLock(folders.output, shardLockName(*o.shard), o.shard->text())
                : OutputFolderLock(folders.output);
    Json header = manifestHeader(o, folders);
    std::vector<ManifestEntry> kept =
        prepareOutputFolder(folders.output, header, o.overwrite, o.messages, files);

    std::map<std::string, const ManifestEntry*> byOutput;  // cleared once the work is planned
    for (const ManifestEntry& e : kept) byOutput[e.output] = &e;
    std::vector<Pending> work;
    std::size_t toDo = 0;
    for (const PlannedInput& p : planned) {
        if (!p.error.empty() || !mine(p)) continue;
        Pending pending{&p, {}};
        for (int k = 0; k < o.copies; ++k) {
            const auto it = byOutput.find(p.outputs[static_cast<std::size_t>(k)]);
            const bool isDone = it != byOutput.end() && it->second->input == p.relative &&
                                it->second->copy == k &&
                                it->second->index == augmentSampleIndex(p.relative, k);
            if (isDone)
                ++s.skipped;
            else
                pending.copies.push_back(k);
        }
        if (pending.copies.empty()) continue;
        // Every file it writes stays inside the output folder (no link leads out, no name is too
        // long), checked before anything is written; a problem fails this input alone.
        std::string unsafe;
        for (const int k : pending.copies) {
            unsafe = outputPathProblem(folders.output, p.outputs[static_cast<std::size_t>(k)]);
            if (unsafe.empty() && folders.labels && folders.labels->format() != LabelFormat::Coco)
                unsafe = outputPathProblem(folders.output, outputLabelPath(folders, p, k));
            if (!unsafe.empty()) break;
        }
        if (!unsafe.empty()) {
            const std::string why = "'" + p.relative + "': " + unsafe;
            failed.push_back(failedEntry(p.relative, why));
            say(o, "failed: " + why);
            continue;
        }
        // Folders are made here, before the workers start, so that they never race to make one.
        fs::create_directories((folders.output / fromUtf8(p.outputs[0])).parent_path(), ec);
        if (ec) {
            const std::string why =
                "cannot create the output folder of '" + p.relative + "': " + ec.message();
            failed.push_back(failedEntry(p.relative, why));
            say(o, "failed: " + why);
            continue;
        }
        toDo += pending.copies.size();
        work.push_back(std::move(pending));
    }
    std::map<std::string, const ManifestEntry*>().swap(byOutput);
    s.failedFiles = failed.size();

    ManifestAppender appender(s.manifest);
    for (ManifestEntry& f : failed) appender.append(f);
    std::vector<ManifestEntry> done;
    done.reserve(toDo);
    run.run(std::move(work), s.jobs, s, appender, done, failed, start);
    appender.close();
    // The outputs reach the disk before the manifest that lists them is rewritten (the rewrite
    // itself is synced): one sync for the run instead of one per file.
    try {
        syncFileSystem(folders.output);
    } catch (...) {
        if (!run.fatal()) throw;
    }

    // The final manifest: every output present, each once (an output written again replaces its
    // old line), and this run's failures.
    // old line), and this run's failures. One vector, the entries moved into it (a few hundred
    // bytes each: their lines stay in the file).
    std::vector<ManifestEntry> all;
    all.reserve(kept.size() + done.size() + failed.size());
    for (std::vector<ManifestEntry>* from : {&kept, &done}) {
        std::move(from->begin(), from->end(), std::back_inserter(all));
        std::vector<ManifestEntry>().swap(*from);
    }
    keepLatestOutputs(all);
    std::move(failed.begin(), failed.end(), std::back_inserter(all));
    std::vector<ManifestEntry>().swap(failed);
    // COCO: one file listing every output, rebuilt from the manifest's lines (this run's and the
    // kept ones). A shard has only its part: --merge-manifests writes the file from all of them.
    if (folders.labels && folders.labels->format() == LabelFormat::Coco && !run.fatal() && !o.shard)
        writeCocoFiles(*folders.labels, folders.input, folders.output, all);
    if (o.shard) header["shard"]["complete"] = !run.fatal() && s.interruptedBy == 0;
    try {
        writeManifest(s.manifest, header, std::move(all));
    } catch (...) {
        if (!run.fatal()) throw;
    }
    if (run.fatal()) std::rethrow_exception(run.fatal());
    s.seconds = since(start);
    return s;
}

}  // namespace auglab::cli
