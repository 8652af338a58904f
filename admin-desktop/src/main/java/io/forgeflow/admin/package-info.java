/**
 * The JavaFX operations console of ForgeFlow. It speaks the REST contract only (through the project's client module),
 * never a server module.
 *
 * <p>Where to look: each screen is a package with a View (layout and bindings only) and a ViewModel (observable state
 * and commands, no {@code javafx.scene}): {@code connect}, {@code overview}, {@code jobs} (list and submit form),
 * {@code runs} (list and detail), {@code deadletters}; {@code console} owns them all while connected. View models talk
 * to the cluster through {@link io.forgeflow.admin.cluster.ClusterClient} and run every call off the FX thread with
 * {@link io.forgeflow.admin.support.Async}. {@link io.forgeflow.admin.AdminApp} wires it together.
 */
package io.forgeflow.admin;
