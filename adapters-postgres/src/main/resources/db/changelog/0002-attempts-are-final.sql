--liquibase formatted sql

-- An attempt row is written when the attempt starts and once more when it ends; after that it is history and is
-- never rewritten (RunQueue's statements also guard with "outcome IS NULL"; this trigger makes it a rule).

--changeset forgeflow:0002-attempts-are-final splitStatements:false
CREATE FUNCTION run_attempts_reject_rewrite() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'attempt % of run % already ended (%); attempt rows are never rewritten',
        OLD.attempt, OLD.run_id, OLD.outcome
        USING ERRCODE = 'check_violation';
END
$$;
CREATE TRIGGER run_attempts_final
    BEFORE UPDATE ON run_attempts
    FOR EACH ROW WHEN (OLD.outcome IS NOT NULL)
    EXECUTE FUNCTION run_attempts_reject_rewrite();
--rollback DROP TRIGGER run_attempts_final ON run_attempts;
--rollback DROP FUNCTION run_attempts_reject_rewrite();
