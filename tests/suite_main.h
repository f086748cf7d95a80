#pragma once
// Runs the Qt Test classes of one test executable: all of them, or with `--suite NAME` the one
// named. CMake registers each class as a ctest test of its own (auglab_add_test's SUITES), so that
// a class whose initTestCase skips because what it needs is not here (a GPU, a display, PyPI) shows
// in ctest as skipped, with its reason, instead of as a pass beside the classes that did run.

#include <QtTest>
#include <cstdio>
#include <cstring>
#include <vector>

namespace auglab::testing {

template <typename Suite, typename Run>
void runSuite(const Run& run) {
    Suite suite;
    run(suite);
}

template <typename... Suites>
int runSuites(int argc, char** argv) {
    const char* only = nullptr;
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
        if (std::strcmp(argv[i], "--suite") == 0 && i + 1 < argc) {
            only = argv[++i];
            continue;
        }
        args.push_back(argv[i]);
    }
    int failed = 0;
    bool ran = false;
    const auto run = [&](QObject& suite) {
        if (only != nullptr && std::strcmp(suite.metaObject()->className(), only) != 0) return;
        ran = true;
        failed += QTest::qExec(&suite, static_cast<int>(args.size()), args.data());
    };
    (runSuite<Suites>(run), ...);
    if (!ran) {
        std::fprintf(stderr, "no test class named %s here\n", only);
        return 2;
    }
    return failed;
}

}  // namespace auglab::testing
