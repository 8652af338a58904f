package io.forgeflow.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobRequest;
import io.forgeflow.client.JobUpdate;
import io.forgeflow.client.Page;
import io.forgeflow.client.SubmitResult;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code forgeflow jobs submit|list|get|update|delete|pause|resume|cancel|backfill|trigger}. */
final class JobsCommand extends ClientCommand {
    private static final Pattern RELATIVE = Pattern.compile("\\+(\\d+)([smhd])");

    JobsCommand(Terminal terminal, String program) {
        super("jobs", "submit, list, change and control jobs (submit, list, get, update, delete, pause, resume, cancel, "
                + "trigger)", terminal, program);
    }

    @Override
    public void configure(Subparser command) {
        command.help(getDescription());
        Subparsers actions = actions(command);
        Subparser submit = action(actions, "submit", "submit a job (POST /api/jobs); prints the job");
        submit.addArgument("--name").required(true).help("the job's name, 1-200 characters (required)");
        submit.addArgument("--executor").setDefault("shell").help("shell (default), http, noop, or a plugged-in executor");
        submit.addArgument("--command").dest("shell_command").metavar("COMMAND").help("shell: the command, run with /bin/sh -c (payload.command)");
        submit.addArgument("--url").help("http: the URL to call (payload.url)");
        submit.addArgument("--payload").metavar("JSON")
                .help("the executor's payload: a JSON object, or @file.json; --command and --url are merged into it");
        submit.addArgument("--cron").metavar("EXPR")
                .help("recurring: 5-field Unix cron ('*/5 * * * *'), 6 fields with seconds, or @hourly, @daily ...");
        submit.addArgument("--timezone").metavar("ZONE").help("IANA time zone of --cron, e.g. Europe/Berlin (default UTC)");
        submit.addArgument("--run-at").metavar("TIME")
                .help("once, at a time: 2026-12-01T09:30:00Z, or from now: +30s, +10m, +2h, +1d");
        submit.addArgument("--priority").type(Integer.class).help("1 (first) to 9 (default 5)");
        submit.addArgument("--max-attempts").type(Integer.class).metavar("N").help("1-100 (default 3)");
        submit.addArgument("--timeout").type(Integer.class).metavar("SECONDS").help("1-86400 (default 300)");
        submit.addArgument("--catch-up").choices("skip", "once")
                .help("cron ticks missed while no scheduler ran: skip (default) or once");
        submit.addArgument("--idempotency-key").metavar("KEY")
                .help("submitting the same key and body again answers the existing job; another body is a conflict (exit 4)");
        submit.addArgument("--queue").metavar("QUEUE")
                .help("the queue its runs go to: letters, digits, '.', '_', '-' (default: default)");
        submit.addArgument("--concurrency-key").metavar("KEY")
                .help("runs of all jobs sharing KEY count together against --max-concurrent, cluster-wide");
        submit.addArgument("--max-concurrent").type(Integer.class).metavar("N")
                .help("at most N runs at once, 1-10000: of this job, or with --concurrency-key of every job sharing it");
        submit.addArgument("--overlap").choices("allow", "skip", "queue_one", "cancel_running")
                .help("recurring: a tick while an earlier run is pending or running: allow (default), skip, queue_one "
                        + "(one may wait), cancel_running (the new tick replaces it)");
        submit.addArgument("--unique-key").metavar("KEY")
                .help("one-off: refused (exit 4) while a run of a job with KEY in its queue is pending or running");
        submit.addArgument("--unique-on-conflict").choices("reject", "return_existing")
                .help("with --unique-key: reject (default) or return_existing (answer the live job)");
        submit.addArgument("--sequence-key").metavar("KEY")
                .help("one-off: runs with KEY start one at a time, in submission order (other keys in parallel)");
        submit.addArgument("--on-dead").choices("block", "continue")
                .help("with --sequence-key: a dead run blocks the sequence until requeued (default) or lets it go on");
        flowOptions(submit);
        submit.addArgument("--retry-base").type(Integer.class).metavar("SECONDS")
                .help("this job's retry backoff: the first retry waits a random time up to SECONDS, later ones double "
                        + "it (1-86400; default: the server's FORGEFLOW_RETRY_BASE, 5s)");
        submit.addArgument("--retry-max").type(Integer.class).metavar("SECONDS")
                .help("the cap of this job's doubling retry waits (1-86400, at least --retry-base; default 15 minutes)");
        submit.addArgument("--label").action(Arguments.append()).metavar("KEY=VALUE")
                .help("a label, repeatable (at most 20): key of a-z, 0-9, '_', '.', '-'; copied to the job's runs, "
                        + "e.g. --label team=billing --label env=prod");
        submit.addArgument("--depends-on").action(Arguments.append()).metavar("JOB_ID")
                .help("one-off: run only after this job succeeds (its run waits meanwhile); repeatable, or "
                        + "comma-separated: --depends-on ID1,ID2 (1-100 parents)");
        submit.addArgument("--on-parent-failure").choices("cancel", "run", "wait")
                .help("with --depends-on, when a parent ends dead or cancelled: cancel (default: this job's run is "
                        + "cancelled), run (run once every parent has ended), wait (until every parent succeeded)");
        submit.addArgument("--start-at").metavar("TIME")
                .help("recurring: fire no tick before TIME (2026-12-01T09:30:00Z, or +2h); a tick exactly at it fires");
        submit.addArgument("--end-at").metavar("TIME")
                .help("recurring: fire no tick after TIME; the job completes with its last tick");
        submit.addArgument("--max-runs").type(Integer.class).metavar("N")
                .help("recurring: complete after the scheduler has fired N runs (1-1000000)");
        submit.addArgument("--jitter").type(Integer.class).metavar("SECONDS")
                .help("recurring: each tick's run is due 0-SECONDS later (0-86400), the same on every scheduler node");
        submit.addArgument("--pause-after-failures").type(Integer.class).metavar("N")
                .help("recurring: pause after N dead runs in a row (1-1000)");
        submit.addArgument("--notify-url").metavar("URL")
                .help("POST the job's notices (dead, paused, recovered runs) to URL, once per event (README \"Notices\")");
        submit.addArgument("--notify-on").metavar("EVENTS")
                .help("with --notify-url: the events, comma-separated, of dead, paused, recovered (default: all three)");
        submit.addArgument("-q", "--quiet").action(Arguments.storeTrue()).help("print only the job's id");

        Subparser list = action(actions, "list", "list jobs, newest first (GET /api/jobs)");
        list.addArgument("--status").choices("active", "paused", "cancelled", "completed", "deleted")
                .help("only jobs in this status (deleted jobs are listed only this way)");
        list.addArgument("--queue").metavar("QUEUE").help("only jobs of this queue");
        list.addArgument("--label").action(Arguments.append()).metavar("KEY=VALUE")
                .help("only jobs with this label; repeatable, all must match (also KEY:VALUE)");
        list.addArgument("--name-prefix").metavar("PREFIX").help("only jobs whose name starts with PREFIX");
        page(list);

        ids(action(actions, "get", "show jobs (GET /api/jobs/{id}), with their parents and children and the status "
                + "of each one's latest run"), "job");
        Subparser update = action(actions, "update", "change a job in place (PATCH /api/jobs/{id}): only the options "
                + "given change; the next run is recomputed from now. Example: jobs update ID --cron '0 4 * * *' --priority 2");
        update.addArgument("id").metavar("JOB_ID").help("the job to change");
        update.addArgument("--name").help("a new name, 1-200 characters");
        update.addArgument("--command").dest("shell_command").metavar("COMMAND").help("shell: the new command (payload.command)");
        update.addArgument("--url").help("http: the new URL (payload.url)");
        update.addArgument("--payload").metavar("JSON").help("the new payload, whole: a JSON object, or @file.json");
        update.addArgument("--cron").metavar("EXPR").help("a recurring job's new cron expression");
        update.addArgument("--timezone").metavar("ZONE").help("IANA time zone of the cron expression");
        update.addArgument("--run-at").metavar("TIME").help("a one-off job's new time: 2026-12-01T09:30:00Z, or +10m");
        update.addArgument("--priority").type(Integer.class).help("1 (first) to 9");
        update.addArgument("--max-attempts").type(Integer.class).metavar("N").help("1-100");
        update.addArgument("--timeout").type(Integer.class).metavar("SECONDS").help("1-86400");
        update.addArgument("--catch-up").choices("skip", "once").help("cron ticks missed while no scheduler ran");
        update.addArgument("--queue").metavar("QUEUE").help("the queue its runs go to");
        update.addArgument("--concurrency-key").metavar("KEY").help("the key its runs count against ('none' clears it)");
        update.addArgument("--max-concurrent").metavar("N").help("at most N runs at once, 1-10000 ('none' clears it)");
        update.addArgument("--overlap").choices("allow", "skip", "queue_one", "cancel_running").help("a recurring job's overlap");
        update.addArgument("--retry-base").type(Integer.class).metavar("SECONDS")
                .help("replaces the job's retry policy: the first retry waits up to SECONDS (1-86400); with --retry-max "
                        + "or alone (then the cap is the server's default)");
        update.addArgument("--retry-max").type(Integer.class).metavar("SECONDS")
                .help("replaces the job's retry policy: its cap (1-86400); with --retry-base or alone");
        update.addArgument("--retry-default").action(Arguments.storeTrue())
                .help("drop the job's own retry policy: the server's defaults apply again");
        update.addArgument("--label").action(Arguments.append()).metavar("KEY=VALUE")
                .help("the job's labels, all of them (replaces the old ones; repeatable)");
        update.addArgument("--clear-labels").action(Arguments.storeTrue()).help("remove every label of the job");
        update.addArgument("--start-at").metavar("TIME").help("recurring: the first allowed tick ('none' removes it)");
        update.addArgument("--end-at").metavar("TIME").help("recurring: the last allowed tick ('none' removes it)");
        update.addArgument("--max-runs").metavar("N").help("recurring: complete after N runs, 1-1000000 ('none' removes it)");
        update.addArgument("--jitter").metavar("SECONDS").help("recurring: spread of each tick's run, 0-86400 ('none': 0)");
        update.addArgument("--pause-after-failures").metavar("N")
                .help("recurring: pause after N dead runs in a row, 1-1000 ('none' removes it)");
        update.addArgument("--notify-url").metavar("URL")
                .help("where the job's notices go, replacing its notify ('none' removes it: no more notices)");
        update.addArgument("--notify-on").metavar("EVENTS")
                .help("with --notify-url: the events, comma-separated, of dead, paused, recovered (default: all three)");
        update.addArgument("--throttle-key").metavar("KEY")
                .help("replaces the job's throttle, with --throttle-count and --throttle-per ('none' removes it)");
        update.addArgument("--throttle-count").type(Integer.class).metavar("N").help("with --throttle-key: N starts per window");
        update.addArgument("--throttle-per").type(Integer.class).metavar("SECONDS").help("with --throttle-key: the window");
        update.addArgument("--keep-pending").action(Arguments.storeTrue())
                .help("pending runs keep their priority, queue, payload, retry policy and labels (?pending=keep)");
        Subparser delete = action(actions, "delete", "delete jobs (DELETE /api/jobs/{id}): pending runs cancelled, the "
                + "job leaves the lists; its finished runs stay until retention. Exit 4 while a run of it is running");
        ids(delete, "job");
        delete.addArgument("--cancel-running").action(Arguments.storeTrue())
                .help("ask the worker of a running run to stop it, and delete anyway");
        delete.addArgument("--purge").action(Arguments.storeTrue())
                .help("remove the job and its runs for good, now, instead of leaving a tombstone");
        Subparser pause = action(actions, "pause", "pause jobs: their pending runs are cancelled, no ticks fire");
        ids(pause, "job");
        pause.addArgument("--note").metavar("TEXT")
                .help("why, at most 500 characters: shown as the job's pause note (with the token that paused it) until "
                        + "it is resumed");
        ids(action(actions, "resume", "resume paused jobs: cron continues from now (catch_up applies)"), "job");
        ids(action(actions, "cancel", "cancel jobs for good: pending runs cancelled, running runs stopped"), "job");
        Subparser backfill = action(actions, "backfill", "enqueue one run per tick of a recurring job's schedule over "
                + "a range (POST /api/jobs/{id}/backfill); a tick that has a run already gets none, so running it "
                + "twice adds nothing. Example: jobs backfill ID --from 2026-04-01T00:00:00Z --to 2026-04-07T23:59:59Z");
        backfill.addArgument("id").metavar("JOB_ID").help("the recurring job");
        backfill.addArgument("--from").required(true).metavar("TIME").help("the first tick (included), RFC 3339");
        backfill.addArgument("--to").required(true).metavar("TIME")
                .help("the last tick (included), RFC 3339; at most 10,000 ticks from --from");
        backfill.addArgument("--overlap").choices("allow", "skip", "queue_one")
                .help("allow (default): the runs side by side; skip or queue_one: one at a time, oldest first");
        Subparser trigger = action(actions, "trigger", "enqueue a run of each job right now, whatever its schedule");
        ids(trigger, "job");
        trigger.addArgument("-q", "--quiet").action(Arguments.storeTrue()).help("print only the runs' ids");
    }

