/**
 * The ForgeFlow Spring Boot starter: {@link io.forgeflow.spring.ForgeFlow} to enqueue in the current transaction,
 * {@link io.forgeflow.spring.ForgeFlowHandler} and {@link io.forgeflow.spring.Recurring} methods, the embedded worker
 * as a lifecycle bean ({@link io.forgeflow.spring.ForgeFlowAutoConfiguration}).
 */
package io.forgeflow.spring;
