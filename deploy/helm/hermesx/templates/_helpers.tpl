{{/* Chart name, truncated to the 63 characters a DNS label allows. */}}
{{- define "hermesx.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified app name: <release>-<chart>, or the release name when it already contains the chart's. */}}
{{- define "hermesx.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "hermesx.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "hermesx.labels" -}}
helm.sh/chart: {{ include "hermesx.chart" . }}
{{ include "hermesx.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "hermesx.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hermesx.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "hermesx.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* ---- In-chart PostgreSQL ---- */}}

{{- define "hermesx.postgresql.fullname" -}}
{{- printf "%s-postgresql" (include "hermesx.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* "true" when the in-chart PostgreSQL is deployed: enabled and no env.DATABASE_URL given. */}}
{{- define "hermesx.postgresql.deploy" -}}
{{- if and .Values.postgresql.enabled (empty .Values.env.DATABASE_URL) }}true{{ end }}
{{- end }}

{{/* The in-chart PostgreSQL password: from values, else the one already stored, else a new one. */}}
{{- define "hermesx.postgresql.password" -}}
{{- if .Values.postgresql.auth.password }}
{{- .Values.postgresql.auth.password }}
{{- else }}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "hermesx.postgresql.fullname" .) }}
{{- if and $existing $existing.data (hasKey $existing.data "password") }}
{{- index $existing.data "password" | b64dec }}
{{- else }}
{{- randAlphaNum 32 }}
{{- end }}
{{- end }}
{{- end }}

{{/* The app's login role password (APP_DATABASE_URL): as the owner's, from values, stored, or new. */}}
{{- define "hermesx.postgresql.loginPassword" -}}
{{- if .Values.postgresql.auth.loginPassword }}
{{- .Values.postgresql.auth.loginPassword }}
{{- else }}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "hermesx.postgresql.fullname" .) }}
{{- if and $existing $existing.data (hasKey $existing.data "login-password") }}
{{- index $existing.data "login-password" | b64dec }}
{{- else }}
{{- randAlphaNum 32 }}
{{- end }}
{{- end }}
{{- end }}

{{- define "hermesx.postgresql.labels" -}}
helm.sh/chart: {{ include "hermesx.chart" . }}
{{ include "hermesx.postgresql.selectorLabels" . }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "hermesx.postgresql.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hermesx.name" . }}-postgresql
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: database
{{- end }}

{{/* ---- Secrets of the app ---- */}}

{{/* Settings that are credentials (or may carry one): never rendered as a plain env value. */}}
{{- define "hermesx.secretEnvKeys" -}}
{{- list "DATABASE_URL" "APP_DATABASE_URL" "REDIS_URL" "REDIS_PASSWORD" "REDIS_SENTINEL_PASSWORD" "HERMES_ACP_TOKEN" "HERMES_API_KEY" "HERMES_SECRETS_KEY" "LLM_API_KEY" "S3_ACCESS_KEY_ID" "S3_SECRET_ACCESS_KEY" "MINIO_ACCESS_KEY" "MINIO_SECRET_KEY" | toJson }}
{{- end }}

{{/*
"true" when env names S3 (S3_BUCKET or MINIO_ENDPOINT): replicas share one object store.
*/}}
{{- define "hermesx.objectStore.s3" -}}
{{- if or .Values.env.S3_BUCKET .Values.env.MINIO_ENDPOINT }}true{{- end }}
{{- end }}

{{/*
"true" when the pods keep objects on disk in an emptyDir (no S3 in env).
*/}}
{{- define "hermesx.objectStore.emptyDir" -}}
{{- if and (not (include "hermesx.objectStore.s3" .)) .Values.objectStore.emptyDir.enabled }}true{{- end }}
{{- end }}

{{/*
The secret settings given in env, as JSON: they go into the chart's Secret <fullname>-env. The
in-chart databases' URLs are not among them (they come from their own Secrets).
*/}}
{{- define "hermesx.secretEnv" -}}
{{- $out := dict }}
{{- $inChartRedis := include "hermesx.redis.deploy" . }}
{{- range $key := include "hermesx.secretEnvKeys" . | fromJsonArray }}
{{- $value := index $.Values.env $key | default "" | toString }}
{{- if and $value (ne $value "<nil>") (not (and (eq $key "REDIS_URL") $inChartRedis)) }}
{{- $_ := set $out $key $value }}
{{- end }}
{{- end }}
{{- toJson $out }}
{{- end }}

