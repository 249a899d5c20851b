#pragma once
// Where the tests find the sources (scenarios/, public/, docs/) and the quote-lab binary
// this build made. Only tests/support/paths.cpp is compiled with those folders on its
// command line, so every other test file compiles the same in any checkout and ccache
// reuses its object in a clone in another folder (CI clones anew each run).

#include <string>

namespace quote_lab::testing {

/// The source folder, without a trailing '/'.
const std::string& source_dir();
/// The path of the quote-lab binary this build made.
const std::string& lab_binary();

}  // namespace quote_lab::testing
