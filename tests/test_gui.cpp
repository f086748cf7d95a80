// The GUI driven as a user drives it, under Xvfb: real widgets, real mouse and key events, and
// assertions on what the user sees (the grid's pixels) and on the undo stack.

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
#include "suite_main.h"
#include "target_rules_dialog.h"
#include "targets.h"

using namespace auglab;

namespace {

QString sample(const char* f) {
    return QString(AUGLAB_SOURCE_DIR) + "/resources/samples/" + f;
}

bool waitForGrid(MainWindow& w, int timeoutMs = 20000) {
    QSignalSpy spy(&w, &MainWindow::gridShown);
    return spy.wait(timeoutMs);
}

// What the user sees: the grid widget's framebuffer.
QImage seen(MainWindow& w) {
    QCoreApplication::processEvents();
    return w.grid()->grabFramebuffer().convertToFormat(QImage::Format_RGB32);
}

// A YOLO dataset in `root`: four photos in images/, one box each (class 0, x 0.2..0.4, y 0.3..0.7)
// in labels/, class names in data.yaml.
bool makeYoloFolder(const QString& root) {
    const QDir d(root);
    if (!d.mkpath("images") || !d.mkpath("labels")) return false;
    auto write = [](const QString& path, const QByteArray& text) {
        QFile f(path);
        return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
    };
    for (const char* f : {"astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg"}) {
        if (!QFile::copy(sample(f), d.filePath(QString("images/") + f))) return false;
        if (!write(d.filePath("labels/" + QFileInfo(f).completeBaseName() + ".txt"), "0 0.3 0.5 0.2 0.4\n"))
            return false;
    }
    return write(d.filePath("data.yaml"), "names: [cat, cup, person, rocket]\n");
}

}  // namespace

// What every GUI suite shares: a fresh folder for autosaves per test, and a real window.
class GuiSuite : public QObject {
    Q_OBJECT

protected:
    std::unique_ptr<MainWindow> makeWindow();
    std::unique_ptr<QTemporaryDir> dir_;

private slots:
    void init();
    void cleanup();
};

class TestGui : public GuiSuite {
    Q_OBJECT

private slots:
    void opensOnImageWithLiveGrid();
    void sliderDragUpdatesGridWhileDraggingAndIsOneUndoStep();
    void rerollChangesGridLockKeepsIt();
    void openFolderFillsDatasetMode();
    void badPresetShowsErrorAndKeepsPipeline();
    void crashedSessionIsRecoveredFromAutosave();
    void clickOpensInspectorWithReplay();
    void mixTakesPartnersAndShowsLabelWeights();
    void everySliderTunesFinely();
    void numberFieldsRefuseRatherThanCut();
    void undoFromAFocusedField();
    void viewMenuBringsBackEveryPanel();
    void unreadableFileGetsAPlaceholder();
    void addedOpIsScrolledIntoViewAndHighlighted();
    void trainingTailIsShownAsSuch();
    void probabilityHasAFieldAndDisabledOpsAreGreyed();
    void realismBadgesAndFindTheEdge();
    void imageStripPicksTheImageShown();
    void refusedEditStaysInTheStatusBar();
    void inspectorNamesItsSourceAndConfirmsSaves();
    void distributionShowsDrawnValues();
    void distributionUsesTheCropsSize();
    void droppingFilesOpensThem();
    void exportDialogShowsTargetText();
    void hugeFolderOpensAtOnce();
    void importAlbumentationsIsOneUndoStep();
    void labelledFolderDrawsLabelsThatFollowTheSamples();
};

// Needs the GL backend (a display with OpenGL 3.3: Xvfb's software renderer will do).
class TestGuiGl : public GuiSuite {
    Q_OBJECT

private slots:
    void initTestCase();
    void glBackendShowsTheSameGrid();
    void labelsAreTheSameOnEveryBackend();
};

// Needs a CUDA device.
class TestGuiCuda : public GuiSuite {
    Q_OBJECT

private slots:
    void initTestCase();
    void cudaBackendShowsTheSameGrid();
};

void GuiSuite::init() {
    dir_ = std::make_unique<QTemporaryDir>();
    QVERIFY(dir_->isValid());
}

void GuiSuite::cleanup() {
    dir_.reset();
}

void TestGuiGl::initTestCase() {
    for (const BackendInfo& b : backendInfos())
        if (b.name == "gl" && !b.available) QSKIP(("the GL backend is not available: " + b.detail).c_str());
}

