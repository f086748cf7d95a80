#pragma once
// One sample at full resolution (exactly what `auglab-cli apply` writes) with every concrete
// parameter, copyable as replay JSON.

#include <QDialog>
#include <QImage>

class QLabel;
class QPlainTextEdit;

namespace auglab {

class InspectorDialog : public QDialog {
    Q_OBJECT

public:
    explicit InspectorDialog(QWidget* parent = nullptr);
    /// `labelWeights`: what a training loss weighs the labels by (mixing ops), or empty.
    void showSample(const QString& title, const QImage& image, const QString& replayJson,
                    const QString& labelWeights = {});
    QString replayText() const;
    QString labelWeightsText() const;
    const QImage& image() const { return image_; }

private:
    void saveImage();

    QLabel* picture_ = nullptr;
    QPlainTextEdit* replay_ = nullptr;
    QLabel* labelWeights_ = nullptr;
    QImage image_;
};

}  // namespace auglab