    @Override
    void execute(Namespace ns, ForgeFlowClient client, Output out) {
        switch (ns.getString(ACTION)) {
            case "submit" -> submit(ns, client, out);
            case "list" -> list(ns, client, out);
            case "get" -> eachId(ns, out, client::getJob, (id, job) -> Details.job(out, job));
            case "update" -> update(ns, client, out);
            case "delete" -> eachId(ns, out, id -> client.deleteJob(id, Boolean.TRUE.equals(ns.getBoolean("cancel_running")),
                            Boolean.TRUE.equals(ns.getBoolean("purge"))).<Object>map(j -> j)
                            .orElse(Map.of("id", id, "purged", true)),
                    (id, result) -> out.println(result instanceof Job j ? "job " + id + " (" + Text.line(j.name())
                            + ") is deleted" : "job " + id + " and its runs are purged"));
            case "pause" -> eachId(ns, out, id -> client.pauseJob(id, ns.getString("note")), (id, job) -> changed(out, job));
            case "resume" -> eachId(ns, out, client::resumeJob, (id, job) -> changed(out, job));
            case "cancel" -> eachId(ns, out, client::cancelJob, (id, job) -> changed(out, job));
            case "backfill" -> {
                io.forgeflow.client.Backfill b = client.backfillJob(ns.getString("id"),
                        time("--from", ns.getString("from"), Instant.now()), time("--to", ns.getString("to"),
                                Instant.now()), ns.getString("overlap"));
                if (out.json()) {
                    out.json(b);
                } else {
                    out.println("backfill " + b.id() + " of job " + b.jobId() + ": " + b.ticks() + " tick(s), "
                            + b.created() + " run(s) created, " + b.skipped() + " already had one (overlap "
                            + b.overlap() + ")");
                }
            }
            case "trigger" -> eachId(ns, out, client::triggerJob, (id, run) -> out.println(
                    Boolean.TRUE.equals(ns.getBoolean("quiet")) ? run.id()
                            : "triggered job " + id + ": run " + run.id() + " " + run.status()));
            default -> throw new UsageException("unknown action " + ns.getString(ACTION));
        }
    }

