// The window on images and dataset folders, under Xvfb: opening, paging, the image strip, files
// that cannot be read, dropped files, partners of the mixing ops, the inspector, and a labelled
// folder's boxes, keypoints and masks on the tiles.

#include <QAction>
#include <QApplication>
#include <QBuffer>
#include <QCheckBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QSurfaceFormat>
#include <QTemporaryDir>
#include <QToolBar>
#include <QToolButton>
#include <QToolTip>
#include <QtTest>

#include "backend_registry.h"
#include "contact_sheet.h"
#include "cpu_backend.h"
#include "cuda_backend.h"
#include "distribution_view.h"
#include "export_dialog.h"
#include "image_io.h"
#include "inspector_dialog.h"
#include "main_window.h"
#include "op_panel.h"
#include "pipeline_editor.h"
#include "preset.h"
#include "preview_grid.h"
#include "range_slider.h"
#include "render_service.h"
#include "replay.h"
#include "target_rules_dialog.h"
#include "targets.h"

#include "gui_test_support.h"

using namespace auglab;
using namespace auglab::testing;

class TestGuiImages : public GuiSuite {
    Q_OBJECT

private slots:
    void openFolderFillsDatasetMode();
    void clickOpensInspectorWithReplay();
    void mixTakesPartnersAndShowsLabelWeights();
    void unreadableFileGetsAPlaceholder();
    void unreadableImageAloneLeavesTheGridLive();
    void imageStripPicksTheImageShown();
    void inspectorNamesItsSourceAndConfirmsSaves();
    void droppingFilesOpensThem();
    void hugeFolderOpensAtOnce();
    void labelledFolderDrawsLabelsThatFollowTheSamples();
    void mosaicTilesBringTheirPartnersLabels();
};

void TestGuiImages::openFolderFillsDatasetMode() {
    QTemporaryDir folder;
    for (const char* f : {"astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg"})
        QVERIFY(QFile::copy(sample(f), folder.filePath(f)));
    auto w = makeWindow();
    QVERIFY(w);
    QVERIFY(w->openFolder(folder.path()));
    QVERIFY(waitForGrid(*w));
    QCOMPARE(w->mode(), SheetMode::Dataset);
    QCOMPARE(w->files().size(), 4);
    // One sample of each image, in name order; the other cells are empty.
    QList<int> widths;
    for (const SheetTile& t : w->shownTiles())
        if (t.sourceIndex >= 0) widths << t.replay.imageWidth;
    QCOMPARE(widths, (QList<int>{512, 451, 600, 640}));
}

void TestGuiImages::clickOpensInspectorWithReplay() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("rocket.jpg")});
    QVERIFY(w->setBackend("cpu"));
    QVERIFY(waitForGrid(*w));
    const SheetTile tile = w->shownTiles()[9];
    QTest::mouseClick(w->grid(), Qt::LeftButton, {}, w->grid()->tileCentre(9));
    QTRY_VERIFY_WITH_TIMEOUT(w->inspector()->isVisible(), 10000);
    QCOMPARE(w->inspector()->image().size(), QSize(640, 427));  // full resolution
    QCOMPARE(parseReplay(w->inspector()->replayText().toStdString()), tile.replay);
    // The pixels are apply's (the whole decode, resampled from the source), and the dialog says how
    // they differ from the tile's.
    SourceLevels source(loadImage(sample("rocket.jpg").toStdString()).image);
    CpuBackend cpu(1);
    const Image applied =
        renderSample(w->document()->preset().pipeline, source, tile.replay.seed, tile.sampleIndex, cpu);
    QCOMPARE(w->inspector()->image().convertToFormat(QImage::Format_RGB888),
             RenderService::toQImage(applied).convertToFormat(QImage::Format_RGB888));
    auto* note = w->inspector()->findChild<QLabel*>("fullResolutionNote");
    QVERIFY(note && note->isVisible() && note->text().contains("averaged levels"));
}

