# The ForgeFlow node image: a JRE, the jar, a non-root user; configured only through FORGEFLOW_* variables.
#   mvn -B -q package -DskipTests && docker build -t forgeflow .
# Without Docker or a registry, scripts/build-images.sh builds it with podman on a base made from Debian packages.
ARG BASE=docker.io/library/debian:bookworm-slim
FROM ${BASE}

RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-17-jre-headless curl tini \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --user-group --no-create-home --home-dir /var/lib/forgeflow --shell /usr/sbin/nologin forgeflow \
 && useradd --uid 10002 --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin forgeflow-job \
 && install -d -o forgeflow -g forgeflow -m 0700 /var/lib/forgeflow

COPY --chmod=0444 server/target/forgeflow.jar /opt/forgeflow/forgeflow.jar
COPY --chmod=0444 LICENSE /opt/forgeflow/LICENSE

# inside a container the API listens on every interface, which the node allows only with FORGEFLOW_API_TOKENS set
# (or FORGEFLOW_INSECURE=true); the admin port stays on the container's loopback
ENV FORGEFLOW_LISTEN_ADDR=0.0.0.0:8080 \
    FORGEFLOW_ADMIN_LISTEN_ADDR=127.0.0.1:8081 \
    FORGEFLOW_DATA_DIR=/var/lib/forgeflow/dev-database \
    JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75"

# the only writable folder: the embedded development database, used only when FORGEFLOW_DATABASE_URL is not set
VOLUME /var/lib/forgeflow
WORKDIR /var/lib/forgeflow
# as uid 10001 the node's shell jobs run as that user too (protected by the non-dumpable node, see SECURITY.md); to
# run them as forgeflow-job, who cannot read the node's files, run the container as root (--user 0, with CAP_SETUID and
# CAP_SETGID) with FORGEFLOW_JOB_USER=forgeflow-job and the secrets as root-only files (FORGEFLOW_*_FILE)
USER 10001:10001
EXPOSE 8080

# tini reaps the shell jobs' orphans and passes SIGTERM to the JVM, which drains (FORGEFLOW_DRAIN_GRACE)
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=10s --start-period=120s --retries=3 \
  CMD curl -fsS -o /dev/null "http://127.0.0.1:${FORGEFLOW_LISTEN_ADDR##*:}/healthz" || exit 1
ENTRYPOINT ["/usr/bin/tini", "--", "java", "-jar", "/opt/forgeflow/forgeflow.jar"]
CMD ["server"]
