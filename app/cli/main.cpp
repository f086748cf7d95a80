// auglab-cli: the headless front end. Dispatches to a command and maps errors to exit codes.

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "error.h"

#if defined(AUGLAB_HAVE_GL)
#include <QGuiApplication>

#include <optional>
#include <thread>

#include "gl_context.h"
#endif

int main(int argc, char** argv) {
    using namespace auglab::cli;
    // Image buffers freed after one image are kept for the next rather than handed back to the
    // kernel and faulted in again: glibc's defaults return them (a fresh 512x512 image costs 200
    // page faults, and faults were 13% of `augment`'s time). Buffers up to 32 MB (glibc's largest
    // threshold) come from the heap, and the heap is trimmed only past 512 MB of free memory.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
#if defined(AUGLAB_HAVE_GL)
    // The GL backend needs a QGuiApplication. Without a display, Qt's offscreen platform lets the
    // CLI run anyway (GL then reports whether it can make a context there). With one, offscreen is
    // the fallback: a display that refuses the connection (an X server too busy to accept one, as
    // seen under a loaded Xvfb) must not abort a command that needs no window.
    if (!std::getenv("QT_QPA_PLATFORM")) {
        if (std::getenv("WAYLAND_DISPLAY")) setenv("QT_QPA_PLATFORM", "wayland;xcb;offscreen", 1);
        else if (std::getenv("DISPLAY")) setenv("QT_QPA_PLATFORM", "xcb;offscreen", 1);
        else setenv("QT_QPA_PLATFORM", "offscreen", 1);
    }
    // Qt's own chatter (platform notes) is not the CLI's output; real errors still get through.
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& msg) {
        if (type == QtCriticalMsg || type == QtFatalMsg) std::fprintf(stderr, "%s\n", qPrintable(msg));
    });
    // Started when a command first makes an OpenGL context (the GL backend, `info`, `auto`), on
    // this thread, which Qt requires: the CPU backend's commands never pay for Qt's platform.
    int qtArgc = 1;
    std::optional<QGuiApplication> qtApp;
    const std::thread::id mainThread = std::this_thread::get_id();
    auglab::setGuiApplicationStarter([&] {
        if (!qtApp && std::this_thread::get_id() == mainThread) qtApp.emplace(qtArgc, argv);
    });
#endif
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        std::cout << withExportCommands(helpText(""));
        return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version") {
        std::cout << "auglab-cli " << AUGLAB_VERSION << "\n";
        return 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    for (const std::string& a : args)
        if (a == "--help" || a == "-h") {
            const std::string help = command == "export"    ? exportHelpText()
                                     : command == "import"  ? importHelpText()
                                     : command == "augment" ? augmentHelpText()
                                                            : helpText(command);
            if (help.empty()) break;
            std::cout << help;
            return 0;
        }
    try {
        if (command == "info") return runInfo(args);
        if (command == "validate") return runValidate(args);
        if (command == "render") return runRender(args);
        if (command == "apply") return runApply(args);
        if (command == "replay") return runReplay(args);
        if (command == "schema") return runSchema(args);
        if (command == "augment") return runAugment(args);
        if (command == "bench") return runBench(args);
        if (command == "export") return runExport(args);
        if (command == "import") return runImport(args);
        std::cerr << "auglab-cli: unknown command '" << command << "' (run auglab-cli --help)\n";
        return 2;
    } catch (const UsageError& e) {
        std::cerr << "auglab-cli " << command << ": " << e.message << " (run auglab-cli " << command << " --help)\n";
        return 2;
    } catch (const auglab::InputError& e) {
        std::cerr << "auglab-cli " << command << ": error: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "auglab-cli " << command << ": failed: " << e.what() << "\n";
        return 1;
    }
}