    private static void changed(Output out, Job job) {
        out.println("job " + job.id() + " (" + Text.line(job.name()) + ") is " + job.status()
                + (job.nextRunAt() == null ? "" : ", next run " + Text.time(job.nextRunAt())));
    }

    private void submit(Namespace ns, ForgeFlowClient client, Output out) {
        JobRequest request = JobRequest.builder(ns.getString("name"), ns.getString("executor"))
                .payload(payload(ns))
                .cron(ns.getString("cron"))
                .timezone(ns.getString("timezone"))
                .runAt(runAt(ns.getString("run_at"), Instant.now()))
                .priority(ns.getInt("priority"))
                .maxAttempts(ns.getInt("max_attempts"))
                .timeoutSeconds(ns.getInt("timeout"))
                .catchUp(ns.getString("catch_up"))
                .idempotencyKey(ns.getString("idempotency_key"))
                .queue(ns.getString("queue"))
                .concurrency(ns.getString("concurrency_key"), ns.getInt("max_concurrent"))
                .overlap(ns.getString("overlap"))
                .uniqueKey(ns.getString("unique_key"), ns.getString("unique_on_conflict"))
                .retry(ns.getInt("retry_base"), ns.getInt("retry_max"))
                .labels(labels(ns.getList("label")))
                .dependsOn(dependsOn(ns.getList("depends_on")))
                .onParentFailure(ns.getString("on_parent_failure"))
                .startAt(time("--start-at", ns.getString("start_at"), Instant.now()))
                .endAt(time("--end-at", ns.getString("end_at"), Instant.now()))
                .maxRuns(ns.getInt("max_runs"))
                .jitterSeconds(ns.getInt("jitter"))
                .pauseAfterFailures(ns.getInt("pause_after_failures"))
                .sequence(ns.getString("sequence_key"), ns.getString("on_dead"))
                .build().withNotify(notices(ns)).withFlow(debounce(ns), throttle(ns));
        SubmitResult result = client.submitJob(request);
        if (out.json() && result.debounced()) {
            out.json(result.job(), "debounced_into", result.debouncedInto());
        } else if (out.json()) {
            out.json(result.job());
        } else if (Boolean.TRUE.equals(ns.getBoolean("quiet"))) {
            out.println(result.job().id());
        } else if (result.debounced()) {
            out.println("debounced into run " + result.debouncedInto() + " of job " + result.job().id()
                    + ": nothing new submitted");
            Details.job(out, result.job());
        } else {
            out.println(result.created() ? "submitted job " + result.job().id()
                    : request.uniqueKey() != null && request.idempotencyKey() == null
                    ? "job " + result.job().id() + " holds unique key " + request.uniqueKey()
                            + " and is still pending or running: nothing submitted"
                    : "job " + result.job().id() + " already exists with this idempotency key and body: nothing submitted");
            Details.job(out, result.job());
        }
    }

