{{/* Names, labels, the image, the store environment and the checks every template shares. */}}

{{- define "servo-fleet.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* "<release>-<chart>", or the release alone when it already contains the chart name. */}}
{{- define "servo-fleet.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "servo-fleet.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "servo-fleet.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: servo-fleet
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Selector labels of one component: call with (dict "ctx" $ "component" "gateway"). */}}
{{- define "servo-fleet.selectorLabels" -}}
app.kubernetes.io/name: {{ include "servo-fleet.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "servo-fleet.componentLabels" -}}
{{ include "servo-fleet.labels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "servo-fleet.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{- define "servo-fleet.gatewayServiceAccount" -}}
{{- default (printf "%s-gateway" (include "servo-fleet.fullname" .)) .Values.serviceAccount.gatewayName -}}
{{- end -}}

{{- define "servo-fleet.workerServiceAccount" -}}
{{- default (printf "%s-worker" (include "servo-fleet.fullname" .)) .Values.serviceAccount.workerName -}}
{{- end -}}

{{/* The Secret the chart creates for URLs given in values. */}}
{{- define "servo-fleet.storeSecret" -}}
{{- printf "%s-store" (include "servo-fleet.fullname" .) -}}
{{- end -}}

{{- define "servo-fleet.testKeySecret" -}}
{{- default (printf "%s-test-key" (include "servo-fleet.fullname" .)) .Values.tests.apiKeySecret -}}
{{- end -}}

{{/* FLEET_DATABASE_URL and FLEET_REDIS_URL, each from the chart's Secret or an existing one. */}}
{{- define "servo-fleet.storeEnv" -}}
- name: FLEET_DATABASE_URL
  valueFrom:
    secretKeyRef:
      {{- if .Values.database.existingSecret }}
      name: {{ .Values.database.existingSecret }}
      key: {{ .Values.database.existingSecretKey }}
      {{- else }}
      name: {{ include "servo-fleet.storeSecret" . }}
      key: database-url
      {{- end }}
- name: FLEET_REDIS_URL
  valueFrom:
    secretKeyRef:
      {{- if .Values.redis.existingSecret }}
      name: {{ .Values.redis.existingSecret }}
      key: {{ .Values.redis.existingSecretKey }}
      {{- else }}
      name: {{ include "servo-fleet.storeSecret" . }}
      key: redis-url
      {{- end }}
{{- end -}}

{{/* Settings gateways and workers share. */}}
{{- define "servo-fleet.commonEnv" -}}
- name: FLEET_SESSION_TTL_DAYS
  value: {{ .Values.sessionTtlDays | quote }}
{{- with .Values.allowPrivateNetwork }}
- name: FLEET_ALLOW_PRIVATE_NETWORK
  value: {{ join "," . | quote }}
{{- end }}
- name: RUST_LOG
  value: {{ .Values.logLevel | quote }}
{{- with .Values.recordings }}
{{- if .objectStore }}
- name: FLEET_OBJECT_STORE
  value: {{ .objectStore | quote }}
- name: FLEET_S3_REGION
  value: {{ .s3.region | quote }}
{{- with .s3.endpoint }}
- name: FLEET_S3_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- if .s3.allowHttp }}
- name: FLEET_S3_ALLOW_HTTP
  value: "true"
{{- end }}
{{- with .publicUrl }}
- name: FLEET_PUBLIC_URL
  value: {{ . | quote }}
{{- end }}
{{- with .existingSecret }}
- name: FLEET_S3_ACCESS_KEY_ID
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: s3-access-key-id
      optional: true
- name: FLEET_S3_SECRET_ACCESS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: s3-secret-access-key
      optional: true
- name: FLEET_URL_SIGNING_KEY
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: url-signing-key
      optional: true
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Spread constraints over the configured topology keys for one component. */}}
{{- define "servo-fleet.topologySpread" -}}
{{- if .ctx.Values.topologySpread.enabled -}}
topologySpreadConstraints:
{{- range .ctx.Values.topologySpread.topologyKeys }}
  - maxSkew: {{ $.ctx.Values.topologySpread.maxSkew }}
    topologyKey: {{ . }}
    whenUnsatisfiable: {{ $.ctx.Values.topologySpread.whenUnsatisfiable }}
    matchLabelKeys:
      - pod-template-hash
    labelSelector:
      matchLabels:
        {{- include "servo-fleet.selectorLabels" (dict "ctx" $.ctx "component" $.component) | nindent 8 }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
Refuses values that would install a broken fleet, each with what to change.
Every template includes it, so `helm template` and `helm install` stop before
rendering anything.
*/}}
{{- define "servo-fleet.validate" -}}
{{- if not (or .Values.database.url .Values.database.existingSecret) -}}
{{- fail "database: set database.url (postgres://user:password@host:5432/db) or database.existingSecret" -}}
{{- end -}}
{{- if not (or .Values.redis.url .Values.redis.existingSecret) -}}
{{- fail "redis: set redis.url (redis://host:6379) or redis.existingSecret" -}}
{{- end -}}
{{- $w := .Values.worker -}}
{{- if le (int $w.terminationGracePeriodSeconds) (add $w.preStopSeconds $w.drainSeconds | int) -}}
{{- fail (printf "worker.terminationGracePeriodSeconds (%d) must be larger than worker.preStopSeconds + worker.drainSeconds (%d + %d): the kubelet would kill workers before they drain" (int $w.terminationGracePeriodSeconds) (int $w.preStopSeconds) (int $w.drainSeconds)) -}}
{{- end -}}
{{- $g := .Values.gateway -}}
{{- if le (int $g.terminationGracePeriodSeconds) (add $g.preStopSeconds $g.requestTimeoutSeconds | int) -}}
{{- fail (printf "gateway.terminationGracePeriodSeconds (%d) must be larger than gateway.preStopSeconds + gateway.requestTimeoutSeconds (%d + %d): the kubelet would cut requests in flight" (int $g.terminationGracePeriodSeconds) (int $g.preStopSeconds) (int $g.requestTimeoutSeconds)) -}}
{{- end -}}
{{- $a := $w.autoscaling -}}
{{- if and (ne $a.mode "none") (gt (int $a.minReplicas) (int $a.maxReplicas)) -}}
{{- fail (printf "worker.autoscaling.minReplicas (%d) is larger than maxReplicas (%d)" (int $a.minReplicas) (int $a.maxReplicas)) -}}
{{- end -}}
{{- if and (eq $a.mode "hpa") (lt (int $a.minReplicas) 1) -}}
{{- fail "worker.autoscaling.minReplicas must be at least 1 with mode hpa (only KEDA scales to zero)" -}}
{{- end -}}
{{- if and $g.autoscaling.enabled (gt (int $g.autoscaling.minReplicas) (int $g.autoscaling.maxReplicas)) -}}
{{- fail (printf "gateway.autoscaling.minReplicas (%d) is larger than maxReplicas (%d)" (int $g.autoscaling.minReplicas) (int $g.autoscaling.maxReplicas)) -}}
{{- end -}}
{{- if and .Values.httpRoute.enabled (not .Values.httpRoute.parentRefs) -}}
{{- fail "httpRoute.parentRefs: name the Gateway the HTTPRoute attaches to" -}}
{{- end -}}
{{- if and .Values.grpcRoute.enabled (not .Values.grpcRoute.parentRefs) -}}
{{- fail "grpcRoute.parentRefs: name the Gateway the GRPCRoute attaches to" -}}
{{- end -}}
{{- if and .Values.ingress.enabled (not .Values.ingress.hosts) -}}
{{- fail "ingress.hosts: list the host names the Ingress serves" -}}
{{- end -}}
{{- if eq (int $w.port) (int $w.metricsPort) -}}
{{- fail "worker.port and worker.metricsPort must differ: only gateways may reach the gRPC port" -}}
{{- end -}}
{{- end -}}

