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

# Containers need what a chroot lacks: a root file system that is a mount point (podman's
# overlay storage remounts /, runc pivots the container's root away from it), and cgroups to
# put them in. A chroot's / is a folder of another file system: `mountpoint /` says no.
check_machine() {
  if ! mountpoint -q /; then
    unavailable "/ is not a mount point (a chroot?): podman's storage remounts / and runc pivots away from" \
      "it, which needs a root file system that is a mount point, as on the machine itself, in a VM or in a" \
      "container a container engine started. Run it outside the chroot."
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