void TestGuiCuda::initTestCase() {
    const BackendInfo info = cudaBackendInfo();
    if (!info.available) QSKIP(("the CUDA backend is not available: " + info.detail).c_str());
}

std::unique_ptr<MainWindow> GuiSuite::makeWindow() {
    MainWindowOptions o;
    o.autosavePath = dir_->filePath("autosave.auglab.json");
    o.restoreLayout = false;
    auto w = std::make_unique<MainWindow>(o);
    w->resize(1300, 850);
    w->show();
    if (!QTest::qWaitForWindowExposed(w.get())) return nullptr;
    // Shortcuts (F5, Ctrl+Z) go to the active window; there is no window manager under Xvfb.
    QApplication::setActiveWindow(w.get());
    if (QApplication::activeWindow() != w.get()) return nullptr;
    return w;
}

void TestGui::opensOnImageWithLiveGrid() {
    auto w = makeWindow();
    QVERIFY(w);
    QVERIFY(w->openImages({sample("astronaut.png")}));
    QVERIFY(waitForGrid(*w));
    QVERIFY2(w->grid()->glError().isEmpty(), qPrintable(w->grid()->glError()));
    QCOMPARE(w->shownTiles().size(), std::size_t(64));  // the default 8x8 grid
    const QImage img = seen(*w);
    // Tiles show the photo: many distinct colours, not a blank widget.
    QSet<QRgb> colours;
    for (int y = 0; y < img.height(); y += 7)
        for (int x = 0; x < img.width(); x += 7) colours.insert(img.pixel(x, y));
    QVERIFY2(colours.size() > 1000, qPrintable(QString::number(colours.size())));
}

void TestGui::sliderDragUpdatesGridWhileDraggingAndIsOneUndoStep() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("chelsea.png")});
    QVERIFY(waitForGrid(*w));
    const QImage before = seen(*w);
    const Preset presetBefore = w->document()->preset();
    const int undoBefore = w->document()->undoStack()->count();

    auto* slider = w->editor()->panel(0)->findChild<RangeSlider*>("rotate_deg");
    QVERIFY(slider);
    const QPoint start = slider->handleRect(1).center();
    QTest::mousePress(slider, Qt::LeftButton, {}, start);
    QVERIFY(slider->isDragging());
    // Move in steps; after each, the grid must change while the button is still down.
    int changesSeen = 0;
    QImage last = before;
    for (int step = 1; step <= 3; ++step) {
        QTest::mouseMove(slider, start + QPoint(step * 12, 0));
        QVERIFY(waitForGrid(*w));
        const QImage now = seen(*w);
        if (now != last) ++changesSeen;
        last = now;
    }
    QVERIFY(slider->isDragging());
    QCOMPARE(changesSeen, 3);
    QTest::mouseRelease(slider, Qt::LeftButton, {}, start + QPoint(36, 0));
    QCOMPARE(w->document()->undoStack()->count(), undoBefore + 1);  // the whole drag: one step
    QVERIFY(w->document()->preset().pipeline[0].range("rotate_deg").max >
            presetBefore.pipeline[0].range("rotate_deg").max);

    // Undo restores the previous pipeline and, rendered again, exactly the previous grid.
    w->document()->undoStack()->undo();
    QVERIFY(w->document()->preset() == presetBefore);
    QVERIFY(waitForGrid(*w));
    QCOMPARE(seen(*w), before);
}

void TestGui::rerollChangesGridLockKeepsIt() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("coffee.png")});
    QVERIFY(waitForGrid(*w));
    const QImage before = seen(*w);
    const quint64 seed = w->document()->preset().seed;
    QTest::keyClick(w.get(), Qt::Key_F5);  // reroll
    QVERIFY(waitForGrid(*w));
    QVERIFY(w->document()->preset().seed != seed);
    const QImage rerolled = seen(*w);
    QVERIFY(rerolled != before);

    auto* lock = w->findChild<QCheckBox*>("lockSeed");
    QVERIFY(lock);
    QTest::mouseClick(lock, Qt::LeftButton, {}, QPoint(8, lock->height() / 2));
    QVERIFY(lock->isChecked());
    const quint64 locked = w->document()->preset().seed;
    const quint64 generation = w->shownGeneration();
    QTest::keyClick(w.get(), Qt::Key_F5);
    QTest::qWait(300);
    QCOMPARE(w->document()->preset().seed, locked);
    QCOMPARE(w->shownGeneration(), generation);
    QCOMPARE(seen(*w), rerolled);
}

