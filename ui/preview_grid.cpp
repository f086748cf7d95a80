#include "preview_grid.h"

#include <QCoreApplication>
#include <QFile>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QPainter>
#include <QSurfaceFormat>
#include <QToolTip>

#include "contact_sheet.h"

namespace auglab {

namespace {

// Shaders are build inputs (shaders/ embedded as Qt resources), never strings in C++.
QString shaderSource(const QString& name, QString& error) {
    QFile f(":/shaders/" + name);
    if (!f.open(QIODevice::ReadOnly)) {
        error = "shader " + name + " is missing from the resources";
        return {};
    }
    return QString::fromUtf8(f.readAll());
}

// `text` in at most `maxLines` lines of `width` pixels, broken between words; the last line ends
// in an ellipsis when the rest does not fit.
QStringList wrapText(const QString& text, const QFontMetrics& fm, int width, int maxLines) {
    QStringList lines;
    QString line;
    const QStringList words = text.split(' ', Qt::SkipEmptyParts);
    for (qsizetype i = 0; i < words.size(); ++i) {
        const QString longer = line.isEmpty() ? words[i] : line + ' ' + words[i];
        if (line.isEmpty() || fm.horizontalAdvance(longer) <= width) {
            line = longer;
            continue;
        }
        if (lines.size() + 1 == maxLines) {  // the last line: the rest, elided
            line = longer + ' ' + words.mid(i + 1).join(' ');
            break;
        }
        lines << line;
        line = words[i];
    }
    if (!line.isEmpty()) lines << fm.elidedText(line, Qt::ElideRight, width);
    return lines;
}

}  // namespace

void PreviewGrid::configureOpenGl() {
    QSurfaceFormat format;
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CoreProfile);
    QSurfaceFormat::setDefaultFormat(format);
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
}

PreviewGrid::PreviewGrid(QWidget* parent) : QOpenGLWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
}

PreviewGrid::~PreviewGrid() {
    makeCurrent();
    releaseGl();
    doneCurrent();
}

void PreviewGrid::releaseGl() {
    if (texture_) glDeleteTextures(1, &texture_);
    texture_ = 0;
    textureSize_ = {};
    program_.reset();
    if (vao_.isCreated()) vao_.destroy();
    glReady_ = false;
    textureDirty_ = true;
}

bool PreviewGrid::compileProgram() {
    program_ = std::make_unique<QOpenGLShaderProgram>();
    for (const auto& [type, name] :
         {std::pair{QOpenGLShader::Vertex, QStringLiteral("grid_display.vert")},
          std::pair{QOpenGLShader::Fragment, QStringLiteral("grid_display.frag")}}) {
        QString error;
        const QString src = shaderSource(name, error);
        if (!error.isEmpty() || !program_->addShaderFromSourceCode(type, src)) {
            // The driver's log names the line ("0:12(3): error ..."); prefix the file.
            glError_ = error.isEmpty() ? "shaders/" + name + ": " + program_->log().trimmed() : error;
            return false;
        }
    }
    if (!program_->link()) {
        glError_ = "shaders/grid_display: link failed: " + program_->log().trimmed();
        return false;
    }
    return true;
}

void PreviewGrid::initializeGL() {
    // GL objects belong to the context: release them when it goes away, rebuild on the next one.
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] {
        makeCurrent();
        releaseGl();
        doneCurrent();
    });
    glError_.clear();
    if (!initializeOpenGLFunctions()) {
        glError_ = QStringLiteral("OpenGL 3.3 core is not available; drawing without GL");
        return;
    }
    if (!compileProgram()) return;
    vao_.create();
    glReady_ = true;
    textureDirty_ = true;
}

void PreviewGrid::setSheet(const QImage& sheet, std::vector<QRect> tiles, QStringList labels) {
    sheet_ = sheet;
    sheetSize_ = sheet.size();
    externalTexture_ = 0;
    tiles_ = std::move(tiles);
    labels_ = std::move(labels);
    textureDirty_ = true;
    update();
}

void PreviewGrid::setSheetTexture(unsigned texture, QSize size, std::vector<QRect> tiles,
                                  QStringList labels) {
    sheet_ = QImage();
    sheetSize_ = size;
    externalTexture_ = texture;
    tiles_ = std::move(tiles);
    labels_ = std::move(labels);
    update();
}

