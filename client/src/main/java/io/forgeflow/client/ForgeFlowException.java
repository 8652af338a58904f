package io.forgeflow.client;

/** Anything that went wrong talking to a ForgeFlow server: either it answered with an error, or it was not reached. */
public abstract sealed class ForgeFlowException extends RuntimeException
        permits ForgeFlowApiException, ForgeFlowUnavailableException {

    protected ForgeFlowException(String message, Throwable cause) {
        super(message, cause);
    }
}
