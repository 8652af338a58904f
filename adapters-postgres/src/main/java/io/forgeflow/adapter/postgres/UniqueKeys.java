package io.forgeflow.adapter.postgres;

import java.sql.SQLException;

/** Recognises the violation of runs_live_unique_key (migration 0008) among a failed statement's causes. */
final class UniqueKeys {
    static final String LIVE_INDEX = "runs_live_unique_key";
    private static final String UNIQUE_VIOLATION = "23505";

    private UniqueKeys() {
    }

    static boolean isLiveKeyViolation(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && UNIQUE_VIOLATION.equals(sql.getSQLState())
                    && String.valueOf(sql.getMessage()).contains(LIVE_INDEX)) {
                return true;
            }
        }
        return false;
    }
}
