package io.forgeflow.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method of a Spring bean as the handler named {@link #value()}: the embedded worker calls it for every run
 * whose payload names that handler ({@code {"handler": "send-receipt", "args": {...}}}).
 *
 * <p>Parameters, in any order, each at most once: the job's {@code args} read as a record or class (Jackson; unknown
 * fields ignored) or as a {@code JsonNode}, and the attempt's {@link io.forgeflow.embedded.JobContext}. Returning
 * normally is success; throwing fails the attempt (retried while attempts remain, then dead);
 * {@link io.forgeflow.embedded.PermanentFailureException} sends the run to {@code dead} at once. The method is
 * called through the bean's proxy: {@code @Transactional} on it applies.
 *
 * <pre>{@code
 * @ForgeFlowHandler("send-receipt")
 * void sendReceipt(Receipt receipt) { mailer.send(receipt.email(), ...); }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface ForgeFlowHandler {
    /** The handler's name, 1 to 100 characters, unique in the application. */
    String value();
}