void TestGuiImages::mixTakesPartnersAndShowsLabelWeights() {
    // mixup and cutmix in the window: with one image the status bar says why nothing changes; with
    // three loaded, a sample's partner is another of them, and the inspector shows both label weights.
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("chelsea.png")});
    QVERIFY(w->setBackend("cpu"));
    Preset mix;
    mix.seed = 4;
    mix.pipeline = {OpConfig::withDefaults("cutmix")};
    w->document()->newDocument(mix);
    QTRY_VERIFY_WITH_TIMEOUT(w->statusMessage().contains("its partner is itself"), 10000);
    w->openImages({sample("chelsea.png"), sample("coffee.png"), sample("astronaut.png")});
    // The dataset grid (a grid of the single image may still arrive first).
    QTRY_VERIFY_WITH_TIMEOUT(w->shownTiles().size() > 1 && w->shownTiles()[1].sourceIndex == 1, 10000);
    const SheetTile tile = w->shownTiles()[1];  // dataset mode: coffee.png
    QCOMPARE(tile.replay.ops.size(), std::size_t(1));
    const auto& m = std::get<MixParams>(tile.replay.ops[0].params);
    QCOMPARE(m.partners, std::uint64_t{3});
    QVERIFY(m.partner == 0 || m.partner == 2);  // never the tile's own image
    QTest::mouseClick(w->grid(), Qt::LeftButton, {}, w->grid()->tileCentre(1));
    QTRY_VERIFY_WITH_TIMEOUT(w->inspector()->isVisible(), 10000);
    QCOMPARE(parseReplay(w->inspector()->replayText().toStdString()), tile.replay);
    const QString weights = w->inspector()->labelWeightsText();
    QVERIFY2(weights.contains(QString::number(m.effectiveLambda, 'f', 3)) &&
                 weights.contains(m.partner == 0 ? "chelsea.png" : "astronaut.png"),
             qPrintable(weights));
}

