#include "cuda_batch.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string>

#include "colour.h"
#include "cpu_drawn_ops.h"
#include "error.h"
#include "keyed_tables.h"
#include "warp_fixed_point.h"

namespace auglab::cuda {

namespace {

constexpr std::size_t kAlign = 256;  // cudaMalloc's alignment, kept for every image and array

std::size_t alignUp(std::size_t n, std::size_t a = kAlign) {
    return (n + a - 1) / a * a;
}

std::size_t imageBytes(int w, int h, int c) {
    return static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(c);
}

/// Appends descriptors and tables to the blob; returns their arena offsets.
class BlobWriter {
public:
    explicit BlobWriter(Offset base) : base_(base) {}

    Offset put(const void* data, std::size_t bytes, std::size_t align = 16) {
        const std::size_t at = alignUp(bytes_.size(), align);
        bytes_.resize(at + bytes);
        if (bytes) std::memcpy(bytes_.data() + at, data, bytes);
        return base_ + at;
    }
    template <class T>
    Offset putArray(const std::vector<T>& v) {
        return put(v.data(), v.size() * sizeof(T), alignof(T) > 16 ? alignof(T) : 16);
    }
    /// Lab8's tables (shared::lab_layout), added once when first needed.
    Offset labTables() {
        if (!lab_) lab_ = putArray(Lab8::tables().packed());
        return *lab_;
    }
    /// OpenCV's HSV division tables (sdiv then hdiv), added once when first needed.
    Offset hsvDivisions() {
        if (!divisions_) {
            std::vector<int> t(hsvSaturationDivisors().begin(), hsvSaturationDivisors().end());
            t.insert(t.end(), hsvHueDivisors().begin(), hsvHueDivisors().end());
            divisions_ = putArray(t);
        }
        return *divisions_;
    }
    std::vector<unsigned char> take() { return std::move(bytes_); }

private:
    Offset base_;
    std::vector<unsigned char> bytes_;
    std::optional<Offset> divisions_, lab_;
};

/// A job's working memory in the arena.
struct JobWork {
    const Image* level = nullptr;  ///< the input of stage 0
    Offset images[2] = {0, 0};     ///< stage s writes images[s % 2] and reads images[(s - 1) % 2]
    Offset floats = 0;             ///< blur rows, median, convolution sums
    /// a slot per step that gathers statistics first (scratchBytes), in plan order
    std::vector<Offset> scratchSlots;
};

// The scratch of the steps that gather statistics of the whole image: counts and sums (zeroed before
// the batch) followed by what is made of them.
constexpr std::size_t kEqualizeTables = 3 * 256 * sizeof(std::uint32_t);  ///< mean: sum at +0, LUT at +256
constexpr std::size_t kMeanSlotBytes = kEqualizeTables + 3 * 256;
constexpr std::size_t kIsoPairBytes = 256 * 256 * sizeof(std::uint32_t);  ///< then lambda, exp(-lambda)
constexpr std::size_t kPcaHeadBytes = 128;  ///< the mean (float[3]) at +0, the matrix at +16; then the rows

std::size_t claheCountBytes(const ClaheStep& c) {
    return alignUp(static_cast<std::size_t>(c.tilesX) * static_cast<std::size_t>(c.tilesY) * 256 *
                   sizeof(std::uint32_t));
}

/// Bytes of one float layer of a stage (three floats per pixel), aligned.
std::size_t layerBytes(const PlanStage& stage) {
    return alignUp(imageBytes(stage.width, stage.height, 3) * sizeof(float));
}

/// Bytes of a step's scratch slot in `stage` (0: the step has none).
std::size_t scratchBytes(const PixelStep& s, const PlanStage& stage) {
    const int height = stage.height;
    if (std::holds_alternative<MeanBrightnessStep>(s) || std::holds_alternative<EqualizeStep>(s))
        return kMeanSlotBytes;
    if (const auto* c = std::get_if<ClaheStep>(&s))
        return claheCountBytes(*c) + alignUp(static_cast<std::size_t>(c->tilesX) * c->tilesY * 256);
    if (std::holds_alternative<IsoNoiseStep>(s)) return kIsoPairBytes + 2 * sizeof(double);
    if (std::holds_alternative<FancyPcaStep>(s))
        return kPcaHeadBytes + static_cast<std::size_t>(height) * kPcaRowDoubles * sizeof(double);
    if (const auto* f = std::get_if<FlareStep>(&s); f && f->physics) return 2 * layerBytes(stage);
    return 0;
}

/// Bytes of every scratch slot of a plan, each rounded up to 16.
std::size_t planScratchBytes(const Plan& p) {
    std::size_t n = 0;
    for (const PlanStage& stage : p.stages)
        for (const PixelStep& s : stage.ops) n += alignUp(scratchBytes(s, stage), 16);
    return n;
}

bool isBlur(const PixelStep& s) {
    return std::holds_alternative<BlurStep>(s);
}

/// Steps whose passes go through the float buffer (blur rows, median, convolution).
bool usesFloats(const PixelStep& s) {
    return std::holds_alternative<BlurStep>(s) || std::holds_alternative<MedianStep>(s) ||
           std::holds_alternative<ConvolveStep>(s);
}
/// Validates a job and returns its stage-0 input, as executePlanCpu checks it.
const Image* jobInput(RenderJob& job) {
    if (!job.source || !job.output)
        throw RuntimeError("CUDA backend: a render job has no source or no output");
    const Plan& plan = job.plan;
    if (plan.stages.empty()) return nullptr;
    if (plan.stages[0].warp.sourceLevel < 0) throw RuntimeError("plan does not match its input image size");
    const Image* level = &job.source->level(plan.stages[0].warp.sourceLevel);
    for (std::size_t s = 0; s < plan.stages.size(); ++s) {
        const WarpStep& w = plan.stages[s].warp;
        const int inW = s == 0 ? level->width : plan.stages[s - 1].width,
                  inH = s == 0 ? level->height : plan.stages[s - 1].height;
        if (w.inputWidth != inW || w.inputHeight != inH)
            throw RuntimeError("plan does not match its input image size");
        if (plan.stages[s].width <= 0 || plan.stages[s].height <= 0)
            throw RuntimeError("plan stage " + std::to_string(s) + " has no size");
    }
    const PlanStage& last = plan.stages.back();
    if (plan.width != last.width || plan.height != last.height)
        throw RuntimeError("plan's output size is not its last stage's");
    return level;
}

/// Bytes of the largest image among the stages of parity `parity` (stage s writes images[s % 2]).
std::size_t slotBytes(const Plan& plan, std::size_t parity, int channels) {
    std::size_t n = 0;
    for (std::size_t s = parity; s < plan.stages.size(); s += 2)
        n = std::max(n, imageBytes(plan.stages[s].width, plan.stages[s].height, channels));
    return n;
}

/// Bytes of the float buffer: three floats per pixel of the largest stage.
std::size_t floatBytes(const Plan& plan) {
    std::size_t n = 0;
    for (const PlanStage& stage : plan.stages)
        n = std::max(n, imageBytes(stage.width, stage.height, 3) * sizeof(float));
    return n;
}

DeviceWarp deviceWarp(const WarpStep& w, Offset input, int inW, int inH, int outW, int outH,
                      BlobWriter& blob) {
    DeviceWarp d{};
    d.input = input;
    // A warp that reads a window of its input reads it as a whole image (WarpStep::window).
    const PixelRect window = w.window.empty() ? PixelRect{0, 0, inW, inH} : w.window;
    d.inputWidth = window.width;
    d.inputHeight = window.height;
    d.windowX = window.x;
    d.windowY = window.y;
    d.rowPixels = inW;
    d.linear = w.interpolation == Interpolation::Linear ? 1 : 0;
    d.border = static_cast<int>(w.border);
    if (w.gather) {
        const GatherStep& g = *w.gather;
        d.gather = 1;
        d.m02 = g.m02;
        d.m12 = g.m12;
        d.dim = g.dim;
        d.lo = g.lo;
        d.hi = g.hi;
        std::vector<float> tables = g.rowA0;
        tables.insert(tables.end(), g.rowA1.begin(), g.rowA1.end());
        tables.insert(tables.end(), g.colB0.begin(), g.colB0.end());
        tables.insert(tables.end(), g.colB1.begin(), g.colB1.end());
        d.tables = blob.putArray(tables);
        return d;
    }
    d.copy = w.copy && inW == outW && inH == outH ? 1 : 0;  // warpRows' condition (channels always match)
    d.fill[0] = w.fill[0];
    d.fill[1] = w.fill[1];
    d.fill[2] = w.fill[2];
    d.fill[3] = 0;
    d.projective = w.projective ? 1 : 0;
    if (!d.copy && w.projective) {
        d.tables = blob.putArray(projectiveMap(w, outW, outH));
    } else if (!d.copy) {
        const WarpTables t = warpTables(w, outW, outH);
        std::vector<int> tables = t.adelta;
        tables.insert(tables.end(), t.bdelta.begin(), t.bdelta.end());
        tables.insert(tables.end(), t.x0.begin(), t.x0.end());
        tables.insert(tables.end(), t.y0.begin(), t.y0.end());
        d.tables = blob.putArray(tables);
    }
    return d;
}

DeviceOp dropoutOp(const DropoutStep& d, BlobWriter& blob) {
    DeviceOp op{};
    op.kind = kOpDropout;
    op.holeCount = static_cast<int>(d.holes.size());
    op.mode = d.mode == Fill::Mode::Random          ? kFillRandom
              : d.mode == Fill::Mode::RandomUniform ? kFillRandomUniform
                                                    : kFillConstant;
    for (int c = 0; c < 3; ++c) op.fill[c] = d.fill[static_cast<std::size_t>(c)];
    op.seedLo = static_cast<std::uint32_t>(d.seed);
    op.seedHi = static_cast<std::uint32_t>(d.seed >> 32);
    std::vector<int> holes;
    for (const Hole& h : d.holes) holes.insert(holes.end(), {h.x, h.y, h.w, h.h});
    op.holes = blob.putArray(holes);
    if (op.mode == kFillRandomUniform) {
        if (d.colours.size() < d.holes.size())
            throw RuntimeError("dropout step has fewer colours than holes");
        std::vector<std::uint8_t> colours;
        for (std::size_t i = 0; i < d.holes.size(); ++i)
            colours.insert(colours.end(), {d.colours[i][0], d.colours[i][1], d.colours[i][2], 0});
        op.colours = blob.putArray(colours);
    }
    return op;
}

DeviceOp mixOp(const MixStep& m, const PlanStage& stage, int channels, BlobWriter& blob) {
    if (!m.partner) throw RuntimeError("a mixing step has no partner image (bindPartners)");
    const Image& b = *m.partner;
    if (b.width != stage.width || b.height != stage.height || b.channels != channels)
        throw RuntimeError("a partner image does not have its stage's size and channels");
    DeviceOp op{};
    op.kind = kOpMix;
    op.paste = m.paste ? 1 : 0;
    op.weight = m.weight;
    op.box[0] = m.box.x;
    op.box[1] = m.box.y;
    op.box[2] = m.box.w;
    op.box[3] = m.box.h;
    op.width = b.width;
    op.channels = b.channels;
    // The partner travels with the descriptors, rows packed.
    std::vector<std::uint8_t> pixels(static_cast<std::size_t>(b.width) * b.height * b.channels);
    for (int y = 0; y < b.height; ++y)
        std::memcpy(pixels.data() + static_cast<std::size_t>(y) * b.width * b.channels, b.row(y),
                    static_cast<std::size_t>(b.width) * b.channels);
    op.partner = blob.putArray(pixels);
    return op;
}

// The steps that gather statistics of the whole image first: each appends its passes, which read the
// stage's image in `base.image` and work in its scratch slot, and returns the op of the next segment
// that uses what they made.

DeviceOp claheOp(const ClaheStep& c, const DevicePass& base, const PlanStage& stage, Offset slot,
                 BlobWriter& blob, std::vector<DevicePass>& passes) {
    // The counts over the padded grid, a table per tile, then the blend.
    DevicePass clahe = base;
    clahe.innerWidth = stage.width;
    clahe.innerHeight = stage.height;
    clahe.tilesX = c.tilesX;
    clahe.tilesY = c.tilesY;
    shared::claheTileSize(stage.width, stage.height, c.tilesX, c.tilesY, clahe.tileWidth, clahe.tileHeight);
    clahe.width = clahe.tileWidth * c.tilesX;
    clahe.height = clahe.tileHeight * c.tilesY;
    const int area = clahe.tileWidth * clahe.tileHeight;
    clahe.clip = shared::claheClip(c.clipLimit, area);
    clahe.lutScale = 255.0f / static_cast<float>(area);
    clahe.labTables = blob.labTables();
    clahe.sum = slot;
    clahe.lut = slot + claheCountBytes(c);
    clahe.kind = kClaheHistogram;
    passes.push_back(clahe);
    clahe.kind = kClaheLut;
    passes.push_back(clahe);
    DeviceOp op{};
    op.kind = kOpClahe;
    op.luts = clahe.lut;
    op.tiles[0] = c.tilesX;
    op.tiles[1] = c.tilesY;
    op.invTile[0] = 1.0f / static_cast<float>(clahe.tileWidth);
    op.invTile[1] = 1.0f / static_cast<float>(clahe.tileHeight);
    op.labTables = clahe.labTables;
    return op;
}

DeviceOp isoNoiseOp(const IsoNoiseStep& n, const DevicePass& base, Offset slot,
                    std::vector<DevicePass>& passes) {
    DevicePass iso = base;
    iso.intensity = n.intensity;
    iso.sum = slot;
    iso.lut = slot + kIsoPairBytes;
    iso.kind = kIsoHistogram;
    passes.push_back(iso);
    iso.kind = kIsoLambda;
    passes.push_back(iso);
    DeviceOp op{};
    op.kind = kOpIsoNoise;
    op.luts = iso.lut;
    op.seedLo = static_cast<std::uint32_t>(n.seed);
    op.seedHi = static_cast<std::uint32_t>(n.seed >> 32);
    op.colorSigma = n.colorSigma;
    op.intensity = n.intensity;
    return op;
}

DeviceOp fancyPcaOp(const FancyPcaStep& f, const DevicePass& base, Offset slot,
                    std::vector<DevicePass>& passes) {
    DevicePass pca = base;
    for (int c = 0; c < 3; ++c) pca.pcaAlpha[c] = f.alpha[static_cast<std::size_t>(c)];
    pca.lut = slot;
    pca.sum = slot + kPcaHeadBytes;
    for (const PassKind kind : {kPcaMean, kPcaRowSums, kPcaRowProducts, kPcaMatrix}) {
        pca.kind = kind;
        passes.push_back(pca);
    }
    DeviceOp op{};
    op.kind = kOpFancyPca;
    op.luts = pca.lut;
    return op;
}

DeviceOp physicsFlareOp(const FlareStep& fl, const DevicePass& base, const PlanStage& stage, Offset slot,
                        BlobWriter& blob, std::vector<DevicePass>& passes) {
    // The flare's float layer: its shapes as keys from the host, then on the device the colours, the
    // blurs, the fade; the op screen-blends it in.
    const cpu_drawn::FlareLayerKeys k = cpu_drawn::physicsFlareKeys(fl, stage.width, stage.height);
    DevicePass flare = base;
    flare.layer = slot;
    flare.layerTmp = slot + layerBytes(stage);
    flare.keys = blob.putArray(k.keys);
    std::vector<std::uint8_t> colours;
    for (const Rgb& c : k.colours) colours.insert(colours.end(), {c[0], c[1], c[2], 0});
    flare.colours = blob.putArray(colours);
    flare.sunX = fl.x;
    flare.sunY = fl.y;
    flare.fade = cpu_drawn::physicsFlareFade(stage.width, stage.height);
    flare.kind = kFlareLayer;
    passes.push_back(flare);
    const auto blur = [&](double sigma, int channels) {
        const std::vector<double> taps = cpu_drawn::gaussianFloatTaps(sigma);
        DevicePass b = flare;
        b.taps = static_cast<int>(taps.size());
        b.kernel = blob.putArray(taps);
        b.channelMask = channels;
        b.kind = kFlareRows;
        passes.push_back(b);
        b.kind = kFlareColumns;
        passes.push_back(b);
    };
    blur(15, 7);  // applyPhysicsFlare's order: all channels, the fade, R at 3, B at 5
    flare.kind = kFlareFade;
    passes.push_back(flare);
    blur(3, 1);
    blur(5, 4);
    DeviceOp op{};
    op.kind = kOpScreen;
    op.luts = flare.layer;
    op.width = stage.width;
    return op;
}

/// The passes of one job, in order.
std::vector<DevicePass> jobPasses(const RenderJob& job, const JobWork& work,
                                  const std::map<const Image*, Offset>& levelAt, BlobWriter& blob) {
    const Plan& plan = job.plan;
    const int channels = work.level->channels;
    std::vector<DevicePass> passes;
    std::size_t slot = 0;
    for (std::size_t s = 0; s < plan.stages.size(); ++s) {
        const PlanStage& stage = plan.stages[s];
        DevicePass base{};
        base.width = stage.width;
        base.height = stage.height;
        base.channels = channels;
        base.image = work.images[s % 2];

        DevicePass segment = base;
        segment.kind = kSegment;
        segment.warped = 1;
        segment.warp = s == 0 ? deviceWarp(stage.warp, levelAt.at(work.level), work.level->width,
                                           work.level->height, stage.width, stage.height, blob)
                              : deviceWarp(stage.warp, work.images[(s - 1) % 2], plan.stages[s - 1].width,
                                           plan.stages[s - 1].height, stage.width, stage.height, blob);
        std::vector<DeviceOp> ops;
        // Ends the current segment: it must run when it still has the warp to do or ops to apply.
        auto flush = [&] {
            if (segment.warped || !ops.empty()) {
                segment.ops = blob.putArray(ops);
                segment.opCount = static_cast<int>(ops.size());
                passes.push_back(segment);
            }
            ops.clear();
            segment.warped = 0;
        };
        for (const PixelStep& step : stage.ops) {
            if (isBlur(step)) {
                flush();
                const std::vector<float>& k = std::get<BlurStep>(step).kernel;
                DevicePass blur = base;
                blur.taps = static_cast<int>(k.size());
                blur.kernel = blob.putArray(k);
                blur.floats = work.floats;
                blur.kind = kBlurRows;
                passes.push_back(blur);
                blur.kind = kBlurColumns;
                passes.push_back(blur);
            } else if (const auto* m = std::get_if<MedianStep>(&step)) {
                flush();
                DevicePass median = base;
                median.taps = m->ksize;
                median.floats = work.floats;
                median.kind = kMedian;
                passes.push_back(median);
                median.kind = kStoreFloats;
                passes.push_back(median);
            } else if (const auto* c = std::get_if<ConvolveStep>(&step)) {
                flush();
                DevicePass conv = base;
                conv.taps = c->ksize;
                conv.kernel = blob.putArray(c->kernel);
                conv.floats = work.floats;
                conv.kind = kConvolve;
                passes.push_back(conv);
                conv.kind = kStoreFloats;
                passes.push_back(conv);
            } else if (const auto* e = std::get_if<EqualizeStep>(&step)) {
                flush();
                DevicePass eq = base;
                eq.equalizePil = e->pil ? 1 : 0;
                eq.equalizeByChannels = e->byChannels ? 1 : 0;
                eq.sum = work.scratchSlots[slot];
                eq.lut = work.scratchSlots[slot] + kEqualizeTables;
                ++slot;
                eq.kind = kHistogram;
                passes.push_back(eq);
                eq.kind = kEqualizeLut;
                passes.push_back(eq);
                DeviceOp op{};
                op.kind = e->byChannels ? kOpChannelLut : kOpLumaLut;
                op.luts = eq.lut;
                ops.push_back(op);
            } else if (const auto* c = std::get_if<ClaheStep>(&step)) {
                flush();
                ops.push_back(claheOp(*c, base, stage, work.scratchSlots[slot++], blob, passes));
            } else if (const auto* n = std::get_if<IsoNoiseStep>(&step)) {
                flush();
                ops.push_back(isoNoiseOp(*n, base, work.scratchSlots[slot++], passes));
            } else if (const auto* f = std::get_if<FancyPcaStep>(&step)) {
                flush();
                ops.push_back(fancyPcaOp(*f, base, work.scratchSlots[slot++], passes));
            } else if (const auto* fl = std::get_if<FlareStep>(&step); fl && fl->physics) {
                flush();
                ops.push_back(physicsFlareOp(*fl, base, stage, work.scratchSlots[slot++], blob, passes));
            } else if (std::holds_alternative<MeanBrightnessStep>(step)) {
                flush();
                const auto& m = std::get<MeanBrightnessStep>(step);
                DevicePass mean = base;
                mean.alpha = m.alpha;
                mean.brightness = m.brightness;
                mean.meanOfGray = m.gray ? 1 : 0;
                mean.roundMean = m.roundMean ? 1 : 0;
                mean.sum = work.scratchSlots[slot];
                mean.lut = work.scratchSlots[slot] + 256;
                ++slot;
                mean.kind = kMeanSum;
                passes.push_back(mean);
                mean.kind = kMeanLut;
                passes.push_back(mean);
                DeviceOp lut{};
                lut.kind = kOpLut;
                lut.luts = mean.lut;
                ops.push_back(lut);
            } else if (const auto* l = std::get_if<LutStep>(&step)) {
                DeviceOp op{};
                if (l->uniform()) {
                    op.kind = kOpLut;
                    op.luts = blob.put(l->luts[0].data(), l->luts[0].size());
                } else {
                    op.kind = kOpChannelLut;
                    std::array<std::uint8_t, 768> rows;
                    for (std::size_t c = 0; c < 3; ++c)
                        std::copy(l->luts[c].begin(), l->luts[c].end(), rows.begin() + 256 * c);
                    op.luts = blob.put(rows.data(), rows.size());
                }
                ops.push_back(op);
            } else if (const auto* h = std::get_if<HsvStep>(&step)) {
                DeviceOp op{};
                op.kind = kOpHsv;
                std::vector<std::uint8_t> luts(h->luts.hue.begin(), h->luts.hue.end());
                luts.insert(luts.end(), h->luts.sat.begin(), h->luts.sat.end());
                luts.insert(luts.end(), h->luts.val.begin(), h->luts.val.end());
                op.luts = blob.putArray(luts);
                op.divisions = blob.hsvDivisions();
                ops.push_back(op);
            } else if (std::holds_alternative<GrayStep>(step)) {
                DeviceOp op{};
                op.kind = kOpGray;
                ops.push_back(op);
            } else if (const auto* gb = std::get_if<GrayBlendStep>(&step)) {
                DeviceOp op{};
                op.kind = kOpGrayBlend;
                op.blendAlpha = gb->alpha;
                op.blendBeta = gb->beta;
                ops.push_back(op);
            } else if (const auto* cm = std::get_if<ChannelMatrixStep>(&step)) {
                DeviceOp op{};
                op.kind = kOpMatrix;
                op.luts = blob.put(cm->m.data(), sizeof(cm->m));
                ops.push_back(op);
            } else if (const auto* n = std::get_if<NoiseStep>(&step)) {
                DeviceOp op{};
                op.kind = kOpNoise;
                op.mean255 = n->mean255;
                op.std255 = n->std255;
                op.mode = n->perChannel ? 1 : 0;
                op.seedLo = static_cast<std::uint32_t>(n->seed);
                op.seedHi = static_cast<std::uint32_t>(n->seed >> 32);
                ops.push_back(op);
            } else if (const auto* d = std::get_if<DropoutStep>(&step)) {
                ops.push_back(dropoutOp(*d, blob));
            } else if (const auto* m = std::get_if<MixStep>(&step)) {
                ops.push_back(mixOp(*m, stage, channels, blob));
            } else if (drawsKeyedShapes(step)) {
                // Shapes drawn on the host as a key per pixel and a table per key (keyed_tables.h).
                const KeyedTables k = keyedTables(step, stage.width, stage.height);
                DeviceOp op{};
                op.kind = kOpKeyedLut;
                op.width = stage.width;
                op.keys = blob.putArray(k.keys);
                op.luts = blob.putArray(k.tables);
                ops.push_back(op);
            } else {
                // Compression runs on the host: the backend resolves it first (host_steps.h).
                throw RuntimeError("CUDA backend: a host step reached the device plan");
            }
        }
        flush();
    }
    return passes;
}

std::size_t stepCount(const Plan& plan, bool (*pred)(const PixelStep&)) {
    std::size_t n = 0;
    for (const PlanStage& stage : plan.stages)
        n += static_cast<std::size_t>(std::count_if(stage.ops.begin(), stage.ops.end(), pred));
    return n;
}

/// Device bytes one job needs, its input level counted in full (levels shared by jobs are counted
/// once per job here, so the estimate errs on the large side).
std::size_t jobBytes(const RenderJob& job) {
    const Plan& p = job.plan;
    if (p.stages.empty() || !job.source) return 0;
    const int channels = job.source->channels();
    const WarpStep& w = p.stages[0].warp;
    std::size_t n = alignUp(imageBytes(w.inputWidth, w.inputHeight, channels));
    n += alignUp(slotBytes(p, 0, channels)) + alignUp(slotBytes(p, 1, channels));
    if (stepCount(p, usesFloats)) n += alignUp(floatBytes(p));
    n += planScratchBytes(p) + 4096;         // and the descriptors
    for (const PlanStage& stage : p.stages)  // partners travel with the descriptors
        for (const PixelStep& s : stage.ops)
            if (std::holds_alternative<MixStep>(s))
                n += alignUp(imageBytes(stage.width, stage.height, channels));
    return n;
}

}  // namespace

DeviceBatch buildDeviceBatch(std::span<RenderJob> jobs) {
    DeviceBatch b;
    std::vector<JobWork> work(jobs.size());
    // The inputs, each level once however many jobs read it.
    std::map<const Image*, Offset> levelAt;
    std::size_t cursor = 0;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        work[j].level = jobInput(jobs[j]);
        if (work[j].level && !levelAt.count(work[j].level)) {
            const Image& l = *work[j].level;
            levelAt[work[j].level] = cursor;
            b.levels.push_back(LevelUpload{&l, cursor});
            cursor = alignUp(cursor + imageBytes(l.width, l.height, l.channels));
        }
    }
    b.levelBytes = cursor;
    // Working images: first every job's final image, back to back, so that the outputs come back
    // in a few large copies; then the other image of multi-stage plans and the blur rows.
    b.outputBase = cursor;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        if (!work[j].level) continue;
        const Plan& p = jobs[j].plan;
        const std::size_t finalImage = (p.stages.size() - 1) % 2;
        work[j].images[finalImage] = cursor;
        cursor += alignUp(slotBytes(p, finalImage, work[j].level->channels));
    }
    b.outputBytes = cursor - b.outputBase;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        if (!work[j].level) continue;
        const Plan& p = jobs[j].plan;
        const std::size_t finalImage = (p.stages.size() - 1) % 2;
        work[j].images[1 - finalImage] = work[j].images[finalImage];
        if (p.stages.size() > 1) {
            work[j].images[1 - finalImage] = cursor;
            cursor += alignUp(slotBytes(p, 1 - finalImage, work[j].level->channels));
        }
        if (stepCount(p, usesFloats)) {
            work[j].floats = cursor;
            cursor += alignUp(floatBytes(p));
        }
    }
    // Scratch of the steps that gather statistics first, a slot each in plan order.
    b.scratch = cursor;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        if (!work[j].level) continue;
        for (const PlanStage& stage : jobs[j].plan.stages)
            for (const PixelStep& s : stage.ops)
                if (const std::size_t bytes = scratchBytes(s, stage)) {
                    work[j].scratchSlots.push_back(cursor);
                    cursor += alignUp(bytes, 16);
                }
    }
    b.scratchBytes = cursor - b.scratch;
    b.blobOffset = alignUp(cursor);

    // Descriptors, then the launches round by round.
    BlobWriter blob(b.blobOffset);
    std::vector<std::vector<DevicePass>> passes(jobs.size());
    std::size_t rounds = 0;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        OutputDownload out;
        out.output = jobs[j].output;
        if (work[j].level) {
            const Plan& p = jobs[j].plan;
            passes[j] = jobPasses(jobs[j], work[j], levelAt, blob);
            rounds = std::max(rounds, passes[j].size());
            out.width = p.width;
            out.height = p.height;
            out.channels = work[j].level->channels;
            out.rendered = true;
            out.offset = work[j].images[(p.stages.size() - 1) % 2];
        }
        b.outputs.push_back(out);
    }
    for (std::size_t r = 0; r < rounds; ++r)
        for (int kind = 0; kind < kPassKinds; ++kind) {
            std::vector<DevicePass> group;
            DeviceLaunch launch;
            launch.kind = static_cast<PassKind>(kind);
            for (const std::vector<DevicePass>& jp : passes)
                if (r < jp.size() && jp[r].kind == kind) {
                    group.push_back(jp[r]);
                    launch.maxWidth = std::max(launch.maxWidth, jp[r].width);
                    launch.maxHeight = std::max(launch.maxHeight, jp[r].height);
                }
            if (group.empty()) continue;
            launch.count = static_cast<int>(group.size());
            launch.passes = blob.putArray(group);
            b.launches.push_back(launch);
        }
    b.blob = blob.take();
    b.arenaBytes = b.blobOffset + alignUp(b.blob.size());
    return b;
}

