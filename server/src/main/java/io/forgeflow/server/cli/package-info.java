/**
 * The command-line client in the node's jar ({@code java -jar forgeflow.jar jobs list}): Dropwizard commands that
 * talk to a node over REST through the {@code client} module (never to the database), print tables for people and
 * JSON for scripts ({@code --json}), and exit with codes scripts can rely on ({@link io.forgeflow.server.cli.ExitCodes}).
 */
package io.forgeflow.server.cli;
