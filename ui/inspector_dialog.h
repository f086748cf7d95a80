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
    void showSample(const QString& title, const QImage& image, const QString& replayJson);
    QString replayText() const;
    const QImage& image() const { return image_; }

private:
    void saveImage();

    QLabel* picture_ = nullptr;
    QPlainTextEdit* replay_ = nullptr;
    QImage image_;
};

}  // namespace auglab
