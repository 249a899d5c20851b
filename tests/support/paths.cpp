#include "support/paths.hpp"

namespace quote_lab::testing {

const std::string& source_dir() {
  static const std::string dir = QUOTE_LAB_TEST_SOURCE_DIR;
  return dir;
}

const std::string& lab_binary() {
  static const std::string path = QUOTE_LAB_TEST_BINARY;
  return path;
}

}  // namespace quote_lab::testing