void TestGui::openFolderFillsDatasetMode() {
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

void TestGui::badPresetShowsErrorAndKeepsPipeline() {
    auto w = makeWindow();
    QVERIFY(w);
    const Preset before = w->document()->preset();
    const QString bad = dir_->filePath("bad.auglab.json");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        R"({"format": "auglab-preset", "version": 1, "pipeline": [{"op": "affine"}, {"op": "coarse_dropout", "holes": [9, 8]}]})");
    f.close();
    QVERIFY(!w->openPreset(bad));
    QVERIFY2(w->lastError().contains("pipeline[1].holes: min 9 > max 8"), qPrintable(w->lastError()));
    auto* box = w->findChild<QMessageBox*>("errorMessage");
    QVERIFY(box && box->isVisible());
    QVERIFY(box->text().contains("pipeline[1].holes"));
    box->close();
    QVERIFY(w->document()->preset() == before);
}

void TestGui::crashedSessionIsRecoveredFromAutosave() {
    const QString autosave = dir_->filePath("autosave.auglab.json");
    Preset edited;
    {
        auto w = makeWindow();
        QVERIFY(w);
        w->openImages({sample("chelsea.png")});
        QVERIFY(waitForGrid(*w));
        auto* slider = w->editor()->panel(0)->findChild<RangeSlider*>("rotate_deg");
        const QPoint start = slider->handleRect(0).center();
        QTest::mousePress(slider, Qt::LeftButton, {}, start);
        QTest::mouseMove(slider, start - QPoint(25, 0));
        QTest::mouseRelease(slider, Qt::LeftButton, {}, start - QPoint(25, 0));
        edited = w->document()->preset();
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(autosave), 5000);
        // A crash: the window goes away without its close event, so nothing cleans up.
        w.reset();
    }
    QVERIFY(QFile::exists(autosave));
    auto again = makeWindow();
    QVERIFY(again);
    QVERIFY(again->recoveredAutosave());
    QVERIFY(again->document()->preset() == edited);
    QVERIFY(again->document()->isDirty());
    QVERIFY(again->windowTitle().contains('*'));
    // A clean exit removes the autosave.
    again->document()->save(dir_->filePath("saved.auglab.json"));
    QVERIFY(again->close());
    QVERIFY(!QFile::exists(autosave));
}

