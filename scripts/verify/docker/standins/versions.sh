# Pinned versions of what the stand-in base images carry (sourced by build.sh). The image tags
# themselves are pinned in the Dockerfile and the compose files; MINIO_TAG must match theirs.
NODE_VERSION=22.23.5
NPM_VERSION=10.9.8
S3RVER_VERSION=3.7.1
MINIO_TAG=RELEASE.2025-04-22T22-12-26Z
