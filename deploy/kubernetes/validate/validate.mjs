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
  if (spec.securityContext?.runAsNonRoot !== true) problems.push(`${name}: pods must run as non-root`);
  for (const variable of ["FORGEFLOW_DATABASE_URL", "FORGEFLOW_API_TOKENS"]) {
    const ref = env(container, variable)?.valueFrom?.secretKeyRef;
    if (!ref) { problems.push(`${name}: ${variable} must come from a Secret`); continue; }
    const secret = secrets.find((s) => s.metadata.name === ref.name);
    if (!secret || !(ref.key in (secret.stringData ?? secret.data ?? {}))) {
      problems.push(`${name}: ${variable} refers to ${ref.name}/${ref.key}, which no Secret here has`);
    }
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
