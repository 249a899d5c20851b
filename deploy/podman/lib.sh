# Shared by deploy/podman/up and deploy/podman/down (sourced): the checks that say why podman
# cannot run containers on this machine, before any podman command runs (in a chroot, podman's
# storage would already leave mounts behind in it).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# 69 (EX_UNAVAILABLE): podman cannot run containers here; the tests report it as skipped.
UNAVAILABLE=69

unavailable() {
  echo "deploy/podman/$(basename "$0"): podman cannot run containers here: $*" >&2
  exit "$UNAVAILABLE"
}

# Containers need what a chroot lacks: their root file system is made a mount point of its own
# (podman's overlay storage remounts /, runc pivots into it), and cgroups to put them in.
check_machine() {
  if [ -r /proc/1/root ] && [ "$(stat -Lc %d:%i /)" != "$(stat -Lc %d:%i /proc/1/root/ 2>/dev/null)" ]; then
    unavailable "this is a chroot (/ is not the root of process 1): podman's storage and runc need a root" \
      "file system that is a mount point in a mount namespace of its own (the machine itself, a VM, or a" \
      "container a container engine started), and a chroot's / is neither. Run it outside the chroot."
  fi
  if ! grep -qs ' /sys/fs/cgroup ' /proc/mounts; then
    unavailable "no cgroup file system is mounted on /sys/fs/cgroup: runc puts every container in a cgroup" \
      "(mount sysfs on /sys and cgroups on /sys/fs/cgroup, as any booted Debian has)."
  fi
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else echo "deploy/podman/$(basename "$0"): needs root (or sudo) for: $*" >&2; exit 1
  fi
}

# usage OPTIONS: the usage line (exit 2)
usage() {
  echo "usage: bash deploy/podman/$(basename "$0") compose.yml|compose.replicas.yml$1" >&2
  exit 2
}