QRectF PreviewGrid::sheetRectInWidget() const {
    if (sheetSize_.isEmpty()) return {};
    const double s = std::min(width() / double(sheetSize_.width()), height() / double(sheetSize_.height()));
    const QSizeF size(sheetSize_.width() * s, sheetSize_.height() * s);
    return QRectF(QPointF((width() - size.width()) / 2, (height() - size.height()) / 2), size);
}

void PreviewGrid::paintGL() {
    const QColor bg = palette().color(QPalette::Window).darker(150);
    if (!glReady_) {
        QPainter p(this);
        p.fillRect(rect(), bg);
        if (!sheet_.isNull()) p.drawImage(sheetRectInWidget(), sheet_);
        p.end();
        paintPlaceholders();
        return;
    }
    glClearColor(bg.redF(), bg.greenF(), bg.blueF(), 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (sheetSize_.isEmpty()) return;
    GLuint shown = externalTexture_;
    if (!shown) {
        // The CPU's sheet goes into the same kind of texture the GL backend renders into.
        if (textureDirty_ || !texture_) {
            const QImage rgba = sheet_.convertToFormat(QImage::Format_RGBA8888);
            if (!texture_) glGenTextures(1, &texture_);
            glBindTexture(GL_TEXTURE_2D, texture_);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
            glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
            if (textureSize_ != rgba.size()) {
                glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8UI, rgba.width(), rgba.height(), 0, GL_RGBA_INTEGER,
                             GL_UNSIGNED_BYTE, rgba.constBits());
                textureSize_ = rgba.size();
            } else {
                glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, rgba.width(), rgba.height(), GL_RGBA_INTEGER,
                                GL_UNSIGNED_BYTE, rgba.constBits());
            }
            textureDirty_ = false;
        }
        shown = texture_;
    }
    const QRectF r = sheetRectInWidget();
    const float x0 = float(2 * r.left() / width() - 1), x1 = float(2 * r.right() / width() - 1);
    const float y0 = float(1 - 2 * r.bottom() / height()), y1 = float(1 - 2 * r.top() / height());
    program_->bind();
    program_->setUniformValue("rect", QVector4D(x0, y0, x1, y1));
    program_->setUniformValue("sheet", 0);
    program_->setUniformValue("background", float(kSheetBackgroundGray) / 255.0f);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, shown);
    vao_.bind();
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    vao_.release();
    glBindTexture(GL_TEXTURE_2D, 0);
    program_->release();
    paintPlaceholders();
}

void PreviewGrid::setOverlays(std::vector<TileOverlay> overlays, QStringList classNames,
                              std::vector<std::pair<int, int>> skeleton) {
    overlays_ = std::move(overlays);
    classNames_ = std::move(classNames);
    skeleton_ = std::move(skeleton);
    maskImages_.clear();
    for (const TileOverlay& o : overlays_) {
        QImage img;
        for (const Mask& m : o.masks) {
            if (img.isNull()) {
                img = QImage(m.width, m.height, QImage::Format_ARGB32);
                img.fill(Qt::transparent);
            }
            int ownerLabel = -1;
            for (const Box& b : o.boxes)
                if (b.id == m.owner) ownerLabel = b.label;
            for (int y = 0; y < m.height && y < img.height(); ++y) {
                auto* row = reinterpret_cast<QRgb*>(img.scanLine(y));
                for (int x = 0; x < m.width && x < img.width(); ++x) {
                    const int v = m.at(x, y);
                    if (v == 0) continue;
                    const Rgb c = classColour(m.owner >= 0 ? ownerLabel : v);
                    row[x] = qRgba(c[0], c[1], c[2], 255);
                }
            }
        }
        maskImages_.push_back(std::move(img));
    }
    update();
}