void TestGui::clickOpensInspectorWithReplay() {
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

void TestGui::mixTakesPartnersAndShowsLabelWeights() {
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

namespace {

// A mouse event of the left button at `p`, sent to the slider itself (it may be scrolled out of
// the editor's view).
void sendMouse(RangeSlider* s, QEvent::Type type, QPoint p) {
    QMouseEvent e(type, QPointF(p), QPointF(s->mapToGlobal(p)), Qt::LeftButton,
                  type == QEvent::MouseButtonRelease ? Qt::NoButton : Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(s, &e);
}

Preset everyOpWithDefaults() {
    Preset p;
    for (const OpDesc& d : opRegistry()) {
        OpConfig c(d);
        for (const ParamDesc& pd : d.params)  // optional sliders too (hole sizes in pixels)
            if (pd.optional) c.set(pd.key, pd.defaultValue);
        p.pipeline.push_back(c);
    }
    return p;
}

}  // namespace

void TestGui::everySliderTunesFinely() {
    // Every range slider of every op: its span is the typical range (at least 200 steps of its
    // precision for real values), both handles are reachable, and a 3-pixel drag of the upper
    // handle moves it by about 3 pixels' worth of the span, never more.
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("astronaut.png")});  // 512 x 512: pixel sizes span up to 256
    const Preset every = everyOpWithDefaults();
    w->document()->newDocument(every);
    // The panels of the previous document are deleted later: wait until only the new ones are left.
    QTRY_COMPARE(w->editor()->findChildren<OpPanel*>().size(), qsizetype(every.pipeline.size()));
    int checked = 0;
    for (RangeSlider* s : w->editor()->findChildren<RangeSlider*>()) {
        const QString name = s->objectName();
        QVERIFY2(s->viewUpper() > s->viewLower(), qPrintable(name));
        const double span = s->viewUpper() - s->viewLower();
        const int track = s->positionForValue(s->viewUpper()) - s->positionForValue(s->viewLower());
        QVERIFY2(track >= 100, qPrintable(name + ": a track of " + QString::number(track) + " px, slider " +
                                          QString::number(s->width()) + ", editor " +
                                          QString::number(w->editor()->width()) + ", window " +
                                          QString::number(w->width())));
        if (!s->integers())
            QVERIFY2(span / s->step() >= 200,
                     qPrintable(name + ": " + QString::number(span / s->step()) + " steps"));
        if (name == "rotate_deg") QCOMPARE(s->viewUpper(), 45.0);
        if (name == "hole_height_px") QCOMPARE(s->viewUpper(), 256.0);  // half the image's side
        if (!s->isEnabled()) continue;  // a row another setting makes meaningless (scale_y, keep_ratio)
        const double before = s->maximum();
        if (before >= s->viewUpper()) continue;
        const double perPixel =
            s->logarithmic() ? before * (std::exp(std::log(s->viewUpper() / s->viewLower()) / track) - 1)
                             : span / track;
        // 3 pixels, or as many as one step of an integer takes.
        const int pixels = std::max(3, int(std::ceil(s->step() / perPixel)));
        const QPoint start(s->positionForValue(before), s->height() / 2);
        sendMouse(s, QEvent::MouseButtonPress, start);
        sendMouse(s, QEvent::MouseMove, start + QPoint(pixels, 0));
        sendMouse(s, QEvent::MouseButtonRelease, start + QPoint(pixels, 0));
        const double moved = s->maximum() - before;
        QVERIFY2(moved > 0 && moved <= (pixels + 1) * perPixel + s->step(),
                 qPrintable(QString("%1: a %2-pixel drag moved %3 (a pixel is %4)")
                                .arg(name)
                                .arg(pixels)
                                .arg(moved)
                                .arg(perPixel)));
        ++checked;
    }
    QVERIFY2(checked >= 20, qPrintable(QString::number(checked)));
}

// The window on one image with an affine alone, once its panel is the only one; returns the
// field of the rotation's upper end.
QDoubleSpinBox* affineOnly(MainWindow& w) {
    w.openImages({sample("astronaut.png")});
    Preset p;
    p.pipeline = {OpConfig::withDefaults("affine")};
    w.document()->newDocument(p);
    // The previous panels are deleted later: wait until they are gone.
    if (!QTest::qWaitFor([&] { return w.editor()->findChildren<OpPanel*>().size() == 1; })) return nullptr;
    return w.editor()->findChild<QDoubleSpinBox*>("rotate_deg_max");
}

void TestGui::numberFieldsRefuseRatherThanCut() {
    auto w = makeWindow();
    QVERIFY(w);
    QDoubleSpinBox* field = affineOnly(*w);
    QVERIFY(field);
    field->findChild<QLineEdit*>()->selectAll();
    QTest::keyClicks(field, "500");
    QCOMPARE(field->findChild<QLineEdit*>()->text(), QString("500"));  // as typed, not cut to "50"
    QVERIFY2(field->toolTip().contains("180"), qPrintable(field->toolTip()));
    QVERIFY(!field->styleSheet().isEmpty());
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(w->document()->preset().pipeline[0].range("rotate_deg").max, 15.0);  // nothing committed
    // Within the bounds and beyond the slider's span: taken, and the slider widens to show it.
    field->findChild<QLineEdit*>()->selectAll();
    QTest::keyClicks(field, "120");
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(w->document()->preset().pipeline[0].range("rotate_deg").max, 120.0);
    QCOMPARE(w->editor()->findChild<RangeSlider*>("rotate_deg")->viewUpper(), 120.0);
}

void TestGui::undoFromAFocusedField() {
    // Ctrl+Z while the cursor is still in a number field after Enter undoes the document's edit.
    auto w = makeWindow();
    QVERIFY(w);
    QDoubleSpinBox* field = affineOnly(*w);
    QVERIFY(field);
    field->setFocus();
    QTRY_VERIFY(field->hasFocus());
    field->findChild<QLineEdit*>()->selectAll();
    QTest::keyClicks(field, "30");
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(w->document()->preset().pipeline[0].range("rotate_deg").max, 30.0);
    QVERIFY(field->hasFocus());
    QTest::keyClick(field->findChild<QLineEdit*>(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(w->document()->preset().pipeline[0].range("rotate_deg").max, 15.0);
    QCOMPARE(field->value(), 15.0);
    // While an edit is being typed, Ctrl+Z is the field's own.
    QTest::keyClicks(field, "9");
    QTest::keyClick(field->findChild<QLineEdit*>(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(w->document()->preset().pipeline[0].range("rotate_deg").max, 15.0);
    QVERIFY(w->document()->undoStack()->canRedo());  // the document's redo is still there
}

void TestGui::unreadableFileGetsAPlaceholder() {
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

void TestGui::addedOpIsScrolledIntoViewAndHighlighted() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("chelsea.png")});
    for (const char* op : {"gaussian_blur", "gauss_noise", "hue_saturation_value", "to_gray", "grid_dropout",
                           "coarse_dropout", "hue_saturation_value", "gauss_noise", "gaussian_blur"})
        w->document()->addOp(op);
    auto* scroll = w->editor()->findChild<QScrollArea*>();
    QTRY_VERIFY(scroll->verticalScrollBar()->maximum() > 0);  // (the list is long enough to need scrolling)
    const int last = int(w->document()->preset().pipeline.size()) - 1;
    QCOMPARE(w->editor()->highlightedOp(), last);
    OpPanel* panel = w->editor()->panel(last);
    QVERIFY(panel && panel->highlighted());
    const auto inView = [&](OpPanel* p) {
        const QRect r(p->mapTo(scroll->viewport(), QPoint(0, 0)), p->size());
        return scroll->viewport()->rect().intersects(r);
    };
    QTRY_VERIFY(scroll->verticalScrollBar()->value() > 0);  // the list scrolled to it
    QVERIFY(inView(panel));
    QTRY_VERIFY_WITH_TIMEOUT(!panel->highlighted(), 3000);  // the highlight is brief
    // A move is shown the same way: the moved op, at its new place.
    w->document()->moveOp(last, 0);
    QCOMPARE(w->editor()->highlightedOp(), 0);
    QTRY_VERIFY(inView(w->editor()->panel(0)));
    QTRY_COMPARE(scroll->verticalScrollBar()->value(), 0);
}

void TestGui::trainingTailIsShownAsSuch() {
    // normalize's panel says it is training only; an op added later goes before it (the tail ends the
    // pipeline); the grid is the same with and without the tail.
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("chelsea.png")});
    QVERIFY(waitForGrid(*w));
    const QImage before = seen(*w);
    w->document()->addOp("normalize");
    const int tail = int(w->document()->preset().pipeline.size()) - 1;
    QCOMPARE(w->document()->preset().pipeline[std::size_t(tail)].name(), std::string("normalize"));
    OpPanel* panel = w->editor()->panel(tail);
    QVERIFY(panel);
    auto* note = panel->findChild<QLabel*>("trainingOnly");
    QVERIFY(note && note->text().contains("not previewed"));
    QVERIFY(panel->findChild<QDoubleSpinBox*>("mean_r") && panel->findChild<QDoubleSpinBox*>("std_b"));
    w->document()->addOp("horizontal_flip");
    const auto& ops = w->document()->preset().pipeline;
    QCOMPARE(ops.back().name(), std::string("normalize"));
    QCOMPARE(ops[ops.size() - 2].name(), std::string("horizontal_flip"));
    w->document()->removeOp(int(ops.size()) - 2);
    QVERIFY(waitForGrid(*w));
    QTRY_COMPARE_WITH_TIMEOUT(seen(*w), before, 10000);
}

void TestGui::probabilityHasAFieldAndDisabledOpsAreGreyed() {
    auto w = makeWindow();
    QVERIFY(w);
    Preset p;
    p.pipeline = {OpConfig::withDefaults("affine")};
    w->document()->newDocument(p);
    QTRY_COMPARE(w->editor()->findChildren<OpPanel*>().size(), qsizetype(1));
    OpPanel* panel = w->editor()->panel(0);
    auto* field = panel->findChild<QDoubleSpinBox*>("probabilityValue");
    QVERIFY(field);
    field->findChild<QLineEdit*>()->selectAll();
    QTest::keyClicks(field, "0.35");
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(w->document()->preset().pipeline[0].p, 0.35);
    QCOMPARE(panel->findChild<QSlider*>("probability")->value(), 35);
    panel->findChild<QToolButton*>("resetProbability")->click();
    QCOMPARE(w->document()->preset().pipeline[0].p, 1.0);
    QCOMPARE(field->value(), 1.0);
    // A disabled op's rows are greyed out, its checkbox is not.
    auto* rotation = panel->findChild<RangeSlider*>("rotate_deg");
    QVERIFY(rotation->isEnabled());
    w->document()->setEnabled(0, false);
    QVERIFY(!rotation->isEnabled());
    QVERIFY(!field->isEnabled());
    QVERIFY(panel->findChild<QCheckBox*>()->isEnabled());
    w->document()->setEnabled(0, true);
    QVERIFY(rotation->isEnabled());
}

void TestGui::realismBadgesAndFindTheEdge() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("astronaut.png")});
    QVERIFY(w->setBackend("cpu"));
    OpConfig shift = OpConfig::withDefaults("affine");
    for (const char* k : {"rotate_deg", "translate_y_frac"}) shift.set(k, Range{0, 0});
    shift.set("scale_x", Range{1, 1});
    shift.set("translate_x_frac", Range{0.25, 0.25});  // a quarter of every tile is border fill
    Preset p;
    p.seed = 9;
    p.pipeline = {shift};
    w->document()->newDocument(p);
    QTRY_VERIFY_WITH_TIMEOUT(!w->shownTiles().empty() && w->shownTiles()[0].replay.ops.size() == 1 &&
                                 w->shownTiles()[0].invented >= 0,
                             10000);
    QVERIFY2(std::abs(w->shownTiles()[0].invented - 0.25) < 0.02,
             qPrintable(QString::number(w->shownTiles()[0].invented)));
    auto* threshold = w->findChild<QSpinBox*>("realismThreshold");
    QVERIFY(threshold);
    threshold->setValue(20);
    QCOMPARE(w->grid()->badges().size(), w->shownTiles().size());  // every tile is past 20%
    QVERIFY(w->grid()->badges()[0].second.endsWith("%"));
    {
        // Drawn: a red badge in the tile's top-right corner.
        const QImage shot = w->grid()->grabFramebuffer();
        bool red = false;
        const QPoint c = w->grid()->tileCentre(0) * shot.devicePixelRatio();
        for (int y = 0; y < shot.height() && !red; ++y)
            for (int x = c.x(); x < std::min(shot.width(), c.x() + 200) && !red; ++x) {
                const QColor q = shot.pixelColor(x, y);
                red = q.red() > 150 && q.green() < 80 && q.blue() < 80;
            }
        QVERIFY(red);
    }
    auto* median = w->statusBar()->findChild<QLabel*>("realism");
    QVERIFY2(median->text().contains("median 2"), qPrintable(median->text()));
    threshold->setValue(30);
    QVERIFY(w->grid()->badges().empty());
    // Find the edge on a narrow shift: widened in one undoable edit, then undone.
    shift.set("translate_x_frac", Range{-0.02, 0.02});
    p.pipeline = {shift};
    w->document()->newDocument(p);
    const int steps = w->document()->undoStack()->count();
    const Range edge = w->findTheEdge(0, "translate_x_frac");
    QVERIFY2(edge.max > 0.1 && edge.max < 0.6, qPrintable(QString::number(edge.max)));
    QCOMPARE(w->document()->preset().pipeline[0].range("translate_x_frac"), edge);
    QCOMPARE(w->document()->undoStack()->count(), steps + 1);
    QVERIFY2(w->statusMessage().contains("widened"), qPrintable(w->statusMessage()));
    w->document()->undoStack()->undo();
    QCOMPARE(w->document()->preset().pipeline[0].range("translate_x_frac").max, 0.02);
}