std::vector<std::array<int, 2>> jobPositions(const SheetLayout& layout) {
    std::vector<std::array<int, 2>> positions;
    for (const int t : layout.jobTiles) {
        const SheetTile& tile = layout.tiles.at(static_cast<std::size_t>(t));
        positions.push_back({tile.x, tile.y});
    }
    return positions;
}

PlacementLaunch addPlacements(DeviceBatch& b, std::span<const std::array<int, 2>> positions, int sheetWidth,
                              int sheetHeight) {
    if (positions.size() != b.outputs.size())
        throw RuntimeError("CUDA backend: " + std::to_string(positions.size()) + " grid positions for " +
                           std::to_string(b.outputs.size()) + " outputs");
    std::vector<DevicePlacement> placements;
    PlacementLaunch launch;
    for (std::size_t i = 0; i < b.outputs.size(); ++i) {
        const OutputDownload& o = b.outputs[i];
        if (!o.rendered || !o.bytes()) continue;
        DevicePlacement p{};
        p.image = o.offset;
        p.width = o.width;
        p.height = o.height;
        p.channels = o.channels;
        p.x = positions[i][0];
        p.y = positions[i][1];
        if (p.x < 0 || p.y < 0 || p.x + p.width > sheetWidth || p.y + p.height > sheetHeight)
            throw RuntimeError("CUDA backend: a " + std::to_string(p.width) + "x" + std::to_string(p.height) +
                               " tile at (" + std::to_string(p.x) + ", " + std::to_string(p.y) +
                               ") does not fit a " + std::to_string(sheetWidth) + "x" +
                               std::to_string(sheetHeight) + " grid");
        placements.push_back(p);
        launch.maxWidth = std::max(launch.maxWidth, o.width);
        launch.maxHeight = std::max(launch.maxHeight, o.height);
    }
    launch.count = static_cast<int>(placements.size());
    const std::size_t at = alignUp(b.blob.size(), 16);
    const std::size_t bytes = placements.size() * sizeof(DevicePlacement);
    b.blob.resize(at + bytes);
    if (bytes) std::memcpy(b.blob.data() + at, placements.data(), bytes);
    launch.placements = b.blobOffset + at;
    b.arenaBytes = b.blobOffset + alignUp(b.blob.size());
    return launch;
}

std::vector<std::span<RenderJob>> splitBatches(std::span<RenderJob> jobs, std::size_t budgetBytes) {
    std::vector<std::span<RenderJob>> groups;
    std::size_t begin = 0, bytes = 0;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        const std::size_t n = jobBytes(jobs[j]);
        if (j > begin && bytes + n > budgetBytes) {
            groups.push_back(jobs.subspan(begin, j - begin));
            begin = j;
            bytes = 0;
        }
        bytes += n;
    }
    if (begin < jobs.size()) groups.push_back(jobs.subspan(begin));
    return groups;
}

}  // namespace auglab::cuda
