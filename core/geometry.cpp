#include "geometry.h"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <utility>

namespace auglab {

Matrix3 Matrix3::operator*(const Matrix3& o) const {
    Matrix3 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0;
            for (int k = 0; k < 3; ++k) s += (*this)(i, k) * o(k, j);
            r.m[static_cast<std::size_t>(i * 3 + j)] = s;
        }
    return r;
}

Matrix3 Matrix3::inverse() const {
    const auto& a = m;
    const double c00 = a[4] * a[8] - a[5] * a[7];
    const double c01 = a[5] * a[6] - a[3] * a[8];
    const double c02 = a[3] * a[7] - a[4] * a[6];
    const double det = a[0] * c00 + a[1] * c01 + a[2] * c02;
    if (!std::isfinite(det) || std::abs(det) < 1e-12) throw std::domain_error("singular transform");
    const double inv = 1.0 / det;
    Matrix3 r;
    r.m = {c00 * inv,
           (a[2] * a[7] - a[1] * a[8]) * inv,
           (a[1] * a[5] - a[2] * a[4]) * inv,
           c01 * inv,
           (a[0] * a[8] - a[2] * a[6]) * inv,
           (a[2] * a[3] - a[0] * a[5]) * inv,
           c02 * inv,
           (a[1] * a[6] - a[0] * a[7]) * inv,
           (a[0] * a[4] - a[1] * a[3]) * inv};
    return r;
}

bool Matrix3::isIdentity(double eps) const {
    const Matrix3 id;
    for (std::size_t i = 0; i < 9; ++i)
        if (std::abs(m[i] - id.m[i]) > eps) return false;
    return true;
}

Matrix3 perspectiveTransform(const std::array<Point2, 4>& src, const std::array<Point2, 4>& dst) {
    double a[8][9] = {};  // [A | b]
    for (int i = 0; i < 4; ++i) {
        const Point2 s = src[std::size_t(i)], d = dst[std::size_t(i)];
        a[i][0] = a[i + 4][3] = s.x;
        a[i][1] = a[i + 4][4] = s.y;
        a[i][2] = a[i + 4][5] = 1;
        a[i][6] = -s.x * d.x;
        a[i][7] = -s.y * d.x;
        a[i + 4][6] = -s.x * d.y;
        a[i + 4][7] = -s.y * d.y;
        a[i][8] = d.x;
        a[i + 4][8] = d.y;
    }
    for (int col = 0; col < 8; ++col) {
        int pivot = col;
        for (int r = col + 1; r < 8; ++r)
            if (std::abs(a[r][col]) > std::abs(a[pivot][col])) pivot = r;
        if (std::abs(a[pivot][col]) < 1e-12) throw std::domain_error("no projective map takes collinear points");
        if (pivot != col) std::swap(a[pivot], a[col]);
        for (int r = col + 1; r < 8; ++r) {
            const double f = a[r][col] / a[col][col];
            for (int c = col; c < 9; ++c) a[r][c] -= f * a[col][c];
        }
    }
    double x[8];
    for (int r = 7; r >= 0; --r) {
        double v = a[r][8];
        for (int c = r + 1; c < 8; ++c) v -= a[r][c] * x[c];
        x[r] = v / a[r][r];
    }
    return {{x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], 1.0}};
}

Matrix3 horizontalFlipMatrix(int width) { return {{-1, 0, width - 1.0, 0, 1, 0, 0, 0, 1}}; }
Matrix3 verticalFlipMatrix(int height) { return {{1, 0, 0, 0, -1, height - 1.0, 0, 0, 1}}; }

Matrix3 resizeMatrix(int fromW, int fromH, int toW, int toH) {
    const double sx = static_cast<double>(toW) / fromW, sy = static_cast<double>(toH) / fromH;
    // x' = (x + 0.5) * sx - 0.5 = sx * x + 0.5 * (sx - 1)
    return {{sx, 0, 0.5 * (sx - 1), 0, sy, 0.5 * (sy - 1), 0, 0, 1}};
}

Matrix3 levelMatrix(int k) {
    const double s = std::ldexp(1.0, -k);
    return {{s, 0, 0.5 * (s - 1), 0, s, 0.5 * (s - 1), 0, 0, 1}};
}

}  // namespace auglab