void TestGui::imageStripPicksTheImageShown() {
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

void TestGui::viewMenuBringsBackEveryPanel() {
    auto w = makeWindow();
    QVERIFY(w);
    QMenu* view = nullptr;
    for (QAction* a : w->menuBar()->actions())
        if (a->text().remove('&') == "View") view = a->menu();
    QVERIFY(view);
    const auto action = [&](const QString& text) -> QAction* {
        for (QAction* a : view->actions())
            if (a->text().remove('&') == text) return a;
        return nullptr;
    };
    for (const char* panel : {"Pipeline editor", "Distribution", "Cost meter", "Preview"})
        QVERIFY2(action(panel), panel);
    auto* dist = w->findChild<QDockWidget*>("distributionDock");
    dist->close();
    QVERIFY(!dist->isVisible());
    action("Distribution")->trigger();
    QTRY_VERIFY(dist->isVisible());
    dist->close();
    w->findChild<QDockWidget*>("costDock")->close();
    QVERIFY(action("Reset Layout"));
    action("Reset Layout")->trigger();
    QTRY_VERIFY(dist->isVisible() && w->findChild<QDockWidget*>("costDock")->isVisible());
    // At start the editor has the height, not the empty distribution view.
    QVERIFY(w->findChild<QDockWidget*>("pipelineDock")->height() > 2 * dist->height());
}

void TestGui::refusedEditStaysInTheStatusBar() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("chelsea.png")});
    Preset p;
    p.pipeline = {OpConfig::withDefaults("random_resized_crop"),
                  OpConfig::withDefaults("brightness_contrast")};
    w->document()->newDocument(p);
    w->document()->moveOp(0, 1);  // a crop after a pixel op: refused
    QCOMPARE(w->document()->preset().pipeline[0].name(), std::string("random_resized_crop"));
    const QString message = w->statusMessage();
    QVERIFY2(message.contains("refused") && message.contains("random_resized_crop must come before"),
             qPrintable(message));
    QVERIFY2(!message.contains("pipeline["),
             qPrintable(message));  // no index of an order that is not on screen
    // Its own label, apart from the render time and the cost (no overlap), and it stays.
    auto* label = w->statusBar()->findChild<QLabel*>("statusMessage");
    auto* time = w->statusBar()->findChild<QLabel*>("renderTime");
    QVERIFY(label && time && label != time);
    QVERIFY(waitForGrid(*w));
    QCOMPARE(w->statusMessage(), message);
    QVERIFY(!label->geometry().intersects(time->geometry()));
    QCOMPARE(label->toolTip(), message);
}

