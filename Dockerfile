# The ForgeFlow node image: a JRE, the jar, a non-root user; configured only through FORGEFLOW_* variables, secrets
# preferably as files (FORGEFLOW_DATABASE_URL_FILE=/run/secrets/database-url, FORGEFLOW_API_TOKENS_FILE, ...).
#   mvn -B -q package -DskipTests && docker build -t forgeflow .
# Without Docker or a registry, scripts/build-images.sh builds it with podman on a base made from Debian packages.
#
# Two ways to run it (README "Run a cluster" and SECURITY.md say what each protects):
# - as it is, uid 10001, every capability dropped: the API and scheduler nodes, and workers whose jobs may share the
#   node's user. Containment: the runtime masks parts of /proc, so no job gets a fresh /proc and the node reports
#   process-group (pid-namespace with --security-opt unmask=ALL / systempaths=unconfined, or procMount: Unmasked).
# - workers as root inside the container with only CAP_SETUID + CAP_SETGID (setpriv to the job user), CAP_KILL (to
#   signal the job user's processes) and, for pid-namespace, CAP_SYS_ADMIN (unshare --pid --mount-proc); every other
#   capability dropped, no-new-privileges on. Jobs then run as forgeflow-job (uid 10002, no capabilities) and secret
#   files owned by root, mode 0440 group 10001, are out of their reach.
ARG BASE=docker.io/library/debian:bookworm-slim
FROM ${BASE}

RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-17-jre-headless curl tini \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --user-group --no-create-home --home-dir /var/lib/forgeflow --shell /usr/sbin/nologin forgeflow \
 && useradd --uid 10002 --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin forgeflow-job \
 && install -d -o forgeflow -g forgeflow -m 0755 /var/lib/forgeflow

COPY --chmod=0444 server/target/forgeflow.jar /opt/forgeflow/forgeflow.jar
COPY --chmod=0555 deploy/node/entrypoint.sh /opt/forgeflow/entrypoint.sh
COPY --chmod=0444 LICENSE /opt/forgeflow/LICENSE

# inside a container the API listens on every interface, which the node allows only with FORGEFLOW_API_TOKENS set
# (or FORGEFLOW_INSECURE=true); the admin port stays on the container's loopback
ENV FORGEFLOW_LISTEN_ADDR=0.0.0.0:8080 \
    FORGEFLOW_ADMIN_LISTEN_ADDR=127.0.0.1:8081 \
    FORGEFLOW_DATA_DIR=/var/lib/forgeflow/dev-database \
    LANG=C.UTF-8 \
    JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75"

# the only writable folder: the embedded development database, used only when FORGEFLOW_DATABASE_URL is not set; the
# shell jobs' working directory (0755: a root node without CAP_DAC_OVERRIDE may enter it, forgeflow-job may not write)
VOLUME /var/lib/forgeflow
WORKDIR /var/lib/forgeflow
# as uid 10001 the node's shell jobs run as that user too (the node is non-dumpable: they cannot read its /proc). Run
# as root (--user 0 with the capabilities above), the entrypoint sets FORGEFLOW_JOB_USER=forgeflow-job
USER 10001:10001
EXPOSE 8080

# tini reaps the shell jobs' orphans and passes SIGTERM to the JVM, which drains (FORGEFLOW_DRAIN_GRACE)
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=10s --start-period=120s --retries=3 \
  CMD curl -fsS -o /dev/null "http://127.0.0.1:${FORGEFLOW_LISTEN_ADDR##*:}/healthz" || exit 1
ENTRYPOINT ["/usr/bin/tini", "--", "/opt/forgeflow/entrypoint.sh"]
CMD ["server"]