void PreviewGrid::paintOverlays(QPainter& p, const QRectF& sheet, double s) {
    QFont small = font();
    small.setPixelSize(10);
    p.setFont(small);
    const QFontMetrics fm(small);
    for (std::size_t k = 0; k < overlays_.size(); ++k) {
        const TileOverlay& o = overlays_[k];
        if (o.tile < 0 || o.tile >= int(tiles_.size())) continue;
        const QRect& t = tiles_[std::size_t(o.tile)];
        const QRectF tile(sheet.left() + t.x() * s, sheet.top() + t.y() * s, t.width() * s, t.height() * s);
        p.save();
        p.setClipRect(tile);
        const double ts = tile.width() / std::max(1, t.width());
        if (style_.masks && k < maskImages_.size() && !maskImages_[k].isNull()) {
            p.setOpacity(style_.opacity);
            p.drawImage(tile, maskImages_[k]);
            p.setOpacity(1.0);
        }
        if (style_.boxes)
            for (const Box& b : o.boxes) {
                const Rgb c = classColour(b.label);
                const QColor colour(c[0], c[1], c[2]);
                const QRectF r(tile.left() + b.x0 * ts, tile.top() + b.y0 * ts, (b.x1 - b.x0) * ts,
                               (b.y1 - b.y0) * ts);
                p.setPen(QPen(colour, 2));
                p.setBrush(Qt::NoBrush);
                p.drawRect(r);
                const QString name = b.label >= 0 && b.label < classNames_.size() ? classNames_[b.label]
                                                                                  : QString::number(b.label);
                const QRectF tag(r.left(), r.top(), fm.horizontalAdvance(name) + 4, fm.height());
                // The name only where it fits in the box: on small tiles the outlines say enough.
                if (tag.width() <= r.width() && 2 * tag.height() <= r.height()) {
                    p.fillRect(tag, colour);
                    p.setPen(Qt::white);
                    p.drawText(tag, Qt::AlignCenter, name);
                }
            }
        if (style_.keypoints && !skeleton_.empty()) {
            // The skeleton's bones between an object's keypoints that are still there.
            auto at = [&](int owner, int label) -> const Keypoint* {
                for (const Keypoint& k : o.keypoints)
                    if (k.owner == owner && k.label == label) return &k;
                return nullptr;
            };
            for (const Box& b : o.boxes) {
                const Rgb c = classColour(b.label);
                p.setPen(QPen(QColor(c[0], c[1], c[2]), 2));
                for (const auto& [first, second] : skeleton_) {
                    const Keypoint *a = at(b.id, first), *z = at(b.id, second);
                    if (!a || !z) continue;
                    p.drawLine(QPointF(tile.left() + (a->x + 0.5) * ts, tile.top() + (a->y + 0.5) * ts),
                               QPointF(tile.left() + (z->x + 0.5) * ts, tile.top() + (z->y + 0.5) * ts));
                }
            }
        }
        if (style_.keypoints)
            for (const Keypoint& kp : o.keypoints) {
                int label = kp.label;
                if (kp.owner >= 0)
                    for (const Box& b : o.boxes)
                        if (b.id == kp.owner) label = b.label;
                const Rgb c = classColour(label);
                p.setPen(QPen(Qt::white, 1));
                p.setBrush(QColor(c[0], c[1], c[2]));
                p.drawEllipse(QPointF(tile.left() + (kp.x + 0.5) * ts, tile.top() + (kp.y + 0.5) * ts), 3, 3);
            }
        p.restore();
    }
}

