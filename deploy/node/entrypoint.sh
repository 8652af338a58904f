#!/bin/sh
# The node image's entrypoint, under tini. Started as root (compose.yaml's and the Kubernetes workers), shell jobs run
# as forgeflow-job unless FORGEFLOW_JOB_USER names another user (FORGEFLOW_JOB_USER=root runs them as root, on purpose
# only). Started as any other user (the image's default, uid 10001), jobs run as that user, who can read every file
# the node can: a secret file given by FORGEFLOW_*_FILE is then in the jobs' reach, and this says so.
set -eu
if [ "$(id -u)" = 0 ]; then
  : "${FORGEFLOW_JOB_USER:=forgeflow-job}"
  export FORGEFLOW_JOB_USER
else
  case ",${FORGEFLOW_ROLES:-worker}," in
    *,worker,*)
      for name in $(env | sed -n 's/^\(FORGEFLOW_[A-Z_]*_FILE\)=.*/\1/p'); do
        eval "file=\${$name}"
        if [ -r "$file" ]; then
          echo "WARNING: $name=$file: this worker runs as uid $(id -u) and so do its shell jobs, which can read that" \
            "file. Run the container as root with CAP_SETUID, CAP_SETGID and CAP_KILL (jobs then run as" \
            "forgeflow-job) and the file owned by root, mode 0440 or stricter: README \"Run a cluster\"" >&2
        fi
      done
      ;;
  esac
fi
exec java -jar /opt/forgeflow/forgeflow.jar "$@"
