#include "commands.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "args.h"
#include "atomic_file.h"
#include "backend_registry.h"
#include "contact_sheet.h"
#include "error.h"
#include "fallback_backend.h"
#include "image_io.h"
#include "label_files.h"
#include "overlay.h"
#include "preset.h"
#include "realism.h"
#include "sheet_sources.h"

namespace auglab::cli {

namespace fs = std::filesystem;

namespace {

/// Loads images, telling the user once when 16-bit data was reduced to 8 bits.
class ImageLoader {
public:
    std::unique_ptr<SourceLevels> load(const fs::path& path) {
        LoadedImage li = loadImage(path);
        if (li.reducedFrom16Bit && !toldAbout16Bit_) {
            std::cerr << "note: " << path.string() << ": 16-bit image reduced to 8 bits per channel\n";
            toldAbout16Bit_ = true;
        }
        return std::make_unique<SourceLevels>(std::move(li.image));
    }

private:
    bool toldAbout16Bit_ = false;
};

/// Every image file in a folder, sorted by name.
std::vector<fs::path> listFolder(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw InputError("'" + dir.string() + "' is not a folder");
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.is_regular_file() && hasImageExtension(entry.path())) files.push_back(entry.path());
    if (ec) throw InputError("cannot list '" + dir.string() + "': " + ec.message());
    std::sort(files.begin(), files.end());
    if (files.empty()) throw InputError("no image files in '" + dir.string() + "'");
    return files;
}

/// Tells the user when a backend failed and the work fell through to the next one.
void reportFallbacks(const Backend& backend) {
    if (const auto* chain = dynamic_cast<const FallbackBackend*>(&backend))
        for (const std::string& m : chain->messages()) std::cerr << "warning: " << m << "\n";
}

Preset presetFrom(const Args& a) {
    const auto path = a.value("preset");
    return path ? loadPreset(*path) : defaultPreset();
}

std::pair<int, int> parseGrid(const std::string& s) {
    const auto x = s.find('x');
    try {
        if (x == std::string::npos) throw std::invalid_argument(s);
        std::size_t used1 = 0, used2 = 0;
        const int cols = std::stoi(s.substr(0, x), &used1), rows = std::stoi(s.substr(x + 1), &used2);
        if (used1 != x || used2 != s.size() - x - 1) throw std::invalid_argument(s);
        if (cols < 1 || rows < 1 || cols > 64 || rows > 64)
            throw UsageError{"--grid: " + s + " is outside 1x1..64x64"};
        return {cols, rows};
    } catch (const std::logic_error&) {
        throw UsageError{"--grid: expected COLSxROWS such as 8x8, got '" + s + "'"};
    }
}

const Args::Spec kRenderSpec{
    {"preset", "dir", "grid", "tile", "seed", "page", "mode", "backend", "out", "threads", "save-replays"},
    {"image"},
    {"realism", "overlays"},
    0};
const Args::Spec kApplySpec{{"preset", "image", "index", "seed", "backend", "out", "save-replay", "threads",
                             "annotations", "annotations-format", "out-annotations", "mask", "out-mask"},
                            {"partner", "partner-annotations", "partner-masks"},
                            {},
                            0};
const Args::Spec kReplaySpec{{"replay", "image", "backend", "out", "threads", "preset", "annotations",
                              "annotations-format", "out-annotations", "mask", "out-mask"},
                             {"partner", "partner-annotations", "partner-masks"},
                             {},
                             0};

/// The labels --annotations and --mask give, moved through the sample's ops (apply, replay), ready
/// to be written next to the output image.
struct MovedLabels {
    ImageLabels labels;
    Targets kept;
    MovedTargets moved;
    std::string summary;
};

std::optional<MovedLabels> moveLabels(const Args& a, const std::optional<TargetSettings>& settings,
                                      const Replay& replay, const fs::path& image) {
    // The partners' labels (the 4-image grid takes theirs too): --partner-annotations and
    // --partner-masks, one per --partner, in the same format as the image's.
    const std::vector<std::string> partnerFiles = a.list("partner"),
                                   partnerAnn = a.list("partner-annotations"),
                                   partnerMasks = a.list("partner-masks");
    if (!partnerAnn.empty() && partnerAnn.size() != partnerFiles.size())
        throw UsageError{"--partner-annotations: give one file per --partner image (" +
                         std::to_string(partnerFiles.size()) + ")"};
    if (!partnerMasks.empty() && partnerMasks.size() != partnerFiles.size())
        throw UsageError{"--partner-masks: give one PNG per --partner image (" +
                         std::to_string(partnerFiles.size()) + ")"};
    const auto ann = a.value("annotations"), mask = a.value("mask");
    if (ann.has_value() != a.value("out-annotations").has_value())
        throw UsageError{ann ? "--annotations needs --out-annotations"
                             : "--out-annotations needs --annotations"};
    if (mask.has_value() != a.value("out-mask").has_value())
        throw UsageError{mask ? "--mask needs --out-mask" : "--out-mask needs --mask"};
    if (a.value("annotations-format") && !ann) throw UsageError{"--annotations-format needs --annotations"};
    if (!ann && !mask) return std::nullopt;
    const int w = replay.imageWidth, h = replay.imageHeight;
    MovedLabels m;
    if (ann) {
        std::optional<LabelFormat> format;
        if (const auto f = a.value("annotations-format")) {
            format = labelFormatFromName(*f);
            if (!format || *format == LabelFormat::MaskPng)
                throw UsageError{"--annotations-format: expected yolo, coco or pascal_voc, got '" + *f + "'"};
        } else {
            format = labelFormatOfFile(*ann);
            if (!format || *format == LabelFormat::MaskPng)
                throw UsageError{"--annotations: cannot tell the format of '" + *ann +
                                 "' from its extension (.txt yolo, .json coco, .xml pascal_voc): give "
                                 "--annotations-format"};
        }
        m.labels = readImageLabels(*ann, *format, image, w, h);
        if (!m.labels.report.skipped.empty()) {
            std::string list;
            for (const std::string& s : m.labels.report.skipped) list += "\n  " + s;
            throw InputError(std::to_string(m.labels.report.skipped.size()) + " label(s) of " + *ann +
                             " cannot be used:" + list);
        }
    }
    if (mask) m.labels.targets.masks.push_back(readMaskPng(*mask, w, h));
    const TargetSettings rules = settings.value_or(TargetSettings{});
    // Partner i of the pool is --partner i - 1 (0 is the image itself); read when asked for.
    auto cache = std::make_shared<std::map<std::uint64_t, std::pair<Targets, ImageInfo>>>();
    const LabelFormat format = m.labels.format;
    const PartnerLabelsFn partners = [&, cache](std::uint64_t i) -> std::optional<PartnerLabels> {
        if (i == 0) return PartnerLabels{&m.labels.targets, w, h};
        const std::size_t k = static_cast<std::size_t>(i - 1);
        if (k >= partnerFiles.size() || (partnerAnn.empty() && partnerMasks.empty())) return std::nullopt;
        auto it = cache->find(i);
        if (it == cache->end()) {
            const ImageInfo info = probeImage(partnerFiles[k]);
            Targets t;
            if (!partnerAnn.empty()) {
                ImageLabels l =
                    readImageLabels(partnerAnn[k], format, partnerFiles[k], info.width, info.height);
                if (!l.report.skipped.empty())
                    throw InputError(partnerAnn[k] + ": " + l.report.skipped.front());
                t = std::move(l.targets);
            }
            if (!partnerMasks.empty())
                t.masks.push_back(readMaskPng(partnerMasks[k], info.width, info.height));
            it = cache->emplace(i, std::pair{std::move(t), info}).first;
        }
        return PartnerLabels{&it->second.first, it->second.second.width, it->second.second.height};
    };
    m.moved = moveTargets(replay, rules, m.labels.targets, partners);
    const std::vector<Mask> masks =
        moveMasks(replay, m.labels.targets.masks, m.moved.width, m.moved.height, rules.maskFill, partners);
    m.kept = survivingTargets(m.labels.targets, m.moved, masks);
    m.summary = targetSummary(m.labels.targets, m.moved);
    return m;
}

/// Adds what moveLabels made, for output image `outImage` of `channels` channels, to the files of
/// the result.
void addLabels(const Args& a, const MovedLabels& m, const fs::path& outImage, int channels, AtomicFileSet& files) {
    if (const auto out = a.value("out-annotations"))
        files.add(*out, labelFileText(m.labels, m.kept, outImage, m.moved.width, m.moved.height, channels));
    if (const auto out = a.value("out-mask")) {
        // The --mask image: the semantic mask, after the instance masks of a COCO file.
        const auto it = std::find_if(m.kept.masks.rbegin(), m.kept.masks.rend(),
                                     [](const Mask& k) { return k.owner < 0; });
        files.add(*out, encodeMaskPng(*it, *out));
    }
}

/// A replay names its partners' files in UTF-8 JSON: a name that is not UTF-8 is refused before
/// any work (InputError naming the option), not after the image is made.
void checkPartnerNames(const Args& a) {
    if (!a.value("save-replay")) return;
    for (const std::string& p : a.list("partner"))
        try {
            (void)nlohmann::json(p).dump();
        } catch (const nlohmann::json::type_error&) {
            throw InputError("--partner '" + nlohmann::json(p).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                             "': the file name is not valid UTF-8, and --save-replay would name it in a UTF-8 "
                             "JSON file; rename the file");
        }
}

std::string formatPercent(double share) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * share);
    return buf;
}