void PreviewGrid::paintPlaceholders() {
    const bool labels = !overlays_.empty() && (style_.boxes || style_.keypoints || style_.masks);
    if ((placeholders_.empty() && badges_.empty() && !labels) || sheetSize_.isEmpty()) return;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF sheet = sheetRectInWidget();
    const double s = sheet.width() / sheetSize_.width();
    if (labels) paintOverlays(p, sheet, s);
    for (std::size_t k = 0; k < placeholders_.size(); ++k) {
        const int i = placeholders_[k];
        if (i < 0 || i >= int(tiles_.size())) continue;
        const QRect& t = tiles_[std::size_t(i)];
        const QRectF r(sheet.left() + t.x() * s, sheet.top() + t.y() * s, t.width() * s, t.height() * s);
        p.fillRect(r, QColor(70, 40, 40));
        p.setPen(QPen(QColor(200, 120, 100), 1, Qt::DashLine));
        p.drawRect(r.adjusted(2, 2, -2, -2));
        p.setPen(QColor(240, 190, 170));
        // The reason under the sign where the cell holds a few words of it; a small cell shows the
        // sign alone (the tooltip has the reason whole).
        QFont text = font();
        text.setPixelSize(std::clamp(int(r.height() / 9), 9, 13));
        const QFontMetrics tm(text);
        const QRectF inside = r.adjusted(6, 4, -6, -4);
        const int room = int((inside.height() * 0.6) / tm.lineSpacing());
        const QString reason = placeholderReasons_.value(qsizetype(k));
        const QStringList lines =
            reason.isEmpty() || room < 2 ? QStringList() : wrapText(reason, tm, int(inside.width()), room);
        QFont sign = p.font();
        sign.setPixelSize(std::max(10, int(r.height() / (lines.isEmpty() ? 4 : 6))));
        p.setFont(sign);
        const QRectF signRect = lines.isEmpty() ? r
                                                : QRectF(inside.left(), inside.top(), inside.width(),
                                                         inside.height() - lines.size() * tm.lineSpacing());
        p.drawText(signRect, Qt::AlignCenter, QStringLiteral("\u26a0"));
        p.setFont(text);
        for (qsizetype l = 0; l < lines.size(); ++l)
            p.drawText(QRectF(inside.left(), signRect.bottom() + l * tm.lineSpacing(), inside.width(),
                              tm.lineSpacing()),
                       Qt::AlignHCenter | Qt::AlignTop, lines[l]);
    }
    QFont small = font();
    small.setPixelSize(11);
    small.setBold(true);
    p.setFont(small);
    const QFontMetrics fm(small);
    for (const auto& [i, text] : badges_) {
        if (i < 0 || i >= int(tiles_.size())) continue;
        const QRect& t = tiles_[std::size_t(i)];
        const QRectF tile(sheet.left() + t.x() * s, sheet.top() + t.y() * s, t.width() * s, t.height() * s);
        const QRectF badge(tile.right() - fm.horizontalAdvance(text) - 10, tile.top() + 3,
                           fm.horizontalAdvance(text) + 7, fm.height() + 2);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(198, 40, 40, 220));
        p.drawRoundedRect(badge, 3, 3);
        p.setPen(Qt::white);
        p.drawText(badge, Qt::AlignCenter, text);
    }
}

int PreviewGrid::tileAt(const QPoint& pos) const {
    const QRectF r = sheetRectInWidget();
    if (r.isEmpty() || !r.contains(pos)) return -1;
    const double s = r.width() / sheetSize_.width();
    const QPointF p((pos.x() - r.left()) / s, (pos.y() - r.top()) / s);
    for (std::size_t i = 0; i < tiles_.size(); ++i)
        if (QRectF(tiles_[i]).contains(p)) return int(i);
    return -1;
}

QPointF PreviewGrid::sheetToWidget(const QPointF& p) const {
    const QRectF r = sheetRectInWidget();
    if (r.isEmpty() || sheetSize_.isEmpty()) return {};
    const double s = r.width() / sheetSize_.width();
    return {r.left() + p.x() * s, r.top() + p.y() * s};
}

QPoint PreviewGrid::tileCentre(int i) const {
    const QRectF r = sheetRectInWidget();
    if (r.isEmpty() || i < 0 || i >= int(tiles_.size())) return {};
    const double s = r.width() / sheetSize_.width();
    const QPointF c = QRectF(tiles_[std::size_t(i)]).center();
    return QPoint(int(r.left() + c.x() * s), int(r.top() + c.y() * s));
}

void PreviewGrid::mouseMoveEvent(QMouseEvent* e) {
    emit tileHovered(tileAt(e->pos()));
    QOpenGLWidget::mouseMoveEvent(e);
}

void PreviewGrid::mousePressEvent(QMouseEvent* e) {
    const int t = tileAt(e->pos());
    if (e->button() == Qt::LeftButton && t >= 0) emit tileClicked(t);
    QOpenGLWidget::mousePressEvent(e);
}

bool PreviewGrid::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int t = tileAt(help->pos());
        if (t >= 0 && t < labels_.size())
            QToolTip::showText(help->globalPos(), labels_[t], this);
        else
            QToolTip::hideText();
        return true;
    }
    return QOpenGLWidget::event(e);
}

}  // namespace auglab
