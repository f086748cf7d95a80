#pragma once
// What a backend executes for one output (SPEC §2 "Plan"): stages of one fused warp followed by
// pixel ops in pipeline order. Consecutive geometric ops compose into one matrix, sampled once;
// a pixel op between geometric ops starts a new stage, so order is kept exactly. Each stage has
// its own size (a resize after pixel ops renders them at the size before it). The tile scale
// is folded into the first warp, which reads a pre-filtered source level. Backends never sample
// random numbers or derive matrices: everything they need is here.

#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <variant>
#include <vector>

#include "colour.h"
#include "image.h"
#include "replay.h"

namespace auglab {

/// A nearest-neighbour gather (Chris Deotte's notebook transform) over a dim x dim frame. For
/// output pixel (x, y): s0 = (rowA0[y] + colB0[x]) + m02 and s1 = (rowA1[y] + colB1[x]) + m12, each
/// addition rounded to float32 (the tables hold the products m00·X, m10·X of the row's destination
/// index X and m01·Y, m11·Y of the column's Y, also float32). Each s is truncated toward zero to an
/// int (NaN or out of int range gives INT_MIN, as x86's conversion does) and clamped to [lo, hi];
/// the source pixel of the frame is row dim/2 - i0, column dim/2 - 1 + i1, read from the stage's
/// input at (column * inputWidth / dim, row * inputHeight / dim) (integer division).
struct GatherStep {
    std::vector<float> rowA0, rowA1;  ///< one per output row
    std::vector<float> colB0, colB1;  ///< one per output column
    float m02 = 0, m12 = 0;
    int dim = 0, lo = 0, hi = 0;
};

/// The source position of every pixel of a stage, as cv2.remap computes it from float32 maps:
/// round(map * 32) (half to even) for linear interpolation, round(map) for nearest, the integer part
/// saturated to a short; X, Y interleaved, row by row.
struct RemapMap {
    int width = 0, height = 0;
    /// The positions; empty when the map is given by `tiles` (positions() then makes them once).
    std::vector<int> xy;
    /// Every position is a whole pixel inside the input (no fraction, no border): the remap only
    /// moves pixels (RandomGridShuffle's tiles), and a backend may copy them as they are.
    bool whole = false;
    /// A map that moves rectangles by whole pixels: output pixels [x, x + w) x [y, y + h) come from
    /// the input at (x + dx, y + dy) onwards. The tiles cover the stage once each.
    struct Tile {
        int x = 0, y = 0, w = 0, h = 0, dx = 0, dy = 0;
    };
    std::vector<Tile> tiles;
    int unit = 1;  ///< the positions' unit: 1 (nearest) or 32 (linear, 1/32 pixel), for `tiles`
    /// xy, or (a map of tiles) the positions the tiles give, made on first use, once for all threads.
    const std::vector<int>& positions() const;

