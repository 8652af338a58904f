/** The connect screen: server URL and optional API token, remembered between sessions, with clear failure messages. */
package io.forgeflow.admin.connect;
