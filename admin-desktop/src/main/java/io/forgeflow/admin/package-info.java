/** The JavaFX operations console: views, view models and a REST client; no server module on its classpath. */
package io.forgeflow.admin;
