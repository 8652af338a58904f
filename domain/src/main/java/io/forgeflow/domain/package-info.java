/**
 * The pure core of ForgeFlow: jobs, runs and their lifecycle, the retry policy, validation, and the ports that
 * adapters implement. Depends on nothing but {@code java.*}, so every rule here is tested without a database.
 */
package io.forgeflow.domain;
