/**
 * Toolkit-free plumbing the view models share: where work runs ({@link io.forgeflow.admin.support.UiExecutor},
 * {@link io.forgeflow.admin.support.Async}, {@link io.forgeflow.admin.support.Ticker}), how failures read to an
 * operator ({@link io.forgeflow.admin.support.Problems}), time formatting, remembered settings, and secret masking.
 */
package io.forgeflow.admin.support;