    /** Debounce and throttle of jobs submit (README "Flow control"). */
    private static void flowOptions(Subparser submit) {
        submit.addArgument("--debounce-key").metavar("KEY")
                .help("one-off, due now: submissions with KEY within --debounce-period collapse into one run "
                        + "(the answer names the run a submission joined)");
        submit.addArgument("--debounce-period").type(Integer.class).metavar("SECONDS")
                .help("with --debounce-key: 1-86400; trailing: the run waits this long after the last submission");
        submit.addArgument("--debounce-max-wait").type(Integer.class).metavar("SECONDS")
                .help("with --debounce-key, trailing: the run waits at most this long after the first (default 10 "
                        + "periods)");
        submit.addArgument("--debounce-edge").choices("trailing", "leading")
                .help("trailing (default: one run with the last payload after the burst) or leading (the first runs at "
                        + "once, the rest within the period join it)");
        submit.addArgument("--throttle-key").metavar("KEY")
                .help("at most --throttle-count runs sharing KEY start per --throttle-per seconds, cluster-wide");
        submit.addArgument("--throttle-count").type(Integer.class).metavar("N").help("with --throttle-key: 1-100000");
        submit.addArgument("--throttle-per").type(Integer.class).metavar("SECONDS").help("with --throttle-key: 1-86400");
    }

