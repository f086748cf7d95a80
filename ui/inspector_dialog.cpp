#include "inspector_dialog.h"

#include <QPainter>

#include <QClipboard>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "image_io.h"

namespace auglab {

InspectorDialog::InspectorDialog(QWidget* parent) : QDialog(parent) {
    setObjectName("inspector");
    resize(1000, 700);
    auto* layout = new QHBoxLayout(this);
    auto* scroll = new QScrollArea(this);
    picture_ = new QLabel(scroll);
    picture_->setAlignment(Qt::AlignCenter);
    scroll->setWidget(picture_);
    scroll->setWidgetResizable(true);
    layout->addWidget(scroll, 3);
    auto* side = new QVBoxLayout;
    replay_ = new QPlainTextEdit(this);
    replay_->setObjectName("replay");
    replay_->setReadOnly(true);
    replay_->setLineWrapMode(QPlainTextEdit::NoWrap);
    // Where the two differ: tiles are drawn at their size from pre-filtered source levels, this
    // output from the source itself, as training gets it.
    auto* note =
        new QLabel(tr("Full resolution, resampled from the source itself as <code>auglab-cli apply</code>, "
                      "<code>augment</code> and the exported pipeline do it. The grid's tiles are drawn at "
                      "their size from averaged levels of the source, so edges there can look smoother."),
                   this);
    note->setObjectName("fullResolutionNote");
    note->setWordWrap(true);
    side->addWidget(note);
    labelWeights_ = new QLabel(this);
    labelWeights_->setObjectName("labelWeights");
    labelWeights_->setWordWrap(true);
    labelWeights_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    labelWeights_->hide();
    side->addWidget(labelWeights_);
    annotations_ = new QLabel(this);
    annotations_->setObjectName("annotations");
    annotations_->setWordWrap(true);
    annotations_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    annotations_->hide();
    side->addWidget(annotations_);
    side->addWidget(new QLabel(tr("Concrete parameters (replay JSON):"), this));
    side->addWidget(replay_, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto* copy = buttons->addButton(tr("Copy replay"), QDialogButtonBox::ActionRole);
    auto* save = buttons->addButton(tr("Save image…"), QDialogButtonBox::ActionRole);
    connect(copy, &QPushButton::clicked, this, [this] {
        QGuiApplication::clipboard()->setText(replayText());
        confirmation_->setText(
            tr("Replay copied to the clipboard (%1 characters).").arg(replayText().size()));
    });
    connect(save, &QPushButton::clicked, this, &InspectorDialog::saveImage);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    confirmation_ = new QLabel(this);
    confirmation_->setObjectName("confirmation");
    confirmation_->setWordWrap(true);
    side->addWidget(confirmation_);
    side->addWidget(buttons);
    layout->addLayout(side, 2);
}

void InspectorDialog::showSample(const QString& title, const QImage& image, const QString& replayJson,
                                 const QString& labelWeights) {
    setWindowTitle(title);
    confirmation_->clear();
    labelWeights_->setText(labelWeights);
    labelWeights_->setVisible(!labelWeights.isEmpty());
    image_ = image;
    overlay_ = QImage();
    annotations_->hide();
    picture_->setPixmap(QPixmap::fromImage(image));
    replay_->setPlainText(replayJson);
    show();
    raise();
}

void InspectorDialog::setAnnotations(const QImage& overlay, const QString& listing) {
    overlay_ = overlay;
    annotations_->setText(listing);
    annotations_->setVisible(!listing.isEmpty());
    QImage shown = image_.convertToFormat(QImage::Format_ARGB32_Premultiplied);
    if (!overlay.isNull()) {
        QPainter p(&shown);
        p.drawImage(0, 0, overlay);
    }
    picture_->setPixmap(QPixmap::fromImage(shown));
}

QString InspectorDialog::annotationsText() const {
    return annotations_->text();
}

QString InspectorDialog::replayText() const {
    return replay_->toPlainText();
}

QString InspectorDialog::labelWeightsText() const {
    return labelWeights_->text();
}

void InspectorDialog::saveImage() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save image"), suggestedName_.isEmpty() ? "sample.png" : suggestedName_,
        tr("Images (*.png *.jpg *.jpeg)"));
    if (!path.isEmpty()) saveImageTo(path);
}

bool InspectorDialog::saveImageTo(QString path) {
    if (QFileInfo(path).suffix().isEmpty()) path += ".png";  // a name typed without an extension
    // Written by the engine, atomically, exactly as auglab-cli apply writes it.
    Image img(image_.width(), image_.height(), image_.hasAlphaChannel() ? 4 : 3);
    const QImage src =
        image_.convertToFormat(img.channels == 4 ? QImage::Format_RGBA8888 : QImage::Format_RGB888);
    for (int y = 0; y < img.height; ++y)
        std::copy(src.constScanLine(y), src.constScanLine(y) + img.width * img.channels, img.row(y));
    try {
        auglab::saveImage(path.toStdString(), img);
    } catch (const std::exception& e) {
        confirmation_->setText(tr("Not saved: %1").arg(QString::fromUtf8(e.what())));
        QMessageBox::warning(this, tr("Save image"), QString::fromUtf8(e.what()));
        return false;
    }
    confirmation_->setText(tr("Saved %1 (%2 x %3)").arg(path).arg(img.width).arg(img.height));
    return true;
}

QString InspectorDialog::confirmationText() const {
    return confirmation_->text();
}

}  // namespace auglab
