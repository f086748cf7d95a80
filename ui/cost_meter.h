#pragma once
// The cost meter (SPEC §6): measured images/s of the current pipeline on each backend available in
// this session, at the training size, so the user sees whether augmentation would starve the
// training GPU. Measuring waits until the pipeline has been still for a moment (a slider drag
// measures once, after it settles), runs on CostService's thread, and drops results of any
// pipeline that is no longer the current one. The training size and the rate the training step
// consumes are remembered between sessions.

#include <cstdint>
#include <map>
#include <vector>

#include <QSize>
#include <QTimer>
#include <QWidget>

#include "cost_service.h"
#include "pipeline.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace auglab {

class CostMeter : public QWidget {
    Q_OBJECT

public:
    explicit CostMeter(QWidget* parent = nullptr);
    ~CostMeter() override;

    /// The pipeline to measure (the seed only chooses which samples are timed). Measured once it has
    /// not changed for debounceMs(); setting the same pipeline again does nothing.
    void setPipeline(const Pipeline& pipeline, std::uint64_t seed);
    /// The image that is resized to the training size and augmented ("" : a generated picture).
    void setSourceFile(const QString& file);

    QSize trainingSize() const { return trainingSize_; }
    void setTrainingSize(const QSize& size);
    /// Images/s the user's training step consumes (0: not set). Slower augmentation is shown in red.
    double trainingRate() const { return trainingRate_; }
    void setTrainingRate(double imagesPerSecond);

    int debounceMs() const { return settle_.interval(); }
    void setDebounceMs(int ms) { settle_.setInterval(ms); }

    /// The newest measurement started, and the newest one whose every backend is shown.
    quint64 generation() const { return generation_; }
    quint64 shownGeneration() const { return shownGeneration_; }
    /// The rows show a finished measurement of the current pipeline, image and training size.
    bool isCurrent() const { return !outdated_ && generation_ > 0 && shownGeneration_ == generation_; }
    /// What a backend's row shows now ("cpu", "gl", "cuda"); null before its first result.
    const CostResult* result(const QString& backend) const;
    /// The status bar's line: the fastest backend's rate; red when it is slower than trainingRate().
    QString summary() const { return summary_; }
    QString summaryToolTip() const { return summaryToolTip_; }
    bool starving() const { return starving_; }

    static QString formatRate(double imagesPerSecond);
    static QString formatMilliseconds(double ms);
    /// The training sizes offered in the list (the custom one aside).
    static std::vector<QSize> commonSizes();

signals:
    void measurementStarted(quint64 generation);
    /// Every available backend shows its result for `generation`.
    void measured(quint64 generation);
    void summaryChanged();

private:
    struct Row {
        QString name;
        bool available = false;
        QString detail;  ///< from backendInfos(): threads, renderer, device, or why unavailable
        QLabel* rate = nullptr;
        QLabel* ms = nullptr;
    };

    void schedule();
    void startMeasurement();
    void showResult(const CostResult& r);
    void finished(quint64 generation, bool completed);
    void showMeasuredStatus();
    void showRow(Row& row);
    void updateSummary();
    void setStatus(const QString& text);
    QString describe(const CostResult& r) const;
    void selectSizeInList();

    CostService service_;
    QTimer settle_;
    std::vector<Row> rows_;
    std::map<QString, CostResult> results_;
    Pipeline pipeline_;
    std::uint64_t seed_ = 0;
    bool hasPipeline_ = false;
    QString sourceFile_;
    QSize trainingSize_{224, 224};
    double trainingRate_ = 0;
    quint64 generation_ = 0;
    quint64 shownGeneration_ = 0;
    bool outdated_ = false;
    QString summary_, summaryToolTip_;
    bool starving_ = false;

    QComboBox* sizeCombo_ = nullptr;
    QSpinBox* customWidth_ = nullptr;
    QSpinBox* customHeight_ = nullptr;
    QDoubleSpinBox* rateSpin_ = nullptr;
    QLabel* status_ = nullptr;
};

}  // namespace auglab