    RemapMap() = default;
    RemapMap(const RemapMap& o) : width(o.width), height(o.height), xy(o.xy), whole(o.whole), tiles(o.tiles), unit(o.unit) {}
    RemapMap& operator=(const RemapMap& o) {
        if (this != &o) *this = RemapMap(o);
        return *this;
    }
    RemapMap(RemapMap&&) = default;
    RemapMap& operator=(RemapMap&&) = default;

private:
    struct Made {
        std::once_flag once;
        std::vector<int> xy;
    };
    std::shared_ptr<Made> made_ = std::make_shared<Made>();
};

/// Output pixel (x, y) samples the input at (a*x + b*y + c, d*x + e*y + f), or, when `gather` is
/// not empty, as GatherStep says.
struct WarpStep {
    std::array<double, 6> inverse{1, 0, 0, 0, 1, 0};
    int sourceLevel = 0;  ///< first stage: the source level read; later stages read the previous stage
    int inputWidth = 0, inputHeight = 0;
    Interpolation interpolation = Interpolation::Linear;
    BorderMode border = BorderMode::Constant;
    Rgb fill{0, 0, 0};
    bool copy = false;  ///< the inverse is the identity and sizes match: the output is the input
    /// A projective warp (the stage holds a projective map): output pixel (x, y) samples the input at
    /// ((h0 x + h1 y + h2) / d, (h3 x + h4 y + h5) / d), d = h6 x + h7 y + h8, computed in double as
    /// cv::warpPerspective does (warp_fixed_point.h ProjectiveRow); `inverse` is then unused.
    bool projective = false;
    std::array<double, 9> homography{};
    /// A remap instead of the homography (cv2.remap of float32 maps, PlanBuilder::remapStage):
    /// `projective` is then also set, and every output pixel's position is given, in the units of a
    /// projective warp's positions (ProjectiveRow::position).
    std::shared_ptr<const RemapMap> remap;
    std::shared_ptr<const GatherStep> gather;  ///< a gather instead of the matrix
    /// A nearest-neighbour cv2.resize of the input's region [x, x + w) x [y, y + h) onto the whole
    /// output, picked as OpenCV's resizeNN picks: column x + min(floor(i * ifx), w - 1) with
    /// ifx = 1 / (outWidth / w) in double (rows alike). The warp tables hold these indices exactly
    /// (warpTables), so every backend picks the same pixels; `inverse` is the same map, unused.
    struct NearestRegion {
        int x = 0, y = 0, w = 0, h = 0;
        /// cv2.resize given fx, fy instead of a size: ifx = 1 / fx (0: from the sizes, as above).
        double ifx = 0, ify = 0;
        bool operator==(const NearestRegion&) const = default;
    };
    std::optional<NearestRegion> nearestResize;
    /// The stage reads only this rectangle of its input, as if it were the whole input: the map
    /// (inverse, homography, and so the warp tables) gives positions relative to its top-left pixel,
    /// and the border rule applies at its edges. Set where a linear resize of a crop starts the
    /// warp (random_resized_crop, random_sized_crop): Albumentations resizes the array it cropped,
    /// so cv2.resize repeats the crop's edge where it samples past it, and no pixel beyond the crop
    /// is ever read. Empty: the whole input.
    PixelRect window;
};

/// The truncation the gather applies to s0 and s1 (GatherStep).
inline int gatherIndex(float s, int lo, int hi) {
    const int i = s >= -2147483648.0f && s < 2147483648.0f ? static_cast<int>(s) : INT_MIN;  // NaN: INT_MIN
    return i < lo ? lo : (i > hi ? hi : i);
}

/// A 256-entry table per colour channel (R, G, B; alpha kept): brightness/contrast relative to 255,
/// gamma, levels (one table for all three), per-channel shifts and channel dropout.
struct LutStep {
    LutStep() = default;
    explicit LutStep(const Lut& all) : luts{all, all, all} {}  ///< one table for R, G and B
    explicit LutStep(const std::array<Lut, 3>& perChannel) : luts(perChannel) {}
    static LutStep same(const Lut& lut) { return LutStep(lut); }
    bool uniform() const { return luts[0] == luts[1] && luts[1] == luts[2]; }
    bool operator==(const LutStep&) const = default;
    std::array<Lut, 3> luts{};
};
/// A table made from the image's mean: brightnessContrastLut(alpha, float(brightness * mean)), the
/// mean that of R, G and B (RandomBrightnessContrast's brightness_by_max false) or, with `gray`, that
/// of cv2's RGB2GRAY values (ColorJitter's contrast: brightness is then 1 - factor), summed in
/// integers; `roundMean` first rounds the mean half up to an integer (ColorJitter's contrast 0).
struct MeanBrightnessStep {
    float alpha = 1;
    double brightness = 0;
    bool gray = false;
    bool roundMean = false;
};
/// The mean a MeanBrightnessStep reads from an integer sum over `pixels` pixels (of R + G + B, or of
/// the gray values), and the beta of its table: every backend calls these.
inline double meanOfSum(const MeanBrightnessStep& s, double sum, double pixels) {
    const double mean = sum / (s.gray ? pixels : 3.0 * pixels);
    return s.roundMean ? std::floor(mean + 0.5) : mean;
}
struct HsvStep {
    HsvLuts luts;
};
struct GrayStep {};
/// A 3 x 3 matrix on the colour channels in cv2.transform's 8-bit fixed point: coefficients
/// round(m * 1024) (half to even), each output (sum of coefficient x input + 512) >> 10, saturated to
/// [0, 255]; alpha kept. ToSepia's matrix; ChannelShuffle's permutations (coefficients 0 and 1024).
struct ChannelMatrixStep {
    static constexpr int kShift = 10;
    /// The coefficients cv2.transform uses for a float matrix (row-major, output by input).
    static ChannelMatrixStep fromFloat(const std::array<float, 9>& m);
    std::array<std::int32_t, 9> m{};  ///< row-major: output channel by input channel, in 1/1024
    bool operator==(const ChannelMatrixStep&) const = default;
};
/// Output channel c of a pixel under the matrix (every backend computes exactly this).
inline int channelMatrixOf(const ChannelMatrixStep& s, int c, int r, int g, int b) {
    const int v = (s.m[std::size_t(3 * c)] * r + s.m[std::size_t(3 * c + 1)] * g +
                   s.m[std::size_t(3 * c + 2)] * b + (1 << (ChannelMatrixStep::kShift - 1))) >>
                  ChannelMatrixStep::kShift;
    return v < 0 ? 0 : (v > 255 ? 255 : v);
}
/// Each colour blended with the pixel's gray (cv2 RGB2GRAY), as cv2.addWeighted(img, alpha, gray,
/// beta, 0) on 8-bit data: round-half-even(fma(c, alpha, float(gray * beta))), saturated; alpha
/// kept. ColorJitter's saturation (alpha the factor, beta 1 - factor).
struct GrayBlendStep {
    float alpha = 1, beta = 0;
};
/// Channel value c blended with gray g (every backend computes exactly this).
inline int grayBlendOf(const GrayBlendStep& s, int c, int g) {
    const float v = std::fma(static_cast<float>(c), s.alpha, static_cast<float>(g) * s.beta);
    const float r = std::nearbyint(v);  // the default rounding mode: half to even
    return r <= 0 ? 0 : (r >= 255 ? 255 : static_cast<int>(r));
}
/// Albumentations 2.0.8 ISONoise on 8-bit images: the pixels as float32 v / 255 in OpenCV's float HLS
/// (rgbToHlsF); lambda = intensity x the standard deviation of L over the image; per pixel a
/// Poisson(lambda) count k and a normal hue offset of std colorSigma (degrees, as the library adds
/// it) from AugLab's noise (IsoNoise); in float32, H += offset, L += k x intensity x (1 - L)
/// (shared::isoNoisePixel); back to RGB (hlsToRgbF), clipped to [0, 1], rint(x * 255). Alpha kept.
struct IsoNoiseStep {
    double colorSigma = 0;  ///< color_shift x intensity
    double intensity = 0;
    std::uint64_t seed = 0;
    bool operator==(const IsoNoiseStep&) const = default;
};
/// The noise of an IsoNoiseStep's pixels for one rate: pixel (x, y)'s Poisson count (inversion of
/// the 32-bit uniform of its first noise word, shared::isoNoiseCount) and the standard normal of its
/// hue (philox.h's boxMullerFirst of its third and fourth words: float32 polynomials, the same on
/// every backend).
struct IsoNoiseSample {
    int count = 0;
    float normal = 0;
};
class IsoNoise {
public:
    IsoNoise(std::uint64_t seed, double lambda);
    IsoNoiseSample at(int x, int y) const;
    double lambda() const { return lambda_; }
    double p0() const { return p0_; }

private:
    std::uint64_t seed_;
    double lambda_, p0_;  ///< p0_ = exp(-lambda), once per image rather than per pixel
};
/// lambda of an IsoNoiseStep for `img`: intensity x the population standard deviation of its HLS
/// lightness (from the 8-bit max and min of each pixel, summed in double in a fixed order).
double isoNoiseLambda(const Image& img, double intensity);

/// Histogram equalisation from the image's own histogram (Albumentations 2.0.8 Equalize): each
/// colour channel through the table of its own histogram (`byChannels`), or the luma of OpenCV's
/// 8-bit YCrCb through the table of its histogram, Cr and Cb kept (rgbToYCrCb8, yCrCbToRgb8); the
/// tables are equalizeLut's (`pil`: the library's Pillow-style ones). Alpha kept.
struct EqualizeStep {
    bool pil = false;
    bool byChannels = true;
    bool operator==(const EqualizeStep&) const = default;
};
/// Contrast-limited adaptive histogram equalisation of the lightness (Albumentations 2.0.8 CLAHE):
/// the L of OpenCV's 8-bit Lab (core/colour.h Lab8), cv::createCLAHE(clipLimit, (tilesX, tilesY))
/// applied to it (tiles of the image, or unless both sides divide by the grid of the image padded
/// with reflect_101 by tilesX - width % tilesX columns and tilesY - height % tilesY rows, each tile's
/// histogram clipped at int(clipLimit * tile area / 256) with the excess spread, its cumulative table, and a
/// bilinear blend of the four nearest tiles' tables in float32, rounded to nearest even), then a, b and the
/// new L back to RGB; alpha kept.
struct ClaheStep {
    double clipLimit = 4;
    int tilesX = 8, tilesY = 8;
    bool operator==(const ClaheStep&) const = default;
};
/// Albumentations 2.0.8 FancyPCA on 8-bit RGB: the values v / 255 in float32, their float32 mean
/// (numpy's: a running float32 sum per channel), the covariance of the centred values (float64,
/// np.cov), its eigenpairs largest first (each eigenvector's largest component positive: LAPACK's
/// signs are an artefact of its algorithm), and each pixel plus V diag(alpha * lambda) applied to its
/// centred colour (the library's formula, which does not project the colour on V), clipped to
/// [0, 1], as float32, rint(x * 255); alpha kept.
struct FancyPcaStep {
    std::array<float, 3> alpha{};
    bool operator==(const FancyPcaStep&) const = default;
};
/// Albumentations 2.0.8 RandomFog's particles (before its final blur, a BlurStep): for each
/// particle in order, the pixels of cv2.circle's filled disc (OpenCV's integer midpoint circle)
/// blended towards white as cv2.addWeighted(white, alpha, image, 1 - alpha, 0) computes it on 8-bit
/// data: round-half-even(fma(255, alpha, float(v * (1 - alpha)))) in float32; alpha kept.
struct FogStep {
    float alpha = 0, beta = 1;                  ///< the blend weights, as float32
    std::vector<std::array<int, 3>> particles;  ///< x, y, radius in the stage's pixels
    bool operator==(const FogStep&) const = default;
};
/// Albumentations 2.0.8 RandomShadow: for each polygon in order, the pixels cv2.fillPoly covers
/// (OpenCV's edges and scanlines: core/raster.h) become trunc(v * darkness), in float64; alpha kept.
struct ShadowStep {
    struct Polygon {
        std::vector<std::array<int, 2>> vertices;  ///< x, y in the stage's pixels
        double darkness = 1;
        bool operator==(const Polygon&) const = default;
    };
    std::vector<Polygon> polygons;
    bool operator==(const ShadowStep&) const = default;
};
/// Albumentations 2.0.8 RandomRain: the lines drawn in `colour` on a black layer as cv2.polylines
/// draws them (4-connected, `width` thick: core/raster.h), the layer blurred by cv2.blur (blur x blur,
/// border reflect_101, OpenCV's 8-bit division), added to the image with saturation, and the image
/// multiplied by `brightness` (rounded to nearest, as cv2.multiply); alpha kept.
struct RainStep {
    std::vector<std::array<int, 4>> lines;  ///< x0, y0, x1, y1 in the stage's pixels
    int width = 1;
    Rgb colour{200, 200, 200};
    int blur = 7;
    double brightness = 0.7;
    bool operator==(const RainStep&) const = default;
};
/// Albumentations 2.0.8 RandomSunFlare. Overlay: an overlay starts as the image; for each circle in
/// order its disc (cv2.circle, core/raster.h) is painted on the overlay in its colour and the whole
/// image becomes round(overlay * alpha + image * beta) in float32 (simsimd's weighted sum); then the
/// overlay starts again as the result and the `sun` discs do the same. Physics-based: the sun's disc,
/// four spikes and the circles (alpha unused) on a float32 layer, blurred, faded with the distance
/// from the sun, fringed and screen-blended (core/ops/random_sun_flare.cpp). Alpha kept.
struct FlareStep {
    struct Circle {
        int x = 0, y = 0, radius = 0;
        Rgb colour{};
        float alpha = 0, beta = 1;
        bool operator==(const Circle&) const = default;
    };
    std::vector<Circle> circles;
    std::vector<Circle> sun;  ///< overlay: the sun's discs, in order
    bool physics = false;
    int x = 0, y = 0, radius = 0;  ///< physics_based: the sun
    Rgb colour{};
    bool operator==(const FlareStep&) const = default;
};
struct BlurStep {
    std::vector<float> kernel;
};  ///< separable, border reflect_101
/// A median over a ksize x ksize window per colour channel (cv2.medianBlur: border replicate); alpha
/// kept. ksize odd.
struct MedianStep {
    int ksize = 3;
};
/// A 2-D correlation with a ksize x ksize kernel (row-major, anchor at the centre), as cv2.filter2D
/// does it on 8-bit data: the non-zero taps fused-multiply-added in float in row-major order, border
/// reflect_101, rounded to nearest even and clipped; alpha kept.
struct ConvolveStep {
    int ksize = 1;
    std::vector<float> kernel;
};
struct NoiseStep {
    float mean255;
    float std255;
    bool perChannel;
    std::uint64_t seed;
};
/// Albumentations PixelDropout: each pixel (each of its colour values when perChannel) replaced by
/// `value` with probability prob, alpha kept. The draws are Philox4x32-10 keyed by `seed`: pixel
/// (x, y)'s word is word x % 4 of the block (x / 4, y, 0, 0) (one block a channel's word each,
/// (x, y, 1, 0), when perChannel), dropped when below `threshold` = floor(prob * 2^32) (2^32: all).
/// Stage pixels: a display tile draws its own pixels. It runs on the host on every backend
/// (host_steps.h).
struct PixelDropoutStep {
    std::uint64_t threshold = 0;
    bool perChannel = false;
    std::uint64_t seed = 0;
    std::array<std::uint8_t, 3> value{};
};
/// floor(prob * 2^32), prob in [0, 1].
inline std::uint64_t pixelDropThreshold(double prob) {
    return static_cast<std::uint64_t>(std::floor(prob * 4294967296.0));
}
/// Which values of row y's pixels [x0, x0 + n) PixelDropoutStep drops: drop[3 * i + c] for pixel
/// x0 + i, channel c (the same for every channel unless perChannel).
void pixelDropRow(const PixelDropoutStep& s, int y, int x0, int n, std::uint8_t* drop);

/// Pixel (x, y)'s key under `seed`: word x % 4 of the Philox4x32-10 block (x / 4, y, 0, 0) (the word
/// PixelDropoutStep compares when not per channel). Keys of pixels x0 .. x0 + n - 1 of row y.
void pixelKeyRow(std::uint64_t seed, int y, int x0, int n, std::uint32_t* keys);

/// Albumentations SaltAndPepper: exactly `salt` pixels become white and `pepper` others black (all
/// colour channels; alpha kept), chosen uniformly without replacement: those whose pixelKeyRow keys
/// are the `salt` smallest of the image are salt, the next `pepper` pepper. As thresholds: salt where
/// the key is below saltBelow, pepper where it is below pepperBelow otherwise (saltPepperStep).
/// Stage pixels: a display tile draws its own. It runs on the host on every backend (host_steps.h).
struct SaltPepperStep {
    std::uint64_t seed = 0;
    std::uint64_t saltBelow = 0, pepperBelow = 0;  ///< 0 .. 2^32
    bool operator==(const SaltPepperStep&) const = default;
};
/// The step that makes `salt` salt and `pepper` pepper pixels of a width x height image: the
/// thresholds are the keys of rank salt and salt + pepper (2^32 past the last), found by a histogram
/// of the keys' top 16 bits and a selection within the two bins. Exact counts unless two keys tie at
/// a threshold (odds about width x height / 2^32).
SaltPepperStep saltPepperStep(std::uint64_t seed, int width, int height, std::uint64_t salt, std::uint64_t pepper);

struct DropoutStep {
    std::vector<Hole> holes;  ///< in pixels of the stage's image
    Fill::Mode mode = Fill::Mode::Constant;
    Rgb fill{0, 0, 0};
    std::vector<Rgb> colours;
    std::uint64_t seed = 0;
};

/// A lossy encode and decode, as Albumentations' ImageCompression does it with cv2.imencode then
/// cv2.imdecode: the RGB pixels are handed to the codec as OpenCV's BGR (so the library's colour
/// conversion sees R and B swapped), JPEG with 4:2:0 chroma and the accurate integer DCT, WebP lossy
/// at `quality`; alpha kept. It runs on the host on every backend (host_steps.h).
struct CompressStep {
    enum class Codec { Jpeg, Webp };
    Codec codec = Codec::Jpeg;
    int quality = 100;  ///< 1..100
    bool operator==(const CompressStep&) const = default;
};

/// Mixes in a partner image (mixing ops): `partner` is that image already resized to its stage's
/// size with the output's channels (bindPartners, partners.h). Blend (`paste` false): every
/// channel becomes (weight * a + (65536 - weight) * b + 32768) >> 16, a the pixel, b the partner's, so
/// weight = round(lambda * 65536) and the result is lambda * a + (1 - lambda) * b rounded half up.
/// Paste: the pixels of `box` (pixels of the stage) become the partner's.
struct MixStep {
    std::uint64_t partnerIndex = 0;  ///< the partner's index in the pool the sample was drawn from
    bool paste = false;
    std::uint32_t weight = 65536;  ///< blend: the pixel's weight in 1/65536
    Hole box;                      ///< paste (pixels of the stage's image)
    std::shared_ptr<const Image> partner;
    /// The 4-image grid (core/ops/): `partner` is then the whole canvas, composed by bindPartners
    /// from the cells' images (the sample's own among them), and pasted over the output.
    std::shared_ptr<const MosaicParams> grid;
};

using PixelStep = std::variant<LutStep, MeanBrightnessStep, HsvStep, GrayStep, BlurStep, MedianStep,
                               ConvolveStep, NoiseStep, DropoutStep, MixStep, CompressStep, ChannelMatrixStep,
                               GrayBlendStep, EqualizeStep, IsoNoiseStep, ClaheStep, FancyPcaStep, FogStep,
                               ShadowStep, RainStep, FlareStep, PixelDropoutStep, SaltPepperStep>;

/// One warp into a width x height image, then pixel ops on it. The size is the frame's at that
/// point of the pipeline (a resize or crop between stages changes it), at the plan's scale: a full
/// resolution plan renders every frame at its own size, a tile at the tile's scale (PlanBuilder).
/// A stage after the first reads the previous stage's image.
struct PlanStage {
    WarpStep warp;
    std::vector<PixelStep> ops;
    int width = 0, height = 0;
};

struct Plan {
    int width = 0, height = 0;  ///< output size: the last stage's
    std::vector<PlanStage> stages;
};

/// What the first warp reads.
enum class SourceSampling {
    /// A display tile: the pre-filtered source level closest above the tile's scale (no aliasing,
    /// cost bounded by the tile).
    Prefiltered,
    /// Full resolution, the library's pixels (SPEC §2): the source itself, resampled as
    /// cv2.warpAffine and cv2.resize do it, however much a crop shrinks it.
    Source,
};

/// Builds the plan of `replay` for a source of srcWidth x srcHeight pixels (the size the replay was
/// drawn for; InputError otherwise) rendered at outWidth x outHeight: the replay's last frame (see
/// frameSize), scaled to that size, reading the source as `sampling` says.
Plan buildPlan(const Replay& replay, int srcWidth, int srcHeight, int outWidth, int outHeight,
               SourceSampling sampling = SourceSampling::Prefiltered);

/// The plan of `replay` at full resolution (SourceSampling::Source): the output has the size of the
/// replay's last frame (the image's size, or the size an op that sets the frame gave it).
Plan buildFullPlan(const Replay& replay, int srcWidth, int srcHeight);

/// Whether `plan` leaves a srcWidth x srcHeight source as it is: one stage that copies the full-size
/// source (no gather, remap or projective map) and runs no pixel step.
bool planIsCopy(const Plan& plan, int srcWidth, int srcHeight);

/// The part of a srcWidth x srcHeight source that `plan` reads: every tap of its first warp, with a
/// margin of a few pixels, clipped to the source (to the warp's window where it has one: all of
/// that window where its border reflects or wraps taps back into it). A decoder may leave the rest unset
/// (decodeImageRegion) and the plan renders the same bytes. nullopt where the plan may read any of
/// the source: a copy, a gather or remap, a mixing step (which may take the source for a partner), a
/// stage reading a reduced level, or a border that reflects or wraps taps that fall outside the
/// source back in (constant and replicate borders are clipped: the taps they replace, or the edge
/// pixels they repeat, lie inside the clipped rectangle).
std::optional<PixelRect> planSourceRegion(const Plan& plan, int srcWidth, int srcHeight);

/// Noise of pixel (x, y) of a random fill or of noise: Philox4x32 keyed by `seed`.
std::array<std::uint32_t, 4> pixelNoiseWords(std::uint64_t seed, int x, int y);

}  // namespace auglab
