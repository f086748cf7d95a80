#pragma once
// Decoding and encoding of image files: JPEG through libjpeg-turbo, PNG through libspng, BMP, TGA
// and GIF through stb_image.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "image.h"

namespace auglab {

/// Largest image accepted, checked from the file header before any pixel is decoded (SPEC §9).
inline constexpr std::int64_t kMaxImagePixels = 100'000'000;

/// What a file's header says, read without decoding a pixel.
struct ImageInfo {
    int width = 0, height = 0;  ///< full size
    bool scalable = false;      ///< a JPEG: decodes at 1/2, 1/4 or 1/8 of its size directly
};

/// An image decoded from a file, with what the user should be told about the conversion.
struct LoadedImage {
    Image image;
    int fileChannels = 0;          ///< channels in the file (1 gray, 2 gray+alpha, 3, 4)
    bool reducedFrom16Bit = false; ///< the file had 16 bits per channel; it was reduced to 8
    /// `image` is the file at 1/2^level of its size, each side rounded up (SourceLevels' level
    /// sizes): 0 unless a reduced decode was asked for and the format allows it.
    int level = 0;
    int fileWidth = 0, fileHeight = 0;  ///< the file's full size
    /// The part of `image` that holds the file's pixels: all of it, except after decodeImageRegion.
    PixelRect decoded;
};

/// The file name extensions AugLab reads as images (lower case, with the dot), and whether a path
/// has one of them (any case). Folder listings in the CLI and the app use this one list.
const std::vector<std::string>& imageExtensions();
bool hasImageExtension(const std::filesystem::path& path);

/// Loads PNG (libspng), JPEG (baseline and progressive, libjpeg-turbo), BMP, TGA or GIF (first
/// frame; stb_image). Grayscale becomes RGB, alpha is kept, 16-bit samples are reduced to 8 bits.
/// Throws InputError naming the file for a missing/unreadable path, an empty, truncated, corrupt or
/// non-image file, a CMYK JPEG, or an image over kMaxImagePixels (checked before decoding).
/// EXIF orientation is not applied: pixels are used in the order the file stores them.
///
/// `maxLevel` > 0 allows a reduced decode for display: a JPEG is then decoded straight at
/// 1/2^min(maxLevel, 3) of its size (DCT scaling: a fraction of the time and memory of a full
/// decode); other formats decode in full. LoadedImage::level says which it is.
LoadedImage loadImage(const std::filesystem::path& path, int maxLevel = 0);

/// Same as loadImage for bytes already in memory; `name` is used in error messages.
LoadedImage decodeImage(const std::vector<std::uint8_t>& bytes, const std::string& name, int maxLevel = 0);

/// decodeImage at full size for a caller that reads only `region` of the image (the source pixels a
/// sample's first warp reads: planSourceRegion): a baseline JPEG decodes only the rows and columns
/// that cover it (codecs::decodeJpegRegion), and the rest of the image is left unset;
/// LoadedImage::decoded says which part holds the file's pixels (at least `region`, which equals the
/// whole decode's pixels there). Other files decode whole. The same checks and errors as decodeImage.
LoadedImage decodeImageRegion(const std::vector<std::uint8_t>& bytes, const std::string& name,
                              const PixelRect& region);

/// The header of `bytes` (the whole file, or its beginning: then truncation is not checked),
/// with the same checks as decoding that need no pixels (format, size limit, CMYK). Throws InputError.
ImageInfo readImageInfo(const std::vector<std::uint8_t>& bytes, const std::string& name);

/// A whole file read once, with what its header says (readImageInfo): what a caller that must know
/// the size before it decodes (decodeImageRegion) holds. `name` is the path as errors show it.
struct ImageFile {
    std::vector<std::uint8_t> bytes;
    std::string name;
    ImageInfo info;
};
/// Throws InputError naming the file, as probeImage.
ImageFile readImageFile(const std::filesystem::path& path);

/// The header of a file, reading only its beginning (the whole file only when a JPEG's frame
/// header sits unusually far in, behind large metadata). Throws InputError naming the file.
ImageInfo probeImage(const std::filesystem::path& path);

enum class ImageFormat { Png, Jpeg };

/// Chooses the format from the file extension (.png, .jpg, .jpeg); throws InputError otherwise.
ImageFormat formatFromExtension(const std::filesystem::path& path);

/// Encodes to PNG or JPEG (quality 1..100, 4:2:0 chroma as cv2.imwrite writes it; JPEG drops
/// alpha) in memory.
std::vector<std::uint8_t> encodeImage(const Image& image, ImageFormat format, int jpegQuality = 95);

/// encodeImage in the format `path`'s extension names, the errors naming the file: what saveImage
/// writes, for writers that put several files in place together (AtomicFileSet).
std::vector<std::uint8_t> encodeImageFor(const std::filesystem::path& path, const Image& image,
                                         int jpegQuality = 95);

/// Encodes and writes atomically (temporary file in the same folder, then rename): on failure the
/// previous file, if any, is intact. The format comes from the extension.
void saveImage(const std::filesystem::path& path, const Image& image, int jpegQuality = 95);

}  // namespace auglab