void TestGuiImages::unreadableFileGetsAPlaceholder() {
    // A dataset with a file that cannot be decoded: its cell is a placeholder whose tooltip says
    // why, and the status bar keeps "1 skipped" with the list.
    QTemporaryDir folder;
    QVERIFY(QFile::copy(sample("chelsea.png"), folder.filePath("a.png")));
    QFile bad(folder.filePath("b.png"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    QFile good(sample("coffee.png"));
    QVERIFY(good.open(QIODevice::ReadOnly));
    bad.write(good.read(300));  // truncated
    bad.close();
    QVERIFY(QFile::copy(sample("coffee.png"), folder.filePath("c.png")));
    auto w = makeWindow();
    QVERIFY(w);
    QVERIFY(w->setBackend("cpu"));
    QVERIFY(w->openFolder(folder.path()));
    QTRY_VERIFY_WITH_TIMEOUT(!w->grid()->placeholders().empty(), 10000);
    QCOMPARE(w->grid()->placeholders(), std::vector<int>{1});
    QCOMPARE(w->skippedImages().size(), 1);
    QVERIFY2(w->skippedImages()[0].startsWith("b.png") && w->skippedImages()[0].contains("b.png: "),
             qPrintable(w->skippedImages()[0]));
    auto* button = w->statusBar()->findChild<QToolButton*>("skipped");
    QVERIFY(button && button->isVisible() && button->text() == "1 skipped");
    // The placeholder is drawn: its dark red fills the cell, off its centred sign.
    const QImage shot = w->grid()->grabFramebuffer();
    const QPoint c = w->grid()->tileCentre(1) * shot.devicePixelRatio();
    const QColor cell = shot.pixelColor(c + QPoint(int(shot.width() / 50), int(shot.height() / 30)));
    QVERIFY2(cell.red() > cell.green() + 15 && cell.red() > 50, qPrintable(cell.name()));
}

void TestGuiImages::unreadableImageAloneLeavesTheGridLive() {
    // A truncated JPEG opened after a good image: every cell is a placeholder that says why (the
    // decoder's message), not the previous image's samples frozen on screen. Edits, the grid size
    // and the mode render again (placeholders still), a good image opened next is shown, and with
    // several images loaded the good ones render beside the bad one.
    QTemporaryDir folder;
    const QString cut = folder.filePath("cut.jpg");
    {
        QFile good(sample("rocket.jpg"));
        QVERIFY(good.open(QIODevice::ReadOnly));
        const QByteArray bytes = good.readAll();
        QFile bad(cut);
        QVERIFY(bad.open(QIODevice::WriteOnly));
        QVERIFY(bad.write(bytes.left(bytes.size() / 2)) == bytes.size() / 2);  // a download cut short
    }
    auto w = makeWindow();
    QVERIFY(w);
    QVERIFY(w->setBackend("cpu"));
    QVERIFY(w->openImages({sample("rocket.jpg")}));
    QVERIFY(waitForGrid(*w));
    QVERIFY(w->grid()->placeholders().empty());
    auto placeholdersOf = [&](const QString& file) {
        // The tiles shown, when every one is a placeholder of `file` (a load error names its
        // file); -1 otherwise.
        const auto& tiles = w->shownTiles();
        int n = 0;
        for (std::size_t i = 0; i < tiles.size(); ++i) {
            if (tiles[i].sourceIndex < 0) continue;
            if (!QString::fromStdString(tiles[i].error).contains(QFileInfo(file).fileName())) return -1;
            ++n;
        }
        return int(w->grid()->placeholders().size()) == n && w->files() == QStringList{file} ? n : -1;
    };

    QVERIFY(w->openImages({cut}));
    QTRY_COMPARE_WITH_TIMEOUT(placeholdersOf(cut), 64, 10000);
    for (const SheetTile& t : w->shownTiles())
        QVERIFY2(QString::fromStdString(t.error).contains("truncated JPEG"), t.error.c_str());
    // The reason is the tile's tooltip and the status bar's list of images not shown.
    const QPoint centre = w->grid()->tileCentre(9);
    QHelpEvent help(QEvent::ToolTip, centre, w->grid()->mapToGlobal(centre));
    QApplication::sendEvent(w->grid(), &help);
    QTRY_VERIFY2(QToolTip::text().contains("cut.jpg") && QToolTip::text().contains("truncated JPEG"),
                 qPrintable(QToolTip::text()));
    QCOMPARE(w->skippedImages().size(), 1);
    QVERIFY2(w->skippedImages()[0].contains("truncated JPEG"), qPrintable(w->skippedImages()[0]));
    // The placeholders are drawn: the cells are dark red, not rocket.jpg's samples.
    const QImage shot = w->grid()->grabFramebuffer();
    const QColor cell =
        shot.pixelColor(w->grid()->tileCentre(9) * shot.devicePixelRatio() + QPoint(shot.width() / 50, 0));
    QVERIFY2(cell.red() > cell.green() + 15 && cell.red() > 50, qPrintable(cell.name()));
    // No sample is shown, so none is counted: no realism figure.
    QVERIFY2(w->findChild<QLabel*>("realism")->text().isEmpty(),
             qPrintable(w->findChild<QLabel*>("realism")->text()));

    // An edit renders again.
    const quint64 shown = w->shownGeneration();
    w->document()->setParam(0, "rotate_deg", Range{-3, 3});
    QTRY_VERIFY_WITH_TIMEOUT(w->shownGeneration() > shown, 10000);
    QCOMPARE(placeholdersOf(cut), 64);
    // So do the grid size and the mode.
    w->setGrid(4, 4);
    QTRY_COMPARE_WITH_TIMEOUT(placeholdersOf(cut), 16, 10000);
    w->setMode(SheetMode::Compare);
    QTRY_VERIFY_WITH_TIMEOUT(placeholdersOf(cut) == 16 && w->shownTiles()[0].original, 10000);
    // In the cell, the decoder's words without the path.
    QVERIFY2(w->grid()->placeholderReasons().value(0).startsWith("truncated JPEG"),
             qPrintable(w->grid()->placeholderReasons().value(0)));
    // A file whose very header cannot be read: placeholders too, in the same cells.
    const QString empty = folder.filePath("empty.jpg");
    QVERIFY(QFile(empty).open(QIODevice::WriteOnly));
    QVERIFY(w->openImages({empty}));
    QTRY_COMPARE_WITH_TIMEOUT(placeholdersOf(empty), 16, 10000);
    QVERIFY2(QString::fromStdString(w->shownTiles()[0].error).contains("empty file"),
             w->shownTiles()[0].error.c_str());
    QCOMPARE(w->grid()->placeholderReasons().value(0), QString("empty file"));
    // A good image next: its samples.
    QVERIFY(w->openImages({sample("chelsea.png")}));
    QTRY_VERIFY_WITH_TIMEOUT(w->grid()->placeholders().empty() && !w->shownTiles().empty() &&
                                 w->shownTiles()[1].replay.imageWidth == 451,
                             10000);
    QVERIFY(w->skippedImages().isEmpty());

    // Several images, one of them bad: the others render, the bad one is a placeholder.
    QVERIFY(w->openImages({sample("rocket.jpg"), cut, sample("coffee.png")}));
    QCOMPARE(w->mode(), SheetMode::Dataset);
    QTRY_VERIFY_WITH_TIMEOUT(w->grid()->placeholders() == std::vector<int>{1}, 10000);
    QCOMPARE(w->shownTiles()[0].replay.imageWidth, 640);
    QVERIFY(w->shownTiles()[0].error.empty());
    QCOMPARE(w->shownTiles()[2].replay.imageWidth, 600);
    QVERIFY(w->shownTiles()[2].error.empty());
    QVERIFY2(w->findChild<QLabel*>("realism")->text().contains("of 2 tiles"),
             qPrintable(w->findChild<QLabel*>("realism")->text()));
    // The bad one picked in the strip: its samples are placeholders; the next one picked renders.
    w->setCurrentImage(1);
    QTRY_VERIFY_WITH_TIMEOUT(w->grid()->placeholders().size() == 16, 10000);
    w->setCurrentImage(2);
    QTRY_VERIFY_WITH_TIMEOUT(w->grid()->placeholders().empty() &&
                                 w->shownTiles()[0].replay.imageWidth == 600 &&
                                 w->shownTiles()[0].error.empty(),
                             10000);
}

void TestGuiImages::imageStripPicksTheImageShown() {
    auto w = makeWindow();
    QVERIFY(w);
    QVERIFY(w->setBackend("cpu"));
    w->openImages({sample("chelsea.png"), sample("coffee.png"), sample("astronaut.png")});
    auto* strip = w->findChild<QListWidget*>("imageStrip");
    QVERIFY(strip && strip->isVisible());
    QCOMPARE(strip->count(), 3);
    QTRY_VERIFY(!strip->item(2)->icon().isNull());  // thumbnails
    // A click on the third image: its samples, in the single-image mode.
    const QRect r = strip->visualItemRect(strip->item(2));
    QTest::mouseClick(strip->viewport(), Qt::LeftButton, {}, r.center());
    QCOMPARE(w->currentImage(), 2);
    QCOMPARE(w->mode(), SheetMode::Samples);
    QVERIFY(strip->item(2)->font().bold());  // marked as the one shown
    QTRY_VERIFY_WITH_TIMEOUT(!w->shownTiles().empty() && w->shownTiles()[0].replay.imageWidth == 512 &&
                                 w->shownTiles()[3].replay.imageWidth == 512,
                             10000);  // astronaut.png is 512 x 512
    // One image alone: no strip.
    w->openImages({sample("chelsea.png")});
    QVERIFY(!strip->isVisible());
}

void TestGuiImages::inspectorNamesItsSourceAndConfirmsSaves() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("chelsea.png"), sample("coffee.png")});
    QVERIFY(w->setBackend("cpu"));
    QVERIFY(waitForGrid(*w));
    QTest::mouseClick(w->grid(), Qt::LeftButton, {}, w->grid()->tileCentre(1));
    QTRY_VERIFY_WITH_TIMEOUT(w->inspector()->isVisible(), 10000);
    QVERIFY2(w->inspector()->windowTitle().contains("coffee.png"), qPrintable(w->inspector()->windowTitle()));
    const QString base = dir_->filePath("saved-sample");
    QVERIFY(w->inspector()->saveImageTo(base));  // no extension: PNG
    QVERIFY(QFile::exists(base + ".png"));
    QVERIFY2(w->inspector()->confirmationText().contains("Saved") &&
                 w->inspector()->confirmationText().contains("saved-sample.png"),
             qPrintable(w->inspector()->confirmationText()));
    // The first save of a preset suggests its own name.
    QCOMPARE(w->suggestedPresetName(), QString("default.auglab.json"));
}

