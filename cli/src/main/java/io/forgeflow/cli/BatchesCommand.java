package io.forgeflow.cli;

import io.forgeflow.client.Batch;
import io.forgeflow.client.BatchRequest;
import io.forgeflow.client.BatchSubmitResult;
import io.forgeflow.client.ForgeFlowClient;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** {@code forgeflow batches submit|get}: many jobs in one transaction, and their progress. */
final class BatchesCommand extends ClientCommand {
    static final int BAR = 30;

    BatchesCommand(Terminal terminal, String program) {
        super("batches", "submit jobs together, with dependencies between them, and follow their progress (submit, get)",
                terminal, program);
    }

    @Override
    public void configure(Subparser command) {
        command.help(getDescription());
        Subparsers actions = actions(command);
        Subparser submit = action(actions, "submit", "create the jobs of FILE in one transaction, all or nothing "
                + "(POST /api/batches); prints the batch id and the job ids. FILE is the request body: {\"name\": ..., "
                + "\"idempotency_key\": ..., \"jobs\": [{\"ref\": \"a\", \"name\": ..., \"executor\": ..., \"payload\": "
                + "{...}}, {\"ref\": \"b\", ..., \"depends_on\": [\"a\"]}], \"on_complete\": {...}} (docs/API.md, Workflows)");
        submit.addArgument("file").metavar("FILE.json").help("the batch as JSON");
        submit.addArgument("-q", "--quiet").action(Arguments.storeTrue())
                .help("print only the batch id, then each job id on a line of its own, in the order of the file");
        ids(action(actions, "get", "show the progress of batches (GET /api/batches/{id}): their jobs counted by the "
                + "status of their latest run, and whether the batch has completed"), "batch");
    }

    @Override
    void execute(Namespace ns, ForgeFlowClient client, Output out) {
        switch (ns.getString(ACTION)) {
            case "submit" -> submit(ns, client, out);
            case "get" -> eachId(ns, out, client::getBatch, (id, batch) -> {
                progress(out, batch);
                if (ns.getList("ids").size() > 1) {
                    out.println("");
                }
            });
            default -> throw new UsageException("unknown action " + ns.getString(ACTION));
        }
    }

    /** The file as a request; a file that cannot be read or is not a JSON object is a usage error. */
    static BatchRequest read(String file) {
        String text;
        try {
            text = Files.readString(Path.of(file));
        } catch (IOException | java.nio.file.InvalidPathException e) {
            throw new UsageException(file + ": cannot read the file: " + e);
        }
        try {
            return BatchRequest.fromJson(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException(file + ": " + e.getMessage());
        }
    }

    private void submit(Namespace ns, ForgeFlowClient client, Output out) {
        BatchSubmitResult result = client.submitBatch(read(ns.getString("file")));
        Batch batch = result.batch();
        if (out.json()) {
            out.json(batch);
            return;
        }
        if (Boolean.TRUE.equals(ns.getBoolean("quiet"))) {
            out.println(batch.id());
            batch.jobIds().forEach(out::println);
            return;
        }
        out.println(result.created() ? "submitted batch " + batch.id() + " (" + batch.jobIds().size() + " jobs)"
                : "batch " + batch.id() + " already exists with this idempotency key and body: nothing submitted");
        jobs(out, batch);
        if (batch.onCompleteJobId() != null) {
            out.println("on complete: job " + batch.onCompleteJobId());
        }
        out.println("(progress: " + program + " batches get " + batch.id() + ")");
    }

    /** The job ids in the order of the request, each with its ref. */
    static void jobs(Output out, Batch batch) {
        Map<String, String> refOf = new HashMap<>();
        batch.refs().forEach((ref, id) -> refOf.put(id, ref));
        Table table = new Table("#>", "REF", "JOB ID");
        List<String> ids = batch.jobIds();
        for (int i = 0; i < ids.size(); i++) {
            table.row(i, refOf.get(ids.get(i)), ids.get(i));
        }
        if (!table.isEmpty()) {
            out.table(table);
        }
    }

    /** A batch's details, a bar of its ended jobs, and its jobs by status. */
    static void progress(Output out, Batch batch) {
        new Details()
                .field("id", batch.id())
                .field("name", batch.name())
                .field("status", batch.status())
                .field("idempotency", batch.idempotencyKey())
                .field("created", Text.time(batch.createdAt()))
                .field("completed", Text.time(batch.completedAt()))
                .field("on complete", batch.onCompleteJobId() == null ? null : "job " + batch.onCompleteJobId())
                .field("progress", bar(batch))
                .print(out);
        out.println("");
        Table table = new Table("STATUS", "JOBS>");
        table.row("waiting", batch.waiting()).row("pending", batch.pending()).row("running", batch.running())
                .row("succeeded", batch.succeeded()).row("dead", batch.dead()).row("cancelled", batch.cancelled())
                .row("total", batch.total());
        out.table(table);
    }

    /** {@code [#########---------------------] 3/10 ended (30%)}. */
    static String bar(Batch batch) {
        long total = batch.total();
        long ended = Math.min(batch.ended(), total);
        int filled = total == 0 ? 0 : (int) (ended * BAR / total);
        long percent = total == 0 ? 100 : ended * 100 / total;
        return "[" + "#".repeat(filled) + "-".repeat(BAR - filled) + "] " + ended + "/" + total + " ended (" + percent
                + "%)";
    }
}
