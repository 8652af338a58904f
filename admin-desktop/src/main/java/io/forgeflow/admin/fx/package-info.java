/**
 * JavaFX glue the views share: the FX-thread executor and ticker the view models run on in the app, table and
 * message helpers, and PNG snapshots of a scene.
 */
package io.forgeflow.admin.fx;