    /** The --debounce-* options as a debounce (the server checks them); null when none is given. */
    static io.forgeflow.client.Debounce debounce(Namespace ns) {
        String key = ns.getString("debounce_key");
        Integer period = ns.getInt("debounce_period");
        Integer maxWait = ns.getInt("debounce_max_wait");
        String edge = ns.getString("debounce_edge");
        if (key == null) {
            if (period != null || maxWait != null || edge != null) {
                throw new UsageException("--debounce-period, --debounce-max-wait and --debounce-edge need "
                        + "--debounce-key: the key the submissions share");
            }
            return null;
        }
        return new io.forgeflow.client.Debounce(key, period, maxWait, edge);
    }

    /** The --throttle-* options as a throttle (the server checks them); null when none is given. */
    static io.forgeflow.client.Throttle throttle(Namespace ns) {
        String key = ns.getString("throttle_key");
        Integer count = ns.getInt("throttle_count");
        Integer per = ns.getInt("throttle_per");
        if (key == null) {
            if (count != null || per != null) {
                throw new UsageException("--throttle-count and --throttle-per need --throttle-key: the key the runs "
                        + "share");
            }
            return null;
        }
        return new io.forgeflow.client.Throttle(key, count, per);
    }

    /** --notify-url and --notify-on as a job's notify (the server checks them); null without --notify-url. */
    private static io.forgeflow.client.Notify notices(Namespace ns) {
        String url = ns.getString("notify_url");
        String on = ns.getString("notify_on");
        if (url == null) {
            if (on != null) {
                throw new UsageException("--notify-on needs --notify-url: where the notices go");
            }
            return null;
        }
        java.util.List<String> events = on == null ? null : java.util.Arrays.stream(on.split(",")).map(String::strip).toList();
        return new io.forgeflow.client.Notify(url, events);
    }