{{/* Sessions per worker KEDA aims for: a share of the worker's capacity, at least 1. */}}
{{- define "servo-fleet.kedaTarget" -}}
{{- max 1 (div (mul (int .Values.worker.capacity) (int .Values.worker.autoscaling.keda.targetUtilizationPercent)) 100) -}}
{{- end -}}

{{/* One egress rule: TCP ports, to the given peers or (none given) anywhere. */}}
{{- define "servo-fleet.portsEgress" -}}
{{- if .to }}
- to:
    {{- toYaml .to | nindent 4 }}
  ports:
{{- else }}
- ports:
{{- end }}
    {{- range .ports }}
    - port: {{ . }}
      protocol: TCP
    {{- end }}
{{- end -}}

{{/* Egress every fleet pod needs: DNS, Postgres and Redis. */}}
{{- define "servo-fleet.storeEgress" -}}
# DNS
- to:
    {{- toYaml .Values.networkPolicy.dns.to | nindent 4 }}
  ports:
    - port: 53
      protocol: UDP
    - port: 53
      protocol: TCP
# Postgres
{{- include "servo-fleet.portsEgress" .Values.networkPolicy.database }}
# Redis
{{- include "servo-fleet.portsEgress" .Values.networkPolicy.redis }}
{{- end -}}

{{/*
Egress to recordings' object storage, when recordings are on: the peers
networkPolicy.objectStore names; without peers, public addresses on its ports
for gateways (workers reach public addresses anyway), never private ones.
*/}}
{{- define "servo-fleet.objectStoreEgress" -}}
{{- $np := .ctx.Values.networkPolicy -}}
{{- if .ctx.Values.recordings.objectStore }}
{{- if $np.objectStore.to }}
# Object storage, for recordings
{{- include "servo-fleet.portsEgress" $np.objectStore }}
{{- else if .gateway }}
# Object storage on public addresses, for recordings
- to:
    - ipBlock:
        cidr: 0.0.0.0/0
        except:
          {{- toYaml $np.worker.deniedRanges | nindent 10 }}
    - ipBlock:
        cidr: ::/0
        except:
          {{- toYaml $np.worker.deniedRangesV6 | nindent 10 }}
  ports:
    {{- range $np.objectStore.ports }}
    - port: {{ . }}
      protocol: TCP
    {{- end }}
{{- end }}
{{- end }}
{{- end -}}
