#pragma once
// Forward matrices of the geometric ops, in pixel coordinates (pixel centres at integers, y down).
// A forward matrix maps a source position to its output position; backends sample the source at
// inverse(M) * p for every output pixel p.

#include <array>


namespace auglab {

/// A 3x3 matrix in double precision, row-major. Affine maps keep the last row (0, 0, 1).
struct Matrix3 {
    std::array<double, 9> m{1, 0, 0, 0, 1, 0, 0, 0, 1};

    static Matrix3 identity() { return {}; }
    static Matrix3 translation(double tx, double ty) { return {{1, 0, tx, 0, 1, ty, 0, 0, 1}}; }
    static Matrix3 scaling(double sx, double sy) { return {{sx, 0, 0, 0, sy, 0, 0, 0, 1}}; }

    double operator()(int r, int c) const { return m[static_cast<std::size_t>(r * 3 + c)]; }
    Matrix3 operator*(const Matrix3& o) const;
    Matrix3 inverse() const;  ///< throws std::domain_error when singular
    /// True when every entry is within `eps` of the identity's.
    bool isIdentity(double eps = 1e-8) const;
    bool operator==(const Matrix3&) const = default;
};

/// A point in pixel coordinates.
struct Point2 {
    double x = 0, y = 0;
    bool operator==(const Point2&) const = default;
};

/// The projective map taking src[i] to dst[i] (i = 0..3), as cv::getPerspectiveTransform computes it:
/// the 8x8 system of its docs solved by Gaussian elimination with partial pivoting (OpenCV's
/// DECOMP_LU), m22 = 1. Throws std::domain_error when three points are collinear.
Matrix3 perspectiveTransform(const std::array<Point2, 4>& src, const std::array<Point2, 4>& dst);

/// Exact mirrors: x -> W - 1 - x, y -> H - 1 - y.
Matrix3 horizontalFlipMatrix(int width);
Matrix3 verticalFlipMatrix(int height);

/// Resizing from (fromW, fromH) to (toW, toH) with pixel centres aligned (as cv::resize does):
/// x' = (x + 0.5) * toW / fromW - 0.5.
Matrix3 resizeMatrix(int fromW, int fromH, int toW, int toH);
/// Full-resolution pixel coordinates to those of source level k (SourceLevels: blocks of 2^k pixels),
/// pixel centres to block centres: x' = (x + 0.5) / 2^k - 0.5.
Matrix3 levelMatrix(int k);

}  // namespace auglab
