/**
 * The command-line client ({@code java -jar forgeflow-cli.jar jobs list}, and the same commands in the node's jar):
 * commands that talk to a node over REST through the {@code client} module (never to the database), print tables for
 * people and JSON for scripts ({@code --json}), and exit with codes scripts can rely on
 * ({@link io.forgeflow.cli.ExitCodes}).
 */
package io.forgeflow.cli;
