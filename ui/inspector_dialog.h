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
    /// The sample's labels as its ops moved them: `overlay` (transparent, the image's size) is drawn
    /// over the picture on screen only (Save image writes the sample alone), `listing` (HTML) lists
    /// them, the dropped ones with the rule that dropped them. Call after showSample; an empty
    /// overlay removes them.
    void setAnnotations(const QImage& overlay, const QString& listing);
    QString annotationsText() const;
    const QImage& annotationsOverlay() const { return overlay_; }
    QString labelWeightsText() const;
    /// The file name Save image suggests (e.g. "chelsea_sample12.png").
    void setSuggestedName(const QString& name) { suggestedName_ = name; }
    /// What the last save or copy did ("Saved …", "Replay copied …"), shown in the dialog.
    QString confirmationText() const;
    /// Writes the image to `path` (".png" added when it has no extension); false with a message when
    /// it cannot be written.
    bool saveImageTo(QString path);
    const QImage& image() const { return image_; }

private:
    void saveImage();

    QLabel* picture_ = nullptr;
    QPlainTextEdit* replay_ = nullptr;
    QLabel* labelWeights_ = nullptr;
    QLabel* annotations_ = nullptr;
    QImage overlay_;
    QLabel* confirmation_ = nullptr;
    QString suggestedName_;
    QImage image_;
};

}  // namespace auglab
