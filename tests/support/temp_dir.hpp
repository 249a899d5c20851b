#pragma once
// A fresh temporary folder per test, removed at the end; a tiny disk of its own on demand;
// special files (device, FIFO, socket) where a regular file is expected.

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace quote_lab::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "quote-lab-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// A TempDir with its own small tmpfs mounted on it, to make a disk full or read-only on
/// demand (the tests run as root). Always unmounted on scope exit, whatever the test did.
/// `mounted()` is false where mounting is not allowed: the test then says it skipped.
class SmallDisk {
 public:
  explicit SmallDisk(std::size_t kib = 64) : options_("size=" + std::to_string(kib) + "k") {
    mounted_ = ::geteuid() == 0 && ::mount("tmpfs", dir_.path().c_str(), "tmpfs", 0, options_.c_str()) == 0;
  }
  ~SmallDisk() {
    // MNT_DETACH: a file a crashed lab left open must not keep the mount (and the test) alive.
    if (mounted_) ::umount2(dir_.path().c_str(), MNT_DETACH);
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;

  bool mounted() const { return mounted_; }
  const std::filesystem::path& path() const { return dir_.path(); }
  std::filesystem::path operator/(const std::string& name) const { return dir_ / name; }

  /// Takes every free byte with a file named "filler": the next write gets ENOSPC.
  void fill() {
    const int fd = ::open((dir_ / "filler").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    const std::string block(4096, 'x');
    while (fd >= 0 && ::write(fd, block.data(), block.size()) > 0) {
    }
    while (fd >= 0 && ::write(fd, block.data(), 1) > 0) {
    }
    if (fd >= 0) ::close(fd);
  }
  /// Gives the space back.
  void free_space() { std::filesystem::remove(dir_ / "filler"); }
  /// Remounts the disk read-only (writes get EROFS) or writable again.
  bool set_read_only(bool read_only) {
    return ::mount(nullptr, dir_.path().c_str(), nullptr, MS_REMOUNT | (read_only ? MS_RDONLY : 0),
                   options_.c_str()) == 0;
  }

 private:
  TempDir dir_;
  std::string options_;
  bool mounted_ = false;
};

/// A kind of file that is not a regular file, to put where the lab expects one.
enum class SpecialFile { character_device, fifo, socket };

/// The kind's human name, as the lab's messages say it: "a character device", "a FIFO", "a socket".
inline std::string special_file_name(SpecialFile kind) {
  switch (kind) {
    case SpecialFile::character_device: return "a character device";
    case SpecialFile::fifo: return "a FIFO";
    case SpecialFile::socket: return "a socket";
  }
  return "?";
}

/// Makes a special file of `kind` at `path` (which must not exist yet): a character device
/// node with /dev/null's numbers, of our own so that a lab that renames it never touches
/// /dev/null itself; a FIFO; or a Unix socket, bound and closed (the file stays). False when
/// the OS refuses: mknod of a device needs root, a socket path has at most 107 bytes.
inline bool make_special_file(const std::filesystem::path& path, SpecialFile kind) {
  switch (kind) {
    case SpecialFile::character_device: return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0;
    case SpecialFile::fifo: return ::mkfifo(path.c_str(), 0644) == 0;
    case SpecialFile::socket: {
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      if (path.native().size() >= sizeof addr.sun_path) return false;
      std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
      const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0) return false;
      const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
      ::close(fd);
      return bound;
    }
  }
  return false;
}

inline void write_file(const std::filesystem::path& p, const std::string& content) {
  std::ofstream(p, std::ios::binary) << content;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace quote_lab::testing