void TestGui::inspectorNamesItsSourceAndConfirmsSaves() {
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

void TestGui::distributionShowsDrawnValues() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("astronaut.png")});
    QVERIFY(waitForGrid(*w));
    w->editor()->selectParam(0, "rotate_deg");
    const auto& bins = w->distribution()->bins();
    int total = 0;
    for (int b : bins) total += b;
    QCOMPARE(total, 64);  // affine applies to every sample (p = 1)
    int nonEmpty = 0;
    for (int b : bins) nonEmpty += b > 0;
    QVERIFY(nonEmpty >= 8);  // 64 uniform draws over 16 bins spread out
}

void TestGui::distributionUsesTheCropsSize() {
    // After a random_resized_crop, a shift fraction is of the crop's output, not of the photo:
    // the drawn values fill the configured range [0.1, 0.3].
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("astronaut.png")});
    QVERIFY(waitForGrid(*w));
    Preset p = w->document()->preset();
    OpConfig crop = OpConfig::withDefaults("random_resized_crop");
    crop.set("size", Size2{60, 100});
    OpConfig affine = OpConfig::withDefaults("affine");
    affine.set("translate_x_frac", Range{0.1, 0.3});
    p.pipeline = {crop, affine};
    w->document()->applyEdit(p, "crop then shift");
    QVERIFY(waitForGrid(*w));
    w->editor()->selectParam(1, "translate_x_frac");
    const auto& bins = w->distribution()->bins();
    int total = 0, nonEmpty = 0;
    for (int b : bins) {
        total += b;
        nonEmpty += b > 0;
    }
    QCOMPARE(total, 64);
    QVERIFY2(nonEmpty >= 5, qPrintable(QString::number(nonEmpty)));  // 64 draws spread over the range
}

