#!/usr/bin/env bash
# Writes compose.yaml's secret files into DIR (created, mode 0700), run as root (sudo):
#   database-url  postgresql://forgeflow:<password>@postgres:5432/forgeflow   root:10001, 0440
#   api-tokens    admin:<64 hex digits>                                       root:10001, 0440
#   db-password   <password> (PostgreSQL's POSTGRES_PASSWORD_FILE)            root:root,  0444, mounted in PostgreSQL only
# Owned by root and readable by group 10001: the api node (uid 10001) and the workers (root) read them, their shell
# jobs (forgeflow-job, uid 10002) cannot. Existing files are kept (delete them to make new ones). Prints the admin token.
# With rootless podman or Docker, make the ownership the container's: podman unshare chown 0:10001 DIR/*.
set -euo pipefail
dir=${1:?usage: sudo scripts/compose-secrets.sh DIR (then export FORGEFLOW_SECRETS_DIR=\$(realpath DIR))}
if [ "$(id -u)" != 0 ]; then
  echo "run as root (sudo): the secret files must belong to root, group 10001, so that jobs cannot read them" >&2
  exit 1
fi
install -d -m 0700 "$dir"
random() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }
if [ ! -s "$dir/db-password" ]; then
  password=$(random 16)
  printf '%s' "$password" > "$dir/db-password"
  printf 'postgresql://forgeflow:%s@postgres:5432/forgeflow' "$password" > "$dir/database-url"
fi
[ -s "$dir/api-tokens" ] || printf 'admin:%s' "$(random 32)" > "$dir/api-tokens"
chown 0:10001 "$dir/database-url" "$dir/api-tokens"
chmod 0440 "$dir/database-url" "$dir/api-tokens"
chown 0:0 "$dir/db-password"
chmod 0444 "$dir/db-password"
printf '%s\n' "$(sed -n 's/^admin:\([^,]*\).*/\1/p' "$dir/api-tokens")"
