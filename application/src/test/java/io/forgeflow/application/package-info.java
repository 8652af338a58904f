/** Tests and fakes of the application layer. */
package io.forgeflow.application;