{{- define "hermesx.envSecretName" -}}
{{- printf "%s-env" (include "hermesx.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* ---- In-chart Redis ---- */}}

{{/* The in-chart Redis Service: redis.serviceName, else <fullname>-redis (one per release). */}}
{{- define "hermesx.redis.fullname" -}}
{{- default (printf "%s-redis" (include "hermesx.fullname" .)) .Values.redis.serviceName | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
"true" when the in-chart Redis is deployed: enabled, and env.REDIS_URL either empty or naming
it: the host "redis" of the guide's default "redis://redis:6379", or the Service's own name.
*/}}
{{- define "hermesx.redis.deploy" -}}
{{- if .Values.redis.enabled }}
{{- $url := .Values.env.REDIS_URL | default "" | toString }}
{{- $host := (urlParse $url).hostname }}
{{- $external := or .Values.env.REDIS_SENTINELS .Values.env.REDIS_CLUSTER_NODES }}
{{- if and (not $external) (or (empty $url) (eq $host "redis") (eq $host (include "hermesx.redis.fullname" .))) }}true{{ end }}
{{- end }}
{{- end }}

{{/* "true" when the in-chart Redis runs as a primary, replicas and sentinels. */}}
{{- define "hermesx.redis.ha" -}}
{{- if and (include "hermesx.redis.deploy" .) .Values.redis.sentinel.enabled }}true{{ end }}
{{- end }}

{{- define "hermesx.redis.sentinelName" -}}
{{- printf "%s-sentinel" (include "hermesx.redis.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "hermesx.redis.headless" -}}
{{- printf "%s-hl" (include "hermesx.redis.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "hermesx.redis.sentinelHeadless" -}}
{{- printf "%s-hl" (include "hermesx.redis.sentinelName" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The three sentinels' stable addresses, as REDIS_SENTINELS wants them. */}}
{{- define "hermesx.redis.sentinels" -}}
{{- $name := include "hermesx.redis.sentinelName" . }}
{{- $hl := include "hermesx.redis.sentinelHeadless" . }}
{{- $ns := .Release.Namespace }}
{{- $list := list }}
{{- range $i := until 3 }}
{{- $list = append $list (printf "%s-%d.%s.%s.svc:26379" $name $i $hl $ns) }}
{{- end }}
{{- join "," $list }}
{{- end }}

{{/* The in-chart Redis URL; its password (redis.auth) is expanded by Kubernetes from HERMESX_REDIS_PASSWORD. */}}
{{- define "hermesx.redis.url" -}}
{{- $auth := .Values.redis.auth.enabled | ternary ":$(HERMESX_REDIS_PASSWORD)@" "" }}
{{- printf "redis://%s%s:6379" $auth (include "hermesx.redis.fullname" .) }}
{{- end }}

{{/* The in-chart Redis password: from values, else the one already stored, else a new one. */}}
{{- define "hermesx.redis.password" -}}
{{- if .Values.redis.auth.password }}
{{- .Values.redis.auth.password }}
{{- else }}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "hermesx.redis.fullname" .) }}
{{- if and $existing $existing.data (hasKey $existing.data "password") }}
{{- index $existing.data "password" | b64dec }}
{{- else }}
{{- randAlphaNum 32 }}
{{- end }}
{{- end }}
{{- end }}

{{- define "hermesx.redis.labels" -}}
helm.sh/chart: {{ include "hermesx.chart" . }}
{{ include "hermesx.redis.selectorLabels" . }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "hermesx.redis.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hermesx.name" . }}-redis
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: cache
{{- end }}

{{/* ---- HERMES_SECRETS_KEY ---- */}}

{{- define "hermesx.secretsKeyName" -}}
{{- printf "%s-secrets-key" (include "hermesx.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
"true" when the chart keeps the key in its own Secret: secretsKey.generate, and neither
env.HERMES_SECRETS_KEY nor existingSecret (when it can be read) holds one.
*/}}
{{- define "hermesx.secretsKey.generated" -}}
{{- $existing := dict }}
{{- if .Values.existingSecret }}
{{- $existing = (lookup "v1" "Secret" .Release.Namespace .Values.existingSecret).data | default dict }}
{{- end }}
{{- if and .Values.secretsKey.generate (not .Values.env.HERMES_SECRETS_KEY) (not (hasKey $existing "HERMES_SECRETS_KEY")) }}true{{ end }}
{{- end }}

{{/* The generated key: the one already stored (it must never change), else 32 new random bytes. */}}
{{- define "hermesx.secretsKey" -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "hermesx.secretsKeyName" .) }}
{{- if and $existing $existing.data (hasKey $existing.data "HERMES_SECRETS_KEY") }}
{{- index $existing.data "HERMES_SECRETS_KEY" | b64dec }}
{{- else }}
{{- randBytes 32 }}
{{- end }}
{{- end }}