    private void update(Namespace ns, ForgeFlowClient client, Output out) {
        JobUpdate update = JobUpdate.create();
        if (ns.getString("name") != null) {
            update.name(ns.getString("name"));
        }
        Map<String, Object> payload = payload(ns);
        if (payload != null) {
            update.payload(payload);
        }
        if (ns.getString("cron") != null) {
            update.cron(ns.getString("cron"));
        }
        if (ns.getString("timezone") != null) {
            update.timezone(ns.getString("timezone"));
        }
        if (ns.getString("run_at") != null) {
            update.runAt(runAt(ns.getString("run_at"), Instant.now()));
        }
        if (ns.getInt("priority") != null) {
            update.priority(ns.getInt("priority"));
        }
        if (ns.getInt("max_attempts") != null) {
            update.maxAttempts(ns.getInt("max_attempts"));
        }
        if (ns.getInt("timeout") != null) {
            update.timeoutSeconds(ns.getInt("timeout"));
        }
        if (ns.getString("catch_up") != null) {
            update.catchUp(ns.getString("catch_up"));
        }
        if (ns.getString("queue") != null) {
            update.queue(ns.getString("queue"));
        }
        if (ns.getString("concurrency_key") != null) {
            update.concurrencyKey(noneOr(ns.getString("concurrency_key")));
        }
        if (ns.getString("max_concurrent") != null) {
            String n = noneOr(ns.getString("max_concurrent"));
            try {
                update.maxConcurrent(n == null ? null : Integer.valueOf(n));
            } catch (NumberFormatException e) {
                throw new UsageException("--max-concurrent must be a whole number or none, was '" + n + "'");
            }
        }
        if (ns.getString("overlap") != null) {
            update.overlap(ns.getString("overlap"));
        }
        boolean retryGiven = ns.getInt("retry_base") != null || ns.getInt("retry_max") != null;
        if (retryGiven && Boolean.TRUE.equals(ns.getBoolean("retry_default"))) {
            throw new UsageException("give --retry-base/--retry-max (a policy of its own) or --retry-default (the "
                    + "server's), not both");
        }
        if (retryGiven || Boolean.TRUE.equals(ns.getBoolean("retry_default"))) {
            update.retry(ns.getInt("retry_base"), ns.getInt("retry_max"));
        }
        if (ns.getList("label") != null && Boolean.TRUE.equals(ns.getBoolean("clear_labels"))) {
            throw new UsageException("give either --label or --clear-labels, not both");
        }
        if (ns.getList("label") != null) {
            update.labels(labels(ns.getList("label")));
        } else if (Boolean.TRUE.equals(ns.getBoolean("clear_labels"))) {
            update.labels(Map.of());
        }
        if (ns.getString("start_at") != null) {
            String v = noneOr(ns.getString("start_at"));
            update.startAt(v == null ? null : time("--start-at", v, Instant.now()));
        }
        if (ns.getString("end_at") != null) {
            String v = noneOr(ns.getString("end_at"));
            update.endAt(v == null ? null : time("--end-at", v, Instant.now()));
        }
        if (ns.getString("max_runs") != null) {
            update.maxRuns(numberOrNone("--max-runs", ns.getString("max_runs")));
        }
        if (ns.getString("jitter") != null) {
            update.jitterSeconds(numberOrNone("--jitter", ns.getString("jitter")));
        }
        if (ns.getString("pause_after_failures") != null) {
            update.pauseAfterFailures(numberOrNone("--pause-after-failures", ns.getString("pause_after_failures")));
        }
        if (ns.getString("notify_url") != null) {
            update.notices(noneOr(ns.getString("notify_url")) == null ? null : notices(ns));
        } else if (ns.getString("notify_on") != null) {
            throw new UsageException("--notify-on needs --notify-url: a job's notify is replaced as a whole");
        }
        if (ns.getString("throttle_key") != null && noneOr(ns.getString("throttle_key")) == null) {
            if (ns.getInt("throttle_count") != null || ns.getInt("throttle_per") != null) {
                throw new UsageException("--throttle-key none removes the throttle: leave out --throttle-count and "
                        + "--throttle-per");
            }
            update.noThrottle();
        } else {
            io.forgeflow.client.Throttle t = throttle(ns);
            if (t != null) {
                update.throttle(t.key(), t.count(), t.perSeconds());
            }
        }
        if (update.isEmpty()) {
            throw new UsageException("jobs update changes nothing without an option: give --cron, --priority, --name, "
                    + "--payload ... (" + program + " jobs update --help)");
        }
        Job job = client.updateJob(ns.getString("id"), update, Boolean.TRUE.equals(ns.getBoolean("keep_pending")));
        if (out.json()) {
            out.json(job);
        } else {
            out.println("updated job " + job.id());
            Details.job(out, job);
        }
    }

