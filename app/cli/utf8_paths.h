#pragma once
// Paths as the CLI's messages and manifests spell them: UTF-8 bytes in a std::string (a manifest is
// UTF-8 JSON), and back.

#include <filesystem>
#include <string>

namespace auglab::cli {

/// The path's UTF-8 bytes, separators as the system writes them (messages).
inline std::string shown(const std::filesystem::path& p) {
    const std::u8string s = p.u8string();
    return std::string(s.begin(), s.end());
}

/// The path's UTF-8 bytes with '/' separators (manifest names).
inline std::string utf8(const std::filesystem::path& p) {
    const std::u8string s = p.generic_u8string();
    return std::string(s.begin(), s.end());
}

/// A path from UTF-8 bytes.
inline std::filesystem::path fromUtf8(const std::string& s) {
    return std::filesystem::path(std::u8string(s.begin(), s.end()));
}

}  // namespace auglab::cli
