package io.forgeflow.spring;

/**
 * A recurring job the application declares ({@link Recurring}), or registers itself as a bean of this type.
 *
 * @param name       unique among this application's recurring jobs
 * @param handler    the handler every run calls
 * @param argsJson   the handler's args, a JSON object
 * @param overlap    {@code allow}, {@code skip}, {@code queue_one} or {@code cancel_running}
 * @param catchUp    {@code skip} or {@code once}
 * @param declaredOn where it was declared, for messages
 */
public record RecurringDefinition(String name, String handler, String cron, String zone, String overlap,
                                  String catchUp, String argsJson, String queue, int priority, int maxAttempts,
                                  int timeoutSeconds, String declaredOn) {

    static RecurringDefinition of(Recurring r, String handler, String declaredOn) {
        return new RecurringDefinition(r.name(), handler, r.cron(), r.zone(), r.overlap().value(), r.catchUp().value(),
                r.args(), r.queue(), r.priority(), r.maxAttempts(), r.timeoutSeconds(), declaredOn);
    }
}