    private static Integer numberOrNone(String option, String value) {
        String n = noneOr(value);
        try {
            return n == null ? null : Integer.valueOf(n);
        } catch (NumberFormatException e) {
            throw new UsageException(option + " must be a whole number or none, was '" + n + "'");
        }
    }

    private static String noneOr(String value) {
        return value.equalsIgnoreCase("none") ? null : value;
    }

    private void list(Namespace ns, ForgeFlowClient client, Output out) {
        io.forgeflow.client.JobFilter filter = io.forgeflow.client.JobFilter.create().status(ns.getString("status"))
                .queue(ns.getString("queue")).namePrefix(ns.getString("name_prefix"));
        labels(ns.getList("label")).forEach(filter::label);
        Page<Job> page = client.listJobs(filter, ns.getInt("limit"), ns.getString("cursor"));
        if (out.json()) {
            out.json(page);
            return;
        }
        // a TENANT column only when a job is not in the default tenant: one tenant's output stays as it was
        boolean tenants = page.items().stream().anyMatch(job -> Details.otherTenant(job.tenant()));
        Table table = tenants ? new Table("ID", "TENANT", "NAME", "EXECUTOR", "SCHEDULE", "STATUS", "NEXT RUN", "PRI>")
                : new Table("ID", "NAME", "EXECUTOR", "SCHEDULE", "STATUS", "NEXT RUN", "PRI>");
        page.items().forEach(job -> {
            if (tenants) {
                table.row(job.id(), job.tenant(), job.name(), job.executor(), Details.schedule(job), job.status(),
                        Text.time(job.nextRunAt()), job.priority());
            } else {
                table.row(job.id(), job.name(), job.executor(), Details.schedule(job), job.status(),
                        Text.time(job.nextRunAt()), job.priority());
            }
        });
        if (table.isEmpty()) {
            out.println(ns.getString("status") == null ? "no jobs" : "no " + ns.getString("status") + " jobs");
            // the filters are not repeated in the message: they are on the command line
            return;
        }
        out.table(table);
        if (page.hasMore()) {
            out.println("(more: " + program + " jobs list --cursor " + page.nextCursor() + ")");
        }
    }

