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

{{/* ---- In-chart Redis ---- */}}

{{/*
"true" when the in-chart Redis is deployed: enabled, and env.REDIS_URL either empty or naming
its Service (the default "redis://redis:6379" with redis.serviceName "redis").
*/}}
{{- define "hermesx.redis.deploy" -}}
{{- if .Values.redis.enabled }}
{{- $url := .Values.env.REDIS_URL | default "" | toString }}
{{- if or (empty $url) (eq (urlParse $url).hostname .Values.redis.serviceName) }}true{{ end }}
{{- end }}
{{- end }}

{{- define "hermesx.redis.url" -}}
{{- default (printf "redis://%s:6379" .Values.redis.serviceName) .Values.env.REDIS_URL }}
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
