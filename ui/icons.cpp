#include "icons.h"

#include <QPainter>
#include <QPolygonF>
#include <QPixmap>
#include <QWidget>

namespace auglab {

namespace {

QPixmap squaresPixmap(const QColor& colour, qreal ratio) {
    const int side = 16;
    QPixmap pixmap(QSize(side, side) * ratio);
    pixmap.setDevicePixelRatio(ratio);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setPen(QPen(colour, 1.5));
    // As ⧉: a back square whose lower right corner the front square covers (the group and what
    // it holds), in outline only, so that any button background shows through.
    p.drawPolyline(QPolygonF({QPointF(5.5, 10.5), QPointF(2.5, 10.5), QPointF(2.5, 2.5), QPointF(10.5, 2.5),
                              QPointF(10.5, 5.5)}));
    p.drawRect(QRectF(5.5, 5.5, 8, 8));
    return pixmap;
}

}  // namespace

QIcon groupIcon(const QWidget* widget) {
    const qreal ratio = widget ? widget->devicePixelRatioF() : 1.0;
    const QPalette palette = widget ? widget->palette() : QPalette();
    QIcon icon;
    icon.addPixmap(squaresPixmap(palette.color(QPalette::Active, QPalette::ButtonText), ratio), QIcon::Normal);
    icon.addPixmap(squaresPixmap(palette.color(QPalette::Disabled, QPalette::ButtonText), ratio), QIcon::Disabled);
    return icon;
}

}  // namespace auglab
