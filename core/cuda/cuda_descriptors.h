#pragma once
// What the CUDA kernels read: plain structs, laid out by the host (cuda_batch.cpp) in one device
// allocation per batch, "the arena". Every address is a byte offset into that arena, so the same
// descriptors work on the device and in the host emulation the tests run without a GPU.
// Plain C++ with no CUDA types: the batch builder and the tests include it with the host compiler.

#include <cstdint>

namespace auglab::cuda {

/// A byte offset into the batch's arena.
using Offset = std::uint64_t;

/// The kinds of pass a plan is cut into. A segment is one fused pass per output pixel: the warp
/// (or the pixel as it is) followed by every pointwise op up to the next op that needs
/// neighbours (blur, median, convolution) or the whole image (mean brightness).
enum PassKind : int {
    kSegment,
    kBlurRows,     ///< 8-bit image -> float rows, border reflect_101
    kBlurColumns,  ///< float rows -> 8-bit image (RGB only)
    kMeanSum,      ///< integer sum of the RGB values (or of their gray) into `sum`
    kMeanLut,      ///< builds the brightness/contrast LUT from `sum`
    kMedian,       ///< 8-bit image -> the window's median per channel, as floats (border replicate)
    kConvolve,     ///< 8-bit image -> the 2-D correlation's float sums (border reflect_101)
    kStoreFloats,  ///< floats -> 8-bit image, rounded to nearest even and clipped (RGB only)
    kHistogram,    ///< counts of R, G, B (or of the luma) into `sum`: 3 x 256 32-bit counts
    kEqualizeLut,  ///< builds EqualizeStep's tables from those counts into `lut` (3 x 256 bytes)
    // CLAHE (core/plan.h ClaheStep): the lightness counts of every tile of the padded grid, then a
    // table per tile; the next segment's kOpClahe blends them.
    kClaheHistogram,  ///< per pixel of the padded grid (width x height): its tile's count of its L
    kClaheLut,        ///< per tile: the clipped histogram's table into `lut`
    // ISONoise (IsoNoiseStep): the counts of each (max, min) pair, then lambda.
    kIsoHistogram,  ///< per pixel: 256 x 256 counts of (max, min) into `sum`
    kIsoLambda,     ///< one thread: lambda and exp(-lambda) (two doubles) into `lut`
    // FancyPCA (FancyPcaStep): the float32 mean, the per-row centred sums and products in float64, the
    // matrix; in the orders the CPU sums them (core/cpu_pixel_ops.cpp fancyPcaStats).
    kPcaMean,         ///< three threads, one per channel: the running float32 sum, pixel by pixel
    kPcaRowSums,      ///< per row: the sums of the centred values
    kPcaRowProducts,  ///< per row: the products of the values centred again
    kPcaMatrix,       ///< one thread: the covariance, its eigenpairs, V diag(alpha * lambda)
    // RandomSunFlare physics_based (FlareStep): its float layer from the shapes' keys, blurred and
    // faded as core/cpu_drawn_ops.cpp does it; the next segment's kOpScreen blends it in.
    kFlareLayer,    ///< per pixel: the colour of its key into `layer` (3 floats)
    kFlareRows,     ///< per pixel: the row pass of a Gaussian (`kernel`: `taps` doubles) into `layerTmp`
    kFlareColumns,  ///< per pixel: the column pass from `layerTmp` back into `layer`
    kFlareFade,     ///< per pixel: times 1 - min(distance to the sun / fade, 1)
    kPassKinds
};

/// The pointwise ops a segment applies, in pipeline order.
enum OpKind : int {
    kOpLut,
    kOpHsv,
    kOpGray,
    kOpNoise,
    kOpDropout,
    kOpMix,
    kOpChannelLut,
    kOpMatrix,
    kOpGrayBlend,
    kOpLumaLut,   ///< the luma of OpenCV's 8-bit YCrCb through `luts` (256 bytes), Cr and Cb kept
    kOpKeyedLut,  ///< shapes drawn on the host (core/keyed_tables.h): the pixel's key in `keys`, then its
                  ///< key's R, G, B tables at `luts` + 768 * key
    kOpClahe,     ///< the lightness through the four nearest tiles' tables at `luts`, blended
    kOpIsoNoise,  ///< ISONoise with lambda and exp(-lambda) at `luts`
    kOpFancyPca,  ///< FancyPCA with the mean (float[3]) at `luts` and the matrix (double[9]) at `luts` + 16
    kOpScreen     ///< the flare layer at `luts` (3 floats per pixel, rows of `width`) screen-blended in
};

/// FancyPCA's scratch per row: 3 sums of the centred values, then 6 products.
constexpr int kPcaRowDoubles = 9;

/// Dropout fill modes, as Fill::Mode.
enum FillKind : int { kFillConstant, kFillRandom, kFillRandomUniform };

// The structs are trivial (no member initialisers) so that a kernel can hold one in shared memory;
// the builder value-initialises them (all zero).

/// One pointwise op of a segment.
struct DeviceOp {
    int kind;
    int holeCount;                 ///< dropout
    int mode;                      ///< dropout: FillKind; noise: 1 = one value per channel
    std::uint8_t fill[4];          ///< dropout constant fill
    float mean255, std255;         ///< noise
    float blendAlpha, blendBeta;   ///< kOpGrayBlend (core/plan.h GrayBlendStep)
    std::uint32_t seedLo, seedHi;  ///< noise and random fill: Philox key
    Offset luts;  ///< kOpLut: 256 bytes; kOpChannelLut: R, G, B tables, 768 bytes; kOpHsv: hue, saturation
                  ///< and value LUTs, 768 bytes; kOpMatrix: ChannelMatrixStep's 9 ints
    Offset divisions;  ///< kOpHsv: OpenCV's sdiv and hdiv tables, 2 x 256 ints
    Offset holes;      ///< dropout: x, y, w, h ints per hole, in output pixels
    Offset colours;    ///< dropout random_uniform: 4 bytes (RGB, unused) per hole
    Offset keys;       ///< kOpKeyedLut: a 32-bit key per pixel, rows of `width`
    // kOpMix (core/plan.h MixStep): the partner is an image of the output's size and channels.
    int paste;             ///< 1: paste the box; 0: blend
    std::uint32_t weight;  ///< the blend's weight of the pixel, in 1/65536
    int box[4];            ///< x, y, w, h in output pixels
    int width, channels;   ///< the partner's row length, in pixels, and its channels
    Offset partner;        ///< tightly packed rows of width * channels bytes
    // kOpClahe: the grid (tiles across, down), 1 / tile size in float32, Lab8's tables.
    int tiles[2];
    float invTile[2];
    Offset labTables;              ///< shared::lab_layout's block
    double colorSigma, intensity;  ///< kOpIsoNoise
};

/// The warp of a segment, in OpenCV's fixed point: source x of output (x, y) is
/// (x0[y] + adelta[x]) >> 10 for nearest, and in 1/32 pixel (x0[y] + adelta[x]) >> 5 for linear;
/// likewise y with y0 and bdelta. The tables are warpTables() of warp_fixed_point.h, computed once
/// on the host for every backend, so the device does no floating point for coordinates.
struct DeviceWarp {
    Offset input;   ///< tightly packed rows of rowPixels * channels bytes
    Offset tables;  ///< int adelta[width], bdelta[width], x0[height], y0[height] (the output's size)
    /// The image the warp reads: inputWidth x inputHeight pixels from (windowX, windowY) of the input
    /// (WarpStep::window; the whole input, windowX = windowY = 0, without one), whose rows hold
    /// rowPixels pixels.
    int inputWidth, inputHeight;
    int windowX, windowY, rowPixels;
    int linear;  ///< 0: nearest
    int border;  ///< BorderMode as an int
    int copy;    ///< identity of equal sizes: the output is the input, byte for byte
    /// A projective warp: `tables` then holds projectiveMap()'s int X, Y per output pixel (1/32 pixel
    /// for linear, whole pixels for nearest), computed on the host as for the other backends.
    int projective;
    std::uint8_t fill[4];  ///< constant border; alpha outside the image is 0
    // a gather instead of the matrix (core/plan.h GatherStep), when `gather` is 1:
    // `tables` then holds float rowA0[height], rowA1[height], colB0[width], colB1[width].
    int gather;
    float m02, m12;
    int dim, lo, hi;
};

/// One pass of one output. A launch runs an array of passes of the same kind, one per blockIdx.z.
struct DevicePass {
    int kind;
    int width, height, channels;
    Offset image;  ///< the output's working image (segment: written; blur, mean: read/written)
    // Segment.
    int warped;  ///< 1: sample `warp`; 0: start from the pixel of `image` (in place)
    int opCount;
    Offset ops;  ///< DeviceOp[opCount]
    DeviceWarp warp;
    // Blur (kernel: float[taps]), median (a taps x taps window), convolution (kernel: float[taps * taps]).
    int taps;
    Offset kernel;
    Offset floats;  ///< float[width * height * 3], the row pass's result
    // Mean brightness (core/plan.h MeanBrightnessStep).
    float alpha;  ///< contrast factor
    double brightness;
    int meanOfGray;  ///< 1: the sum is of cv2 RGB2GRAY values, one per pixel
    int roundMean;   ///< 1: the mean rounded half up to an integer first
    // Equalisation (core/plan.h EqualizeStep): `sum` holds the counts, `lut` the tables.
    int equalizePil;         ///< 1: the library's Pillow-style tables
    int equalizeByChannels;  ///< 1: a table per colour channel; 0: the luma's
    Offset sum;              ///< std::uint64_t (equalisation: 3 x 256 std::uint32_t), zeroed before the batch
    Offset lut;  ///< 256 bytes (equalisation: 768), written by kMeanLut (kEqualizeLut) and read by the next
                 ///< segment's kOpLut (kOpChannelLut, kOpLumaLut)
    // CLAHE: `sum` holds tilesX * tilesY x 256 32-bit counts, `lut` as many tables of 256 bytes.
    int innerWidth, innerHeight;  ///< kClaheHistogram: the image's size (width x height is the grid's)
    int tilesX, tilesY, tileWidth, tileHeight;
    int clip;  ///< the tile's clip limit in counts (0: none)
    float lutScale;
    Offset labTables;  ///< shared::lab_layout's block
    // ISONoise: `sum` holds the 65,536 pair counts, `lut` lambda and exp(-lambda).
    double intensity;
    // FancyPCA: `sum` holds 9 doubles per row (3 sums, 6 products), `lut` the mean and the matrix.
    float pcaAlpha[3];
    // The physics_based flare: its layer and the row pass's floats (w x h x 3 each), the shapes' keys
    // (w x h) and colours (3 bytes a key, padded to 4); the blurs' channels (bits 0..2) and the fade.
    Offset layer, layerTmp, keys, colours;
    int channelMask;
    int sunX, sunY;
    double fade;
};

/// Where a finished output goes in a grid texture (the GUI's display, written through CUDA-GL
/// interop): an RGBA8 texel per pixel, alpha 255 for RGB outputs, as the GL backend's grid texture.
struct DevicePlacement {
    Offset image;  ///< the output in the arena, tightly packed rows of width * channels bytes
    int width, height, channels;
    int x, y;  ///< its top-left texel in the grid texture
};

}  // namespace auglab::cuda
