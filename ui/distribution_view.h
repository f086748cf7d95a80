#pragma once
// A histogram of the values drawn for one parameter across the tiles of the grid, so the user sees
// what a range really produces (and how often the op applied at all).

#include <vector>

#include <QWidget>

namespace auglab {

class DistributionView : public QWidget {
    Q_OBJECT

public:
    explicit DistributionView(QWidget* parent = nullptr);

    /// `values`: the drawn values; `applied`/`samples`: how many tiles applied the op of `samples`;
    /// [lower, upper]: the configured range (the x axis).
    void setData(const QString& title, std::vector<double> values, int applied, int samples, double lower,
                 double upper);
    void clear(const QString& hint);
    const std::vector<int>& bins() const { return bins_; }

    QSize sizeHint() const override { return {300, 160}; }
    QSize minimumSizeHint() const override { return {160, 100}; }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    QString title_;
    QString caption_;
    std::vector<int> bins_;
    double lower_ = 0, upper_ = 0;
};

}  // namespace auglab