/// The pool `--image F --partner P...` gives mixing ops: F (number 0), then each P.
std::vector<fs::path> partnerPool(const Args& a) {
    std::vector<fs::path> pool{fs::path(a.required("image"))};
    for (const std::string& p : a.list("partner")) pool.emplace_back(p);
    return pool;
}

}  // namespace

std::string helpText(const std::string& command) {
    if (command.empty())
        return "auglab-cli: augmentation presets, headless\n\n"
               "usage: auglab-cli COMMAND [options]   (auglab-cli COMMAND --help for details)\n\n"
               "  info [--json]            backends available here, GL renderer, CUDA device, ops\n"
               "  validate PRESET          strict check; prints the first error with its JSON path\n"
               "  render                   a contact sheet of augmented samples\n"
               "  apply                    one sample at full resolution (tile I of render)\n"
               "  replay                   apply saved concrete parameters again, bit for bit\n"
               "  augment                  N augmented copies of every image in a folder, with a manifest\n"
               "  schema [--out FILE]      the preset JSON Schema\n"
               "  bench [--backend B] [--json] [--reps N]   SPEC 8 workloads, CPU reference in the same "
               "run\n\n"
               "exit codes: 0 success, 2 bad usage or bad input, 1 other failures\n";
    if (command == "info") return "usage: auglab-cli info [--json]\n";
    if (command == "validate") return "usage: auglab-cli validate PRESET\n";
    if (command == "schema") return "usage: auglab-cli schema [--out FILE]\n";
    if (command == "bench")
        return "usage: auglab-cli bench [--backend auto|cpu|gl|cuda] [--json] [--reps N]\n\n"
               "W1: a 64-tile grid of 256-px tiles from a 1024x1024 source (median ms after a parameter "
               "change);\n"
               "W2: 512x512 full-resolution outputs per second, 64 per batch. The CPU backend runs in the "
               "same\n"
               "process as the reference. W3: augment (decode, augment, encode, write) over 48 512x512 "
               "JPEGs\n"
               "written to a temporary folder, outputs per second with 1 job and with one per thread.\n"
               "Synthetic test pictures: no files needed.\n";
    if (command == "render")
        return "usage: auglab-cli render [--preset P] (--image F... | --dir D) --out SHEET.png\n"
               "         [--grid 8x8] [--tile 256] [--seed N] [--page K] [--mode samples|dataset|compare]\n"
               "         [--backend auto|cpu|gl|cuda] [--threads N] [--save-replays R.json]\n"
               "         [--realism] [--overlays]\n\n"
               "Renders COLSxROWS tiles. Tile i shows sample page*COLS*ROWS+i: in samples mode of the first\n"
               "image, in dataset mode of image page*COLS*ROWS+i; compare mode pairs each sample of the\n"
               "first image with the original. Mixing ops draw partners from all the images\n"
               "given (--image F... or the folder). Without --preset the default preset is\n"
               "used; without --seed the preset's seed. --save-replays writes every tile's concrete\n"
               "parameters as a JSON array (each with its full-resolution \"realism\"). --realism prints\n"
               "each tile's share of invented pixels (border fill or reflection, dropout holes) and the\n"
               "page's median. --overlays (with --dir of a labelled dataset: YOLO, COCO, Pascal VOC,\n"
               "masks/) draws each tile's boxes, keypoints and masks as its sample moved them, and\n"
               "prints how many boxes survive and their median visibility.\n";
    if (command == "apply")
        return "usage: auglab-cli apply [--preset P] --image F --index I --out OUT.png\n"
               "         [--seed N] [--backend ...] [--threads N] [--save-replay R.json]\n"
               "         [--partner P...] [--annotations FILE [--annotations-format F]\n"
               "         --out-annotations FILE] [--mask PNG --out-mask PNG]\n\n"
               "Writes sample I at full resolution: exactly tile I of render with the same seed.\n"
               "Mixing ops take their partner from F and the --partner images (never F itself\n"
               "when there are others); without --partner the partner is F, and they change nothing.\n"
               "The replay names the partner's file (partner_path).\n\n"
               "Labels: --annotations FILE (.txt yolo, .json coco, .xml pascal_voc, or\n"
               "--annotations-format) --out-annotations FILE writes the image's labels after the\n"
               "sample's ops in the same format (coco: a file with that one image); --mask PNG\n"
               "--out-mask PNG moves a label mask. The preset's targets section says which boxes\n"
               "and keypoints survive (Albumentations' BboxParams and KeypointParams). The 4-image\n"
               "grid op takes its partners' labels from --partner-annotations and\n"
               "--partner-masks, one per --partner, in the image's format.\n";
    if (command == "replay")
        return "usage: auglab-cli replay --replay R.json --image F --out OUT.png [--backend ...]\n"
               "         [--partner P...] [--preset P --annotations ... --mask ... as apply]\n\n"
               "The partners of mixing ops are read from the replay's partner_path, or, with\n"
               "--partner, from the pool F, P... as apply numbered it.\n";
    return "";
}

