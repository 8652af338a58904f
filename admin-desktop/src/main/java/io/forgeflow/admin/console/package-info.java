/** The connected console: one view model that owns every screen's view model and moves between screens. */
package io.forgeflow.admin.console;
