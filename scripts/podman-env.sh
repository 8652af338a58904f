# Sourced by scripts/build-images.sh and scripts/compose-smoke.sh: installs what they need from Debian's packages
# and points podman at a configuration that runs containers on this kind of machine (runc, cgroupfs, and ulimits no
# higher than this shell's hard limits, which a container cannot raise without CAP_SYS_RESOURCE).

ff_need_packages() { # ff_need_packages PACKAGE...: apt-get install those that are not installed yet
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

ff_podman_env() {
  ff_need_packages podman podman-compose runc netavark aardvark-dns iptables mmdebstrap curl python3
  local conf_dir="${XDG_RUNTIME_DIR:-/tmp}/forgeflow-podman"
  mkdir -p "$conf_dir"
  local nofile nproc
  nofile=$(ulimit -Hn); [ "$nofile" = unlimited ] && nofile=1048576
  nproc=$(ulimit -Hu); { [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; } && nproc=32768
  cat > "$conf_dir/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=${nproc}:${nproc}"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
CONF
  export CONTAINERS_CONF="$conf_dir/containers.conf"
}
