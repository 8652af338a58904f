#!/usr/bin/env bash
# Builds the compose stack's images with podman, without Docker and without an image registry:
#   localhost/forgeflow-debian:bookworm   a Debian 12 root file system made by mmdebstrap from Debian's packages
#   localhost/forgeflow:latest            the node (Dockerfile at the root) on that base
#   localhost/forgeflow-postgres:15       PostgreSQL 15 from Debian (deploy/images/postgres)
#   localhost/forgeflow-prometheus:latest Prometheus from Debian (deploy/images/prometheus)
# Builds the jar first when server/target/forgeflow.jar is missing (MAVEN_ARGS are passed to mvn, e.g. -o).
# Options: --rebuild also rebuilds images that exist; --jar rebuilds the jar.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/podman-env.sh
ff_podman_env

rebuild=false jar=false
for arg in "$@"; do
  case "$arg" in
    --rebuild) rebuild=true ;;
    --jar) jar=true ;;
    *) echo "unknown option $arg (--rebuild, --jar)" >&2; exit 2 ;;
  esac
done

base=localhost/forgeflow-debian:bookworm
if $rebuild || ! podman image exists "$base"; then
  echo "building $base with mmdebstrap (a few minutes)"
  tar_file=$(mktemp --suffix=.tar)
  trap 'rm -f "$tar_file"' EXIT
  mmdebstrap --quiet --variant=minbase --include=ca-certificates bookworm "$tar_file"
  podman import --change 'CMD ["/bin/bash"]' "$tar_file" "$base" >/dev/null
  rm -f "$tar_file"
fi

if $jar || [ ! -f server/target/forgeflow.jar ]; then
  echo "building server/target/forgeflow.jar"
  # shellcheck disable=SC2086
  mvn -B -q ${MAVEN_ARGS:-} package -DskipTests
fi

build() { # build TAG CONTEXT
  if $rebuild || [ "$2" = . ] || ! podman image exists "$1"; then
    echo "building $1"
    podman build --quiet --format docker --network=host --build-arg "BASE=$base" -t "$1" "$2" >/dev/null
  fi
}
build localhost/forgeflow:latest .               # always: the jar may have changed
build localhost/forgeflow-postgres:15 deploy/images/postgres
build localhost/forgeflow-prometheus:latest deploy/images/prometheus
podman images --filter reference='localhost/forgeflow*'
