/** The Jobs screen (a filterable, sortable list with pause, resume, trigger and confirmed cancel) and the submit form. */
package io.forgeflow.admin.jobs;