void TestGuiImages::droppingFilesOpensThem() {
    auto w = makeWindow();
    QVERIFY(w);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(sample("coffee.png")), QUrl::fromLocalFile(sample("rocket.jpg"))});
    const QPoint where(w->width() / 2, w->height() / 2);
    QDragEnterEvent enter(where, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(w.get(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(where), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(w.get(), &drop);
    QCOMPARE(w->files().size(), 2);
    QCOMPARE(w->mode(), SheetMode::Dataset);  // several images: one sample of each
    QVERIFY(waitForGrid(*w));
    QCOMPARE(w->shownTiles()[1].replay.imageWidth, 640);
}

void TestGuiImages::hugeFolderOpensAtOnce() {
    // 10,000 images: the folder opens by listing names, and only the shown page is decoded.
    QTemporaryDir folder;
    // Small real photos (a 60x40 crop of chelsea.png): ten thousand files, a few MB in all.
    QByteArray png;
    {
        QBuffer buffer(&png);
        buffer.open(QIODevice::WriteOnly);
        QVERIFY(QImage(sample("chelsea.png")).copy(180, 90, 60, 40).save(&buffer, "PNG"));
    }
    for (int i = 0; i < 10000; ++i) {
        QFile f(folder.filePath(QString("img%1.png").arg(i, 5, 10, QChar('0'))));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(png);
    }
    auto w = makeWindow();
    QVERIFY(w);
    QElapsedTimer t;
    t.start();
    QVERIFY(w->openFolder(folder.path()));
    const qint64 openMs = t.elapsed();
    QCOMPARE(w->files().size(), 10000);
    QVERIFY(waitForGrid(*w));
    qInfo("10,000-image folder: listed in %lld ms, first page shown after %lld ms", openMs, t.elapsed());
    // (How long listing takes is a benchmark's business, not a test's: the point here is that the
    // window works on such a folder and decodes one page.)
    w->setPage(77);
    // (A grid of page 0 may still arrive first: opening showed the image strip, which resized the grid.)
    QTRY_VERIFY_WITH_TIMEOUT(
        !w->shownTiles().empty() && w->shownTiles()[0].sampleIndex == std::uint64_t(77 * 64), 20000);
}

void TestGuiImages::labelledFolderDrawsLabelsThatFollowTheSamples() {
    // A YOLO dataset: four photos in images/, one box each in labels/, names in data.yaml.
    QTemporaryDir root;
    QVERIFY(makeYoloFolder(root.path()));
    auto write = [](const QString& path, const QByteArray& text) {
        QFile f(path);
        return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
    };
    // A flip alone: every box's place is known by hand.
    const QString preset = dir_->filePath("flip.auglab.json");
    QVERIFY(write(preset, R"({"format": "auglab-preset", "version": 1, "seed": 2, "pipeline": [
        {"op": "horizontal_flip", "p": 1}], "targets": {"boxes": {"format": "yolo"}}})"));
    auto w = makeWindow();
    QVERIFY(w);
    QVERIFY(w->openPreset(preset));
    QVERIFY(w->setBackend("cpu"));
    QVERIFY(w->openFolder(root.path()));
    QVERIFY(w->labels());
    QCOMPARE(w->files().size(), 4);  // the images under images/, not the label files
    QVERIFY(w->findChild<QToolBar*>("labelsToolbar")->isVisible());
    QTRY_COMPARE_WITH_TIMEOUT(w->grid()->overlays().size(), std::size_t(4), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(w->labelStatistic().contains("1 of 1") || w->labelStatistic().contains("4 of 4"),
                             5000);
    // The box x 0.2..0.4 of the width, y 0.3..0.7 of the height, mirrored: x 0.6..0.8 of each tile.
    const QImage shown = seen(*w);
    for (const TileOverlay& o : w->grid()->overlays()) {
        const SheetTile& t = w->shownTiles()[std::size_t(o.tile)];
        QCOMPARE(o.boxes.size(), std::size_t(1));
        const Box& b = o.boxes[0];
        QVERIFY2(
            std::abs(b.x0 - 0.6 * t.width) < 1e-3 && std::abs(b.x1 - 0.8 * t.width) < 1e-3 &&
                std::abs(b.y0 - 0.3 * t.height) < 1e-3 && std::abs(b.y1 - 0.7 * t.height) < 1e-3,
            qPrintable(
                QString("tile %1: [%2, %3, %4, %5]").arg(o.tile).arg(b.x0).arg(b.y0).arg(b.x1).arg(b.y1)));
        // Drawn in class 0's colour on the box's left edge.
        const QPointF edge = w->grid()->sheetToWidget(QPointF(t.x + b.x0, t.y + (b.y0 + b.y1) / 2));
        const Rgb c = classColour(0);
        bool found = false;
        for (int dx = -2; dx <= 2 && !found; ++dx) {
            const QColor px = shown.pixelColor(int(edge.x()) + dx, int(edge.y()));
            found = std::abs(px.red() - c[0]) < 30 && std::abs(px.green() - c[1]) < 30 &&
                    std::abs(px.blue() - c[2]) < 30;
        }
        QVERIFY2(
            found,
            qPrintable(
                QString("tile %1: no box edge drawn at (%2, %3)").arg(o.tile).arg(edge.x()).arg(edge.y())));
    }
    QVERIFY2(w->labelStatistic().contains("4 of 4 kept"), qPrintable(w->labelStatistic()));

    // A rotation added and dragged wider: the boxes follow each tile's new sample.
    const std::vector<TileOverlay> flipped = w->grid()->overlays();
    w->document()->addOp("affine");
    QTRY_VERIFY_WITH_TIMEOUT(w->editor()->panel(1) != nullptr, 5000);
    auto* slider = w->editor()->panel(1)->findChild<RangeSlider*>("rotate_deg");
    QVERIFY(slider);
    QVERIFY(waitForGrid(*w));
    const QPoint start = slider->handleRect(1).center();
    QTest::mousePress(slider, Qt::LeftButton, {}, start);
    QTest::mouseMove(slider, start + QPoint(40, 0));
    QTest::mouseRelease(slider, Qt::LeftButton, {}, start + QPoint(40, 0));
    QTRY_VERIFY_WITH_TIMEOUT(
        w->document()->preset().pipeline.size() == 2 && w->shownTiles().size() > 0 &&
            w->shownTiles()[0].replay.ops.size() == 2 && w->grid()->overlays().size() == 4 &&
            w->grid()->overlays()[0].boxes.size() + w->grid()->overlays()[0].dropped.size() > 0,
        20000);
    QTRY_VERIFY_WITH_TIMEOUT(w->shownTiles()[0].replay.ops[1].applied, 20000);
    const TargetSettings rules = *w->document()->preset().targets;
    int moved = 0;
    for (const TileOverlay& o : w->grid()->overlays()) {
        const SheetTile& t = w->shownTiles()[std::size_t(o.tile)];
        // What the engine gives for this tile's sample, from the label file read here.
        LabelReport report;
        const Targets targets = readYoloLabels(
            (root.filePath("labels/") + QFileInfo(w->files()[t.sourceIndex]).completeBaseName() + ".txt")
                .toStdString(),
            t.replay.imageWidth, t.replay.imageHeight, {}, report);
        const TileOverlay expected = tileOverlay(t, targets, rules, false);
        QCOMPARE(o.boxes.size(), expected.boxes.size());
        for (std::size_t k = 0; k < o.boxes.size(); ++k) QCOMPARE(o.boxes[k].x0, expected.boxes[k].x0);
        const auto before = std::find_if(flipped.begin(), flipped.end(),
                                         [&](const TileOverlay& f) { return f.tile == o.tile; });
        if (before != flipped.end() && !o.boxes.empty() &&
            std::abs(before->boxes[0].x0 - o.boxes[0].x0) > 0.5)
            ++moved;
    }
    QVERIFY2(moved >= 3,
             qPrintable(QString::number(moved)));  // rotated boxes are not where the flip left them

    // The rules: a minimum area no box reaches drops them all, in the statistic too; undo restores.
    const QString statistic = w->labelStatistic();
    w->findChild<QAction*>("labelRules")->trigger();
    QTRY_VERIFY(w->labelRules() && w->labelRules()->isVisible());
    auto* minArea = w->labelRules()->findChild<QDoubleSpinBox*>("minArea");
    QVERIFY(minArea);
    minArea->setValue(1e8);
    QCOMPARE(w->document()->preset().targets->boxes.minArea, 1e8);
    QTRY_VERIFY_WITH_TIMEOUT(w->labelStatistic().contains("0 of 4 kept"), 20000);
    w->document()->undoStack()->undo();
    QCOMPARE(w->document()->preset().targets->boxes.minArea, 0.0);
    QTRY_COMPARE_WITH_TIMEOUT(w->labelStatistic(), statistic, 20000);

    // Boxes hidden: not drawn, the overlays kept.
    const QImage with = seen(*w);
    w->findChild<QAction*>("showBoxes")->trigger();
    QVERIFY(!w->grid()->overlayStyle().boxes);
    QVERIFY(seen(*w) != with);

    // The inspector lists the sample's labels.
    QTest::mouseClick(w->grid(), Qt::LeftButton, {}, w->grid()->tileCentre(1));
    QTRY_VERIFY_WITH_TIMEOUT(w->inspector()->isVisible() && !w->inspector()->annotationsText().isEmpty(),
                             20000);
    QVERIFY2(w->inspector()->annotationsText().contains("Boxes"),
             qPrintable(w->inspector()->annotationsText()));
    QVERIFY(!w->inspector()->annotationsOverlay().isNull());

    // A COCO folder with keypoints: the category's skeleton ([[1, 2], [1, 3]], 1-based) joins them.
    QVERIFY(w->openFolder(QString(AUGLAB_SOURCE_DIR) + "/tests/data/annotations/coco"));
    QTRY_COMPARE_WITH_TIMEOUT(w->grid()->skeleton(), (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}}),
                              20000);
    bool keypoints = false;
    for (const TileOverlay& o : w->grid()->overlays())
        for (const Keypoint& k : o.keypoints) keypoints = keypoints || k.owner >= 0;
    QVERIFY(keypoints);
}

