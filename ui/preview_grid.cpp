#include "preview_grid.h"

#include <QFile>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QPainter>
#include <QToolTip>

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

}  // namespace

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
    texture_.reset();
    program_.reset();
    if (vao_.isCreated()) vao_.destroy();
    glReady_ = false;
    textureDirty_ = true;
}

bool PreviewGrid::compileProgram() {
    program_ = std::make_unique<QOpenGLShaderProgram>();
    for (const auto& [type, name] : {std::pair{QOpenGLShader::Vertex, QStringLiteral("grid_display.vert")},
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
    tiles_ = std::move(tiles);
    labels_ = std::move(labels);
    textureDirty_ = true;
    update();
}

QRectF PreviewGrid::sheetRectInWidget() const {
    if (sheet_.isNull()) return {};
    const double s = std::min(width() / double(sheet_.width()), height() / double(sheet_.height()));
    const QSizeF size(sheet_.width() * s, sheet_.height() * s);
    return QRectF(QPointF((width() - size.width()) / 2, (height() - size.height()) / 2), size);
}

void PreviewGrid::paintGL() {
    const QColor bg = palette().color(QPalette::Window).darker(150);
    if (!glReady_) {
        QPainter p(this);
        p.fillRect(rect(), bg);
        if (!sheet_.isNull()) p.drawImage(sheetRectInWidget(), sheet_);
        return;
    }
    glClearColor(bg.redF(), bg.greenF(), bg.blueF(), 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (sheet_.isNull()) return;
    if (textureDirty_ || !texture_) {
        const QImage rgba = sheet_.convertToFormat(QImage::Format_RGBA8888);
        if (!texture_ || texture_->width() != rgba.width() || texture_->height() != rgba.height()) {
            texture_ = std::make_unique<QOpenGLTexture>(QOpenGLTexture::Target2D);
            texture_->setFormat(QOpenGLTexture::RGBA8_UNorm);
            texture_->setSize(rgba.width(), rgba.height());
            texture_->setMinificationFilter(QOpenGLTexture::Linear);
            texture_->setMagnificationFilter(QOpenGLTexture::Linear);
            texture_->setWrapMode(QOpenGLTexture::ClampToEdge);
            texture_->allocateStorage(QOpenGLTexture::RGBA, QOpenGLTexture::UInt8);
        }
        texture_->setData(QOpenGLTexture::RGBA, QOpenGLTexture::UInt8, rgba.constBits());
        textureDirty_ = false;
    }
    const QRectF r = sheetRectInWidget();
    const float x0 = float(2 * r.left() / width() - 1), x1 = float(2 * r.right() / width() - 1);
    const float y0 = float(1 - 2 * r.bottom() / height()), y1 = float(1 - 2 * r.top() / height());
    program_->bind();
    program_->setUniformValue("rect", QVector4D(x0, y0, x1, y1));
    program_->setUniformValue("sheet", 0);
    texture_->bind(0);
    vao_.bind();
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    vao_.release();
    texture_->release();
    program_->release();
}

int PreviewGrid::tileAt(const QPoint& pos) const {
    const QRectF r = sheetRectInWidget();
    if (r.isEmpty() || !r.contains(pos)) return -1;
    const double s = r.width() / sheet_.width();
    const QPointF p((pos.x() - r.left()) / s, (pos.y() - r.top()) / s);
    for (std::size_t i = 0; i < tiles_.size(); ++i)
        if (QRectF(tiles_[i]).contains(p)) return int(i);
    return -1;
}

QPoint PreviewGrid::tileCentre(int i) const {
    const QRectF r = sheetRectInWidget();
    if (r.isEmpty() || i < 0 || i >= int(tiles_.size())) return {};
    const double s = r.width() / sheet_.width();
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
        if (t >= 0 && t < labels_.size()) QToolTip::showText(help->globalPos(), labels_[t], this);
        else QToolTip::hideText();
        return true;
    }
    return QOpenGLWidget::event(e);
}

}  // namespace auglab