namespace {
/// The ops a GPU backend runs on the CPU (OpDesc::runsOnHost, and runsOnHostGl for GL).
std::vector<std::string> hostOpNames(const std::string& backend) {
    std::vector<std::string> names;
    for (const OpDesc& op : opRegistry())
        if (op.runsOnHost || (backend == "gl" && op.runsOnHostGl))
            names.push_back(op.runsOnHostWhen ? op.name + " (" + op.runsOnHostWhen + ")" : op.name);
    return names;
}
}  // namespace

int runInfo(const std::vector<std::string>& argv) {
    const Args a(argv, Args::Spec{{}, {}, {"json"}, 0});
    const auto infos = backendInfos();
    if (a.flag("json")) {
        nlohmann::ordered_json j;
        j["version"] = AUGLAB_VERSION;
        j["backends"] = nlohmann::ordered_json::array();
        for (const BackendInfo& b : infos) {
            nlohmann::ordered_json backend{
                {"name", b.name}, {"compiled", b.compiled}, {"available", b.available}, {"detail", b.detail}};
            // The ops whose step a GPU backend hands to the CPU inside the same plan.
            backend["ops_on_cpu"] = nlohmann::ordered_json::array();
            if (b.name != "cpu")
                for (const std::string& name : hostOpNames(b.name)) backend["ops_on_cpu"].push_back(name);
            j["backends"].push_back(backend);
        }
        j["auto"] = autoBackendName();
        j["ops"] = nlohmann::ordered_json::array();
        for (const OpDesc& op : opRegistry()) j["ops"].push_back(op.name);
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    const auto hostOpsOf = [](const std::string& backend) {
        std::string ops;
        for (const std::string& name : hostOpNames(backend)) ops += (ops.empty() ? "" : ", ") + name;
        return ops;
    };
    std::cout << "AugLab " << AUGLAB_VERSION << "\n\nbackends (auto picks " << autoBackendName() << "):\n";
    for (const BackendInfo& b : infos)
        std::cout << "  " << b.name << ": "
                  << (b.available  ? "available"
                      : b.compiled ? "unavailable"
                                   : "not built")
                  << " - " << b.detail
                  << (b.name != "cpu" && !hostOpsOf(b.name).empty() ? "; on the CPU: " + hostOpsOf(b.name)
                                                                    : "")
                  << "\n";
    std::cout << "\nops:\n";
    for (const OpDesc& op : opRegistry()) std::cout << "  " << op.name << " - " << op.label << "\n";
    return 0;
}

int runValidate(const std::vector<std::string>& argv) {
    const Args a(argv, Args::Spec{{}, {}, {}, 1});
    if (a.positional().empty()) throw UsageError{"missing PRESET"};
    const Preset p = loadPreset(a.positional()[0]);
    std::cout << a.positional()[0] << ": ok, preset \"" << p.name << "\" with " << p.pipeline.size()
              << " ops";
    if (!p.pipeline.groups().empty()) std::cout << " in " << p.pipeline.groups().size() << " groups";
    std::cout << "\n";
    return 0;
}

int runSchema(const std::vector<std::string>& argv) {
    const Args a(argv, Args::Spec{{"out"}, {}, {}, 0});
    const std::string text = presetSchema().dump(2) + "\n";
    if (const auto out = a.value("out"))
        writeFileAtomically(*out, text);
    else
        std::cout << text;
    return 0;
}

int runRender(const std::vector<std::string>& argv) {
    const Args a(argv, kRenderSpec);
    const Preset preset = presetFrom(a);
    const std::string out = a.required("out");
    formatFromExtension(out);  // fail before any work
    SheetOptions o;
    if (const auto g = a.value("grid")) std::tie(o.cols, o.rows) = parseGrid(*g);
    o.tile = static_cast<int>(a.integer("tile", 256, 8, 4096));
    o.seed = a.unsignedInteger("seed", preset.seed);
    o.page = a.unsignedInteger("page", 0);
    const std::string mode = a.value("mode").value_or("samples");
    if (mode == "dataset")
        o.mode = SheetMode::Dataset;
    else if (mode == "compare")
        o.mode = SheetMode::Compare;
    else if (mode != "samples")
        throw UsageError{"--mode: expected samples, dataset or compare, got '" + mode + "'"};
    const auto images = a.list("image");
    const auto dir = a.value("dir");
    if (images.empty() == !dir) throw UsageError{"give either --image F... or --dir D"};
    std::vector<fs::path> files(images.begin(), images.end());
    if (dir && !a.flag("overlays")) files = listFolder(*dir);
    // --overlays: the folder is a labelled dataset; its images are every image under it.
    std::optional<LabelledDataset> labels;
    LabelReport labelReport;
    if (a.flag("overlays")) {
        if (!dir)
            throw UsageError{"--overlays needs --dir D, a labelled dataset folder (YOLO, COCO, VOC, masks/)"};
        labels = detectLabels(*dir, labelReport);
        if (!labels)
            throw InputError("no labels found in '" + *dir +
                             "' (YOLO labels/, a COCO instances*.json, VOC Annotations/ or XML beside the "
                             "images, masks/)");
        files = labelledImages(*dir, *labels);
        if (files.empty()) throw InputError("no image files under '" + *dir + "'");
    }
    // Mixing ops draw partners from every image given, not only those of the page.
    const std::vector<fs::path> pool = files;
    o.partnerPool = pool.size();
    if (o.mode == SheetMode::Dataset) {
        // Only this page's images are decoded: a folder of any size renders at once.
        const std::size_t perPage = static_cast<std::size_t>(o.cols * o.rows);
        const std::size_t first = std::min(files.size(), static_cast<std::size_t>(o.page) * perPage);
        files = std::vector<fs::path>(
            files.begin() + static_cast<std::ptrdiff_t>(first),
            files.begin() + static_cast<std::ptrdiff_t>(std::min(files.size(), first + perPage)));
        if (files.empty()) throw InputError("page " + std::to_string(o.page) + " is past the last image");
        o.partnerFirst = first;
    } else {
        files.resize(1);  // samples and compare modes show the first image
    }
    // Headers first: the layout needs sizes only. Each file is then decoded at the size its tiles
    // read (a JPEG by DCT scaling), in parallel, and only that reduced level is kept.
    const std::vector<SheetSource> heads = probeSheetSources(files);
    for (const SheetSource& h : heads) {
        if (h.error.empty()) continue;
        if (o.mode != SheetMode::Dataset) throw InputError(h.error);  // the one image shown
        std::cerr << "skipped: " << h.error << "\n";
    }
    const int threads = static_cast<int>(a.integer("threads", 0, 0, 1024));
    auto backend = createBackend(a.value("backend").value_or("auto"), threads);
    SheetLayout layout = layoutSheet(preset.pipeline, heads, o);
    ThreadPool decoders(threads);
    bool reducedFrom16Bit = false;
    std::vector<std::string> errors;
    const auto held = loadSheetFiles(layout, files, heads, decoders, errors, &reducedFrom16Bit);
    bindSheetPartners(layout, filePartners(pool, true));
    for (const std::string& e : errors)
        if (!e.empty()) std::cerr << "skipped: " << e << "\n";
    if (reducedFrom16Bit) std::cerr << "note: 16-bit images were reduced to 8 bits per channel\n";
    Sheet sheet = renderLayout(std::move(layout), *backend);
    reportFallbacks(*backend);
    if (labels) {
        // Each tile's labels, moved by its sample, drawn over it.
        const TargetSettings rules = preset.targets.value_or(TargetSettings{});
        std::vector<TileOverlay> overlays;
        // Partners' labels (the 4-image grid takes theirs too): the pool's files, read when asked for.
        std::map<std::uint64_t, std::pair<Targets, ImageInfo>> partnerRead;
        const PartnerLabelsFn partners = [&](std::uint64_t i) -> std::optional<PartnerLabels> {
            if (i >= pool.size()) return std::nullopt;
            auto it = partnerRead.find(i);
            if (it == partnerRead.end()) {
                const ImageInfo info = probeImage(pool[static_cast<std::size_t>(i)]);
                LabelReport ignored;  // reported where the image is shown itself
                it = partnerRead
                         .emplace(i, std::pair{labels->labelsFor(pool[static_cast<std::size_t>(i)],
                                                                 info.width, info.height, ignored),
                                               info})
                         .first;
            }
            return PartnerLabels{&it->second.first, it->second.second.width, it->second.second.height};
        };
        for (const SheetTile& t : sheet.tiles) {
            if (t.sourceIndex < 0 || t.original || !t.error.empty()) continue;
            const SheetSource& h = heads[static_cast<std::size_t>(t.sourceIndex)];
            try {
                const Targets targets = labels->labelsFor(files[static_cast<std::size_t>(t.sourceIndex)],
                                                          h.width, h.height, labelReport);
                // Masks from the level the tile needs (a camera-size mask is never moved whole for a tile).
                const int level = maskLevelFor(h.width, h.height, std::max(t.width, t.height));
                const std::vector<Mask> reduced = reduceMasks(targets.masks, level);
                overlays.push_back(tileOverlay(t, targets, rules, true, &reduced, level, partners));
                drawOverlay(sheet.image, t, overlays.back(), 0.45);
            } catch (const InputError& e) {
                std::cerr << "labels of " << files[static_cast<std::size_t>(t.sourceIndex)].string()
                          << " not drawn: " << e.what() << "\n";
            }
        }
        for (const std::string& s : labelReport.skipped) std::cerr << "label skipped: " << s << "\n";
        const BoxStats st = boxStats(overlays);
        char buf[160];
        if (st.in > 0)
            std::snprintf(buf, sizeof buf, "labels (%s): %zu of %zu boxes kept, median visibility %.2f\n",
                          labelFormatName(labels->format()), st.kept, st.in, st.medianVisibility);
        else
            std::snprintf(buf, sizeof buf, "labels (%s): drawn on %zu tiles, no boxes\n",
                          labelFormatName(labels->format()), overlays.size());
        std::cout << buf;
    }
    for (std::size_t i = 0; i < sheet.tiles.size(); ++i) {
        const SheetTile& t = sheet.tiles[i];
        if (!t.error.empty() && heads[static_cast<std::size_t>(t.sourceIndex)].error.empty() &&
            errors[static_cast<std::size_t>(t.sourceIndex)].empty())
            std::cerr << "warning: tile " << i << " left empty: " << t.error << "\n";
    }
    saveImage(out, sheet.image);
    if (const auto r = a.value("save-replays")) {
        nlohmann::ordered_json all = nlohmann::ordered_json::array();
        for (const SheetTile& t : sheet.tiles)  // every tile that has an image, rendered or not
            if (t.sourceIndex >= 0 && heads[static_cast<std::size_t>(t.sourceIndex)].error.empty()) {
                // The realism of the full-resolution output (what apply writes), when it rendered.
                const SheetSource& h = heads[static_cast<std::size_t>(t.sourceIndex)];
                const double realism =
                    t.error.empty() ? inventedShare(buildFullPlan(t.replay, h.width, h.height)) : -1;
                all.push_back(replayToJson(t.replay, realism));
            }
        writeFileAtomically(*r, all.dump(2) + "\n");
    }
    if (a.flag("realism")) {
        // Each tile's share of invented pixels (border fill or reflection, holes), and the page's median.
        std::vector<double> shares;
        for (std::size_t i = 0; i < sheet.tiles.size(); ++i)
            if (sheet.tiles[i].invented >= 0) {
                shares.push_back(sheet.tiles[i].invented);
                std::cout << "tile " << i << " (sample " << sheet.tiles[i].sampleIndex
                          << "): " << formatPercent(sheet.tiles[i].invented) << " invented\n";
            }
        if (!shares.empty()) {
            std::sort(shares.begin(), shares.end());
            const std::size_t n = shares.size();
            const double median = n % 2 ? shares[n / 2] : 0.5 * (shares[n / 2 - 1] + shares[n / 2]);
            std::cout << "median: " << formatPercent(median) << " invented over " << n << " tiles\n";
        }
    }
    std::cout << "wrote " << out << " (" << o.cols << "x" << o.rows << " tiles of " << o.tile << " px, seed "
              << o.seed << ", page " << o.page << ", backend " << backend->name() << ")\n";
    return 0;
}

int runApply(const std::vector<std::string>& argv) {
    const Args a(argv, kApplySpec);
    const Preset preset = presetFrom(a);
    const std::string out = a.required("out");
    formatFromExtension(out);
    const std::uint64_t index = a.unsignedInteger("index", 0);
    if (!a.value("index")) throw UsageError{"missing required option --index"};
    checkPartnerNames(a);
    const std::uint64_t seed = a.unsignedInteger("seed", preset.seed);
    ImageLoader loader;
    auto source = loader.load(a.required("image"));
    auto backend = createBackend(a.value("backend").value_or("auto"),
                                 static_cast<int>(a.integer("threads", 0, 0, 1024)));
    const std::vector<fs::path> pool = partnerPool(a);
    const PartnerLoader others = filePartners(pool, false);
    const Partners partners{PartnerPool{pool.size(), 0}, [&](std::uint64_t i, int w, int h) {
                                return i == 0
                                           ? std::shared_ptr<SourceLevels>(source.get(), [](SourceLevels*) {})
                                           : others(i, w, h);
                            }};
    Replay replay;
    const Image result = renderSample(preset.pipeline, *source, seed, index, *backend, &replay, partners);
    namePartners(replay, [&](std::uint64_t i) { return pool[static_cast<std::size_t>(i)].generic_string(); });
    reportFallbacks(*backend);
    // Labels are read and moved before anything is written: a bad label file leaves no output. The
    // image, its labels, mask and replay then appear together, or (a write fails) none of them.
    const std::optional<MovedLabels> labels = moveLabels(a, preset.targets, replay, a.required("image"));
    const double realism = inventedShare(buildFullPlan(replay, source->width(), source->height()));
    AtomicFileSet files;
    files.add(out, encodeImageFor(out, result));
    if (labels) addLabels(a, *labels, out, result.channels, files);
    if (const auto r = a.value("save-replay")) files.add(*r, serializeReplay(replay, realism));
    files.commit();
    if (labels) std::cout << "labels: " << labels->summary << "\n";
    std::cout << "wrote " << out << " (sample " << index << ", seed " << seed << ", backend "
              << backend->name() << ", " << formatPercent(realism) << " invented)\n";
    return 0;
}

int runReplay(const std::vector<std::string>& argv) {
    const Args a(argv, kReplaySpec);
    const Replay replay = loadReplay(a.required("replay"));
    const std::string out = a.required("out");
    formatFromExtension(out);
    ImageLoader loader;
    auto source = loader.load(a.required("image"));
    auto backend = createBackend(a.value("backend").value_or("auto"),
                                 static_cast<int>(a.integer("threads", 0, 0, 1024)));
    // Partners: the pool --partner gives (numbered as apply numbers it), else the files the replay names.
    PartnerLoader partners;
    if (!a.list("partner").empty()) {
        partners = filePartners(partnerPool(a), false);
    } else {
        std::map<std::uint64_t, fs::path> named;
        for (const ConcreteOp& op : replay.ops)
            if (const auto* m = std::get_if<MixParams>(&op.params);
                m && op.applied && !m->partnerPath.empty())
                named[m->partner] = m->partnerPath;
        std::vector<fs::path> files;
        std::vector<std::uint64_t> indices;
        for (const auto& [i, f] : named) {
            indices.push_back(i);
            files.push_back(f);
        }
        const PartnerLoader byPath = filePartners(files, false);
        SourceLevels* self = source.get();
        partners = [=](std::uint64_t i, int w, int h) -> std::shared_ptr<SourceLevels> {
            const auto at = std::find(indices.begin(), indices.end(), i);
            if (at != indices.end()) return byPath(static_cast<std::uint64_t>(at - indices.begin()), w, h);
            if (i == 0)
                return std::shared_ptr<SourceLevels>(self,
                                                     [](SourceLevels*) {});  // a pool of the image alone
            throw InputError("the replay names no file for it (partner_path): give the pool with --partner");
        };
    }
    const Image result = renderReplay(replay, *source, *backend, partners);
    reportFallbacks(*backend);
    // The targets section (the rules boxes follow) comes from --preset; without it, the defaults.
    std::optional<TargetSettings> rules;
    if (const auto p = a.value("preset")) rules = loadPreset(*p).targets;
    const std::optional<MovedLabels> labels = moveLabels(a, rules, replay, a.required("image"));
    AtomicFileSet files;
    files.add(out, encodeImageFor(out, result));
    if (labels) addLabels(a, *labels, out, result.channels, files);
    files.commit();
    if (labels) std::cout << "labels: " << labels->summary << "\n";
    std::cout << "wrote " << out << " (replay of sample " << replay.index << ", seed " << replay.seed
              << ")\n";
    return 0;
}

}  // namespace auglab::cli
