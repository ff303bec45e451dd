#!/usr/bin/env bash
# Builds the servo-fleet image from deploy/Dockerfile with whichever OCI builder
# is installed: docker (when its daemon answers), podman, or buildah.
#
#   scripts/image.sh source [TAG]           the default target: compiles inside the build
#   scripts/image.sh prebuilt BINARY [TAG]  the prebuilt target around a binary built outside
#   scripts/image.sh check BINARY           the check `make test` runs without a daemon or a
#                                           registry: Debian's buildah (installed if missing,
#                                           vfs storage, chroot isolation) builds the prebuilt
#                                           target on a Debian base made by debootstrap (cached
#                                           in FLEET_IMAGE_CACHE), then the image's own binary
#                                           runs and the image's user, paths and files are checked.
set -euo pipefail
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"

root="$(cd "$(dirname "$0")/.." && pwd)"
dockerfile="$root/deploy/Dockerfile"
version="$(sed -n 's/^appVersion: "\(.*\)"/\1/p' "$root/charts/servo-fleet/Chart.yaml")"
mode="${1:-}"

builder() {
  if command -v docker >/dev/null && docker info >/dev/null 2>&1; then echo docker
  elif command -v podman >/dev/null; then echo podman
  elif command -v buildah >/dev/null; then echo buildah
  else
    echo "image: no OCI builder found: install docker, podman or buildah (apt-get install buildah)" >&2
    return 1
  fi
}

build() { # build BUILDER TARGET TAG CONTEXT [EXTRA...]
  local b="$1" target="$2" tag="$3" context="$4"; shift 4
  case "$b" in
    docker|podman) "$b" build -f "$dockerfile" --target "$target" -t "$tag" "$@" "$context" ;;
    buildah) buildah bud -f "$dockerfile" --target "$target" -t "$tag" "$@" "$context" ;;
  esac
}

# A build context holding only the binary (stripped of debug info: the image
# needs none of it).
prebuilt_context() {
  [ -x "$1" ] || { echo "image: no executable binary at $1 (cargo build --release first)" >&2; exit 1; }
  local ctx; ctx="$(mktemp -d)"
  objcopy --strip-debug "$1" "$ctx/servo-fleet"
  echo "$ctx"
}

# buildah's chroot isolation runs each step through a sealed in-memory copy of
# itself. On a busy machine the kernel can refuse the seal for a moment
# ("sealing memfd copy: Device or resource busy", EBUSY while the copy's pages
# are still held), which fails the step though nothing is wrong with the build:
# that one failure is tried again, up to three attempts in all.
sealed_retry() { # sealed_retry LOG CMD...: CMD's output goes to LOG
  local log="$1" attempt; shift
  for attempt in 1 2 3; do
    "$@" >"$log" 2>&1 && return 0
    grep -q "sealing memfd" "$log" || return 1
    echo "image: buildah could not seal its copy of itself (attempt $attempt); trying again" >&2
    sleep 2
  done
  return 1
}

case "$mode" in
  source)
    tag="${2:-servo-fleet:$version}"
    build "$(builder)" runtime "$tag" "$root"
    echo "image: built $tag (target runtime)"
    ;;
  prebuilt)
    tag="${3:-servo-fleet:$version}"
    ctx="$(prebuilt_context "${2:?usage: scripts/image.sh prebuilt BINARY [TAG]}")"
    trap 'rm -rf "$ctx"' EXIT
    build "$(builder)" prebuilt "$tag" "$ctx"
    echo "image: built $tag (target prebuilt)"
    ;;
  check)
    started=$(date +%s)
    binary="${2:?usage: scripts/image.sh check BINARY}"
    missing=()
    command -v buildah >/dev/null || missing+=(buildah)
    command -v debootstrap >/dev/null || missing+=(debootstrap)
    if [ "${#missing[@]}" -gt 0 ]; then
      echo "image: installing ${missing[*]}"
      $sudo apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    export STORAGE_DRIVER=vfs BUILDAH_ISOLATION=chroot
    cache="${FLEET_IMAGE_CACHE:-$HOME/.cache/servo-fleet/image}"
    base=localhost/servo-fleet-base:bookworm
    if ! $sudo buildah images --quiet "$base" >/dev/null 2>&1; then
      if [ ! -f "$cache/rootfs/etc/debian_version" ]; then
        # The mirror this machine's apt uses; debootstrap's default otherwise.
        mirror="$(sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)"
        echo "image: debootstrap bookworm (minbase)"
        rm -rf "$cache/rootfs"; mkdir -p "$cache"
        $sudo debootstrap --variant=minbase bookworm "$cache/rootfs" ${mirror:+"$mirror"} >"$cache/debootstrap.log" 2>&1 ||
          { tail -20 "$cache/debootstrap.log" >&2; exit 1; }
      fi
      ctr="$($sudo buildah from scratch)"
      $sudo buildah copy --quiet "$ctr" "$cache/rootfs" / >/dev/null
      $sudo buildah commit --quiet --rm "$ctr" "$base" >/dev/null
    fi
    ctx="$(prebuilt_context "$binary")"
    trap 'rm -rf "$ctx"' EXIT
    tag=localhost/servo-fleet:check
    sealed_retry "$cache/build.log" $sudo buildah bud --quiet --pull=never --build-arg BASE_IMAGE="$base" \
      -f "$dockerfile" --target prebuilt -t "$tag" "$ctx" ||
      { tail -30 "$cache/build.log" >&2; exit 1; }
    # The image as the chart runs it: its user, entrypoint, cache path and files.
    config="$($sudo buildah inspect --format '{{.OCIv1.Config.User}} {{.OCIv1.Config.Entrypoint}} {{.OCIv1.Config.Env}}' "$tag")"
    case "$config" in
      "10001:10001 [/usr/local/bin/servo-fleet] "*FLEET_ENGINE_CACHE_DIR=/var/cache/servo-fleet*) ;;
      *) echo "image: unexpected image config: $config" >&2; exit 1 ;;
    esac
    ctr="$($sudo buildah from --pull=never "$tag")"
    mnt="$($sudo buildah mount "$ctr")"
    [ "$(stat -c %u:%g "$mnt/var/cache/servo-fleet")" = "10001:10001" ] ||
      { echo "image: /var/cache/servo-fleet is not owned by 10001" >&2; exit 1; }
    [ -s "$mnt/etc/ssl/certs/ca-certificates.crt" ] ||
      { echo "image: no CA certificates for https pages" >&2; exit 1; }
    $sudo buildah umount "$ctr" >/dev/null
    # The binary runs in the image's Debian as the image's user.
    sealed_retry "$cache/run.log" $sudo buildah run "$ctr" -- /usr/local/bin/servo-fleet --version ||
      { cat "$cache/run.log" >&2; exit 1; }
    $sudo buildah rm "$ctr" >/dev/null
    grep -qx "servo-fleet $version" "$cache/run.log" ||
      { echo "image: the binary in the image printed '$(cat "$cache/run.log")', not 'servo-fleet $version'" >&2; exit 1; }
    # Earlier check images, now untagged, go.
    $sudo buildah rmi --prune >/dev/null 2>&1 || true
    size="$($sudo buildah images --format '{{.Size}}' "$tag")"
    echo "image: built $tag with buildah ($size), target prebuilt; the binary runs in it as 10001 ($(( $(date +%s) - started )) s)"
    ;;
  *)
    echo "usage: scripts/image.sh source [TAG] | prebuilt BINARY [TAG] | check BINARY" >&2
    exit 2
    ;;
esac
