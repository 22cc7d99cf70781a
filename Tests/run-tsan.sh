#!/usr/bin/env bash
# The game API's thread-safety under ThreadSanitizer: builds the tests with
# --sanitize=thread in a build folder of its own (.build-tsan) and runs the suites where
# several threads call a Soundtrack while audio renders, and Pianola's synthesizer with its
# voices on several threads. Any report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests --sanitize=thread --scratch-path .build-tsan
# The sanitizer prints its own report; Swift's backtracer, caught up in its abort, must not
# run: the one CI run that passed its time limit ended in a TSan report, then nothing.
export SWIFT_BACKTRACE=enable=no
TSAN_OPTIONS="halt_on_error=1 abort_on_error=1" swift test --skip-build --sanitize=thread --scratch-path .build-tsan \
    --filter "SoundtrackStressTests|SoundtrackTests/deliveryOnQueue|SoundFontSynthNodeTests/threadsChangeNothing|SoundFontSynthNodeTests/threadsComeAndGo|SplitSamplerTests"
