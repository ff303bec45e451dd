#!/usr/bin/env bash
# Installs Debian's headless-capable Chromium, the baseline `servo-fleet bench`
# measures against, if it is missing.
set -euo pipefail
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
if ! command -v chromium >/dev/null; then
  echo "bench: installing chromium"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
