#pragma once
// Decoding and encoding of image files with stb_image / stb_image_write.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "image.h"

namespace auglab {

/// Largest image accepted, checked from the file header before any pixel is decoded (SPEC §9).
inline constexpr std::int64_t kMaxImagePixels = 100'000'000;

/// An image decoded from a file, with what the user should be told about the conversion.
struct LoadedImage {
    Image image;
    int fileChannels = 0;          ///< channels in the file (1 gray, 2 gray+alpha, 3, 4)
    bool reducedFrom16Bit = false; ///< the file had 16 bits per channel; it was reduced to 8
};

/// Loads PNG, JPEG (baseline and progressive), BMP, TGA or GIF (first frame). Grayscale becomes
/// RGB, alpha is kept, 16-bit samples are reduced to 8 bits. Throws InputError naming the file for
/// a missing/unreadable path, an empty, truncated, corrupt or non-image file, a CMYK JPEG, or an
/// image over kMaxImagePixels (checked before decoding).
/// The file name extensions AugLab reads as images (lower case, with the dot), and whether a path
/// has one of them (any case). Folder listings in the CLI and the app use this one list.
const std::vector<std::string>& imageExtensions();
bool hasImageExtension(const std::filesystem::path& path);

LoadedImage loadImage(const std::filesystem::path& path);

/// Same as loadImage for bytes already in memory; `name` is used in error messages.
LoadedImage decodeImage(const std::vector<std::uint8_t>& bytes, const std::string& name);

enum class ImageFormat { Png, Jpeg };

/// Chooses the format from the file extension (.png, .jpg, .jpeg); throws InputError otherwise.
ImageFormat formatFromExtension(const std::filesystem::path& path);

/// Encodes to PNG or JPEG (quality 1..100; JPEG drops alpha) in memory.
std::vector<std::uint8_t> encodeImage(const Image& image, ImageFormat format, int jpegQuality = 95);

/// Encodes and writes atomically (temporary file in the same folder, then rename): on failure the
/// previous file, if any, is intact. The format comes from the extension.
void saveImage(const std::filesystem::path& path, const Image& image, int jpegQuality = 95);

}  // namespace auglab
