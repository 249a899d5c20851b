#include "lab/http/static_files.hpp"

#include <algorithm>
#include <array>

namespace quote_lab {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kTypes{{
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".json", "application/json; charset=utf-8"},
    {".png", "image/png"},
    {".svg", "image/svg+xml"},
    {".ico", "image/x-icon"},
    {".txt", "text/plain; charset=utf-8"},
}};

bool allowed_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-' || c == '_' || c == '/';
}

StaticFile refuse(std::string why) { return StaticFile{400, {}, {}, std::move(why)}; }

}  // namespace

StaticFile resolve_static(const StaticRoots& roots, std::string_view relative) {
  if (relative.empty()) relative = "index.html";
  if (relative.size() > 200) return refuse("path too long");
  if (!std::all_of(relative.begin(), relative.end(), allowed_char))
    return refuse("only letters, digits, '.', '-', '_' and '/' are allowed in dashboard paths");
  if (relative.front() == '/' || relative.find("..") != std::string_view::npos || relative.find("//") != std::string_view::npos)
    return refuse("the path leaves the dashboard folder");

  fs::path file;
  fs::path root;
  if (relative == "vendor/chart.min.js") {
    file = roots.chart_js;
    root = roots.chart_js.parent_path();
  } else {
    root = roots.public_dir;
    file = roots.public_dir / std::string(relative);
  }
  std::error_code ec;
  const fs::path real_root = fs::canonical(root, ec);
  if (ec) return StaticFile{404, {}, {}, "dashboard folder not found"};
  const fs::path real = fs::canonical(file, ec);
  if (ec || !fs::is_regular_file(real, ec)) return StaticFile{404, {}, {}, "no such dashboard file"};
  // A symlink inside the folder must not lead outside it.
  const auto [root_end, _] = std::mismatch(real_root.begin(), real_root.end(), real.begin(), real.end());
  if (root_end != real_root.end()) return refuse("the path leaves the dashboard folder");

  const std::string ext = real.extension().string();
  const auto type = std::find_if(kTypes.begin(), kTypes.end(), [&](const auto& t) { return t.first == ext; });
  if (type == kTypes.end()) return StaticFile{404, {}, {}, "not a dashboard file type"};
  return StaticFile{200, real, std::string(type->second), {}};
}

}  // namespace quote_lab
