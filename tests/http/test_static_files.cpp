// resolve_static (lab/http/static_files.hpp): the dashboard's files under /ui/ through a
// whitelist, never a path that leaves public/ (the traps of httplib's mount points).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "lab/http/static_files.hpp"
#include "support/temp_dir.hpp"

namespace test_static_files {

using namespace quote_lab;
using quote_lab::testing::TempDir;
using quote_lab::testing::write_file;
namespace fs = std::filesystem;

namespace {
/// A web root with a secret file beside it (outside), as a lab's source tree has.
struct WebRoot {
  TempDir dir;
  StaticRoots roots;
  WebRoot() {
    fs::create_directories(dir / "public" / "js");
    write_file(dir / "public" / "index.html", "<h1>lab</h1>");
    write_file(dir / "public" / "app.js", "start()");
    write_file(dir / "public" / "js" / "chart-setup.js", "setup()");
    write_file(dir / "public" / "notes.md", "# not served");
    write_file(dir / "secret.txt", "the teacher's token");
    write_file(dir / "chart.min.js", "/* chart.js */");
    fs::create_symlink(dir / "secret.txt", dir / "public" / "leak.txt");        // points out
    fs::create_symlink(dir / "public" / "app.js", dir / "public" / "alias.js");  // stays inside
    roots.public_dir = dir / "public";
    roots.chart_js = dir / "chart.min.js";
  }
};
}  // namespace

TEST_CASE("dashboard files are served with their content type, the folder itself is index.html") {
  WebRoot w;
  const auto index = resolve_static(w.roots, "");
  CHECK(index.status == 200);
  CHECK(index.file == fs::canonical(w.dir / "public" / "index.html"));
  CHECK(index.content_type == "text/html; charset=utf-8");
  const auto js = resolve_static(w.roots, "js/chart-setup.js");
  CHECK(js.status == 200);
  CHECK(js.content_type == "text/javascript; charset=utf-8");
  const auto vendor = resolve_static(w.roots, "vendor/chart.min.js");  // Debian's chart.js, outside public/
  CHECK(vendor.status == 200);
  CHECK(vendor.file == fs::canonical(w.dir / "chart.min.js"));
}

TEST_CASE("paths that try to leave the web root are 400, in every spelling") {
  WebRoot w;
  for (const std::string path : {"../secret.txt", "js/../../secret.txt", "/etc/passwd", "js//chart-setup.js",
                                 "..", "%2e%2e/secret.txt", "..%2fsecret.txt", "%2E%2E%2Fsecret.txt",
                                 "js\\..\\..\\secret.txt", "index.html%00.js", "index.html?x=1", "~/secret.txt"}) {
    CAPTURE(path);
    const auto r = resolve_static(w.roots, path);
    CHECK(r.status == 400);
    CHECK_FALSE(r.error.empty());
    CHECK(r.file.empty());
  }
}

TEST_CASE("a NUL byte in the decoded path is refused, not cut short to index.html") {
  WebRoot w;
  const auto r = resolve_static(w.roots, std::string_view("index.html\0.png", 15));
  CHECK(r.status == 400);
  CHECK(r.file.empty());
}

TEST_CASE("a symlink inside public/ that points out is refused, one that stays inside is served") {
  WebRoot w;
  const auto leak = resolve_static(w.roots, "leak.txt");
  CHECK(leak.status == 400);
  CHECK(leak.error == "the path leaves the dashboard folder");
  CHECK(leak.file.empty());
  const auto alias = resolve_static(w.roots, "alias.js");
  CHECK(alias.status == 200);
  CHECK(alias.file == fs::canonical(w.dir / "public" / "app.js"));
}

TEST_CASE("a symlinked web root is followed: the check is against the real folder") {
  WebRoot w;
  fs::create_directory_symlink(w.dir / "public", w.dir / "current");
  w.roots.public_dir = w.dir / "current";
  CHECK(resolve_static(w.roots, "app.js").status == 200);
  CHECK(resolve_static(w.roots, "leak.txt").status == 400);
}

TEST_CASE("missing files, folders and file types the dashboard does not use are 404") {
  WebRoot w;
  CHECK(resolve_static(w.roots, "missing.js").status == 404);
  CHECK(resolve_static(w.roots, "js").status == 404);           // a folder is not a file
  CHECK(resolve_static(w.roots, "notes.md").status == 404);     // not a dashboard type
  CHECK(resolve_static(w.roots, "notes.md").error == "not a dashboard file type");
  CHECK(resolve_static(w.roots, std::string(201, 'a')).status == 400);  // too long to be ours
  w.roots.public_dir = w.dir / "no-such-folder";
  CHECK(resolve_static(w.roots, "").status == 404);
}

}  // namespace test_static_files