void TestGuiImages::mosaicTilesBringTheirPartnersLabels() {
    // The 4-image grid with its centre in the middle of 512-pixel cells: four cells on every tile,
    // each image of the folder (one box each) in one of them. The page's statistic counts the boxes
    // that went in: 4 tiles x 4 images, so the partners' labels reached the tiles.
    QTemporaryDir root;
    QVERIFY(makeYoloFolder(root.path()));
    const QString preset = dir_->filePath("mosaic.auglab.json");
    QFile f(preset);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"format": "auglab-preset", "version": 1, "seed": 2, "pipeline": [
        {"op": "mosaic", "p": 1, "center_range": [0.5, 0.5]}], "targets": {"boxes": {"format": "yolo"}}})");
    f.close();
    auto w = makeWindow();
    QVERIFY(w);
    QVERIFY(w->openPreset(preset));
    QVERIFY(w->setBackend("cpu"));
    QVERIFY(w->openFolder(root.path()));
    QTRY_COMPARE_WITH_TIMEOUT(w->grid()->overlays().size(), std::size_t(4), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(w->labelStatistic().contains(" of 16 kept"), 20000);
    for (const TileOverlay& o : w->grid()->overlays()) QCOMPARE(o.boxesIn, std::size_t(4));
}

int main(int argc, char** argv) {
    return runGuiSuites<TestGuiImages>(argc, argv);
}

#include "test_gui_images.moc"
