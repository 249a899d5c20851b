#pragma once
// The dashboard's files under /ui/: a whitelist resolver instead of cpp-httplib's mount
// points, which follow symlinks out of the web root, accept %00 and let "/ui" also match
// "/uiX" (measured on 0.11.4, see docs/stack-notes.md).

#include <filesystem>
#include <string>
#include <string_view>

namespace quote_lab {

/// Where the files come from: `public_dir` (index.html, app.js, ...) and the charting
/// library from Debian's libjs-chart.js, served as /ui/vendor/chart.min.js.
struct StaticRoots {
  std::filesystem::path public_dir;
  std::filesystem::path chart_js = "/usr/share/javascript/chart.js/chart.min.js";
};

/// A resolved request: `status` 200 with a file and its content type, or 400 (a path that
/// tries to leave the web root: "..", NUL, backslash, odd characters, a symlink pointing
/// out) or 404 (no such file), with `error` saying why.
struct StaticFile {
  int status = 404;
  std::filesystem::path file;
  std::string content_type;
  std::string error;
};

/// Resolves `relative` (the part after "/ui/", already percent-decoded; "" = index.html).
StaticFile resolve_static(const StaticRoots& roots, std::string_view relative);

}  // namespace quote_lab