    /** --depends-on ID, repeated or comma-separated, in order; blanks between commas are a usage error. */
    static java.util.List<String> dependsOn(java.util.List<Object> raw) {
        java.util.List<String> ids = new java.util.ArrayList<>();
        if (raw == null) {
            return ids;
        }
        for (Object o : raw) {
            for (String id : String.valueOf(o).split(",", -1)) {
                if (id.isBlank()) {
                    throw new UsageException("--depends-on takes job ids, repeated or comma-separated (--depends-on "
                            + "ID1,ID2), was '" + o + "'");
                }
                ids.add(id.trim());
            }
        }
        return ids;
    }

    /** --label KEY=VALUE (or KEY:VALUE), repeated; the server checks keys and values. */
    static Map<String, String> labels(java.util.List<Object> raw) {
        Map<String, String> labels = new LinkedHashMap<>();
        if (raw == null) {
            return labels;
        }
        for (Object o : raw) {
            String one = String.valueOf(o);
            int eq = one.indexOf('=');
            int colon = one.indexOf(':');
            int at = eq < 0 ? colon : colon < 0 ? eq : Math.min(eq, colon);
            if (at <= 0) {
                throw new UsageException("--label must be KEY=VALUE, such as --label team=billing, was '" + one + "'");
            }
            String key = one.substring(0, at);
            if (labels.containsKey(key)) {
                throw new UsageException("--label gives " + key + " twice: a label has one value");
            }
            labels.put(key, one.substring(at + 1));
        }
        return labels;
    }

    /** The payload from --payload (JSON or @file) with --command and --url merged in; null when none is given. */
    static Map<String, Object> payload(Namespace ns) {
        String raw = ns.getString("payload");
        Map<String, Object> payload = new LinkedHashMap<>();
        if (raw != null) {
            String json = raw;
            if (raw.startsWith("@")) {
                try {
                    json = Files.readString(Path.of(raw.substring(1)));
                } catch (IOException e) {
                    throw new UsageException("--payload " + raw + ": cannot read the file: " + e);
                }
            }
            try {
                Object parsed = new ObjectMapper().readValue(json, Object.class);
                if (!(parsed instanceof Map)) {
                    throw new UsageException("--payload must be a JSON object, like '{\"command\": \"echo hi\"}'");
                }
                payload.putAll(new ObjectMapper().convertValue(parsed, new TypeReference<Map<String, Object>>() { }));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new UsageException("--payload is not JSON: " + e.getOriginalMessage());
            }
        }
        if (ns.getString("shell_command") != null) { // not "command": Dropwizard's Cli keeps the command's name there
            payload.put("command", ns.getString("shell_command"));
        }
        if (ns.getString("url") != null) {
            payload.put("url", ns.getString("url"));
        }
        return raw == null && payload.isEmpty() ? null : payload;
    }

    /** --run-at: an RFC 3339 timestamp, or +N followed by s, m, h or d from now; null when not given. */
    static Instant runAt(String text, Instant now) {
        return time("--run-at", text, now);
    }

    /** A time option: RFC 3339, or from now (+30s, +10m, +2h, +1d); null when not given. */
    static Instant time(String option, String text, Instant now) {
        if (text == null) {
            return null;
        }
        Matcher relative = RELATIVE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (relative.matches()) {
            try {
                long n = Long.parseLong(relative.group(1));
                Duration unit = switch (relative.group(2)) {
                    case "s" -> Duration.ofSeconds(1);
                    case "m" -> Duration.ofMinutes(1);
                    case "h" -> Duration.ofHours(1);
                    default -> Duration.ofDays(1);
                };
                return now.plus(unit.multipliedBy(n));
            } catch (ArithmeticException | java.time.DateTimeException | NumberFormatException e) {
                throw new UsageException(option + " '" + text + "' is too far in the future");
            }
        }
        try {
            return OffsetDateTime.parse(text.trim()).toInstant();
        } catch (DateTimeParseException e) {
            throw new UsageException(option + " '" + text + "' is not a time: write it like 2026-12-01T09:30:00Z, or +10m");
        }
    }
}
