#include "cost_meter.h"

#include <algorithm>
#include <cmath>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStyle>
#include <QVBoxLayout>

#include "backend_registry.h"

namespace auglab {

namespace {

constexpr int kMinSide = 8, kMaxSide = 4096;
const char* const kSizeKey = "costMeter/trainingSize";
const char* const kRateKey = "costMeter/trainingRate";
const char* const kWarningStyle = "color: #c62828;";

QString sizeText(const QSize& s) {
    return QString("%1x%2").arg(s.width()).arg(s.height());
}

}  // namespace

std::vector<QSize> CostMeter::commonSizes() {
    // CIFAR, small ImageNet variants, ResNet/ViT, Inception, larger classifiers, detection inputs.
    return {{32, 32},   {64, 64},   {128, 128}, {224, 224}, {256, 256},
            {299, 299}, {384, 384}, {512, 512}, {640, 640}, {1024, 1024}};
}

QString CostMeter::formatRate(double ips) {
    if (!(ips > 0)) return QStringLiteral("0");
    if (ips >= 100) {
        // Three significant digits: the measurement is not more precise than that.
        const double unit = std::pow(10.0, std::floor(std::log10(ips)) - 2);
        return QLocale().toString(qint64(std::llround(ips / unit) * std::llround(unit)));
    }
    return QLocale().toString(ips, 'f', ips >= 10 ? 1 : 2);
}

QString CostMeter::formatMilliseconds(double ms) {
    const int decimals = ms >= 100 ? 0 : ms >= 10 ? 1 : ms >= 1 ? 2 : 3;
    return QLocale().toString(ms, 'f', decimals);
}

CostMeter::CostMeter(QWidget* parent) : QWidget(parent) {
    QSettings settings;
    const QSize saved = settings.value(kSizeKey, QSize(224, 224)).toSize();
    if (saved.width() >= kMinSide && saved.height() >= kMinSide && saved.width() <= kMaxSide &&
        saved.height() <= kMaxSide)
        trainingSize_ = saved;
    trainingRate_ = std::max(0.0, settings.value(kRateKey, 0.0).toDouble());

    settle_.setSingleShot(true);
    settle_.setInterval(400);
    connect(&settle_, &QTimer::timeout, this, &CostMeter::startMeasurement);
    connect(&service_, &CostService::backendMeasured, this, &CostMeter::showResult, Qt::QueuedConnection);
    connect(&service_, &CostService::requestFinished, this, &CostMeter::finished, Qt::QueuedConnection);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->setSpacing(4);

    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(new QLabel(tr("Training size"), this));
    sizeCombo_ = new QComboBox(this);
    sizeCombo_->setObjectName("trainingSize");
    for (const QSize& s : commonSizes())
        sizeCombo_->addItem(QString("%1 x %2").arg(s.width()).arg(s.height()), s);
    sizeCombo_->addItem(tr("Custom…"), QSize());
    sizeCombo_->setToolTip(tr("The size the training loader resizes every image to before augmenting it"));
    sizeRow->addWidget(sizeCombo_);
    customWidth_ = new QSpinBox(this);
    customHeight_ = new QSpinBox(this);
    customWidth_->setObjectName("trainingWidth");
    customHeight_->setObjectName("trainingHeight");
    for (QSpinBox* s : {customWidth_, customHeight_}) {
        s->setRange(kMinSide, kMaxSide);
        s->setKeyboardTracking(false);  // a typed size is measured once, when it is complete
    }
    customWidth_->setToolTip(tr("Width in pixels"));
    customHeight_->setToolTip(tr("Height in pixels"));
    sizeRow->addWidget(customWidth_);
    sizeRow->addWidget(customHeight_);
    sizeRow->addStretch();
    layout->addLayout(sizeRow);

    auto* rateRow = new QHBoxLayout;
    auto* rateLabel = new QLabel(tr("Training step uses"), this);
    rateRow->addWidget(rateLabel);
    rateSpin_ = new QDoubleSpinBox(this);
    rateSpin_->setObjectName("trainingRate");
    rateSpin_->setRange(0, 1e7);
    rateSpin_->setDecimals(0);
    rateSpin_->setSingleStep(100);
    rateSpin_->setSuffix(tr(" img/s"));
    rateSpin_->setSpecialValueText(tr("not set"));
    rateSpin_->setKeyboardTracking(false);
    rateSpin_->setValue(trainingRate_);
    const QString rateTip =
        tr("Images per second your training step consumes (batch size x steps per second). "
           "A backend slower than this is shown in red: augmentation would starve the GPU.");
    rateLabel->setToolTip(rateTip);
    rateSpin_->setToolTip(rateTip);
    rateRow->addWidget(rateSpin_);
    rateRow->addStretch();
    layout->addLayout(rateRow);

    auto* table = new QGridLayout;
    table->setHorizontalSpacing(12);
    table->setVerticalSpacing(2);
    const QStringList headers{tr("Backend"), tr("images/s"), tr("ms/image")};
    for (int c = 0; c < headers.size(); ++c) {
        auto* h = new QLabel(QString("<b>%1</b>").arg(headers[c]), this);
        table->addWidget(h, 0, c, c == 0 ? Qt::AlignLeft : Qt::AlignRight);
        if (c == 1) h->setToolTip(tr("Median images per second over the timed batches"));
        if (c == 2)
            h->setToolTip(
                tr("1000 / images per second: the time an image costs with the whole backend busy "
                   "(every CPU thread working), not the latency of one image alone"));
    }
    auto* reasons = new QVBoxLayout;
    reasons->setSpacing(0);
    int r = 1;
    for (const BackendInfo& info : backendInfos()) {
        Row row;
        row.name = QString::fromStdString(info.name);
        row.available = info.available;
        row.detail = QString::fromStdString(info.detail);
        auto* name = new QLabel(row.name.toUpper(), this);
        name->setToolTip(row.detail);
        table->addWidget(name, r, 0);
        row.rate = new QLabel(this);
        row.rate->setObjectName("cost_" + row.name);
        row.ms = new QLabel(this);
        if (!row.available) {
            // The whole reason, wrapped: it is the useful part.
            row.ms->setWordWrap(true);
            row.ms->setTextInteractionFlags(Qt::TextSelectableByMouse);
        }
        row.ms->setObjectName("cost_" + row.name + "_ms");
        if (row.available) {
            row.rate->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
            row.ms->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table->addWidget(row.rate, r, 1);
            table->addWidget(row.ms, r, 2);
        } else {
            // The reason is the useful part: it gets lines of its own, under the table.
            table->addWidget(row.rate, r, 1, 1, 2, Qt::AlignRight | Qt::AlignVCenter);
            reasons->addWidget(row.ms);
        }
        ++r;
        rows_.push_back(row);
    }
    table->setColumnStretch(0, 0);
    table->setColumnStretch(1, 1);
    table->setColumnStretch(2, 1);
    layout->addLayout(table);
    layout->addLayout(reasons);

    status_ = new QLabel(this);
    status_->setObjectName("costStatus");
    status_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    status_->setMinimumHeight(2 * status_->fontMetrics().lineSpacing() + 2);  // no jump between messages
    layout->addWidget(status_);
    layout->addStretch();

    for (Row& row : rows_) showRow(row);
    selectSizeInList();
    setStatus(tr("Measures augmentation once an image and a pipeline are set."));
    updateSummary();

    connect(sizeCombo_, &QComboBox::currentIndexChanged, this, [this](int) {
        const QSize s = sizeCombo_->currentData().toSize();
        const bool custom = !s.isValid();
        customWidth_->setVisible(custom);
        customHeight_->setVisible(custom);
        setTrainingSize(custom ? QSize(customWidth_->value(), customHeight_->value()) : s);
    });
    for (QSpinBox* s : {customWidth_, customHeight_})
        connect(s, &QSpinBox::valueChanged, this,
                [this](int) { setTrainingSize(QSize(customWidth_->value(), customHeight_->value())); });
    connect(rateSpin_, &QDoubleSpinBox::valueChanged, this, &CostMeter::setTrainingRate);
}

CostMeter::~CostMeter() = default;

void CostMeter::selectSizeInList() {
    const QSignalBlocker b0(sizeCombo_), b1(customWidth_), b2(customHeight_);
    customWidth_->setValue(trainingSize_.width());
    customHeight_->setValue(trainingSize_.height());
    int i = sizeCombo_->findData(trainingSize_);
    const bool custom = i < 0;
    if (custom) i = sizeCombo_->count() - 1;
    sizeCombo_->setCurrentIndex(i);
    customWidth_->setVisible(custom);
    customHeight_->setVisible(custom);
}

void CostMeter::setTrainingSize(const QSize& size) {
    const QSize s(std::clamp(size.width(), kMinSide, kMaxSide),
                  std::clamp(size.height(), kMinSide, kMaxSide));
    // While "Custom…" is chosen and its fields are edited, the list stays on it even at a listed size.
    const bool fromCustomFields = !sizeCombo_->currentData().toSize().isValid() &&
                                  s == QSize(customWidth_->value(), customHeight_->value());
    const bool changed = s != trainingSize_;
    trainingSize_ = s;
    if (!fromCustomFields) selectSizeInList();
    if (!changed) return;
    QSettings().setValue(kSizeKey, s);
    schedule();
}

void CostMeter::setTrainingRate(double imagesPerSecond) {
    imagesPerSecond = std::max(0.0, imagesPerSecond);
    if (rateSpin_->value() != imagesPerSecond) {
        const QSignalBlocker block(rateSpin_);
        rateSpin_->setValue(imagesPerSecond);
    }
    if (imagesPerSecond == trainingRate_) return;
    trainingRate_ = imagesPerSecond;
    QSettings().setValue(kRateKey, trainingRate_);
    for (Row& row : rows_) showRow(row);  // only the colours change: nothing to measure again
    updateSummary();
    if (!outdated_ && shownGeneration_ == generation_ && generation_ > 0) showMeasuredStatus();
}

void CostMeter::setPipeline(const Pipeline& pipeline, std::uint64_t seed) {
    seed_ = seed;  // the cost does not depend on which samples are drawn: a new seed is not re-measured
    if (hasPipeline_ && pipeline == pipeline_) return;
    pipeline_ = pipeline;
    hasPipeline_ = true;
    schedule();
}

void CostMeter::setSourceFile(const QString& file) {
    if (file == sourceFile_) return;
    sourceFile_ = file;
    schedule();
}

void CostMeter::schedule() {
    if (!hasPipeline_) return;
    // What is shown describes a pipeline or size that is no longer current: grey it, stop a
    // measurement in flight (it would only compete with the grid for the CPU) and wait for calm.
    outdated_ = true;
    service_.cancel();
    for (Row& row : rows_) showRow(row);
    setStatus(tr("Waiting for the pipeline to settle…"));
    updateSummary();  // "measuring…" before the first numbers
    settle_.start();
}

void CostMeter::startMeasurement() {
    CostRequest r;
    r.generation = ++generation_;
    r.pipeline = pipeline_;
    r.seed = seed_;
    r.trainingSize = trainingSize_;
    r.sourceFile = sourceFile_;
    for (const Row& row : rows_)
        if (row.available) r.backends << row.name;
    outdated_ = false;
    setStatus(tr("Measuring augmentation at %1…").arg(sizeText(trainingSize_)));
    service_.submit(std::move(r));
    emit measurementStarted(generation_);
}

void CostMeter::showResult(const CostResult& r) {
    if (r.generation != generation_ || outdated_) return;  // a pipeline that is no longer current
    results_[r.backend] = r;
    for (Row& row : rows_)
        if (row.name == r.backend) showRow(row);
    updateSummary();
}

void CostMeter::finished(quint64 generation, bool completed) {
    if (!completed || generation != generation_ || outdated_) return;
    shownGeneration_ = generation;
    showMeasuredStatus();
    emit measured(generation);
}

void CostMeter::showMeasuredStatus() {
    // Two short lines with explicit breaks, no word wrap: the dock then knows the height they need.
    const QString size = sizeText(trainingSize_);
    if (!starving_) {
        setStatus(tr("Augmentation only, %1 in and out;<br>decode and resize excluded (hover for details).")
                      .arg(size));
        return;
    }
    setStatus(tr("Augmentation only, %1; decode and resize excluded.").arg(size) + "<br><span style='" +
              QString(kWarningStyle) + "'>" +
              tr("Below the %1 img/s training uses: the GPU would starve.").arg(formatRate(trainingRate_)) +
              "</span>");
}

const CostResult* CostMeter::result(const QString& backend) const {
    auto it = results_.find(backend);
    return it == results_.end() ? nullptr : &it->second;
}

void CostMeter::showRow(Row& row) {
    auto set = [](QLabel* label, const QString& text, const QString& tip) {
        label->setText(text);
        label->setToolTip(tip);
    };
    if (!row.available) {
        set(row.rate, tr("unavailable"), row.detail);
        set(row.ms, row.name.toUpper() + ": " + row.detail, row.detail);
        row.rate->setEnabled(false);
        row.ms->setEnabled(false);
        return;
    }
    const CostResult* r = result(row.name);
    if (!r) {
        set(row.rate, QStringLiteral("…"), tr("Not measured yet"));
        set(row.ms, QString(), QString());
    } else if (!r->ok) {
        set(row.rate, tr("failed"), r->error);
        set(row.ms, r->error.left(40), r->error);
    } else {
        const QString tip = describe(*r);
        set(row.rate, formatRate(r->imagesPerSecond), tip);
        set(row.ms, formatMilliseconds(r->msPerImage), tip);
    }
    const bool slow = r && r->ok && trainingRate_ > 0 && r->imagesPerSecond < trainingRate_;
    row.rate->setStyleSheet(slow ? kWarningStyle : "");
    row.ms->setStyleSheet(slow ? kWarningStyle : "");
    // Greyed until this row has a result of the current pipeline and size.
    const bool current = r && !outdated_ && r->generation == generation_;
    row.rate->setEnabled(current);
    row.ms->setEnabled(current);
}

QString CostMeter::describe(const CostResult& r) const {
    QString how =
        tr("%1: augmentation only (decoding and resizing excluded): %2 %3 input (%4, resized) to %2 "
           "outputs, the pipeline of %5 ops; median images/s over %6 batches of %7 different samples "
           "(%8 images timed after a warm-up).")
            .arg(r.backend.toUpper(), sizeText(r.trainingSize), r.channels == 4 ? "RGBA" : "RGB", r.source)
            .arg(r.pipeline.size())
            .arg(r.batches)
            .arg(r.batchSize)
            .arg(r.images);
    if (r.threads > 0)
        how += " " + (r.threads == 1 ? tr("1 CPU thread.") : tr("%1 CPU threads.").arg(r.threads));
    for (const Row& row : rows_)
        if (row.name == r.backend && r.threads == 0) how += " " + row.detail + ".";
    if (r.backend != "cpu") {
        // Host steps run on the CPU inside the GPU's plan (read back, run, uploaded).
        QStringList onCpu;
        const auto onHost = [&](const OpConfig& op) {
            const OpDesc& d = op.desc();
            if (!op.enabled || !(d.runsOnHost || (r.backend == "gl" && d.runsOnHostGl))) return false;
            if (!d.runsOnHostWhen) return true;
            const std::string when = d.runsOnHostWhen;  // "key value": a choice's value
            const std::size_t space = when.find(' ');
            return op.choice(when.substr(0, space)) == when.substr(space + 1);
        };
        for (const OpConfig& op : r.pipeline)
            if (onHost(op)) onCpu << QString::fromStdString(op.name());
        onCpu.removeDuplicates();
        if (!onCpu.isEmpty())
            how += " " + tr("%1 runs on the CPU on this backend (the image read back, processed on the CPU, "
                            "uploaded).")
                             .arg(onCpu.join(", "));
    }
    return how;
}

void CostMeter::updateSummary() {
    // The fastest backend of the newest measurement with a number (rows of an older one may still
    // be on screen while a new one is under way).
    quint64 newest = 0;
    for (const auto& [name, r] : results_)
        if (r.ok) newest = std::max(newest, r.generation);
    const CostResult* best = nullptr;
    for (const auto& [name, r] : results_)
        if (r.ok && r.generation == newest && (!best || r.imagesPerSecond > best->imagesPerSecond)) best = &r;
    QString text, tip;
    bool starving = false;
    if (!best) {
        text = hasPipeline_ ? tr("Augmentation: measuring…") : QString();
        tip = tr("The cost meter measures the pipeline's images/s at the training size");
    } else {
        // Says which backend the figure is of: the fastest measured, not necessarily the grid's.
        text = tr("Augmentation %1 img/s at %3 (fastest: %2)")
                   .arg(formatRate(best->imagesPerSecond), best->backend.toUpper(),
                        sizeText(best->trainingSize));
        tip = describe(*best);
        starving = trainingRate_ > 0 && best->imagesPerSecond < trainingRate_;
        if (starving) {
            text += tr(" < %1 needed").arg(formatRate(trainingRate_));
            tip +=
                "\n" + tr("The training step uses %1 images/s: augmentation would starve the training GPU.")
                           .arg(formatRate(trainingRate_));
        }
    }
    if (text == summary_ && tip == summaryToolTip_ && starving == starving_) return;
    summary_ = text;
    summaryToolTip_ = tip;
    starving_ = starving;
    emit summaryChanged();
}

void CostMeter::setStatus(const QString& text) {
    status_->setText(text);
}

}  // namespace auglab
