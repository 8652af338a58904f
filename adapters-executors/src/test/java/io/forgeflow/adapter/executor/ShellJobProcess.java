package io.forgeflow.adapter.executor;

import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutorSettings;

import java.time.Duration;
import java.util.Map;

/**
 * A worker's JVM in miniature for tests that kill or freeze it: runs one shell attempt.
 * Arguments: {@code detected|process-group}, the supervisor silence in ms, the command.
 */
public final class ShellJobProcess {
    private ShellJobProcess() {
    }

    public static void main(String[] args) {
        ShellRunExecutor.Settings settings = ShellRunExecutor.Settings.defaults();
        if (args[0].equals("detected")) {
            settings = settings.detected(null);
        }
        ShellRunExecutor shell = new ShellRunExecutor(settings);
        shell.configure(new ExecutorSettings(true, Duration.ofMillis(Long.parseLong(args[1]))));
        System.out.println("containment " + shell.containment().label());
        System.out.flush();
        shell.execute(new ExecutionContext("run-1", "job-1", 1, Map.of("command", args[2]), Duration.ofMinutes(10),
                new io.forgeflow.domain.execution.Cancellation(), ExecutionContext.DEFAULT_MAX_OUTPUT_BYTES));
    }
}