void TestGui::droppingFilesOpensThem() {
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

void TestGuiGl::glBackendShowsTheSameGrid() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("astronaut.png")});
    QVERIFY(waitForGrid(*w));
    QVERIFY(w->setBackend("cpu"));
    QVERIFY(waitForGrid(*w));
    QCOMPARE(w->lastBackend(), QString("cpu"));
    QVERIFY(!w->grid()->showsExternalTexture());  // the CPU's sheet is uploaded
    const QImage cpu = seen(*w);
    QVERIFY(w->setBackend("gl"));
    QVERIFY(waitForGrid(*w));
    QCOMPARE(w->lastBackend(), QString("gl"));
    QVERIFY(w->grid()->showsExternalTexture());  // the GL backend's grid texture, shown without readback
    QCOMPARE(seen(*w), cpu);                     // the GL backend reproduces the CPU's integers
}

void TestGuiGl::labelsAreTheSameOnEveryBackend() {
    // Labels are moved once per sample, from its replay: the GL grid shows the CPU's, drawn the same.
    QTemporaryDir root;
    QVERIFY(makeYoloFolder(root.path()));
    auto w = makeWindow();
    QVERIFY(w);
    QVERIFY(w->setBackend("cpu"));
    QVERIFY(w->openFolder(root.path()));
    QTRY_COMPARE_WITH_TIMEOUT(w->grid()->overlays().size(), std::size_t(4), 20000);
    QTRY_COMPARE_WITH_TIMEOUT(w->lastBackend(), QString("cpu"), 20000);
    const std::vector<TileOverlay> cpu = w->grid()->overlays();
    const QImage cpuSeen = seen(*w);
    QVERIFY(w->setBackend("gl"));
    QTRY_COMPARE_WITH_TIMEOUT(w->lastBackend(), QString("gl"), 20000);
    // The page's labels load in the background (a tile may briefly have none): wait until they are in.
    const auto sameAsCpu = [&] {
        const std::vector<TileOverlay> gl = w->grid()->overlays();
        if (gl.size() != cpu.size()) return false;
        for (std::size_t i = 0; i < cpu.size(); ++i)
            if (gl[i].tile != cpu[i].tile || !(gl[i].boxes == cpu[i].boxes)) return false;
        return true;
    };
    QTRY_VERIFY_WITH_TIMEOUT(sameAsCpu(), 20000);
    QTRY_COMPARE_WITH_TIMEOUT(seen(*w), cpuSeen, 10000);
}

