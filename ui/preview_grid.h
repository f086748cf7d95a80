#pragma once
// The grid of augmented samples: one texture on a QOpenGLWidget. The CPU backend's sheet is
// uploaded into it; a GPU backend can later render into the same texture without a readback.
// Hover shows the sample under the mouse, a click asks for the inspector.

#include <utility>
#include <vector>

#include <QOpenGLFunctions_3_3_Core>
#include <QOpenGLShaderProgram>
#include <QOpenGLVertexArrayObject>
#include <QOpenGLWidget>
#include <memory>

#include "overlay.h"

namespace auglab {

/// What of the labels the grid draws, and how strongly the masks cover the pixels.
struct OverlayStyle {
    bool boxes = true, keypoints = true, masks = true;
    double opacity = 0.45;  ///< of the masks; boxes and keypoints are drawn opaque
    bool operator==(const OverlayStyle&) const = default;
};

class PreviewGrid : public QOpenGLWidget, protected QOpenGLFunctions_3_3_Core {
    Q_OBJECT

public:
    explicit PreviewGrid(QWidget* parent = nullptr);
    /// Call before the QApplication exists: OpenGL 3.3 core for every context, and contexts that
    /// share textures, so the GL backend's grid is shown without a readback.
    static void configureOpenGl();
    ~PreviewGrid() override;

    /// Shows a new sheet. `tiles` are the tile rectangles in sheet pixels, `labels` their tooltips.
    void setSheet(const QImage& sheet, std::vector<QRect> tiles, QStringList labels);
    /// Shows a sheet that is already on the GPU: an RGBA8UI texture of a context shared with this
    /// widget's (the GL backend's grid). No pixels travel through the CPU.
    void setSheetTexture(unsigned texture, QSize size, std::vector<QRect> tiles, QStringList labels);
    /// The GL texture shown now (0 when none); whether it came from a GPU backend.
    bool showsExternalTexture() const { return externalTexture_ != 0; }
    const QImage& sheet() const { return sheet_; }
    QSize sheetSize() const { return sheetSize_; }
    /// Tiles that could not be rendered (an unreadable file, an image the pipeline does not fit): each
    /// is drawn as a placeholder with a warning sign and, where the cell has room, `reasons[i]` (the
    /// decoder's words, say); its tooltip (the tile's label) says it whole.
    void setPlaceholders(std::vector<int> tiles, QStringList reasons = {}) {
        placeholders_ = std::move(tiles);
        placeholderReasons_ = std::move(reasons);
        update();
    }
    const std::vector<int>& placeholders() const { return placeholders_; }
    const QStringList& placeholderReasons() const { return placeholderReasons_; }
    /// Small labels in tiles' corners (the realism meter's "37%" on tiles past its threshold).
    void setBadges(std::vector<std::pair<int, QString>> badges) {
        badges_ = std::move(badges);
        update();
    }
    const std::vector<std::pair<int, QString>>& badges() const { return badges_; }
    /// The labels of the tiles (a labelled dataset), each as its sample moved it, in tile pixels;
    /// `classNames` name the labels (empty: numbers). Empty: none drawn.
    /// `skeleton`: pairs of keypoint positions (0-based, COCO's skeleton) joined by a line within
    /// each object.
    void setOverlays(std::vector<TileOverlay> overlays, QStringList classNames,
                     std::vector<std::pair<int, int>> skeleton = {});
    const std::vector<TileOverlay>& overlays() const { return overlays_; }
    const std::vector<std::pair<int, int>>& skeleton() const { return skeleton_; }
    void setOverlayStyle(const OverlayStyle& style) {
        style_ = style;
        update();
    }
    const OverlayStyle& overlayStyle() const { return style_; }
    /// Tile under a point of the widget, or -1.
    int tileAt(const QPoint& pos) const;
    /// A point of the sheet (sheet pixels) in widget coordinates.
    QPointF sheetToWidget(const QPointF& p) const;
    /// Centre of tile `i` in widget coordinates (for tests and keyboard focus).
    QPoint tileCentre(int i) const;
    /// Empty when GL works; otherwise why, and the grid is drawn with QPainter instead.
    QString glError() const { return glError_; }

    QSize sizeHint() const override { return {800, 800}; }
    QSize minimumSizeHint() const override { return {200, 200}; }

signals:
    void tileClicked(int tile);
    void tileHovered(int tile);
    /// The widget changed size: tiles should be rendered at the new size.
    void resized();

protected:
    void initializeGL() override;
    void paintGL() override;
    void resizeGL(int, int) override { emit resized(); }
    void mouseMoveEvent(QMouseEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    bool event(QEvent* e) override;

private:
    QRectF sheetRectInWidget() const;
    void releaseGl();
    bool compileProgram();

    QImage sheet_;
    QSize sheetSize_;
    unsigned externalTexture_ = 0;
    bool textureDirty_ = false;
    std::vector<QRect> tiles_;
    QStringList labels_;
    std::vector<int> placeholders_;
    QStringList placeholderReasons_;
    std::vector<std::pair<int, QString>> badges_;
    std::vector<TileOverlay> overlays_;
    std::vector<QImage> maskImages_;  // per overlay: its masks in their classes' colours
    QStringList classNames_;
    std::vector<std::pair<int, int>> skeleton_;
    OverlayStyle style_;
    void paintPlaceholders();
    void paintOverlays(QPainter& p, const QRectF& sheet, double s);
    std::unique_ptr<QOpenGLShaderProgram> program_;
    GLuint texture_ = 0;  // the uploaded sheet (RGBA8UI, like the GL backend's)
    QSize textureSize_;
    QOpenGLVertexArrayObject vao_;
    QString glError_;
    bool glReady_ = false;
};

}  // namespace auglab
