#include "distribution_view.h"

#include <algorithm>
#include <cmath>

#include <QPainter>

namespace auglab {

namespace {
constexpr int kBins = 16;
}

DistributionView::DistributionView(QWidget* parent) : QWidget(parent) {
    clear(tr("Click a parameter's name to see its drawn values here."));
}

void DistributionView::clear(const QString& hint) {
    title_ = hint;
    caption_.clear();
    bins_.clear();
    update();
}

void DistributionView::setData(const QString& title, std::vector<double> values, int applied, int samples,
                               double lower, double upper) {
    title_ = title;
    lower_ = lower;
    upper_ = upper;
    bins_.assign(kBins, 0);
    if (upper_ <= lower_) {  // a fixed value: one bin around it
        lower_ -= 0.5;
        upper_ += 0.5;
    }
    for (double v : values) {
        const int b = std::clamp(int(std::floor((v - lower_) / (upper_ - lower_) * kBins)), 0, kBins - 1);
        bins_[std::size_t(b)]++;
    }
    caption_ =
        tr("%1 values; the op applied in %2 of %3 samples").arg(values.size()).arg(applied).arg(samples);
    update();
}

void DistributionView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const int fh = fontMetrics().height();
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(6, 2, width() - 12, fh), Qt::AlignLeft | Qt::AlignVCenter, title_);
    if (bins_.empty()) return;
    const QRect plot(6, fh + 6, width() - 12, height() - 3 * fh - 12);
    const int peak = std::max(1, *std::max_element(bins_.begin(), bins_.end()));
    const double bw = plot.width() / double(bins_.size());
    p.setPen(Qt::NoPen);
    p.setBrush(palette().color(QPalette::Highlight));
    for (std::size_t i = 0; i < bins_.size(); ++i) {
        const int h = int(std::lround(plot.height() * double(bins_[i]) / peak));
        p.drawRect(QRectF(plot.left() + i * bw + 1, plot.bottom() - h, bw - 2, h));
    }
    p.setPen(palette().color(QPalette::Text));
    p.drawLine(plot.bottomLeft(), plot.bottomRight());
    const int y = plot.bottom() + 2;
    p.drawText(QRect(plot.left(), y, plot.width() / 2, fh), Qt::AlignLeft, QString::number(lower_, 'g', 4));
    p.drawText(QRect(plot.center().x(), y, plot.width() / 2, fh), Qt::AlignRight,
               QString::number(upper_, 'g', 4));
    p.drawText(QRect(6, y + fh, width() - 12, fh), Qt::AlignLeft, caption_);
}

}  // namespace auglab
