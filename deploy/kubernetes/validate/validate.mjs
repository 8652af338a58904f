// Validates the manifests of deploy/kubernetes: each object against the Kubernetes OpenAPI schema of its kind
// (kubernetes-models), then ForgeFlow's own rules. Usage: node validate.mjs DIR (npm run validate). Exits 1 on a
// finding, printing each one.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";

const dir = process.argv[2] ?? "..";
const problems = [];
const objects = [];

for (const file of readdirSync(dir).filter((f) => f.endsWith(".yaml")).sort()) {
  for (const doc of parseAllDocuments(readFileSync(join(dir, file), "utf8"))) {
    if (doc.errors.length) { problems.push(`${file}: ${doc.errors[0].message}`); continue; }
    const object = doc.toJS();
    if (object == null) continue;
    objects.push({ file, object });
  }
}

for (const { file, object } of objects) {
  const where = `${file}: ${object.kind}/${object.metadata?.name ?? "?"}`;
  if (object.kind === "Kustomization") {
    for (const resource of object.resources ?? []) {
      if (!objects.some((o) => o.file === resource)) problems.push(`${where}: resource ${resource} not found`);
    }
    continue;
  }
  let Model;
  try {
    Model = (await import(`kubernetes-models/${object.apiVersion}`))[object.kind];
  } catch {
    Model = undefined;
  }
  if (!Model) { problems.push(`${where}: unknown apiVersion/kind ${object.apiVersion}/${object.kind}`); continue; }
  try {
    new Model(object).validate();
  } catch (e) {
    problems.push(`${where}: ${e.message}`);
  }
}

const seconds = (duration) => {
  const m = /^(\d+)(ms|s|m|h)$/.exec(duration ?? "");
  if (!m) return NaN;
  return Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2]];
};
const byKind = (kind) => objects.filter((o) => o.object.kind === kind).map((o) => o.object);
const env = (container, name) => container.env?.find((e) => e.name === name);
const secrets = byKind("Secret");

for (const deployment of byKind("Deployment")) {
  const name = `Deployment/${deployment.metadata.name}`;
  const pod = deployment.spec.template;
  const spec = pod.spec;
  const container = spec.containers.find((c) => c.name === "forgeflow");
  if (!container) { problems.push(`${name}: no container named forgeflow`); continue; }
  const roles = env(container, "FORGEFLOW_ROLES")?.value ?? "api,scheduler,worker";
  if (container.readinessProbe?.httpGet?.path !== "/readyz") problems.push(`${name}: the readiness probe must GET /readyz`);
  if (container.livenessProbe?.httpGet?.path !== "/healthz") problems.push(`${name}: the liveness probe must GET /healthz`);
  if (roles.includes("worker")) {
    const drain = seconds(env(container, "FORGEFLOW_DRAIN_GRACE")?.value ?? "60s");
    const grace = spec.terminationGracePeriodSeconds ?? 30;
    if (!(grace > drain)) {
      problems.push(`${name}: terminationGracePeriodSeconds (${grace}) must be above FORGEFLOW_DRAIN_GRACE (${drain} s)`);
    }
  }
  const annotations = pod.metadata?.annotations ?? {};
  const port = container.ports?.find((p) => p.name === "http")?.containerPort;
  if (annotations["prometheus.io/scrape"] !== "true" || annotations["prometheus.io/path"] !== "/metrics"
      || annotations["prometheus.io/port"] !== String(port)) {
    problems.push(`${name}: the pod needs the scrape annotations prometheus.io/scrape "true", path /metrics, port ${port}`);
  }
  // least privilege: every capability dropped, a read-only root, no privilege gained through exec; root only for a
  // worker that runs its shell jobs as another user, with the capabilities that needs and no other
  const context = container.securityContext ?? {};
  const added = context.capabilities?.add ?? [];
  if (!(context.capabilities?.drop ?? []).includes("ALL")) problems.push(`${name}: the container must drop ALL capabilities`);
  if (context.readOnlyRootFilesystem !== true) problems.push(`${name}: the root file system must be read-only`);
  if (context.allowPrivilegeEscalation !== false) problems.push(`${name}: allowPrivilegeEscalation must be false`);
  const jobUser = env(container, "FORGEFLOW_JOB_USER")?.value;
  if (spec.securityContext?.runAsNonRoot !== true) {
    if (spec.securityContext?.runAsUser !== 0 || !roles.includes("worker") || !jobUser || jobUser === "root") {
      problems.push(`${name}: pods must run as non-root, or as root (runAsUser 0) only for a worker whose FORGEFLOW_JOB_USER is another user`);
    }
    const allowed = ["SETUID", "SETGID", "KILL", "SYS_ADMIN"];
    const extra = added.filter((c) => !allowed.includes(c));
    if (extra.length) problems.push(`${name}: a root worker adds only ${allowed.join(", ")}; not ${extra.join(", ")}`);
  } else if (added.length) {
    problems.push(`${name}: a non-root container gets no capability (it could not use one), not ${added.join(", ")}`);
  }
  // the secrets as files of a Secret volume, never in the environment, unreadable by others
  for (const variable of ["FORGEFLOW_DATABASE_URL", "FORGEFLOW_API_TOKENS"]) {
    if (env(container, variable)) problems.push(`${name}: ${variable} must not be in the environment: use ${variable}_FILE`);
    const path = env(container, `${variable}_FILE`)?.value;
    if (!path) { problems.push(`${name}: ${variable}_FILE must name a file of a Secret volume`); continue; }
    const mount = (container.volumeMounts ?? []).find((m) => path.startsWith(`${m.mountPath.replace(/\/$/, "")}/`));
    const volume = spec.volumes?.find((v) => v.name === mount?.name);
    if (!volume?.secret) { problems.push(`${name}: ${variable}_FILE (${path}) is not in a mounted Secret volume`); continue; }
    const key = path.slice(mount.mountPath.replace(/\/$/, "").length + 1);
    const secret = secrets.find((s) => s.metadata.name === volume.secret.secretName);
    if (!secret || !(key in (secret.stringData ?? secret.data ?? {}))) {
      problems.push(`${name}: ${variable}_FILE refers to ${volume.secret.secretName}/${key}, which no Secret here has`);
    }
    const mode = volume.secret.defaultMode ?? 0o644;
    if (mode & 0o007) problems.push(`${name}: Secret volume ${volume.name} is readable by others (defaultMode ${mode.toString(8)}): 0440 at most`);
  }
  const selector = deployment.spec.selector.matchLabels;
  const covered = byKind("PodDisruptionBudget").some((pdb) =>
    Object.entries(pdb.spec.selector?.matchLabels ?? {}).every(([k, v]) => selector[k] === v));
  if (!covered) problems.push(`${name}: no PodDisruptionBudget selects its pods`);
}

if (problems.length) {
  for (const p of problems) console.error(`INVALID ${p}`);
  console.error(`kubernetes manifests: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`kubernetes manifests: ${objects.length} objects valid (OpenAPI schemas and ForgeFlow's rules)`);
