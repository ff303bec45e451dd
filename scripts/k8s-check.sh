#!/usr/bin/env bash
# Checks the Helm chart and the Dockerfile with the tools scripts/k8s-tools.sh
# installs, without a cluster:
#   1. helm lint --strict with every values file in charts/servo-fleet/ci/;
#   2. helm template of each, with the Prometheus Operator, KEDA and Gateway API
#      kinds announced, into $out/<name>.yaml;
#   3. kubernetes-validate --strict of every built-in kind at the oldest Kubernetes
#      the chart supports and at the newest the validator knows (CRD kinds only
#      warn there: the e2e test `chart` checks them field by field);
#   4. checkov's Kubernetes policies on every rendering, with the skips below;
#   5. hadolint on deploy/Dockerfile.
# The cross-object checks and the chart-to-binary contract test are Rust tests
# (tests/e2e/chart), which read the renderings the same way.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$("$root/scripts/k8s-tools.sh")"
tools="$(dirname "$bin")"
chart="$root/charts/servo-fleet"
out="${FLEET_K8S_RENDERED:-$tools/rendered}"
mkdir -p "$out"
started=$(date +%s)

# Checkov policies that do not fit this chart, each with the reason:
skips=(
  # Image by digest: image.digest pins it; the default follows the chart's appVersion tag.
  CKV_K8S_43
  # Pull policy Always: IfNotPresent is right for immutable tags and digests.
  CKV_K8S_15
  # CPU limits: they throttle the engine compile at start and page scripts; requests
  # reserve CPU, memory limits bound each pod.
  CKV_K8S_11
  # Secrets as files: every setting is a FLEET_* variable by design; the store URLs
  # come from a Secret through secretKeyRef and are never logged.
  CKV_K8S_35
)
skip_list="$(IFS=,; echo "${skips[*]}")"

api_versions=(
  --api-versions monitoring.coreos.com/v1/ServiceMonitor
  --api-versions monitoring.coreos.com/v1/PrometheusRule
)
# Oldest supported (Chart.yaml kubeVersion) and the newest the validator has.
kube_versions=(1.30.0 1.35.0)

failed=0
for values in "$chart"/ci/*-values.yaml; do
  name="$(basename "$values" -values.yaml)"
  echo "k8s-check: $name"
  if ! "$bin/helm" lint --strict --quiet -f "$values" "$chart" >"$out/$name.lint" 2>&1; then
    cat "$out/$name.lint"; echo "k8s-check: helm lint --strict failed for $name" >&2; failed=1; continue
  fi
  "$bin/helm" template servo-fleet "$chart" --namespace fleet -f "$values" \
    "${api_versions[@]}" >"$out/$name.yaml"
  for k in "${kube_versions[@]}"; do
    if ! "$tools/venv/bin/kubernetes-validate" --strict --quiet --no-warn \
        --kubernetes-version "$k" "$out/$name.yaml"; then
      echo "k8s-check: strict validation against Kubernetes $k failed for $name" >&2; failed=1
    fi
  done
  # A values file may skip more, on a line "# checkov-skip: CKV_…" with its reason.
  file_skips="$(sed -n 's/^# checkov-skip: \([A-Z0-9_]*\).*/,\1/p' "$values" | tr -d '\n')"
  if ! "$tools/venv/bin/checkov" --framework kubernetes -f "$out/$name.yaml" \
      --skip-check "$skip_list$file_skips" --skip-download --compact --quiet >"$out/$name.checkov" 2>&1; then
    cat "$out/$name.checkov"; echo "k8s-check: checkov failed for $name" >&2; failed=1
  fi
done

if ! "$tools/venv/bin/hadolint" "$root/deploy/Dockerfile"; then
  echo "k8s-check: hadolint failed for deploy/Dockerfile" >&2; failed=1
fi

[ "$failed" -eq 0 ] || exit 1
echo "k8s-check: lint, strict validation, policies and Dockerfile passed in $(( $(date +%s) - started )) s"
