/*
 * ForgeFlow dashboard: plain JavaScript over the REST API (docs/API.md), no build step.
 *
 * Live: GET /api/events (Server-Sent Events, read with fetch so that the bearer token can be sent); a server that
 * answers 404 there is polled every 2 s instead. Auth: a 401 asks for an API token, kept in sessionStorage and sent
 * as "Authorization: Bearer ...". Safety: every text that comes from the server is put into the page as a text node
 * (textContent), never as markup; the page's Content-Security-Policy allows no inline script.
 * Tenants: a tenant picked in the top bar is sent as X-ForgeFlow-Tenant on every call (kept in sessionStorage with the
 * token); a tenant-bound token is recognised by its first 403 tenant_forbidden, and the cluster views then say why
 * they are empty instead of failing (its queues, a tenant's like its jobs, still show). The Tenants tab shows and sets
 * tenants' weights and limits (GET and PUT /api/tenants); it is cluster-wide, so a tenant-bound token does not see it.
 */
(() => {
  'use strict';

  const TOKEN_KEY = 'forgeflow.token';
  const TENANT_KEY = 'forgeflow.tenant';
  const TENANT_HEADER = 'X-ForgeFlow-Tenant';
  const TENANT_NAME = /^[a-z0-9_.-]{1,63}$/;
  const DEFAULT_TENANT = 'default';
  const POLL_MS = 2000;
  const SLOW_MS = 10000;
  const FEED_SIZE = 25;
  const PAGE = 50;

  const state = {
    token: sessionStorage.getItem(TOKEN_KEY) || '',
    tenant: sessionStorage.getItem(TENANT_KEY) || '', // the tenant picked (sent as X-ForgeFlow-Tenant), '' for all
    boundTenant: null,            // the tenant a tenant-bound token acts in, once a 403 tenant_forbidden said so
    tenantNames: new Set(),       // tenants seen in answers (the picker's suggestions)
    otherTenantSeen: false,       // some answer was outside the default tenant: details name the tenant
    tokenPrompt: null,
    view: 'overview',
    mode: 'connecting',           // live | polling | reconnecting | offline | connecting
    lastEventId: null,
    retryMs: 2000,
    jobs: new Map(),              // id -> job (a cache for names)
    jobFetches: new Map(),        // id -> promise
    stats: null,
    nodes: [],
    queues: [],
    recent: [],                   // {id, job_id, status, attempt, max_attempts, at}
    jobsPage: { items: [], next: null, status: '', search: '', queue: '', labels: [] },
    unsupportedFilters: new Set(), // job filters this server refused (400/422 naming them): applied to the page here
    editing: null,                // the job the edit form shows, as last read from the server
    runsPage: { items: [], next: null, status: '', job: null },
    deadPage: { items: [], next: null },
    selectedRun: null,            // full run with attempts
    selectedRunId: null,
    deadSelected: new Set(),
    lastSlow: 0,
    attention: [],                // the latest dead runs, on the overview
    attentionFor: null,           // the dead count they were read for
    jobView: { id: null, job: null, runs: [], missing: false },     // #job?id=: a job, its workflow and runs
    batchView: { id: null, batch: null, missing: false },           // #batch?id=: a batch's progress
    tenantsView: { items: [], loaded: false, editing: null },       // #tenants: weights and limits; the one edited
  };

  const $ = (id) => document.getElementById(id);

  // ------------------------------------------------------------------ DOM helpers (text only, never markup)

  /** el('td', {class: 'x', title: t, data: {runId: id}, on: {click: f}}, 'text', childNode, ...) */
  function el(tag, opts, ...children) {
    const node = document.createElement(tag);
    const o = opts || {};
    for (const [key, value] of Object.entries(o)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key === 'text') node.textContent = String(value);
      else if (key === 'data') Object.entries(value).forEach(([k, v]) => { node.dataset[k] = String(v); });
      else if (key === 'on') {
        node.handlers = value;                 // read at event time, so patch can hand a kept element new ones
        Object.keys(value).forEach((k) => node.addEventListener(k, dispatch));
      }
      else if (key === 'disabled' || key === 'checked' || key === 'hidden') node[key] = !!value;
      else node.setAttribute(key, String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function dispatch(e) {
    const f = this.handlers && this.handlers[e.type];
    return f ? f.call(this, e) : undefined;
  }

  // What a row is about (a run, a job, a queue, a tenant, a node): a kept row stays with its item when rows move.
  const keyOf = (n) => (n.nodeType === Node.ELEMENT_NODE
    ? n.dataset.runId || n.dataset.jobId || n.dataset.queue || n.dataset.tenant || n.dataset.worker || n.id || null : null);

  /**
   * Makes parent's children the given ones, as replaceChildren would, but keeps the elements already there and
   * changes only what differs: a poll or a live event that redraws a view leaves the button under the pointer, the
   * focus and the selection where they were, so a click is never lost to a redraw. Rows are matched by keyOf.
   */
  function patch(parent, ...nodes) {
    const want = nodes.flat(Infinity).filter((n) => n !== undefined && n !== null && n !== false)
      .map((n) => (n instanceof Node ? n : document.createTextNode(String(n))));
    const byKey = new Map();
    parent.childNodes.forEach((n) => { const k = keyOf(n); if (k && !n.kept) byKey.set(k, n); });
    want.forEach((next, i) => {
      const at = parent.childNodes[i] || null;
      const k = keyOf(next);
      const fresh = !next.isConnected && !next.kept;   // a kept input is moved in, never merged into another node
      const same = k && fresh ? byKey.get(k) : null;
      if (same) {
        byKey.delete(k);
        if (same !== at) parent.insertBefore(same, at);
        morph(same, next);
      } else if (at && fresh && !at.kept && !keyOf(at) && !k && alike(at, next)) {
        morph(at, next);
      } else if (at !== next) {
        parent.insertBefore(next, at);
      }
    });
    while (parent.childNodes.length > want.length) parent.lastChild.remove();
  }

  const alike = (a, b) => a.nodeType === b.nodeType && a.nodeName === b.nodeName && a.type === b.type;

  /** Turns a kept node into next: attributes, state, style, handlers, then its children (see patch). */
  function morph(node, next) {
    if (node.nodeType !== Node.ELEMENT_NODE) {
      if (node.nodeValue !== next.nodeValue) node.nodeValue = next.nodeValue;
      return;
    }
    for (const a of [...node.attributes]) {
      if (a.name !== 'style' && !next.hasAttribute(a.name)) node.removeAttribute(a.name);
    }
    for (const a of next.attributes) {
      if (a.name !== 'style' && node.getAttribute(a.name) !== a.value) node.setAttribute(a.name, a.value);
    }
    // the page's CSP allows no style attribute: CSSOM only
    if (node.style.cssText !== next.style.cssText) node.style.cssText = next.style.cssText;
    for (const p of ['checked', 'disabled', 'hidden']) {
      if (p in next && node[p] !== next[p]) node[p] = next[p];
    }
    node.handlers = next.handlers;
    Object.keys(next.handlers || {}).forEach((k) => node.addEventListener(k, dispatch));
    patch(node, [...next.childNodes]);
  }

  function setText(id, text) {
    $(id).textContent = text;
  }

  const pad = (n) => String(n).padStart(2, '0');

  function fmtTime(iso, compact) {
    if (!iso) return '—';
    const d = new Date(iso);
    if (isNaN(d)) return String(iso);
    const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
    const now = new Date();
    const sameDay = d.getFullYear() === now.getFullYear() && d.getMonth() === now.getMonth() && d.getDate() === now.getDate();
    if (compact && sameDay) return time;
    const date = `${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
    return compact ? `${date} ${time}` : `${d.getFullYear()}-${date} ${time}`;
  }

  function fmtDuration(ms) {
    if (ms === null || ms === undefined || isNaN(ms) || ms < 0) return '';
    const s = ms / 1000;
    if (s < 10) return `${s.toFixed(1)} s`;
    if (s < 120) return `${Math.round(s)} s`;
    if (s < 7200) return `${Math.floor(s / 60)}m ${Math.round(s % 60)}s`;
    return `${(s / 3600).toFixed(1)} h`;
  }

  function ago(iso) {
    if (!iso) return '—';
    const ms = Date.now() - new Date(iso).getTime();
    if (isNaN(ms)) return String(iso);
    const s = Math.max(0, Math.round(ms / 1000));
    if (s < 120) return `${s} s ago`;
    if (s < 7200) return `${Math.round(s / 60)} min ago`;
    return `${Math.round(s / 3600)} h ago`;
  }

  /** Ids are UUIDv7: the head is a timestamp shared by ids made together, the tail is random. */
  const shortId = (id) => (id ? String(id).slice(-8) : '');

  const statusSpan = (status, extra) => el('span', { class: `st-${status}${extra ? ' ' + extra : ''}`, text: status });

  function jobName(id) {
    const job = state.jobs.get(id);
    if (job) return job.name;
    fetchJob(id);
    return shortId(id);
  }

  function fetchJob(id) {
    if (!id || state.jobFetches.has(id)) return;
    state.jobFetches.set(id, api('GET', `/api/jobs/${encodeURIComponent(id)}`)
      .then((job) => { state.jobs.set(id, job); renderNamesLater(); })
      .catch(() => { /* unknown or removed job: its id stays shown */ }));
  }

  let namesTimer = null;
  function renderNamesLater() {
    if (namesTimer) return;
    namesTimer = setTimeout(() => { namesTimer = null; renderFeed(); renderAttention(); renderRuns(); renderDead(); renderRunDetail(); renderBatchView(); }, 50);
  }

  function toast(message, isError) {
    const t = $('toast');
    t.textContent = message;
    t.className = isError ? 'toast error' : 'toast';
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.hidden = true; }, isError ? 8000 : 3500);
  }

  function banner(message) {
    const b = $('banner');
    b.textContent = message || '';
    b.hidden = !message;
  }

  // ------------------------------------------------------------------ tenants

  const outsideDefault = (x) => !!(x && x.tenant && x.tenant !== DEFAULT_TENANT);

  /** Remembers the tenants of what the server sent (the picker suggests them); true if one is not the default. */
  function seeTenants(items) {
    let fresh = false;
    for (const x of items) {
      if (!x || !x.tenant || state.tenantNames.has(x.tenant)) continue;
      state.tenantNames.add(x.tenant);
      fresh = true;
    }
    if (items.some(outsideDefault)) state.otherTenantSeen = true;
    if (fresh) {
      patch($('tenant-names'), ...[...state.tenantNames].sort().map((name) => el('option', { value: name })));
    }
  }

  /** Whether a job's or run's detail names its tenant: always outside the default, and once tenants are in play. */
  function tenantShown(x) {
    return !!(x && x.tenant) && (outsideDefault(x) || !!state.tenant || !!state.boundTenant || state.otherTenantSeen);
  }

  /** A 403 tenant_forbidden names the tenant the token is bound to ("acts in tenant 'acme' only"). */
  function noteBoundTenant(message) {
    const m = /acts in tenant '([^']+)' only/.exec(String(message || ''));
    if (!m || state.boundTenant === m[1]) return;
    state.boundTenant = m[1];
    const hadPick = !!state.tenant;
    state.tenant = '';
    sessionStorage.removeItem(TENANT_KEY);
    renderTenantPicker();
    renderClusterForbidden();
    if (state.mode === 'live' || state.mode === 'connecting' || state.mode === 'reconnecting') setMode('polling');
    if (hadPick) loadView(true);  // the picked tenant was refused: read again in the token's own
  }

  function clusterForbiddenText() {
    return `This token is bound to tenant ${state.boundTenant}; cluster views need a cluster-wide token.`;
  }

  /**
   * The overview's cluster panels (stats, nodes, lag) say why they are empty for a tenant-bound token; its queues are
   * its tenant's, so the Queues panel shows them.
   */
  function renderClusterForbidden() {
    if (!state.boundTenant) return;
    const text = clusterForbiddenText();
    const note = $('cluster-note');
    note.textContent = `${text} Jobs, runs, queues and dead letters show tenant ${state.boundTenant}.`;
    note.hidden = false;
    patch($('nodes').tBodies[0], el('tr', {}, el('td', { class: 'empty forbidden', colspan: 6, text })));
    setText('leader', '');
    for (const status of ['pending', 'running', 'succeeded', 'dead', 'cancelled']) setText(`count-${status}`, '–');
    document.querySelectorAll('.cards .card').forEach((card) => { card.title = text; });
    setText('queue-lag', 'n/a');
    $('tenants-tab').hidden = true;
    renderTenants();
  }

  function renderTenantPicker() {
    const bound = state.boundTenant;
    $('tenant-pick').hidden = !!bound;
    $('tenant').value = state.tenant;
    const badge = $('tenant-bound');
    badge.hidden = !bound;
    badge.textContent = bound ? `Tenant ${bound} (this token's)` : '';
    const submitTenant = $('submit-form').elements.tenant;
    submitTenant.placeholder = bound || state.tenant || DEFAULT_TENANT;
  }

  /** Acts in another tenant ('' for all): every list is read again through the new header. */
  function pickTenant(name) {
    const tenant = String(name || '').trim();
    if (tenant === state.tenant) return;
    if (tenant && !TENANT_NAME.test(tenant)) {
      toast(`"${tenant}" is not a tenant name: 1 to 63 lower-case letters, digits, '_', '.' or '-'`, true);
      $('tenant').value = state.tenant;
      return;
    }
    state.tenant = tenant;
    if (tenant) sessionStorage.setItem(TENANT_KEY, tenant);
    else sessionStorage.removeItem(TENANT_KEY);
    state.jobs.clear();
    state.jobFetches.clear();
    state.recent = [];
    state.attention = [];
    state.attentionFor = null;
    state.deadSelected.clear();
    state.selectedRun = null;
    state.jobView = { id: state.jobView.id, job: null, runs: [], missing: false };
    state.batchView = { id: state.batchView.id, batch: null, missing: false };
    renderTenantPicker();
    renderFeed();
    if (state.selectedRunId) loadRunDetail(state.selectedRunId);
    loadRecent();
    loadView(true);
  }

  // ------------------------------------------------------------------ the API

  class ApiError extends Error {
    constructor(status, message, field, code) {
      super(message);
      this.status = status;
      this.field = field;
      this.code = code;
    }
  }

  function authHeaders(extra) {
    const headers = Object.assign({}, extra);
    if (state.token) headers.Authorization = `Bearer ${state.token}`;
    if (state.tenant && !state.boundTenant) headers[TENANT_HEADER] = state.tenant;
    return headers;
  }

  /** A call to the API; tenant (optional) names the tenant it acts in instead of the one picked (a bound token's own). */
  async function api(method, path, body, tenant) {
    for (;;) {
      const headers = authHeaders({ Accept: 'application/json' });
      if (tenant && !state.boundTenant) headers[TENANT_HEADER] = tenant;
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      let res;
      try {
        res = await fetch(path, { method, headers, cache: 'no-store', body: body === undefined ? undefined : JSON.stringify(body) });
      } catch (e) {
        banner('Cannot reach the ForgeFlow server; retrying.');
        throw new ApiError(0, `cannot reach the server (${e.message})`);
      }
      const text = await res.text();
      let data = null;
      try {
        data = text ? JSON.parse(text) : null;
      } catch (notJson) {
        data = null;
      }
      if (res.status === 401) {
        await askForToken((data && data.error) || 'The server needs an API token.');
        continue;
      }
      banner(null);
      if (!res.ok) {
        const message = data && typeof data.error === 'string' ? data.error : `HTTP ${res.status}`;
        if (res.status === 403 && data && data.code === 'tenant_forbidden') noteBoundTenant(message);
        throw new ApiError(res.status, message, data && data.field, data && data.code);
      }
      return data;
    }
  }

  function askForToken(reason) {
    if (state.tokenPrompt) return state.tokenPrompt;
    state.tokenPrompt = new Promise((resolve) => {
      const dialog = $('token-dialog');
      setText('token-reason', state.token ? `The token was refused: ${reason}` : reason);
      $('token-input').value = '';
      const onSubmit = (event) => {
        event.preventDefault();
        const token = $('token-input').value.trim();
        if (!token) return;
        state.token = token;
        sessionStorage.setItem(TOKEN_KEY, token);
        $('forget-token').hidden = false;
        $('token-form').removeEventListener('submit', onSubmit);
        dialog.close();
        state.tokenPrompt = null;
        resolve();
      };
      $('token-form').addEventListener('submit', onSubmit);
      if (!dialog.open) dialog.showModal();
      $('token-input').focus();
    });
    return state.tokenPrompt;
  }

  /** Runs an action, reports its failure as the server worded it. */
  async function act(what, fn) {
    try {
      return await fn();
    } catch (e) {
      toast(`${what}: ${e.message}`, true);
      return undefined;
    }
  }

  // ------------------------------------------------------------------ live updates

  function setMode(mode) {
    state.mode = mode;
    const live = $('live');
    live.dataset.mode = mode;
    live.textContent = { live: 'live', polling: 'polling every 2 s', reconnecting: 'reconnecting…', offline: 'offline',
      connecting: 'connecting…' }[mode] || mode;
    setText('feed-note', mode === 'live' ? 'live through /api/events'
      : mode === 'polling' ? (state.boundTenant ? 'polling every 2 s (the event stream is cluster-wide)'
        : 'polling every 2 s (this server has no event stream)') : '');
  }

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  async function followEvents() {
    for (;;) {
      if (state.boundTenant) {
        setMode('polling');         // the stream is cluster-wide: a tenant-bound token polls its lists
        return;
      }
      let res;
      try {
        const headers = authHeaders({ Accept: 'text/event-stream' });
        if (state.lastEventId) headers['Last-Event-ID'] = state.lastEventId;
        res = await fetch('/api/events', { headers, cache: 'no-store' });
      } catch (e) {
        setMode('offline');
        await sleep(state.retryMs);
        continue;
      }
      if (res.status === 404 || res.status === 405 || res.status === 501) {
        setMode('polling');         // a node without the event stream: poll
        return;
      }
      if (res.status === 401) {
        const body = await res.json().catch(() => null);
        await askForToken((body && body.error) || 'The server needs an API token.');
        continue;
      }
      if (res.status === 403) {
        const body = await res.json().catch(() => null);
        if (body && body.code === 'tenant_forbidden') {
          noteBoundTenant(body.error || '');
          if (state.boundTenant) continue;
        }
      }
      if (!res.ok || !res.body) {
        setMode('reconnecting');
        await pollOnce();
        await sleep(state.retryMs);
        continue;
      }
      setMode('live');
      refreshAll();                 // what changed while we were not listening
      try {
        await readEvents(res.body);
      } catch (e) {
        // the stream broke: reconnect with Last-Event-ID
      }
      setMode('reconnecting');
      await sleep(state.retryMs);
    }
  }

  async function readEvents(body) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer = (buffer + value).replace(/\r\n/g, '\n');
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let type = 'message';
        const data = [];
        for (const line of block.split('\n')) {
          if (!line || line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          let v = colon < 0 ? '' : line.slice(colon + 1);
          if (v.startsWith(' ')) v = v.slice(1);
          if (field === 'data') data.push(v);
          else if (field === 'event') type = v;
          else if (field === 'id') state.lastEventId = v;
          else if (field === 'retry' && /^\d+$/.test(v)) state.retryMs = Number(v);
        }
        if (data.length) onServerEvent(type, data.join('\n'));
      }
    }
  }

  function onServerEvent(type, data) {
    if (type === 'reset') {
      refreshAll();
      return;
    }
    if (type !== 'run') return;
    if (state.tenant) {             // the stream is cluster-wide: the feed comes from this tenant's runs
      refreshSoon();
      return;
    }
    let change;
    try {
      change = JSON.parse(data);
    } catch (e) {
      return;
    }
    const known = state.recent.find((r) => r.id === change.run_id);
    const entry = { id: change.run_id, job_id: change.job_id, status: change.status, attempt: change.attempt,
      max_attempts: known ? known.max_attempts : null, at: change.at };
    state.recent = [entry].concat(state.recent.filter((r) => r.id !== change.run_id)).slice(0, FEED_SIZE);
    renderFeedLater();
    if (state.selectedRunId === change.run_id) loadRunDetail(change.run_id);
    refreshSoon();
  }

  let feedTimer = null;
  function renderFeedLater() {
    if (!feedTimer) feedTimer = setTimeout(() => { feedTimer = null; renderFeed(); }, 100);
  }

  let refreshTimer = null;
  let lastRefresh = 0;
  /** After events: stats and the visible list, at most once a second whatever the event rate. */
  function refreshSoon() {
    if (refreshTimer) return;
    const wait = Math.max(250, 1000 - (Date.now() - lastRefresh));
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      lastRefresh = Date.now();
      loadStats();
      loadView(false);
    }, wait);
  }

  function refreshAll() {
    loadStats();
    loadNodes();
    loadQueues();
    loadLag();
    loadRecent();
    loadView(false);
  }

  async function pollOnce() {
    await Promise.all([loadStats(), loadRecent(), loadView(false),
      state.selectedRunId ? loadRunDetail(state.selectedRunId) : null]);
  }

  function tick() {
    if (state.tokenPrompt) return;
    if (state.mode === 'polling' || state.mode === 'offline') {
      pollOnce();
    }
    if (state.mode !== 'live' || Date.now() - state.lastSlow >= SLOW_MS) {
      state.lastSlow = Date.now();
      loadNodes();
      loadQueues();
      loadLag();
      if (state.mode === 'live') loadStats();
    }
  }

  // ------------------------------------------------------------------ loaders (one at a time each)

  /** A loader that never runs twice at once: a call while it runs makes it run once more, with the latest arguments. */
  function single(fn) {
    let running = null;
    let again = false;
    let latest = [];
    return async (...args) => {
      latest = args;
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        try {
          do {
            again = false;
            await fn(...latest);
          } while (again);
        } catch (e) {
          if (e instanceof ApiError && e.status !== 0 && e.code !== 'tenant_forbidden') toast(e.message, true);
        } finally {
          running = null;
        }
      })();
      return running;
    };
  }

  const loadStats = single(async () => {
    if (state.boundTenant) return;
    state.stats = await api('GET', '/api/stats');
    renderStats();
  });

  /** The latest dead runs on the overview (hidden while there are none). */
  const loadAttention = single(async (dead) => {
    state.attentionFor = dead;
    state.attention = dead > 0 ? ((await api('GET', '/api/runs?status=dead&limit=5')).items || []) : [];
    renderAttention();
  });

  const loadNodes = single(async () => {
    if (state.boundTenant) return;
    const answer = await api('GET', '/api/nodes');
    state.nodes = Array.isArray(answer) ? answer : (answer && answer.items) || [];
    renderNodes();
  });

  /** The request's tenant's queues (a bound token's, the picked one's), or every tenant's, by tenant and name. */
  const loadQueues = single(async () => {
    const answer = await api('GET', '/api/queues');
    state.queues = (answer && (answer.items || answer.queues)) || [];
    seeTenants(state.queues);
    renderQueues();
    const names = [...new Set(state.queues.map((q) => q.name))].sort();  // one name, several tenants: one option
    patch($('jobs-queue-names'), ...names.map((name) => el('option', { value: name })));
  });

  const queueTenant = (q) => q.tenant || DEFAULT_TENANT;
  const queueKey = (q) => `${queueTenant(q)}/${q.name}`;   // a name is unique within a tenant only

  function limitsText(q) {
    const parts = [];
    if (q.max_running != null) parts.push(`max ${q.max_running} running`);
    if (q.rate_limit) parts.push(`${q.rate_limit.count} per ${q.rate_limit.per_seconds} s (${q.starts_in_window} used)`);
    return parts.length ? parts.join(', ') : 'none';
  }

  function renderQueues() {
    const body = $('queues').tBodies[0];
    const showTenant = state.queues.some(outsideDefault);  // the default tenant's only: the table as it always was
    $('queues').querySelector('th.tenant-col').hidden = !showTenant;
    if (!state.queues.length) {
      patch(body, emptyRow(showTenant ? 9 : 8, 'no queues yet'));
      return;
    }
    patch(body, ...state.queues.map((q) => el('tr', { class: q.paused ? 'st-gone' : '', data: { queue: queueKey(q) } },
      el('td', { class: 'mono', text: q.name }),
      showTenant ? el('td', { class: 'tenant mono', text: queueTenant(q) }) : null,
      el('td', { class: 'num', text: q.due }),
      el('td', { class: 'num', text: q.pending }),
      el('td', { class: 'num', text: q.running }),
      el('td', { class: 'num opt', text: `${Number(q.lag_seconds || 0).toFixed(1)} s` }),
      el('td', { class: 'opt', text: limitsText(q) }),
      el('td', { class: 'state', text: q.paused ? 'paused' : 'active' }),
      el('td', {}, el('button', { type: 'button', class: 'small', data: { action: q.paused ? 'resume' : 'pause' },
        text: q.paused ? 'Resume' : 'Pause', on: { click: () => queueAction(q, q.paused ? 'resume' : 'pause') } })))));
  }

  /** Pauses or resumes the row's queue: its tenant's, whatever tenant is picked (sent as X-ForgeFlow-Tenant). */
  async function queueAction(q, action) {
    const tenant = queueTenant(q);
    const label = tenant === DEFAULT_TENANT ? `queue "${q.name}"` : `tenant ${tenant}'s queue "${q.name}"`;
    if (action === 'pause' && !window.confirm(`Pause ${label}? No run of it starts on any node until it is resumed; running runs finish.`)) {
      return;
    }
    const answer = await act(`${action} ${label}`,
      () => api('POST', `/api/queues/${encodeURIComponent(q.name)}/${action}`, undefined, tenant));
    if (answer === undefined) return;
    const i = state.queues.findIndex((x) => queueKey(x) === queueKey(answer));
    if (i >= 0) state.queues[i] = answer;
    renderQueues();
    toast(`${label.charAt(0).toUpperCase()}${label.slice(1)} is ${answer.paused ? 'paused' : 'active'}`);
  }

  const loadRecent = single(async () => {
    const page = await api('GET', `/api/runs?limit=${FEED_SIZE}`);
    seeTenants(page.items || []);
    state.recent = (page.items || []).map((r) => ({ id: r.id, job_id: r.job_id, status: r.status, attempt: r.attempt,
      max_attempts: r.max_attempts, at: r.finished_at || r.started_at || r.scheduled_for }));
    state.recent.sort((a, b) => String(b.at).localeCompare(String(a.at)));
    renderFeed();
  });

  const loadLag = single(async () => {
    if (state.boundTenant) return;
    if (state.stats && typeof state.stats.queue_lag_seconds === 'number') {
      renderLag(state.stats.queue_lag_seconds, null);
      return;
    }
    let res;
    try {
      res = await fetch('/metrics', { headers: authHeaders({ Accept: 'text/plain' }), cache: 'no-store' });
    } catch (e) {
      return;
    }
    if (!res.ok) {
      renderLag(null, res.status === 401 || res.status === 403 ? '/metrics needs its own token (FORGEFLOW_METRICS_TOKEN)'
        : `/metrics answered HTTP ${res.status}`);
      return;
    }
    const match = /^forgeflow_queue_lag_seconds(?:\{[^}]*\})?\s+(\S+)/m.exec(await res.text());
    renderLag(match ? Number(match[1]) : null, match ? null : 'no forgeflow_queue_lag_seconds in /metrics');
  });

  function loadView(reset) {
    switch (state.view) {
      case 'jobs': return loadJobs(reset);
      case 'runs': return Promise.all([loadRuns(reset), state.selectedRunId ? loadRunDetail(state.selectedRunId) : null]);
      case 'dead': return loadDead(reset);
      case 'job': return loadJobView();
      case 'batch': return loadBatchView();
      case 'tenants': return loadTenants();
      default: return Promise.all([loadRecent()]);
    }
  }

  function pageLimit(page, reset) {
    return reset ? PAGE : Math.min(500, Math.max(PAGE, page.items.length));
  }

  const JOB_FILTERS = ['name_prefix', 'status', 'queue', 'label'];

  /** The jobs list's filters as query parameters (label=key:value repeated), without those this server refused. */
  function jobsQuery() {
    const p = state.jobsPage;
    const q = new URLSearchParams();
    if (p.search) q.set('name_prefix', p.search);
    if (p.status) q.set('status', p.status);
    if (p.queue) q.set('queue', p.queue);
    p.labels.forEach((l) => q.append('label', `${l.key}:${l.value}`));
    state.unsupportedFilters.forEach((name) => q.delete(name));
    return q;
  }

  /** Parses "key:value, key:value" (or key=value); a part without a separator is ignored and reported. */
  function parseLabelFilter(text) {
    const labels = [];
    const bad = [];
    for (const part of text.split(',').map((x) => x.trim()).filter(Boolean)) {
      const m = /^([^:=]+)[:=](.*)$/.exec(part);
      if (m && m[1].trim()) labels.push({ key: m[1].trim(), value: m[2].trim() });
      else bad.push(part);
    }
    return { labels, bad };
  }

  /** Whether a job passes the filters on this page: the server's answer checked here too, so a server that ignores a
   * filter parameter shows fewer rows, never wrong ones. The name check ignores case (never stricter than the server). */
  function matchesFilters(job) {
    const p = state.jobsPage;
    if (p.search && !String(job.name || '').toLowerCase().startsWith(p.search.toLowerCase())) return false;
    if (p.status && job.status !== p.status) return false;
    if (p.queue && (job.queue || 'default') !== p.queue) return false;
    const labels = job.labels || {};
    return p.labels.every((l) => Object.prototype.hasOwnProperty.call(labels, l.key) && String(labels[l.key]) === l.value);
  }

  /** GET /api/jobs with the filters; a filter the server refuses (400 or 422 naming it) is dropped and applied here. */
  async function fetchJobs(extra) {
    for (;;) {
      const query = jobsQuery();
      Object.entries(extra).forEach(([k, v]) => query.set(k, v));
      try {
        return await api('GET', `/api/jobs?${query}`);
      } catch (e) {
        const refused = e instanceof ApiError && (e.status === 400 || e.status === 422)
          && JOB_FILTERS.find((name) => e.field === name || (!e.field && e.message.includes(`'${name}'`)));
        if (!refused || !query.has(refused)) throw e;
        state.unsupportedFilters.add(refused);
      }
    }
  }

  function renderFilterNote(hidden) {
    const note = $('jobs-filter-note');
    const p = state.jobsPage;
    const active = JOB_FILTERS.filter((name) => (name === 'name_prefix' && p.search) || (name === 'status' && p.status)
      || (name === 'queue' && p.queue) || (name === 'label' && p.labels.length));
    const local = active.filter((name) => state.unsupportedFilters.has(name));
    const parts = [];
    if (local.length) parts.push(`This server does not filter jobs by ${local.join(', ')}: only the rows of each page that match are shown.`);
    else if (hidden > 0) parts.push(`${hidden} row${hidden === 1 ? '' : 's'} the server sent did not match the filters (does it know them?) and are hidden.`);
    if (p.labelErrors && p.labelErrors.length) parts.push(`Ignored label filter ${p.labelErrors.map((b) => `"${b}"`).join(', ')}: write key:value.`);
    note.textContent = parts.join(' ');
    note.hidden = parts.length === 0;
  }

  const loadJobs = single(async (reset) => {
    const p = state.jobsPage;
    const page = await fetchJobs({ limit: String(pageLimit(p, reset)) });
    const items = page.items || [];
    items.forEach((job) => state.jobs.set(job.id, job));
    seeTenants(items);
    p.items = items.filter(matchesFilters);
    p.next = page.next_cursor || null;
    renderFilterNote(items.length - p.items.length);
    renderJobs();
  });

  async function loadMoreJobs() {
    const p = state.jobsPage;
    if (!p.next) return;
    await act('Load more', async () => {
      const more = await fetchJobs({ limit: String(PAGE), cursor: p.next });
      const items = more.items || [];
      items.forEach((job) => state.jobs.set(job.id, job));
      seeTenants(items);
      p.items = p.items.concat(items.filter(matchesFilters));
      p.next = more.next_cursor || null;
      renderJobs();
    });
  }

  const loadRuns = single(async (reset) => {
    const p = state.runsPage;
    const query = new URLSearchParams({ limit: String(pageLimit(p, reset)) });
    if (p.job) query.set('job_id', p.job);
    if (p.status) query.set('status', p.status);
    const page = await api('GET', `/api/runs?${query}`);
    p.items = page.items || [];
    p.next = page.next_cursor || null;
    seeTenants(p.items);
    renderRuns();
  });

  const loadDead = single(async (reset) => {
    const p = state.deadPage;
    const page = await api('GET', `/api/runs?status=dead&limit=${pageLimit(p, reset)}`);
    p.items = page.items || [];
    p.next = page.next_cursor || null;
    const ids = new Set(p.items.map((r) => r.id));
    [...state.deadSelected].forEach((id) => { if (!ids.has(id)) state.deadSelected.delete(id); });
    renderDead();
  });

  async function loadMore(page, path, render) {
    if (!page.next) return;
    await act('Load more', async () => {
      const sep = path.includes('?') ? '&' : '?';
      const more = await api('GET', `${path}${sep}limit=${PAGE}&cursor=${encodeURIComponent(page.next)}`);
      page.items = page.items.concat(more.items || []);
      page.next = more.next_cursor || null;
      seeTenants(page.items);
      render();
    });
  }

  const loadRunDetail = single(async (id) => {
    try {
      state.selectedRun = await api('GET', `/api/runs/${encodeURIComponent(id)}`);
      seeTenants([state.selectedRun]);
    } catch (e) {
      if (e.status === 404) {
        state.selectedRun = { missing: true, id };
      } else {
        throw e;
      }
    }
    renderRunDetail();
  });

  /** A job with its parents and children (GET /api/jobs/{id}) and its latest runs. */
  const loadJobView = single(async () => {
    const v = state.jobView;
    const id = v.id;
    if (!id) return;
    let job;
    try {
      job = await api('GET', `/api/jobs/${encodeURIComponent(id)}`);
    } catch (e) {
      if (e.status !== 404) throw e;
      if (v.id === id) { v.job = null; v.missing = true; renderJobView(); }
      return;
    }
    const runs = await api('GET', `/api/runs?job_id=${encodeURIComponent(id)}&limit=10`);
    if (v.id !== id) return;      // the view moved on to another job meanwhile
    state.jobs.set(job.id, job);
    v.job = job;
    v.runs = (runs && runs.items) || [];
    v.missing = false;
    renderJobView();
  });

  const loadBatchView = single(async () => {
    const v = state.batchView;
    const id = v.id;
    if (!id) return;
    let batch;
    try {
      batch = await api('GET', `/api/batches/${encodeURIComponent(id)}`);
    } catch (e) {
      if (e.status !== 404) throw e;
      if (v.id === id) { v.batch = null; v.missing = true; renderBatchView(); }
      return;
    }
    if (v.id !== id) return;
    v.batch = batch;
    v.missing = false;
    renderBatchView();
  });

  // ------------------------------------------------------------------ rendering

  function renderStats() {
    const s = state.stats || {};
    for (const status of ['pending', 'running', 'succeeded', 'dead', 'cancelled']) {
      setText(`count-${status}`, typeof s[status] === 'number' ? String(s[status]) : '–');
    }
    const dead = s.dead || 0;
    $('card-dead').classList.toggle('alert', dead > 0);
    $('card-dead').querySelector('span').textContent = dead > 0 ? 'Dead: open letters' : 'Dead';
    if (dead > 0 || state.attentionFor !== 0) loadAttention(dead);
    const badge = $('dead-badge');
    badge.textContent = String(dead);
    badge.hidden = dead === 0;
  }

  function renderLag(seconds, why) {
    const card = $('card-lag');
    if (seconds === null || isNaN(seconds)) {
      setText('queue-lag', 'n/a');
      card.title = why || '';
      card.classList.remove('alert');
      return;
    }
    setText('queue-lag', fmtDuration(seconds * 1000) || '0 s');
    card.title = 'How long the oldest due pending run has waited (forgeflow_queue_lag_seconds)';
    card.classList.toggle('alert', seconds > 60);
  }

  function emptyRow(columns, text) {
    return el('tr', {}, el('td', { class: 'empty', colspan: columns, text }));
  }

  function renderAttention() {
    const items = state.attention || [];
    $('attention').hidden = items.length === 0;
    patch($('attention').querySelector('tbody'), ...items.map((r) => el('tr', { data: { runId: r.id },
      on: { click: () => openRun(r.id) } },
    el('td', { text: jobName(r.job_id) }),
    el('td', { class: 'mono opt', title: r.id, text: shortId(r.id) }),
    el('td', { class: 'nowrap', text: fmtTime(r.finished_at, true), title: fmtTime(r.finished_at) }),
    el('td', { class: 'num', text: `${r.attempt} / ${r.max_attempts}` }),
    el('td', { class: 'err', title: r.error || '', text: r.error || '' }))));
  }

  function renderNodes() {
    const body = $('nodes').tBodies[0];
    const leader = state.nodes.find((n) => n.leader);
    setText('leader', leader ? `Scheduler leader: ${leader.worker_id}` : 'No scheduler leader');
    if (!state.nodes.length) {
      patch(body, emptyRow(6, 'no live nodes'));
      return;
    }
    patch(body, ...state.nodes.map((n) => el('tr', { class: n.status === 'gone' ? 'st-gone' : '', data: { worker: n.worker_id } },
      el('td', { class: 'mono', text: n.worker_id }),
      el('td', { text: (n.roles || []).join(', ') }),
      el('td', { class: 'num', text: n.running }),
      el('td', { class: 'opt', title: fmtTime(n.last_seen_at), text: n.status === 'gone' ? `gone (${ago(n.last_seen_at)})` : ago(n.last_seen_at) }),
      el('td', { class: 'opt', title: 'how the node contains its shell jobs, and as which OS user they run', text: jobsRun(n) }),
      el('td', { class: 'nowrap', text: n.leader ? '★ leader' : '' }))));
  }

  function jobsRun(n) {
    if (!n.containment) {
      return '';
    }
    return n.job_user ? `${n.containment}, as ${n.job_user}` : n.containment;
  }

  function openRun(id) {
    location.hash = `#runs?run=${encodeURIComponent(id)}`;
  }

  function renderFeed() {
    const body = $('recent').tBodies[0];
    if (!state.recent.length) {
      patch(body, emptyRow(5, 'no runs yet: submit a job'));
      return;
    }
    patch(body, ...state.recent.map((r) => el('tr', { data: { runId: r.id }, on: { click: () => openRun(r.id) } },
      el('td', { class: 'nowrap', title: fmtTime(r.at), text: fmtTime(r.at, true) }),
      el('td', { text: jobName(r.job_id) }),
      el('td', { class: 'opt mono', title: r.id, text: shortId(r.id) }),
      el('td', { class: 'status' }, statusSpan(r.status)),
      el('td', { class: 'num', text: r.max_attempts ? `${r.attempt} / ${r.max_attempts}` : r.attempt }))));
  }

  function schedule(job) {
    if (job.cron_expr) return `${job.cron_expr}  (${job.timezone || 'UTC'})`;
    if (job.run_at) return `once at ${fmtTime(job.run_at)}`;
    return 'once, now';
  }

  // A recurring job's controls (README "Schedules") in words; [] when it has none.
  function steering(job) {
    const parts = [];
    if (job.start_at || job.end_at) {
      parts.push(`${job.start_at ? `from ${fmtTime(job.start_at)}` : 'from now'}${job.end_at ? ` until ${fmtTime(job.end_at)}` : ''}`);
    }
    if (job.max_runs) parts.push(`${job.fired_runs || 0} of ${job.max_runs} runs`);
    if (job.jitter_seconds) parts.push(`jitter 0-${job.jitter_seconds}s`);
    if (job.pause_after_failures) parts.push(`${job.dead_streak || 0} of ${job.pause_after_failures} dead in a row (pauses at ${job.pause_after_failures})`);
    return parts;
  }

  // Why and by whom a paused job was paused, or '' when nobody said.
  function pausedText(job) {
    if (job.status !== 'paused' || (!job.paused_note && !job.paused_by)) return '';
    return `paused${job.paused_note ? `: ${job.paused_note}` : ''}${job.paused_by ? ` (by ${job.paused_by})` : ''}`;
  }

  // Where the job's notices go (README "Notices"), or '' when it sends none (set it in the job forms).
  function noticesText(job) {
    if (!job.notify) return '';
    return `notices (${(job.notify.on || []).join(', ')}) to ${job.notify.url}`;
  }

  // Flow control (README "Flow control"): a job's debounce and throttle, as one line; '' when neither.
  function flowText(job) {
    const parts = [];
    const d = job.debounce;
    if (d) {
      parts.push(d.edge === 'leading'
        ? `debounce ${d.key}: leading, the first runs at once, others within ${d.period_seconds}s join it`
        : `debounce ${d.key}: trailing, ${d.period_seconds}s after the last submission, at most ${d.max_wait_seconds}s after the first`);
    }
    const t = job.throttle;
    if (t) parts.push(`throttle ${t.key}: at most ${t.count} start(s) per ${t.per_seconds}s`);
    return parts.join(' · ');
  }

  function renderJobs() {
    const p = state.jobsPage;
    const body = $('jobs').tBodies[0];
    setText('jobs-count', `${p.items.length}${p.next ? '+' : ''} job${p.items.length === 1 ? '' : 's'}`);
    $('jobs-more').hidden = !p.next;
    const filtered = p.search || p.status || p.queue || p.labels.length;
    const showTenant = p.items.some(outsideDefault);  // one tenant (the default): the table as it always was
    $('jobs').querySelector('th.tenant-col').hidden = !showTenant;
    if (!p.items.length) {
      patch(body, emptyRow(8, filtered ? 'no jobs match the filters' : 'no jobs yet: New job… or POST /api/jobs'));
      return;
    }
    patch(body, ...p.items.map((job) => {
      const button = (action, label, enabled, cls) => el('button', { type: 'button', class: `small ${cls || ''}`, data: { action },
        disabled: !enabled, text: label, on: { click: (e) => { e.stopPropagation(); jobAction(job, action); } } });
      const labels = Object.entries(job.labels || {});
      return el('tr', { data: { jobId: job.id, status: job.status } },
        el('td', {}, el('a', { href: jobHash(job.id), title: job.id, text: job.name }),
          labels.length ? el('span', { class: 'labels' }, labels.map(([k, v]) => el('span', { class: 'tag', text: `${k}: ${v}` }))) : null,
          job.batch_id ? el('a', { class: 'batch-link', href: batchHash(job.batch_id), title: `batch ${job.batch_id}`, text: 'batch' }) : null),
        showTenant ? el('td', { class: 'tenant mono', text: job.tenant || DEFAULT_TENANT }) : null,
        el('td', { class: 'opt', text: job.executor }),
        el('td', { class: 'mono' }, schedule(job),
          steering(job).length ? el('div', { class: 'muted steer', text: steering(job).join(' · ') }) : null,
          pausedText(job) ? el('div', { class: 'muted paused-note', text: pausedText(job) }) : null),
        el('td', { class: 'opt nowrap', title: job.next_run_at || '', text: fmtTime(job.next_run_at) }),
        el('td', { class: 'status', title: pausedText(job) }, statusSpan(job.status)),
        el('td', { class: 'num opt', text: job.priority }),
        el('td', { class: 'opt mono', text: job.queue || 'default' }),
        el('td', { class: 'actions' },
          button('trigger', 'Trigger', job.status !== 'cancelled' && job.status !== 'deleted'),
          job.status === 'paused' ? button('resume', 'Resume', true) : button('pause', 'Pause', job.status === 'active'),
          button('edit', 'Edit…', job.status !== 'cancelled' && job.status !== 'deleted'),
          button('cancel', 'Cancel…', job.status === 'active' || job.status === 'paused', 'danger'),
          button('delete', 'Delete…', job.status !== 'deleted', 'danger')));
    }));
  }

  async function jobAction(job, action) {
    if (action === 'edit') return openEdit(job.id);
    if (action === 'delete') return deleteJob(job);
    if (action === 'cancel' && !window.confirm(`Cancel job "${job.name}" for good? Its pending runs are cancelled and a running run is stopped.`)) {
      return;
    }
    const answer = await act(`${action} ${job.name}`, () => api('POST', `/api/jobs/${encodeURIComponent(job.id)}/${action}`));
    if (answer === undefined) return;
    if (action === 'trigger') {
      toast(`Triggered ${job.name}: run ${shortId(answer.id)}`);
    } else {
      state.jobs.set(answer.id, answer);
      const items = state.jobsPage.items;
      const i = items.findIndex((j) => j.id === answer.id);
      if (i >= 0) items[i] = answer;
      renderJobs();
      toast(`${job.name} is ${answer.status}`);
    }
    refreshSoon();
  }

  function renderRuns() {
    const p = state.runsPage;
    const body = $('runs').tBodies[0];
    const chip = $('runs-job');
    if (p.job) {
      patch(chip, 'Job: ', el('a', { href: jobHash(p.job), title: p.job, text: jobName(p.job) }), el('button', { type: 'button', title: 'show all jobs', text: '×',
        on: { click: () => { location.hash = '#runs'; } } }));
      chip.hidden = false;
    } else {
      chip.hidden = true;
    }
    setText('runs-count', `${p.items.length}${p.next ? '+' : ''} run${p.items.length === 1 ? '' : 's'}`);
    $('runs-more').hidden = !p.next;
    const showTenant = p.items.some(outsideDefault);
    $('runs').querySelector('th.tenant-col').hidden = !showTenant;
    if (!p.items.length) {
      patch(body, emptyRow(7, 'no runs'));
      return;
    }
    patch(body, ...p.items.map((r) => el('tr', {
      class: r.id === state.selectedRunId ? 'selected' : '', data: { runId: r.id, status: r.status },
      on: { click: () => selectRun(r.id) } },
    el('td', { class: 'mono', title: r.id, text: shortId(r.id) }),
    el('td', { text: jobName(r.job_id) }),
    showTenant ? el('td', { class: 'tenant mono', text: r.tenant || DEFAULT_TENANT }) : null,
    el('td', { class: 'status' }, statusSpan(r.status)),
    el('td', { class: 'num', text: `${r.attempt} / ${r.max_attempts}` }),
    el('td', { class: 'opt nowrap', text: fmtTime(r.scheduled_for, true) }),
    el('td', { class: 'opt nowrap', text: fmtTime(r.finished_at, true) }),
    el('td', { class: 'opt mono', text: r.worker_id || '' }))));
  }

  function selectRun(id) {
    state.selectedRunId = id;
    history.replaceState(null, '', runsHash());
    renderRuns();
    loadRunDetail(id);
    if (window.matchMedia('(max-width: 1000px)').matches) $('run-detail').scrollIntoView({ behavior: 'smooth' });
  }

  const OUTCOME_CLASS = { succeeded: 'st-succeeded', failed: 'st-dead', timed_out: 'st-dead', lease_expired: 'st-dead',
    cancelled: 'st-cancelled', released: 'st-pending', snoozed: 'st-pending', gave_up: 'st-cancelled' };

  function renderRunDetail() {
    const box = $('run-detail');
    const run = state.selectedRun;
    if (!state.selectedRunId || !run) {
      patch(box, el('p', { class: 'muted', text: 'Select a run to see its output, error and attempts.' }));
      return;
    }
    if (run.missing) {
      patch(box, el('p', { class: 'muted', text: `Run ${run.id} does not exist (any more).` }));
      return;
    }
    const meta = [`attempt ${run.attempt} of ${run.max_attempts}`, `priority ${run.priority}`,
      `scheduled ${fmtTime(run.scheduled_for)}`];
    if (run.started_at) meta.push(`started ${fmtTime(run.started_at)}`);
    if (run.finished_at) meta.push(`finished ${fmtTime(run.finished_at)}`);
    if (run.worker_id) meta.push(`on ${run.worker_id}`);
    if (run.snoozes > 0) meta.push(`snoozed ${run.snoozes} time${run.snoozes === 1 ? '' : 's'} (no attempt spent)`);
    if (run.lease_expires_at && run.status === 'running') meta.push(`lease until ${fmtTime(run.lease_expires_at)}`);

    // the due time among the attempts, in time order: after a requeue it follows the attempts that came before
    const attempts = run.attempts || [];
    const dueAt = new Date(run.scheduled_for);
    const requeued = attempts.some((a) => a.started_at && new Date(a.started_at) < dueAt);
    const due = el('li', { class: 'st-pending' }, el('span', { class: 'when',
      text: `${requeued ? 'requeued, due' : 'scheduled for'} ${fmtTime(run.scheduled_for)}` }));
    const timeline = el('ol', { class: 'timeline', id: 'attempts' });
    let dueShown = false;
    for (const a of attempts) {
      if (!dueShown && a.started_at && new Date(a.started_at) >= dueAt) {
        timeline.append(due);
        dueShown = true;
      }
      const took = a.started_at && a.finished_at ? ` (${fmtDuration(new Date(a.finished_at) - new Date(a.started_at))})` : '';
      const outcome = a.outcome || 'running';
      timeline.append(el('li', { class: OUTCOME_CLASS[a.outcome] || 'st-running', data: { attempt: a.attempt, outcome } },
        el('b', { text: `#${a.attempt} ${outcome}` }),
        el('span', { class: 'when', text: ` on ${a.worker_id || '?'} · ${fmtTime(a.started_at)}${a.finished_at ? ' → ' + fmtTime(a.finished_at, true) : ''}${took}` }),
        a.error ? el('div', { class: 'why', text: a.error }) : null));
    }
    if (!dueShown) timeline.append(due);

    const canCancel = run.status === 'waiting' || run.status === 'pending' || run.status === 'running';
    const canRequeue = run.status === 'dead' || run.status === 'cancelled';
    patch(box, ...[
      el('h2', {}, `Run ${shortId(run.id)} of ${jobName(run.job_id)}`, el('span', { class: `pill st-${run.status}`, id: 'run-status', text: run.status })),
      el('div', { class: 'meta' }, meta.map((m, i) => [i ? ' · ' : '', el('span', { class: 'nowrap', text: m })])),
      el('div', { class: 'mono muted' }, el('span', { class: 'nowrap', text: `run ${run.id}` }), ' · ',
        el('a', { class: 'nowrap', id: 'run-job', href: jobHash(run.job_id), text: `job ${run.job_id}` }),
        tenantShown(run) ? [' · ', el('span', { class: 'nowrap', id: 'run-tenant', text: `tenant ${run.tenant}` })] : null,
        ...traceLink(run)),
      el('div', { class: 'toolbar' },
        el('button', { type: 'button', data: { action: 'cancel-run' }, disabled: !canCancel, text: 'Cancel run',
          on: { click: () => runAction(run, 'cancel') } }),
        el('button', { type: 'button', data: { action: 'requeue-run' }, disabled: !canRequeue, text: 'Requeue',
          on: { click: () => runAction(run, 'requeue') } }),
        el('button', { type: 'button', text: 'Reload', on: { click: () => loadRunDetail(run.id) } })),
      run.error ? el('h3', { text: 'Error' }) : null,
      run.error ? el('pre', { class: 'error', id: 'run-error', text: run.error }) : null,
      el('h3', { text: 'Output' }),
      el('pre', { id: 'run-output', text: run.output || '(no output)' }),
      el('h3', { text: 'Attempts' }),
      timeline].filter(Boolean));
  }

  // the run's trace (README "Traces"): a link when the node has FORGEFLOW_TRACE_URL_TEMPLATE, else its id
  function traceLink(run) {
    if (!run.trace_id) return [];
    const label = `trace ${run.trace_id}`;
    const url = typeof run.trace_url === 'string' && /^https?:\/\//i.test(run.trace_url) ? run.trace_url : null;
    return [' · ', url
      ? el('a', { class: 'nowrap', id: 'run-trace', href: url, target: '_blank', rel: 'noopener noreferrer', text: label })
      : el('span', { class: 'nowrap', id: 'run-trace', text: label })];
  }

  async function runAction(run, action) {
    const answer = await act(`${action} run ${shortId(run.id)}`, () => api('POST', `/api/runs/${encodeURIComponent(run.id)}/${action}`));
    if (answer === undefined) return false;
    toast(action === 'requeue' ? `Run ${shortId(run.id)} requeued: ${answer.status}` : `Run ${shortId(run.id)} is ${answer.status}`);
    if (state.selectedRunId === run.id) loadRunDetail(run.id);
    refreshSoon();
    return true;
  }

  const jobHash = (id) => `#job?id=${encodeURIComponent(id)}`;
  const batchHash = (id) => `#batch?id=${encodeURIComponent(id)}`;
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

  /** One job of a workflow: its name and the status of its latest run (else the job's), a link unless it is this job. */
  function workflowNode(job, runStatus, current) {
    const status = runStatus || null;
    const attrs = { class: `wf-node${current ? ' current' : ''}`, title: job.id,
      data: { jobId: job.id, status: status || 'none' } };
    const children = [
      el('span', { class: 'wf-name', text: job.name || shortId(job.id) }),
      el('span', { class: `wf-status st-${status || job.status}`,
        text: status ? `${status} · job ${job.status}` : `no run · job ${job.status}` })];
    return current ? el('div', attrs, children) : el('a', Object.assign(attrs, { href: jobHash(job.id) }), children);
  }

  /** Parents -> this job -> children; the lines between the columns are drawn once the boxes are laid out. */
  function workflowGraph(job, latestRun) {
    const parents = job.parents || [];
    const children = job.children || [];
    const column = (role, title, nodes, none) => el('div', { class: `wf-col wf-${role}`, data: { role } },
      el('h4', { text: title }), nodes.length ? nodes : el('span', { class: 'wf-none', text: none }));
    const graph = el('div', { class: 'wf', id: 'workflow' },
      column('parents', `Parents (${parents.length})`, parents.map((p) => workflowNode(p, p.run_status, false)), 'none'),
      column('self', 'This job', [workflowNode(job, latestRun ? latestRun.status : null, true)], ''),
      column('children', `Children (${children.length}${children.length >= 1000 ? '+' : ''})`,
        children.map((c) => workflowNode(c, c.run_status, false)), 'none'));
    requestAnimationFrame(drawWorkflowLines);
    return graph;
  }

  function drawWorkflowLines() {
    const graph = $('workflow');
    if (!graph) return;
    graph.querySelectorAll('svg.wf-lines').forEach((old) => old.remove());
    const self = graph.querySelector('.wf-self .wf-node');
    if (!self || !graph.offsetParent) return;
    const box = graph.getBoundingClientRect();
    const at = (node) => node.getBoundingClientRect();
    const NS = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(NS, 'svg');
    svg.setAttribute('class', 'wf-lines');
    svg.setAttribute('aria-hidden', 'true');
    const line = (from, to) => {
      const x1 = from.right - box.left; const y1 = from.top + from.height / 2 - box.top;
      const x2 = to.left - box.left; const y2 = to.top + to.height / 2 - box.top;
      if (x2 <= x1) return;       // stacked columns (a narrow screen): no lines
      const mid = (x1 + x2) / 2;
      const path = document.createElementNS(NS, 'path');
      path.setAttribute('d', `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2 - 6},${y2} l0,-4 l6,4 l-6,4 l0,-4`);
      svg.append(path);
    };
    const me = at(self);
    graph.querySelectorAll('.wf-parents .wf-node').forEach((p) => line(at(p), me));
    graph.querySelectorAll('.wf-children .wf-node').forEach((c) => line(me, at(c)));
    graph.append(svg);
  }

  /**
   * An input of the job view (the pause note, the backfill's fields): one element per opened job, moved into each
   * redraw, so what is being typed keeps its text, focus and caret when a live event redraws the view around it.
   */
  function viewInput(v, id, make) {
    v.inputs = v.inputs || {};
    if (!v.inputs[id]) {
      v.inputs[id] = make();
      v.inputs[id].kept = true;   // moved into each redraw, never turned into another node (see patch)
    }
    return v.inputs[id];
  }

  function pauseNoteInput(v) {
    return viewInput(v, 'job-pause-note', () => el('input', { id: 'job-pause-note', type: 'text', maxlength: '500',
      placeholder: 'why pause? (optional note)' }));
  }

  function renderJobView() {
    const box = $('job-detail');
    const v = state.jobView;
    const active = Object.values(v.inputs || {}).find((input) => input === document.activeElement);
    const caret = active && typeof active.selectionStart === 'number' ? [active.selectionStart, active.selectionEnd] : null;
    try {
      drawJobView(box, v);
    } finally {
      if (active && active.isConnected) {
        active.focus();
        if (caret) active.setSelectionRange(caret[0], caret[1]);
      }
    }
  }

  /** The backfill of a recurring job (POST /api/jobs/{id}/backfill): a range of past ticks, each a run. */
  function backfillPanel(v, job) {
    const from = viewInput(v, 'backfill-from', () => el('input', { id: 'backfill-from', type: 'text', spellcheck: 'false',
      placeholder: 'from 2026-04-01T00:00:00Z' }));
    const to = viewInput(v, 'backfill-to', () => el('input', { id: 'backfill-to', type: 'text', spellcheck: 'false',
      placeholder: 'to 2026-04-08T00:00:00Z' }));
    const overlap = viewInput(v, 'backfill-overlap', () => el('select', { id: 'backfill-overlap' },
      ['allow', 'skip', 'queue_one'].map((o) => el('option', { text: o }))));
    return el('div', { class: 'toolbar', id: 'backfill' },
      el('span', { class: 'muted', text: 'Backfill the ticks of' }), from, to, overlap,
      el('button', { type: 'button', id: 'backfill-run', text: 'Backfill', on: { click: () => backfill(job) } }),
      v.backfill ? el('span', { id: 'backfill-result', class: v.backfill.error ? 'form-error' : 'muted',
        text: v.backfill.error || v.backfill.text }) : null);
  }

  async function backfill(job) {
    const v = state.jobView;
    const body = { from: v.inputs['backfill-from'].value.trim(), to: v.inputs['backfill-to'].value.trim(),
      overlap: v.inputs['backfill-overlap'].value };
    try {
      const b = await api('POST', `/api/jobs/${encodeURIComponent(job.id)}/backfill`, body);
      v.backfill = { text: `${plural(b.ticks, 'tick')}, ${plural(b.created, 'run')} created, ${b.skipped} already had one` };
      loadJobView();
    } catch (e) {
      v.backfill = { error: e.message };
    }
    renderJobView();
  }

  function drawJobView(box, v) {
    if (v.missing) {
      patch(box, el('p', { class: 'muted', text: `Job ${v.id} does not exist (any more).` }));
      return;
    }
    const job = v.job;
    if (!job || job.id !== v.id) {
      patch(box, el('p', { class: 'muted', text: 'Loading the job…' }));
      return;
    }
    const latest = v.runs[0] || null;
    const meta = [job.executor, schedule(job), ...steering(job), `queue ${job.queue || 'default'}`,
      `priority ${job.priority}`, `created ${fmtTime(job.created_at)}`];
    if (job.sequence_key) meta.push(`sequence ${job.sequence_key} (${job.on_dead === 'continue' ? 'goes on past' : 'blocked by'} a dead run)`);
    const dependsOn = job.depends_on || [];
    const notes = [];
    if (dependsOn.length) {
      notes.push(`Runs after ${plural(dependsOn.length, 'parent')} succeed; if one ends dead or cancelled: ${
        { cancel: 'its run is cancelled', run: 'it runs anyway once all have ended', wait: 'it waits until every parent succeeded' }[job.on_parent_failure]
        || job.on_parent_failure || 'cancel'}.`);
    }
    if ((job.parents || []).length < dependsOn.length) notes.push(`${job.parents.length} of ${dependsOn.length} parents shown.`);
    if ((job.children || []).length >= 1000) notes.push('The first 1,000 children are shown.');
    patch(box, ...[
      el('h2', {}, `Job ${job.name}`, el('span', { class: `pill st-${job.status}`, id: 'job-status', text: job.status })),
      el('div', { class: 'meta' }, meta.map((m, i) => [i ? ' · ' : '', el('span', { class: 'nowrap', text: m })])),
      el('div', { class: 'mono muted' }, el('span', { class: 'nowrap', text: `job ${job.id}` }),
        tenantShown(job) ? [' · ', el('span', { class: 'nowrap', id: 'job-tenant', text: `tenant ${job.tenant}` })] : null,
        job.batch_id ? [' · ', el('a', { class: 'nowrap', id: 'job-batch', href: batchHash(job.batch_id), text: `batch ${job.batch_id}` })] : null),
      pausedText(job) ? el('p', { class: 'muted', id: 'job-paused-note', text: pausedText(job) }) : null,
      noticesText(job) ? el('p', { class: 'muted mono', id: 'job-notify', text: noticesText(job) }) : null,
      flowText(job) ? el('p', { class: 'muted mono', id: 'job-flow', text: flowText(job) }) : null,
      el('div', { class: 'toolbar' },
        el('a', { id: 'job-runs-link', href: `#runs?job=${encodeURIComponent(job.id)}`, text: 'All runs of this job' }),
        el('button', { type: 'button', text: 'Reload', on: { click: () => loadJobView() } }),
        job.status === 'active' ? [
          pauseNoteInput(v),
          el('button', { type: 'button', id: 'job-pause', text: 'Pause', on: { click: () => pauseWithNote(job) } })] : null,
        job.status === 'paused' ? el('button', { type: 'button', id: 'job-resume', text: 'Resume',
          on: { click: () => resumeFromView(job) } }) : null),
      job.cron_expr && (job.status === 'active' || job.status === 'paused') ? backfillPanel(v, job) : null,
      el('h3', { text: 'Workflow' }),
      workflowGraph(job, latest),
      notes.length ? el('p', { class: 'muted wf-note', id: 'workflow-note', text: notes.join(' ') }) : null,
      el('h3', { text: 'Latest runs' }),
      el('div', { class: 'scroll' }, el('table', { class: 'grid clickable', id: 'job-runs' },
        el('thead', {}, el('tr', {}, el('th', { text: 'Run' }), el('th', { text: 'Status' }), el('th', { class: 'num', text: 'Attempt' }),
          el('th', { class: 'opt', text: 'Scheduled' }), el('th', { class: 'opt', text: 'Finished' }), el('th', { text: 'Error' }))),
        el('tbody', {}, v.runs.length ? v.runs.map((r) => el('tr', { data: { runId: r.id, status: r.status }, on: { click: () => openRun(r.id) } },
          el('td', { class: 'mono', title: r.id, text: shortId(r.id) }),
          el('td', { class: 'status' }, statusSpan(r.status)),
          el('td', { class: 'num', text: `${r.attempt} / ${r.max_attempts}` }),
          el('td', { class: 'opt nowrap', text: fmtTime(r.scheduled_for, true) }),
          el('td', { class: 'opt nowrap', text: fmtTime(r.finished_at, true) }),
          el('td', { class: 'err', title: r.error || '', text: r.error || '' }))) : emptyRow(6, 'no runs'))))].filter(Boolean));
  }

  // Pauses the job of the job view with the note typed beside the button (none when empty).
  async function pauseWithNote(job) {
    const note = ($('job-pause-note').value || '').trim();
    const answer = await act(`pause ${job.name}`, () => api('POST', `/api/jobs/${encodeURIComponent(job.id)}/pause`,
      note ? { note } : undefined));
    if (answer === undefined) return;
    pauseNoteInput(state.jobView).value = '';
    state.jobView.job = { ...state.jobView.job, ...answer };
    state.jobs.set(answer.id, answer);
    renderJobView();
    toast(`${job.name} is ${answer.status}`);
  }

  async function resumeFromView(job) {
    const answer = await act(`resume ${job.name}`, () => api('POST', `/api/jobs/${encodeURIComponent(job.id)}/resume`));
    if (answer === undefined) return;
    state.jobView.job = { ...state.jobView.job, ...answer };
    state.jobs.set(answer.id, answer);
    renderJobView();
    toast(`${job.name} is ${answer.status}`);
  }

  const BATCH_SEGMENTS = ['succeeded', 'dead', 'cancelled', 'running', 'pending', 'waiting'];

  function renderBatchView() {
    const box = $('batch-detail');
    const v = state.batchView;
    if (v.missing) {
      patch(box, el('p', { class: 'muted', text: `Batch ${v.id} does not exist.` }));
      return;
    }
    const b = v.batch;
    if (!b || b.id !== v.id) {
      patch(box, el('p', { class: 'muted', text: 'Loading the batch…' }));
      return;
    }
    const total = Number(b.total) || 0;
    const ended = (b.succeeded || 0) + (b.dead || 0) + (b.cancelled || 0);
    const percent = total ? Math.floor((ended * 100) / total) : 100;
    const bar = el('div', { class: 'progress', id: 'batch-progress', role: 'img',
      'aria-label': `${ended} of ${total} jobs ended` });
    for (const status of BATCH_SEGMENTS) {
      const n = Number(b[status]) || 0;
      if (!n || !total) continue;
      const seg = el('span', { class: 'seg', title: `${status}: ${n}`, data: { status, count: n } });
      seg.style.width = `${(n * 100) / total}%`;   // CSSOM: the page's CSP allows no inline style attribute
      bar.append(seg);
    }
    const meta = [`created ${fmtTime(b.created_at)}`, b.completed_at ? `completed ${fmtTime(b.completed_at)}` : 'open: jobs still to end'];
    if (b.idempotency_key) meta.push(`idempotency key ${b.idempotency_key}`);
    patch(box, ...[
      el('h2', {}, `Batch ${b.name || shortId(b.id)}`, el('span', { class: `pill st-${b.status}`, id: 'batch-status', text: b.status })),
      el('div', { class: 'meta' }, meta.map((m, i) => [i ? ' · ' : '', el('span', { class: 'nowrap', text: m })])),
      el('div', { class: 'mono muted', text: `batch ${b.id}` }),
      el('h3', { text: 'Progress' }),
      bar,
      el('p', { id: 'batch-progress-text', text: `${ended} of ${plural(total, 'job')} ended (${percent} %)` }),
      el('ul', { class: 'legend', id: 'batch-counts' }, BATCH_SEGMENTS.map((status) => el('li', { class: `st-${status}`, data: { status } },
        el('span', { text: `${status} ` }), el('b', { text: Number(b[status]) || 0 })))),
      b.on_complete_job_id ? el('p', {}, 'On completion: ', el('a', { id: 'batch-on-complete', href: jobHash(b.on_complete_job_id),
        text: jobName(b.on_complete_job_id) })) : null,
      el('div', { class: 'toolbar' }, el('button', { type: 'button', text: 'Reload', on: { click: () => loadBatchView() } }))].filter(Boolean));
  }

  function renderDead() {
    const p = state.deadPage;
    const body = $('dead').tBodies[0];
    setText('dead-count', `${p.items.length}${p.next ? '+' : ''} dead run${p.items.length === 1 ? '' : 's'}`);
    $('dead-more').hidden = !p.next;
    const selected = state.deadSelected;
    const button = $('dead-requeue-selected');
    button.disabled = selected.size === 0;
    button.textContent = selected.size ? `Requeue selected (${selected.size})` : 'Requeue selected';
    $('dead-all').checked = p.items.length > 0 && selected.size === p.items.length;
    if (!p.items.length) {
      patch(body, emptyRow(7, 'no dead runs'));
      return;
    }
    patch(body, ...p.items.map((r) => el('tr', { data: { runId: r.id } },
      el('td', {}, el('input', { type: 'checkbox', checked: selected.has(r.id), 'aria-label': `select run ${r.id}`,
        on: { change: (e) => { if (e.target.checked) selected.add(r.id); else selected.delete(r.id); renderDead(); } } })),
      el('td', { class: 'mono' }, el('a', { href: `#runs?run=${encodeURIComponent(r.id)}`, title: r.id, text: shortId(r.id) })),
      el('td', { text: jobName(r.job_id) }),
      el('td', { class: 'opt nowrap', text: fmtTime(r.finished_at) }),
      el('td', { class: 'num', text: `${r.attempt} / ${r.max_attempts}` }),
      el('td', { class: 'err', title: r.error || '', text: r.error || '' }),
      el('td', { class: 'actions' }, el('button', { type: 'button', class: 'small', data: { action: 'requeue' }, text: 'Requeue',
        on: { click: () => requeueDead([r.id]) } })))));
  }

  async function requeueDead(ids) {
    let done = 0;
    for (const id of ids) {
      const answer = await act(`requeue run ${shortId(id)}`, () => api('POST', `/api/runs/${encodeURIComponent(id)}/requeue`));
      if (answer !== undefined) {
        done++;
        state.deadSelected.delete(id);
        state.deadPage.items = state.deadPage.items.filter((r) => r.id !== id);
      }
    }
    renderDead();
    if (done) toast(`Requeued ${done} run${done === 1 ? '' : 's'} with a fresh attempt budget`);
    refreshSoon();
  }

  // ------------------------------------------------------------------ the job form

  function readForm(form) {
    const f = new FormData(form);
    const text = (name) => String(f.get(name) || '').trim();
    const body = { name: text('name'), executor: text('executor') };
    if (text('tenant')) body.tenant = text('tenant'); // none: the picked tenant's, else the default
    let payload = {};
    if (text('payload')) {
      try {
        payload = JSON.parse(text('payload'));
      } catch (e) {
        throw new ApiError(422, `payload is not JSON: ${e.message}`, 'payload');
      }
      if (!payload || typeof payload !== 'object' || Array.isArray(payload)) {
        throw new ApiError(422, 'payload must be a JSON object', 'payload');
      }
    }
    if (body.executor === 'shell' && text('command')) payload.command = text('command');
    if (body.executor === 'http' && text('url')) payload.url = text('url');
    body.payload = payload;
    for (const name of ['cron_expr', 'timezone', 'run_at']) if (text(name)) body[name] = text(name);
    for (const name of ['priority', 'max_attempts', 'timeout_seconds']) if (text(name)) body[name] = Number(text(name));
    // schedule controls (recurring jobs only: the server refuses them on a one-off job, naming the field)
    for (const name of ['start_at', 'end_at']) if (text(name)) body[name] = text(name);
    for (const name of ['max_runs', 'jitter_seconds', 'pause_after_failures']) {
      if (text(name)) body[name] = Number(text(name));
    }
    const notify = formNotify(form);
    if (notify) body.notify = notify; // none given: the cluster's default, if any
    Object.assign(body, flowControlBody(text));
    return body;
  }

  // The form's debounce and throttle (each only when its key is given; the server checks the parts, naming them).
  function flowControlBody(text) {
    const body = {};
    const number = (name) => (text(name) ? Number(text(name)) : undefined);
    if (text('debounce_key')) {
      body.debounce = { key: text('debounce_key'), period_seconds: number('debounce_period_seconds') };
      if (text('debounce_max_wait_seconds')) body.debounce.max_wait_seconds = number('debounce_max_wait_seconds');
      if (text('debounce_edge')) body.debounce.edge = text('debounce_edge');
    }
    if (text('throttle_key')) {
      body.throttle = { key: text('throttle_key'), count: number('throttle_count'), per_seconds: number('throttle_per_seconds') };
    }
    return body;
  }

  // A form's notify (README "Notices"): {url, on} from its URL and event boxes; null when the URL is empty.
  function formNotify(form) {
    const url = form.elements.notify_url.value.trim();
    if (!url) return null;
    const on = [...form.querySelectorAll('input[name=notify_on]')].filter((box) => box.checked).map((box) => box.value);
    return { url, on }; // no box ticked: the server's 422 on notify.on says why
  }

  // Fills a form's notify fields from a job's notify (none: an empty URL, every event ticked).
  function fillNotify(form, notify) {
    form.elements.notify_url.value = notify ? notify.url : '';
    const on = notify ? (notify.on || []) : ['dead', 'paused', 'recovered'];
    form.querySelectorAll('input[name=notify_on]').forEach((box) => { box.checked = on.includes(box.value); });
  }

  // A notify as compared for a change: its events in a fixed order.
  function notifyKey(notify) {
    return notify ? canonical({ url: notify.url, on: [...(notify.on || [])].sort() }) : 'null';
  }

  function showExecutorFields() {
    const executor = $('submit-form').elements.executor.value;
    document.querySelectorAll('#submit-form [data-for]').forEach((label) => { label.hidden = label.dataset.for !== executor; });
  }

  /** The next fire times of the form's cron and time zone, from the server's own evaluator. */
  async function previewSchedule() {
    const form = $('submit-form');
    const list = $('cron-preview');
    const error = $('cron-preview-error');
    const cron = form.elements.cron_expr.value.trim();
    error.hidden = true;
    patch(list);
    if (!cron) {
      error.textContent = 'Enter a cron expression to preview, e.g. 0 6 L * * (06:00 on the last day of each month)';
      error.hidden = false;
      return;
    }
    const q = new URLSearchParams({ cron_expr: cron, count: '5' });
    const zone = form.elements.timezone.value.trim();
    if (zone) q.set('timezone', zone);
    try {
      const data = await api('GET', `/api/schedules/preview?${q.toString()}`);
      for (const item of data.items) {
        const li = document.createElement('li');
        li.textContent = `${item.local}  (${item.at})`;
        if (item.note) {
          const note = document.createElement('span');
          note.className = 'muted cron-note';
          note.textContent = ` ${item.note}`;
          li.append(note);
        }
        list.append(li);
      }
      if (data.items.length === 0) {
        error.textContent = 'This expression does not fire again.';
        error.hidden = false;
      }
    } catch (e) {
      error.textContent = e.field ? `${e.message} (field ${e.field})` : e.message;
      error.hidden = false;
    }
  }

  async function submitJob(event) {
    event.preventDefault();
    const form = $('submit-form');
    const error = $('submit-error');
    error.hidden = true;
    clearFieldErrors(form);
    try {
      const job = await api('POST', '/api/jobs', readForm(form));
      state.jobs.set(job.id, job);
      toast(job.debounced_into ? `Debounced into run ${job.debounced_into} of ${job.name}` : `Submitted ${job.name}`);
      form.reset();
      showExecutorFields();
      form.hidden = true;
      loadJobs(false);
    } catch (e) {
      if (e.status === 422 && showFieldError(e.field, e.message, form)) return;
      error.textContent = e.field ? `${e.message} (field ${e.field})` : e.message;
      error.hidden = false;
    }
  }

  // ------------------------------------------------------------------ edit and delete a job

  const EDIT_TEXT = ['name', 'queue', 'cron_expr', 'timezone', 'run_at', 'concurrency_key', 'start_at', 'end_at'];
  const EDIT_NUMBERS = ['priority', 'max_attempts', 'timeout_seconds', 'max_concurrent', 'max_runs', 'jitter_seconds',
    'pause_after_failures'];
  const EDIT_CHOICES = ['catch_up', 'overlap'];

  /** JSON with object keys sorted, to tell whether an edited object differs from the job's. */
  function canonical(value) {
    if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
    if (value && typeof value === 'object') {
      return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
    }
    return JSON.stringify(value === undefined ? null : value);
  }

  function labelsText(labels) {
    return Object.entries(labels || {}).map(([k, v]) => `${k}=${v}`).join('\n');
  }

  function clearFieldErrors(form) {
    form.querySelectorAll('[data-field]').forEach((label) => {
      label.classList.remove('invalid');
      const err = label.querySelector('.field-error');
      if (!err) return;
      err.textContent = '';
      err.hidden = true;
    });
  }

  function clearEditErrors() {
    clearFieldErrors($('edit-form'));
    $('edit-error').hidden = true;
    $('edit-conflict').hidden = true;
  }

  /**
   * Puts a message next to the field the server named (payload.url goes to payload, notify.on to notify) in the form
   * (the edit form unless given); false if it has no such field.
   */
  function showFieldError(field, message, form = $('edit-form')) {
    if (!field) return false;
    const name = String(field).split(/[.[]/)[0];
    const label = form.querySelector(`[data-field="${CSS.escape(name)}"]`);
    if (!label) return false;
    label.classList.add('invalid');
    const err = label.querySelector('.field-error');
    err.textContent = message;
    err.hidden = false;
    const input = label.querySelector('input, textarea, select');
    if (input) input.focus();
    return true;
  }

  function showEditError(message, conflict) {
    const box = $('edit-error');
    box.textContent = message;
    box.hidden = false;
    $('edit-conflict').hidden = !conflict;
  }

  function fillEditForm(job) {
    const form = $('edit-form');
    state.editing = job;
    form.dataset.jobId = job.id;
    setText('edit-title', `Edit job ${job.name}`);
    for (const name of EDIT_TEXT) form.elements[name].value = job[name] == null ? '' : String(job[name]);
    for (const name of EDIT_NUMBERS) form.elements[name].value = job[name] == null ? '' : String(job[name]);
    form.elements.catch_up.value = job.catch_up || 'skip';
    form.elements.overlap.value = job.overlap || 'allow';
    form.elements.payload.value = job.payload == null ? '' : JSON.stringify(job.payload, null, 2);
    form.elements.labels.value = labelsText(job.labels);
    fillThrottle(form, job);
    fillNotify(form, job.notify);
    form.elements.pending_keep.checked = false;
    // a one-off job has no cron, a recurring one no run_at: the server refuses the change, the form says so up front
    form.elements.cron_expr.closest('label').hidden = !job.cron_expr;
    form.elements.timezone.closest('label').hidden = !job.cron_expr;
    form.elements.run_at.closest('label').hidden = !!job.cron_expr;
    form.querySelectorAll('label[data-recurring]').forEach((label) => { label.hidden = !job.cron_expr; });
  }

  async function openEdit(id) {
    const job = await act('Open the job', () => api('GET', `/api/jobs/${encodeURIComponent(id)}`));
    if (job === undefined) return;
    state.jobs.set(job.id, job);
    clearEditErrors();
    fillEditForm(job);
    $('submit-form').hidden = true;
    $('edit-form').hidden = false;
    $('edit-form').scrollIntoView({ block: 'nearest' });
    $('edit-form').elements.name.focus();
  }

  /** The PATCH body: the fields whose value differs from the job's; an emptied field is null (its default). */
  function editChanges(form, job) {
    const changes = {};
    for (const name of EDIT_TEXT) {
      const input = form.elements[name];
      if (input.closest('label').hidden) continue;
      const value = input.value.trim();
      const before = job[name] == null ? '' : String(job[name]);
      if (value !== before) changes[name] = value === '' ? null : value;
    }
    for (const name of EDIT_NUMBERS) {
      if (form.elements[name].closest('label').hidden) continue;
      const text = form.elements[name].value.trim();
      const before = job[name] == null ? '' : String(job[name]);
      if (text === before) continue;
      if (text !== '' && !/^-?\d+$/.test(text)) throw new ApiError(422, `${name} must be a whole number`, name);
      changes[name] = text === '' ? null : Number(text);
    }
    for (const name of EDIT_CHOICES) {
      const value = form.elements[name].value;
      if (value !== (job[name] || form.elements[name].options[0].value)) changes[name] = value;
    }
    const payloadText = form.elements.payload.value.trim();
    let payload = null;
    if (payloadText) {
      try {
        payload = JSON.parse(payloadText);
      } catch (e) {
        throw new ApiError(422, `payload is not JSON: ${e.message}`, 'payload');
      }
      if (!payload || typeof payload !== 'object' || Array.isArray(payload)) {
        throw new ApiError(422, 'payload must be a JSON object', 'payload');
      }
    }
    if (canonical(payload) !== canonical(job.payload == null ? null : job.payload)) changes.payload = payload;
    const labels = {};
    form.elements.labels.value.split('\n').map((line) => line.trim()).filter(Boolean).forEach((line) => {
      const at = line.indexOf('=');
      if (at <= 0) throw new ApiError(422, `labels: write one key=value a line ("${line}" has no key=)`, 'labels');
      labels[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    });
    if (canonical(labels) !== canonical(job.labels || {})) changes.labels = labels;
    throttleChange(form, job, changes);
    const notify = formNotify(form); // an emptied URL removes the job's notify (null)
    if (notifyKey(notify) !== notifyKey(job.notify)) changes.notify = notify;
    return changes;
  }

  // The edit form's throttle (a debounce cannot change): the job's, or empty.
  function fillThrottle(form, job) {
    const t = job.throttle || {};
    form.elements.throttle_key.value = t.key == null ? '' : t.key;
    form.elements.throttle_count.value = t.count == null ? '' : String(t.count);
    form.elements.throttle_per_seconds.value = t.per_seconds == null ? '' : String(t.per_seconds);
  }

  // Adds throttle to the PATCH when it differs from the job's: replaced whole, null (an emptied key) removes it.
  function throttleChange(form, job, changes) {
    const key = form.elements.throttle_key.value.trim();
    const number = (name) => {
      const text = form.elements[name].value.trim();
      if (text !== '' && !/^-?\d+$/.test(text)) throw new ApiError(422, `throttle.${name.replace('throttle_', '')} must be a whole number`, 'throttle');
      return text === '' ? null : Number(text);
    };
    const throttle = key ? { key, count: number('throttle_count'), per_seconds: number('throttle_per_seconds') } : null;
    if (canonical(throttle) !== canonical(job.throttle || null)) changes.throttle = throttle;
  }

  async function saveEdit(event) {
    event.preventDefault();
    const form = $('edit-form');
    const job = state.editing;
    if (!job) return;
    clearEditErrors();
    let changes;
    try {
      changes = editChanges(form, job);
    } catch (e) {
      if (!showFieldError(e.field, e.message)) showEditError(e.message, false);
      return;
    }
    if (Object.keys(changes).length === 0) {
      showEditError('Nothing changed.', false);
      return;
    }
    const keep = form.elements.pending_keep.checked ? '?pending=keep' : '';
    $('edit-save').disabled = true;
    try {
      const updated = await api('PATCH', `/api/jobs/${encodeURIComponent(job.id)}${keep}`, changes);
      state.jobs.set(updated.id, updated);
      const i = state.jobsPage.items.findIndex((j) => j.id === updated.id);
      if (i >= 0) state.jobsPage.items[i] = updated;
      form.hidden = true;
      state.editing = null;
      renderJobs();
      toast(`Saved ${updated.name}`);
      loadJobs(false);
    } catch (e) {
      if (e.status === 422 && showFieldError(e.field, e.message)) return;
      if (e.status === 409) {
        showEditError(`The job changed on the server and cannot take this edit: ${e.message}. Reload it to see it as it is now.`, true);
      } else if (e.status === 404) {
        showEditError('This job does not exist any more.', false);
      } else {
        showEditError(e.field ? `${e.message} (field ${e.field})` : e.message, false);
      }
    } finally {
      $('edit-save').disabled = false;
    }
  }

  async function reloadEdit() {
    const form = $('edit-form');
    const job = await act('Reload the job', () => api('GET', `/api/jobs/${encodeURIComponent(form.dataset.jobId)}`));
    if (job === undefined) return;
    clearEditErrors();
    fillEditForm(job);
    loadJobs(false);
  }

  async function deleteJob(job) {
    if (!window.confirm(`Delete job "${job.name}"? Its pending runs are cancelled and it leaves the list; its finished runs stay readable.`)) {
      return;
    }
    const path = `/api/jobs/${encodeURIComponent(job.id)}`;
    let answer;
    try {
      answer = await api('DELETE', path);
    } catch (e) {
      if (e.status === 409 && e.code === 'job_running') {
        if (!window.confirm(`A run of "${job.name}" is running. Cancel the running run and delete the job?`)) return;
        answer = await act(`delete ${job.name}`, () => api('DELETE', `${path}?cancel_running=true`));
        if (answer === undefined) return;
      } else {
        toast(`delete ${job.name}: ${e.message}`, true);
        return;
      }
    }
    state.jobsPage.items = state.jobsPage.items.filter((j) => j.id !== job.id || state.jobsPage.status === 'deleted');
    if (answer) state.jobs.set(answer.id, answer);
    if (state.editing && state.editing.id === job.id) {
      $('edit-form').hidden = true;
      state.editing = null;
    }
    renderJobs();
    toast(`Deleted ${job.name}`);
    loadJobs(false);
    refreshSoon();
  }

  // ------------------------------------------------------------------ tenants' weights and limits (#tenants)

  function tenantsForbiddenText() {
    return `This token is bound to tenant ${state.boundTenant}; tenants' weights and limits are cluster-wide: `
      + 'they need a cluster-wide token.';
  }

  /** Every known tenant with its weight, limits and load (cluster-wide: a tenant-bound token reads none). */
  const loadTenants = single(async () => {
    if (state.boundTenant) {
      renderTenants();
      return;
    }
    const answer = await api('GET', '/api/tenants');
    state.tenantsView.items = (answer && answer.items) || [];
    state.tenantsView.loaded = true;
    seeTenants(state.tenantsView.items.map((t) => ({ tenant: t.name })));
    renderTenants();
  });

  function renderTenants() {
    const body = $('tenants').tBodies[0];
    const note = $('tenants-note');
    if (state.boundTenant) {
      const text = tenantsForbiddenText();
      note.textContent = text;
      note.hidden = false;
      patch(body, el('tr', {}, el('td', { class: 'empty forbidden', colspan: 6, text })));
      setText('tenants-count', '');
      $('tenants-refresh').disabled = true;
      closeTenantEdit();
      return;
    }
    note.hidden = true;
    const items = state.tenantsView.items;
    setText('tenants-count', items.length ? `${items.length} tenant${items.length === 1 ? '' : 's'}` : '');
    if (!items.length) {
      patch(body, emptyRow(6, state.tenantsView.loaded ? 'no tenants yet' : 'Loading the tenants…'));
      return;
    }
    patch(body, ...items.map((t) => el('tr', { data: { tenant: t.name } },
      el('td', { class: 'mono', text: t.name }),
      el('td', { class: 'num', text: t.weight }),
      el('td', { class: 'num', text: t.pending }),
      el('td', { class: 'num', text: t.running }),
      el('td', { class: 'limits', text: limitsText(t) }),
      el('td', { class: 'actions' }, el('button', { type: 'button', class: 'small', data: { action: 'edit-tenant' },
        text: 'Edit', on: { click: () => openTenantEdit(t) } })))));
  }

  function openTenantEdit(t) {
    const form = $('tenant-form');
    state.tenantsView.editing = t;
    clearFieldErrors(form);
    $('tenant-error').hidden = true;
    form.dataset.tenant = t.name;
    setText('tenant-title', `Edit tenant ${t.name}`);
    form.elements.weight.value = String(t.weight);
    form.elements.max_running.value = t.max_running == null ? '' : String(t.max_running);
    form.elements.rate_count.value = t.rate_limit ? String(t.rate_limit.count) : '';
    form.elements.rate_per_seconds.value = t.rate_limit ? String(t.rate_limit.per_seconds) : '';
    form.hidden = false;
    form.scrollIntoView({ block: 'nearest' });
    form.elements.weight.focus();
  }

  function closeTenantEdit() {
    $('tenant-form').hidden = true;
    state.tenantsView.editing = null;
  }

  /** A whole number typed into the form, or null for an empty field; anything else is refused naming the field. */
  function wholeNumber(form, input, field) {
    const text = form.elements[input].value.trim();
    if (text === '') return null;
    if (!/^-?\d+$/.test(text)) throw new ApiError(422, `${field} must be a whole number, was "${text}"`, field);
    return Number(text);
  }

  /** The PUT body: the fields that differ from the tenant's; an emptied one is null (weight 1, no limit). */
  function tenantChanges(form, t) {
    const changes = {};
    const weight = wholeNumber(form, 'weight', 'weight');
    if ((weight === null ? 1 : weight) !== t.weight) changes.weight = weight;
    const max = wholeNumber(form, 'max_running', 'max_running');
    if (max !== (t.max_running == null ? null : t.max_running)) changes.max_running = max;
    const count = wholeNumber(form, 'rate_count', 'rate_limit.count');
    const perSeconds = wholeNumber(form, 'rate_per_seconds', 'rate_limit.per_seconds');
    if ((count === null) !== (perSeconds === null)) {
      throw new ApiError(422, 'rate_limit needs both the starts and the seconds, or neither (no limit)', 'rate_limit');
    }
    const rate = count === null ? null : { count, per_seconds: perSeconds };
    if (canonical(rate) !== canonical(t.rate_limit || null)) changes.rate_limit = rate;
    return changes;
  }

  function showTenantError(message) {
    const box = $('tenant-error');
    box.textContent = message;
    box.hidden = false;
  }

  async function saveTenant(event) {
    event.preventDefault();
    const form = $('tenant-form');
    const t = state.tenantsView.editing;
    if (!t) return;
    clearFieldErrors(form);
    $('tenant-error').hidden = true;
    let changes;
    try {
      changes = tenantChanges(form, t);
    } catch (e) {
      if (!showFieldError(e.field, e.message, form)) showTenantError(e.message);
      return;
    }
    if (Object.keys(changes).length === 0) {
      showTenantError('Nothing changed.');
      return;
    }
    $('tenant-save').disabled = true;
    try {
      const updated = await api('PUT', `/api/tenants/${encodeURIComponent(t.name)}`, changes);
      const i = state.tenantsView.items.findIndex((x) => x.name === updated.name);
      if (i >= 0) state.tenantsView.items[i] = updated;
      else state.tenantsView.items.push(updated);
      closeTenantEdit();
      renderTenants();
      toast(`Saved tenant ${updated.name}: weight ${updated.weight}, limits ${limitsText(updated)}`);
      loadTenants();
    } catch (e) {
      if ((e.status === 400 || e.status === 422) && showFieldError(e.field, e.message, form)) return;
      showTenantError(e.field ? `${e.message} (field ${e.field})` : e.message);
    } finally {
      $('tenant-save').disabled = false;
    }
  }

  // ------------------------------------------------------------------ navigation

  function runsHash() {
    const q = new URLSearchParams();
    if (state.runsPage.job) q.set('job', state.runsPage.job);
    if (state.runsPage.status) q.set('status', state.runsPage.status);
    if (state.selectedRunId) q.set('run', state.selectedRunId);
    const s = q.toString();
    return s ? `#runs?${s}` : '#runs';
  }

  function route() {
    const hash = location.hash.replace(/^#/, '') || 'overview';
    const [name, query] = hash.split('?');
    const params = new URLSearchParams(query || '');
    let view = ['overview', 'jobs', 'runs', 'dead', 'job', 'batch', 'tenants'].includes(name) ? name : 'overview';
    if ((view === 'job' || view === 'batch') && !params.get('id')) view = 'jobs';
    state.view = view;
    document.querySelectorAll('.view').forEach((v) => { v.hidden = v.id !== `view-${view}`; });
    const tab = view === 'job' || view === 'batch' ? 'jobs' : view;
    document.querySelectorAll('#tabs a').forEach((a) => a.classList.toggle('active', a.dataset.tab === tab));
    if (view === 'job' && state.jobView.id !== params.get('id')) {
      state.jobView = { id: params.get('id'), job: null, runs: [], missing: false };
      renderJobView();
    }
    if (view === 'batch' && state.batchView.id !== params.get('id')) {
      state.batchView = { id: params.get('id'), batch: null, missing: false };
      renderBatchView();
    }
    if (view === 'runs') {
      state.runsPage.job = params.get('job');
      state.runsPage.status = params.get('status') || '';
      $('runs-status').value = state.runsPage.status;
      state.selectedRunId = params.get('run');
      state.selectedRun = null;
      renderRunDetail();
      if (state.selectedRunId) loadRunDetail(state.selectedRunId);
    }
    loadView(true);
  }

  function init() {
    setText('server', location.host);
    $('forget-token').hidden = !state.token;
    $('forget-token').addEventListener('click', () => {
      sessionStorage.removeItem(TOKEN_KEY);
      state.token = '';
      location.reload();
    });
    $('token-dialog').addEventListener('cancel', (e) => e.preventDefault()); // nothing works without a token
    renderTenantPicker();
    $('tenant').addEventListener('change', (e) => pickTenant(e.target.value));
    $('jobs-status').addEventListener('change', (e) => { state.jobsPage.status = e.target.value; loadJobs(true); });
    let filterTimer = null;
    const filterLater = () => {
      clearTimeout(filterTimer);
      filterTimer = setTimeout(() => {
        const p = state.jobsPage;
        p.search = $('jobs-search').value.trim();
        p.queue = $('jobs-queue').value.trim();
        const parsed = parseLabelFilter($('jobs-label').value);
        p.labels = parsed.labels;
        p.labelErrors = parsed.bad;
        loadJobs(true);
      }, 300);
    };
    ['jobs-search', 'jobs-queue', 'jobs-label'].forEach((id) => $(id).addEventListener('input', filterLater));
    $('jobs-refresh').addEventListener('click', () => loadJobs(false));
    $('jobs-more').addEventListener('click', loadMoreJobs);
    $('edit-form').addEventListener('submit', saveEdit);
    $('edit-close').addEventListener('click', () => { $('edit-form').hidden = true; state.editing = null; });
    $('edit-reload').addEventListener('click', reloadEdit);
    $('new-job').addEventListener('click', () => { $('submit-form').hidden = false; $('submit-form').elements.name.focus(); });
    $('submit-cancel').addEventListener('click', () => { $('submit-form').hidden = true; });
    $('submit-form').addEventListener('submit', submitJob);
    $('submit-form').elements.executor.addEventListener('change', showExecutorFields);
    $('cron-preview-button').addEventListener('click', previewSchedule);
    showExecutorFields();
    $('runs-status').addEventListener('change', (e) => {
      state.runsPage.status = e.target.value;
      history.replaceState(null, '', runsHash());
      loadRuns(true);
    });
    $('runs-refresh').addEventListener('click', () => loadRuns(false));
    $('runs-more').addEventListener('click', () => {
      const q = new URLSearchParams();
      if (state.runsPage.job) q.set('job_id', state.runsPage.job);
      if (state.runsPage.status) q.set('status', state.runsPage.status);
      loadMore(state.runsPage, `/api/runs?${q}`, renderRuns);
    });
    $('dead-refresh').addEventListener('click', () => loadDead(false));
    $('dead-more').addEventListener('click', () => loadMore(state.deadPage, '/api/runs?status=dead', renderDead));
    $('dead-all').addEventListener('change', (e) => {
      state.deadSelected = new Set(e.target.checked ? state.deadPage.items.map((r) => r.id) : []);
      renderDead();
    });
    $('dead-requeue-selected').addEventListener('click', () => requeueDead([...state.deadSelected]));
    $('tenants-refresh').addEventListener('click', () => loadTenants());
    $('tenant-form').addEventListener('submit', saveTenant);
    $('tenant-close').addEventListener('click', closeTenantEdit);
    window.addEventListener('hashchange', route);
    let linesTimer = null;
    window.addEventListener('resize', () => { clearTimeout(linesTimer); linesTimer = setTimeout(drawWorkflowLines, 100); });

    setMode('connecting');
    route();
    loadStats();
    loadNodes();
    loadQueues();
    loadLag();
    loadRecent();
    setInterval(tick, POLL_MS);
    followEvents();
  }

  document.addEventListener('DOMContentLoaded', init);
})();
