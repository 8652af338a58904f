package io.forgeflow.application.job;

import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.job.CatchUp;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.util.Optional;

/** What the job control use cases share: loading a job and compare-and-set with one retry on a race. */
final class JobControls {
    private JobControls() {
    }

    static Job load(JobRepository jobs, String id) {
        return jobs.find(id).orElseThrow(() -> new NotFoundException("job", id));
    }

    static ConflictException illegal(Job job, String action) {
        return new ConflictException("job " + job.id() + " is " + job.status().wireName() + " and cannot be " + action
                + (job.status() == JobStatus.CANCELLED ? ": cancellation is permanent; submit a new job instead"
                : job.status() == JobStatus.COMPLETED ? ": its one-off run has ended; trigger it or submit a new job"
                : job.status() == JobStatus.DELETED ? ": it was deleted; submit a new job instead" : ""));
    }

    /** A compare-and-set that lost a race: someone changed the job in between. */
    static ConflictException raced(String id) {
        return new ConflictException("job " + id + " changed while this request ran; read it again and retry");
    }

    static Job orRaced(Optional<JobRepository.JobChange> changed, String id) {
        return changed.map(JobRepository.JobChange::job).orElseThrow(() -> raced(id));
    }

    /** Records the run span of each run the change cancelled (running ones end when their workers stop them). */
    static Optional<JobRepository.JobChange> traced(Tracing tracing, Optional<JobRepository.JobChange> changed) {
        if (tracing != Tracing.NONE) {
            changed.ifPresent(change -> {
                for (Run run : change.runs()) {
                    if (run.status() == RunStatus.CANCELLED) {
                        tracing.runEnded(run, RunStatus.CANCELLED, run.error());
                    }
                }
            });
        }
        return changed;
    }

    static boolean catchesUpOnce(Job job) {
        return job.spec().catchUp() == CatchUp.ONCE;
    }
}