void TestGuiCuda::cudaBackendShowsTheSameGrid() {
    // On a CUDA device the grid is rendered and composed by the kernels straight into a GL texture
    // the widget shares (CUDA-GL interop): no download, no upload, and the CPU's integers.
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("astronaut.png")});
    QVERIFY(waitForGrid(*w));
    QVERIFY(w->setBackend("cpu"));
    QVERIFY(waitForGrid(*w));
    const QImage cpu = seen(*w);
    QVERIFY(w->setBackend("cuda"));
    QVERIFY(waitForGrid(*w));
    QCOMPARE(w->lastBackend(), QString("cuda"));
#if defined(AUGLAB_HAVE_CUDA_GL)
    // A GL context on another GPU than the CUDA device cannot share: the grid then comes through
    // host memory, and the status bar says so.
    if (!w->grid()->showsExternalTexture())
        QSKIP(qPrintable("CUDA-GL interop is not possible in this session: " + w->statusMessage()));
#endif
    QCOMPARE(seen(*w), cpu);  // the default pipeline (affine, flip, cutout, brightness) is exact
}

void TestGui::hugeFolderOpensAtOnce() {
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

void TestGui::exportDialogShowsTargetText() {
    auto w = makeWindow();
    QVERIFY(w);
    ExportDialog dialog(w->document()->preset(), w.get());
    QVERIFY(dialog.selectTarget("albumentations"));
    const QJsonObject j = QJsonDocument::fromJson(dialog.text().toUtf8()).object();
    QCOMPARE(j["transform"].toObject()["__class_fullname__"].toString(), QString("Compose"));
    // The default preset's first op is an affine with rotation [-20, 20].
    const QJsonObject affine = j["transform"].toObject()["transforms"].toArray()[0].toObject();
    QCOMPARE(affine["__class_fullname__"].toString(), QString("Affine"));
    QCOMPARE(affine["rotate"].toArray()[1].toDouble(), 20.0);
    QVERIFY(dialog.selectTarget("torchvision"));
    QVERIFY(dialog.text().contains("RandomAffine"));
    QVERIFY(!dialog.warnings().isEmpty());  // torchvision cannot express everything: it says what
    const QString out = dir_->filePath("exported.py");
    QVERIFY(dialog.saveTo(out));
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(f.readAll()), dialog.text());
}

void TestGui::importAlbumentationsIsOneUndoStep() {
    auto w = makeWindow();
    QVERIFY(w);
    const Preset before = w->document()->preset();
    const int steps = w->document()->undoStack()->count();
    QVERIFY(w->importAlbumentationsFile(QString(AUGLAB_SOURCE_DIR) +
                                        "/tests/data/export/reference/example_2.0.8.json"));
    QCOMPARE(w->document()->undoStack()->count(), steps + 1);
    QVERIFY(!(w->document()->preset() == before));
    QCOMPARE(w->document()->preset().pipeline[0].name(), std::string("affine"));
    w->document()->undoStack()->undo();
    QVERIFY(w->document()->preset() == before);
}

int main(int argc, char** argv) {
    // Settings and autosaves of the tests stay out of the user's folders.
    QTemporaryDir home;
    qputenv("XDG_CONFIG_HOME", home.filePath("config").toUtf8());
    qputenv("XDG_DATA_HOME", home.filePath("data").toUtf8());
    auglab::PreviewGrid::configureOpenGl();
    QApplication app(argc, argv);
    return auglab::testing::runSuites<TestGui, TestGuiGl, TestGuiCuda>(argc, argv);
}

#include "test_gui.moc"

void TestGui::labelledFolderDrawsLabelsThatFollowTheSamples() {
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
